#include "tools/netstack/fetch_cache.h"

#include <cstdio>

#include "cache/memory_backend.h"
#include "tools/netstack/cache_display.h"
#include "tools/netstack/cache_loop.h"
#include "tools/netstack/terminal_text.h"

namespace netstack {
namespace {

void Warn(const std::string& message) {
  std::fprintf(stderr, "netstack: warning: %s\n", TerminalSafe(message).c_str());
}

}  // namespace

FetchCache OpenFetchCache(const FetchOptions& o, LiveStack* stack,
                          const std::function<const char*(const char*)>& getenv) {
  FetchCache cache;
  if (o.no_cache) return cache;
  CacheConfig config;
  config.eviction = o.cache_eviction;
  if (o.private_mode) {
    config.max_bytes = o.cache_size > 0 ? o.cache_size : kDefaultMemoryCacheSize;
    cache.backend = std::make_unique<MemoryBackend>(stack->scheduler(), stack->clock(), config);
    return cache;
  }
  // 0 (no --cache-size): the backend sizes itself against the free space (at most 320 MiB);
  // a given size is kept as long as it fits in 80% of what is free above the margin.
  config.max_bytes = o.cache_size;
  const char* disabled = "; cache disabled for this run";
  std::string dir = o.profile_dir.empty() ? DefaultProfileDir(getenv) : o.profile_dir;
  if (dir.empty()) {
    Warn(std::string("no profile directory (give --profile DIR, or set XDG_CACHE_HOME or HOME)") +
         disabled);
    return cache;
  }
  std::string message;
  if (Profile::Open(dir, /*create=*/true, &cache.profile, &message) != Profile::Status::kOk) {
    Warn(message + disabled);
    return cache;
  }
  OpenedDiskCache opened = OpenDiskCache(stack->loop(), stack->poster(), stack->clock(),
                                         cache.profile->cache_dir(), config,
                                         /*watch_disk_space=*/true);
  if (opened.result != OK || !opened.backend) {
    Warn("cannot open the cache in " + cache.profile->cache_dir() + ": " + opened.message +
         disabled);
    cache.profile.reset();
    return cache;
  }
  // A damaged database was moved aside: the cache starts empty, the run goes on.
  if (!opened.message.empty()) Warn(opened.message);
  cache.backend = std::move(opened.backend);
  return cache;
}

}  // namespace netstack
