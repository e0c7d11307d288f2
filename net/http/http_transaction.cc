#include "net/http/http_transaction.h"

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

}  // namespace netstack
