// Exact counts of what the C libraries allocate, for the Memory view. Installs counting
// allocators with each library's own hook (CRYPTO_set_mem_functions, uv_replace_allocator,
// ares_library_init_mem); they forward to malloc and keep a byte count (malloc_usable_size).
// sqlite needs no hook: sqlite3_memory_used() reports its own.
//
// The hooks must be installed before the library allocates anything, so `netstack`'s main()
// calls InstallLibraryAllocationCounters() first. When a hook cannot be installed (a library
// already allocated), that library's count is reported as unavailable, never guessed.
#ifndef TOOLS_INTERNALS_LIBRARY_MEMORY_H_
#define TOOLS_INTERNALS_LIBRARY_MEMORY_H_

#include <cstdint>

namespace netstack {

// Installs the hooks once (later calls do nothing). Returns true if every hook took.
bool InstallLibraryAllocationCounters();

struct LibraryMemory {
  // -1 when that library's hook is not installed.
  int64_t openssl = -1;
  int64_t libuv = -1;
  int64_t cares = -1;
  int64_t sqlite = 0;  // sqlite3_memory_used()
};
LibraryMemory GetLibraryMemory();

}  // namespace netstack

#endif  // TOOLS_INTERNALS_LIBRARY_MEMORY_H_
