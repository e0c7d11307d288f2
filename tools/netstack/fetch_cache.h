// Which cache `netstack fetch` runs with (docs/fetch.md): none (--no-cache), a MemoryBackend
// (--private), or the profile's DiskBackend. A profile that cannot be used degrades to no cache
// with a one-line warning: a fetch never fails because of its cache.
#ifndef TOOLS_NETSTACK_FETCH_CACHE_H_
#define TOOLS_NETSTACK_FETCH_CACHE_H_

#include <memory>
#include <string>

#include "cache/backend.h"
#include "net/http/live_stack.h"
#include "tools/netstack/fetch_options.h"
#include "tools/netstack/profile.h"

namespace netstack {

struct FetchCache {
  // Held (locked) while the backend lives; destroy the backend first.
  std::unique_ptr<Profile> profile;
  // Null: run without an HTTP cache (every record says "bypass").
  std::unique_ptr<CacheBackend> backend;
};

// Opens the cache `options` ask for on `stack`'s loop, waiting for the disk backend's thread to
// open its database. Prints "netstack: warning: ..." lines on stderr for a profile in use,
// unusable or unopenable (then returns no backend) and for a damaged database that was moved
// aside (then returns the new, empty cache). `getenv` gives the environment for the default
// profile directory.
FetchCache OpenFetchCache(const FetchOptions& options, LiveStack* stack,
                          const std::function<const char*(const char*)>& getenv);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_FETCH_CACHE_H_
