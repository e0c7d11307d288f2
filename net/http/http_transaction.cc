#include "net/http/http_transaction.h"

#include <utility>

namespace netstack {

const char* CacheDispositionName(CacheDisposition disposition) {
  switch (disposition) {
    case CacheDisposition::kBypass:
      return "bypass";
    case CacheDisposition::kMiss:
      return "miss";
    case CacheDisposition::kHit:
      return "hit";
    case CacheDisposition::kRevalidated:
      return "revalidated";
    case CacheDisposition::kStale:
      return "stale";
  }
  return "bypass";
}

namespace {

constexpr std::pair<RequestCacheMode, const char*> kCacheModeNames[] = {
    {RequestCacheMode::kDefault, "default"},
    {RequestCacheMode::kNoStore, "no-store"},
    {RequestCacheMode::kReload, "reload"},
    {RequestCacheMode::kNoCache, "no-cache"},
    {RequestCacheMode::kForceCache, "force-cache"},
    {RequestCacheMode::kOnlyIfCached, "only-if-cached"},
};

}  // namespace

const char* RequestCacheModeName(RequestCacheMode mode) {
  for (const auto& [m, name] : kCacheModeNames) {
    if (m == mode) return name;
  }
  return "default";
}

bool ParseRequestCacheMode(std::string_view text, RequestCacheMode* mode) {
  for (const auto& [m, name] : kCacheModeNames) {
    if (text == name) {
      *mode = m;
      return true;
    }
  }
  return false;
}

}  // namespace netstack
