// How large the disk cache may grow on the file system it lives on (Chrome's
// net/disk_cache/cache_util.cc PreferredCacheSize, plus a free-space margin): pure functions of
// a DiskSpace reading, so tests need no disk. The disk backend applies the choice at open and
// after each space check (disk_space.h), evicting down to the new limit.
//
// With `available` = the free space above the margin plus what the cache itself holds (space
// it could give back, as Chrome's blockfile backend counts it):
//   - no size given (auto): PreferredCacheSize(available), at most kMaxAutoDiskCacheBytes;
//   - a size given (--cache-size): that size, but at most 80% of `available`.
// Below the margin (free space < margin) the cache is "low on space": it stores nothing new,
// and its limit (80% of what it holds, or less) makes it give space back by eviction.
#ifndef CACHE_CACHE_SIZE_POLICY_H_
#define CACHE_CACHE_SIZE_POLICY_H_

#include <cstdint>

#include "cache/disk_space.h"

namespace netstack {

// Chrome's kDefaultCacheSize, and the disk cache's size when the free space is unknown.
constexpr int64_t kDefaultDiskCacheBytes = int64_t{80} << 20;
// The largest size chosen automatically: 4 × the default (Chrome's size_limit).
constexpr int64_t kMaxAutoDiskCacheBytes = 4 * kDefaultDiskCacheBytes;
// The free space the cache leaves to everyone else: 2% of the file system, at least
// kMinFreeSpaceMargin, at most kMaxFreeSpaceMargin.
constexpr int64_t kMinFreeSpaceMargin = int64_t{1} << 20;
constexpr int64_t kMaxFreeSpaceMargin = int64_t{256} << 20;
constexpr int64_t kFreeSpaceMarginDivisor = 50;

// Chrome's tiers for `available` bytes (negative counts as 0), with D = kDefaultDiskCacheBytes:
// under 1.25·D, 80% of it; under 10·D, D; under 25·D, 10%; under 250·D, 2.5·D; else 1%; then
// at most kMaxAutoDiskCacheBytes. Never overflows.
int64_t PreferredCacheSize(int64_t available);

// The margin for a file system of `total_bytes` (unknown or tiny: kMinFreeSpaceMargin).
int64_t FreeSpaceMargin(int64_t total_bytes);

struct CacheSizeChoice {
  int64_t max_bytes = 0;     // the limit eviction keeps (0: keep nothing)
  int64_t margin_bytes = 0;  // 0 when the space is unknown
  bool low_space = false;    // free space below the margin: store nothing new
};

// The limit for a cache holding `cache_bytes` (its index total) on a file system with `space`.
// `configured_max` > 0 is the user's size; <= 0 means auto. Unknown space: the configured size,
// or kDefaultDiskCacheBytes, and never low on space.
CacheSizeChoice ChooseCacheSize(int64_t configured_max, const DiskSpace& space,
                                int64_t cache_bytes);

}  // namespace netstack

#endif  // CACHE_CACHE_SIZE_POLICY_H_
