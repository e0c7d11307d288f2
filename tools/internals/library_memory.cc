// Counting allocators for OpenSSL, libuv and c-ares (see library_memory.h).
//
// Each hook forwards to the C allocator and adds or subtracts the block's malloc_usable_size,
// so the count is the bytes the library holds, including malloc's rounding up (under ASan,
// malloc_usable_size is intercepted and gives the size asked for). The counts are atomics:
// OpenSSL allocates on whichever thread uses it, libuv on its thread pool, c-ares on the loop.
//
// Each library must get its hook before it allocates anything, or a block allocated by plain
// malloc would later be freed through the hook and the count would go wrong. OpenSSL refuses
// the hook once it has allocated (CRYPTO_set_mem_functions returns 0). libuv and c-ares 1.18
// never refuse (uv_replace_allocator only checks for null functions; ares_library_init_mem
// replaces the functions even when the library is already initialised, and on Linux
// ares_library_initialized() always says yes, so it cannot tell): their hooks are trusted to come
// first, as main() calls this first. If one came late anyway, a block malloc'd before it may be
// freed through it; a count that goes below zero is that evidence, and is reported as
// unavailable (-1) rather than as a wrong figure.
#include "tools/internals/library_memory.h"

#include <ares.h>
#include <malloc.h>
#include <openssl/crypto.h>
#include <sqlite3.h>
#include <uv.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

namespace netstack {
namespace {

// The counts, and whether each hook took.
struct Counter {
  std::atomic<int64_t> bytes{0};
  std::atomic<bool> installed{false};
};
Counter g_openssl;
Counter g_libuv;
Counter g_cares;

int64_t UsableSize(void* ptr) { return ptr ? static_cast<int64_t>(malloc_usable_size(ptr)) : 0; }

void* CountedMalloc(Counter& counter, size_t size) {
  void* ptr = std::malloc(size);
  counter.bytes.fetch_add(UsableSize(ptr), std::memory_order_relaxed);
  return ptr;
}

void* CountedCalloc(Counter& counter, size_t count, size_t size) {
  void* ptr = std::calloc(count, size);
  counter.bytes.fetch_add(UsableSize(ptr), std::memory_order_relaxed);
  return ptr;
}

// realloc(ptr, 0) frees and returns null here (the libraries' documented expectation), rather
// than relying on glibc's implementation-defined behaviour.
void* CountedRealloc(Counter& counter, void* ptr, size_t size) {
  if (!ptr) return CountedMalloc(counter, size);
  const int64_t before = UsableSize(ptr);
  if (size == 0) {
    counter.bytes.fetch_sub(before, std::memory_order_relaxed);
    std::free(ptr);
    return nullptr;
  }
  void* moved = std::realloc(ptr, size);
  if (!moved) return nullptr;  // the old block is untouched and still counted
  counter.bytes.fetch_add(UsableSize(moved) - before, std::memory_order_relaxed);
  return moved;
}

void CountedFree(Counter& counter, void* ptr) {
  if (!ptr) return;
  counter.bytes.fetch_sub(UsableSize(ptr), std::memory_order_relaxed);
  std::free(ptr);
}

// OpenSSL 3: (size, file, line).
void* OpensslMalloc(size_t size, const char*, int) { return CountedMalloc(g_openssl, size); }
void* OpensslRealloc(void* ptr, size_t size, const char*, int) {
  return CountedRealloc(g_openssl, ptr, size);
}
void OpensslFree(void* ptr, const char*, int) { CountedFree(g_openssl, ptr); }

void* UvMalloc(size_t size) { return CountedMalloc(g_libuv, size); }
void* UvRealloc(void* ptr, size_t size) { return CountedRealloc(g_libuv, ptr, size); }
void* UvCalloc(size_t count, size_t size) { return CountedCalloc(g_libuv, count, size); }
void UvFree(void* ptr) { CountedFree(g_libuv, ptr); }

void* AresMalloc(size_t size) { return CountedMalloc(g_cares, size); }
void* AresRealloc(void* ptr, size_t size) { return CountedRealloc(g_cares, ptr, size); }
void AresFree(void* ptr) { CountedFree(g_cares, ptr); }

bool InstallOnce() {
  if (CRYPTO_set_mem_functions(OpensslMalloc, OpensslRealloc, OpensslFree) == 1)
    g_openssl.installed = true;
  if (uv_replace_allocator(UvMalloc, UvRealloc, UvCalloc, UvFree) == 0) g_libuv.installed = true;
  // Our ares_library_init_mem reference is never released, so a later ares_library_cleanup
  // (AresDnsTransport's at exit) cannot put the default allocator back under live blocks.
  if (ares_library_init_mem(ARES_LIB_INIT_ALL, AresMalloc, AresFree, AresRealloc) == ARES_SUCCESS)
    g_cares.installed = true;
  return g_openssl.installed && g_libuv.installed && g_cares.installed;
}

int64_t CountOrUnavailable(const Counter& counter) {
  if (!counter.installed) return -1;
  const int64_t bytes = counter.bytes.load(std::memory_order_relaxed);
  return bytes < 0 ? -1 : bytes;
}

}  // namespace

bool InstallLibraryAllocationCounters() {
  static std::once_flag once;
  static bool all_installed = false;
  std::call_once(once, [] { all_installed = InstallOnce(); });
  return all_installed;
}

LibraryMemory GetLibraryMemory() {
  LibraryMemory memory;
  memory.openssl = CountOrUnavailable(g_openssl);
  memory.libuv = CountOrUnavailable(g_libuv);
  memory.cares = CountOrUnavailable(g_cares);
  memory.sqlite = sqlite3_memory_used();
  return memory;
}

}  // namespace netstack
