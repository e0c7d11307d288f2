#include "cache/cache_size_policy.h"

#include <algorithm>
#include <limits>

namespace netstack {
namespace {

// `value` × num / den for num < den, without overflowing.
int64_t Fraction(int64_t value, int64_t num, int64_t den) {
  return value / den * num + value % den * num / den;
}

int64_t SaturatedAdd(int64_t a, int64_t b) {
  return a > std::numeric_limits<int64_t>::max() - b ? std::numeric_limits<int64_t>::max() : a + b;
}

}  // namespace

int64_t PreferredCacheSize(int64_t available) {
  constexpr int64_t kDefault = kDefaultDiskCacheBytes;
  available = std::max<int64_t>(available, 0);
  int64_t size;
  if (available < kDefault / 4 * 5) {
    size = Fraction(available, 8, 10);  // not enough room for the default: 80% of it
  } else if (available < kDefault * 10) {
    size = kDefault;  // the default is 10% to 80% of the space
  } else if (available < kDefault * 25) {
    size = available / 10;  // 10%, up to 2.5 × the default
  } else if (available < kDefault * 250) {
    size = kDefault / 2 * 5;  // 2.5 × the default is 1% to 10% of the space
  } else {
    size = available / 100;  // 1%
  }
  return std::min(size, kMaxAutoDiskCacheBytes);
}

int64_t FreeSpaceMargin(int64_t total_bytes) {
  return std::clamp(total_bytes / kFreeSpaceMarginDivisor, kMinFreeSpaceMargin,
                    kMaxFreeSpaceMargin);
}

CacheSizeChoice ChooseCacheSize(int64_t configured_max, const DiskSpace& space,
                                int64_t cache_bytes) {
  CacheSizeChoice choice;
  if (!space.known()) {
    choice.max_bytes = configured_max > 0 ? configured_max : kDefaultDiskCacheBytes;
    return choice;
  }
  choice.margin_bytes = FreeSpaceMargin(space.total_bytes);
  choice.low_space = space.free_bytes < choice.margin_bytes;
  const int64_t available =
      SaturatedAdd(std::max<int64_t>(space.free_bytes - choice.margin_bytes, 0),
                   std::max<int64_t>(cache_bytes, 0));
  choice.max_bytes = configured_max > 0 ? std::min(configured_max, Fraction(available, 8, 10))
                                        : PreferredCacheSize(available);
  return choice;
}

}  // namespace netstack
