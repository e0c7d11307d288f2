// The cache's share of its file system (cache/cache_size_policy.h) and the disk backend living
// within it: sized at open, re-read at a bounded rate, storing nothing below the margin, giving
// space back by eviction. The free space comes from a FakeDiskSpaceSource; the real full disk is
// disk_full_test.cc's.
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "cache/cache_size_policy.h"
#include "cache/disk_worker.h"
#include "tests/cache/disk_test_util.h"

namespace netstack {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

DiskSpace Space(int64_t free_bytes, int64_t total_bytes) {
  DiskSpace space;
  space.free_bytes = free_bytes;
  space.total_bytes = total_bytes;
  return space;
}

TEST_CASE("PreferredCacheSize follows Chrome's tiers and cap", "[cache][space]") {
  CHECK(PreferredCacheSize(-5) == 0);
  CHECK(PreferredCacheSize(0) == 0);
  CHECK(PreferredCacheSize(50 * kMiB) == 40 * kMiB);       // under 100 MiB: 80%
  CHECK(PreferredCacheSize(100 * kMiB - 10) < 80 * kMiB);  // still 80%
  CHECK(PreferredCacheSize(100 * kMiB) == 80 * kMiB);      // the default, up to 800 MiB
  CHECK(PreferredCacheSize(799 * kMiB) == 80 * kMiB);
  CHECK(PreferredCacheSize(1000 * kMiB) == 100 * kMiB);  // 10%, up to 2000 MiB
  CHECK(PreferredCacheSize(1999 * kMiB) == 1999 * kMiB / 10);
  CHECK(PreferredCacheSize(2000 * kMiB) == 200 * kMiB);  // 2.5 × default, up to 20000 MiB
  CHECK(PreferredCacheSize(19999 * kMiB) == 200 * kMiB);
  CHECK(PreferredCacheSize(25000 * kMiB) == 250 * kMiB);              // 1%
  CHECK(PreferredCacheSize(40000 * kMiB) == kMaxAutoDiskCacheBytes);  // 1% capped at 320 MiB
  CHECK(PreferredCacheSize(std::numeric_limits<int64_t>::max()) == kMaxAutoDiskCacheBytes);
}

TEST_CASE("the free-space margin is 2% of the file system, within its floor and cap",
          "[cache][space]") {
  CHECK(FreeSpaceMargin(-1) == kMinFreeSpaceMargin);
  CHECK(FreeSpaceMargin(8 * kMiB) == kMinFreeSpaceMargin);
  CHECK(FreeSpaceMargin(1000 * kMiB) == 20 * kMiB);
  CHECK(FreeSpaceMargin(int64_t{1} << 40) == kMaxFreeSpaceMargin);
  CHECK(FreeSpaceMargin(std::numeric_limits<int64_t>::max()) == kMaxFreeSpaceMargin);
}

TEST_CASE("ChooseCacheSize: auto, a user's size, unknown space and low space", "[cache][space]") {
  SECTION("unknown space keeps the configured size or the default, never low") {
    CacheSizeChoice c = ChooseCacheSize(0, DiskSpace{}, 0);
    CHECK(c.max_bytes == kDefaultDiskCacheBytes);
    CHECK_FALSE(c.low_space);
    CHECK(ChooseCacheSize(5 * kMiB, DiskSpace{}, 0).max_bytes == 5 * kMiB);
  }
  SECTION("auto: Chrome's size of the space above the margin plus what the cache holds") {
    // 1000 MiB file system: 20 MiB margin.
    CacheSizeChoice c = ChooseCacheSize(0, Space(500 * kMiB, 1000 * kMiB), 30 * kMiB);
    CHECK(c.margin_bytes == 20 * kMiB);
    CHECK(c.max_bytes == PreferredCacheSize(510 * kMiB));
    CHECK_FALSE(c.low_space);
    CHECK(ChooseCacheSize(0, Space(60 * kMiB, 1000 * kMiB), 0).max_bytes == 32 * kMiB);
  }
  SECTION("a user's size is kept while it fits in 80% of the available space") {
    CHECK(ChooseCacheSize(64 * kMiB, Space(500 * kMiB, 1000 * kMiB), 0).max_bytes == 64 * kMiB);
    CHECK(ChooseCacheSize(600 * kMiB, Space(500 * kMiB, 1000 * kMiB), 0).max_bytes ==
          480 * kMiB * 8 / 10);
  }
  SECTION("below the margin: low, and the limit is under what the cache holds") {
    CacheSizeChoice c = ChooseCacheSize(0, Space(10 * kMiB, 1000 * kMiB), 50 * kMiB);
    CHECK(c.low_space);
    CHECK(c.max_bytes == 40 * kMiB);
    CacheSizeChoice empty = ChooseCacheSize(64 * kMiB, Space(0, 1000 * kMiB), 0);
    CHECK(empty.low_space);
    CHECK(empty.max_bytes == 0);
  }
  SECTION("huge values do not overflow") {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    CacheSizeChoice c = ChooseCacheSize(kMax, Space(kMax, kMax), kMax);
    CHECK(c.max_bytes > 0);
    CHECK(ChooseCacheSize(0, Space(kMax, kMax), kMax).max_bytes == kMaxAutoDiskCacheBytes);
  }
}

// A fake file system: 1000 MiB (20 MiB margin) with `free_mib` free.
struct FakeDisk {
  explicit FakeDisk(int64_t free_mib) {
    space.free_bytes = free_mib * kMiB;
    space.total_bytes = 1000 * kMiB;
  }
  FakeDiskSpaceSource space;
};

CacheConfig AutoConfig() {
  CacheConfig config;
  config.max_bytes = 0;  // auto
  return config;
}

// Creates and commits an entry; the commit's result.
int StoreNow(DiskHarness& h, const std::string& key, size_t body_bytes) {
  return Store(h, key, "h", MakeBody(body_bytes, static_cast<int>(key.size())));
}

TEST_CASE("DiskBackend sizes itself against the free space at open", "[cache][space]") {
  FakeDisk disk(60);
  DiskHarness h(AutoConfig(), nullptr, nullptr, &disk.space);
  REQUIRE(h.disk() != nullptr);
  CacheStats stats = h.backend().GetStats();
  CHECK(disk.space.queries == 1);
  CHECK(stats.space_checks == 1);
  CHECK(stats.free_space_margin_bytes == 20 * kMiB);
  // The reserve file was made from the free space (60 - 1 MiB), then 80% of what is above
  // the margin.
  CHECK(ListDir(h.dir() + "/cache").size() > 0);
  CHECK(stats.disk_free_bytes == 59 * kMiB);
  CHECK(stats.max_bytes == 39 * kMiB * 8 / 10);
  CHECK(h.disk()->config().entry_limit() == stats.max_bytes / 8);
  CHECK_FALSE(stats.low_space);
}

TEST_CASE("DiskBackend reads the free space at a bounded rate, not per write", "[cache][space]") {
  FakeDisk disk(900);
  DiskHarness h(AutoConfig(), nullptr, nullptr, &disk.space);
  REQUIRE(h.disk() != nullptr);
  // 64 entries of 64 KiB: 4 MiB committed with the clock standing still.
  for (int i = 0; i < 64; ++i) REQUIRE(StoreNow(h, "k" + std::to_string(i), 64 * 1024) == OK);
  REQUIRE(FlushSync(h) == OK);
  const int64_t committed = h.backend().GetSizeOfAllEntries();
  const int bound = 1 + static_cast<int>(committed / DiskBackend::kSpaceCheckBytes);
  CHECK(disk.space.queries >= 2);  // read again as bytes were committed
  CHECK(disk.space.queries <= bound);
  // Time alone also brings a reading, at the next create.
  const int before = disk.space.queries;
  h.clock().Advance(DiskBackend::kSpaceCheckInterval);
  REQUIRE(StoreNow(h, "late", 10) == OK);
  REQUIRE(h.RunUntil([&] { return disk.space.queries == before + 1; }));
}

TEST_CASE("DiskBackend stores nothing below the margin and resumes when space returns",
          "[cache][space]") {
  FakeDisk disk(500);
  DiskHarness h(AutoConfig(), nullptr, nullptr, &disk.space);
  REQUIRE(h.disk() != nullptr);
  REQUIRE(StoreNow(h, "before", 1000) == OK);

  disk.space.free_bytes = 5 * kMiB;  // someone else filled the disk: under the 20 MiB margin
  h.clock().Advance(DiskBackend::kSpaceCheckInterval);
  REQUIRE(StoreNow(h, "racing", 1000) == OK);  // created before the reading came back
  REQUIRE(h.RunUntil([&] { return h.backend().GetStats().low_space; }));

  std::unique_ptr<CacheEntry> entry = h.backend().CreateEntry("refused");
  entry->WriteHeaders("h");
  CHECK(entry->AppendBody("x", 1) == ERR_FILE_NO_SPACE);
  CHECK(CommitSync(h, *entry) == ERR_FILE_NO_SPACE);
  CacheStats stats = h.backend().GetStats();
  CHECK(stats.low_space_refusals == 1);
  CHECK(stats.disk_free_bytes == 5 * kMiB);
  CacheEntryInfo info;
  CHECK_FALSE(h.backend().GetEntryInfo("refused", &info));
  // The limit is now under what the cache held: it gave space back.
  CHECK(stats.max_bytes < 2100);
  CHECK(stats.evictions >= 1);

  disk.space.free_bytes = 500 * kMiB;
  h.clock().Advance(DiskBackend::kSpaceCheckInterval);
  h.backend().CreateEntry("probe");  // due: starts a reading, itself refused (still low)
  REQUIRE(h.RunUntil([&] { return !h.backend().GetStats().low_space; }));
  CHECK(StoreNow(h, "after", 1000) == OK);
  CHECK(h.backend().GetStats().low_space_refusals == 2);
}

TEST_CASE("DiskBackend keeps a user's size only while the disk can hold it", "[cache][space]") {
  FakeDisk disk(900);
  CacheConfig config;
  config.max_bytes = 2 * kMiB;
  DiskHarness h(config, nullptr, nullptr, &disk.space);
  REQUIRE(h.disk() != nullptr);
  CHECK(h.backend().GetStats().max_bytes == 2 * kMiB);
  for (int i = 0; i < 12; ++i) {
    REQUIRE(StoreNow(h, "k" + std::to_string(i), 100 * 1024) == OK);
    h.clock().Advance(Seconds(1));
  }
  REQUIRE(FlushSync(h) == OK);  // and any reading started by the commits has come back
  // The free space shrinks to 21 MiB: 1 MiB above the margin, plus what the cache holds.
  const int64_t held = h.backend().GetSizeOfAllEntries();
  disk.space.free_bytes = 21 * kMiB;
  h.clock().Advance(DiskBackend::kSpaceCheckInterval);
  h.backend().CreateEntry("probe");
  REQUIRE(h.RunUntil([&] { return h.backend().GetStats().max_bytes < 2 * kMiB; }));
  CacheStats stats = h.backend().GetStats();
  CHECK(stats.max_bytes == (1 * kMiB + held) * 8 / 10);
  CHECK(h.backend().GetSizeOfAllEntries() <= stats.max_bytes);
  CHECK_FALSE(stats.low_space);
}

TEST_CASE("DiskBackend without watching the disk keeps its size and reads nothing",
          "[cache][space]") {
  TempDir dir;
  FakeDisk disk(1);  // would be low on space if it were read
  CacheConfig config;
  config.max_bytes = 3 * kMiB;
  std::optional<int> result;
  std::unique_ptr<DiskBackend> backend;
  TestCrossThreadPoster poster;
  ManualClock clock;
  DiskBackend::Params params;
  params.directory = dir.path() + "/cache";
  params.config = config;
  params.clock = &clock;
  params.poster = &poster;
  params.watch_disk_space = false;
  params.disk_space = &disk.space;
  DiskBackend::Create(params, [&](int rv, std::unique_ptr<DiskBackend> b, std::string) {
    result = rv;
    backend = std::move(b);
  });
  REQUIRE(poster.RunUntil([&] { return result.has_value(); }));
  REQUIRE(backend);
  CacheStats stats = backend->GetStats();
  CHECK(stats.max_bytes == 3 * kMiB);
  CHECK(stats.disk_free_bytes == -1);
  CHECK_FALSE(stats.low_space);
  CHECK(disk.space.queries == 0);
  backend.reset();
  poster.RunPending();
}

}  // namespace
}  // namespace netstack
