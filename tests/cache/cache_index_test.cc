#include "cache/cache_index.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

namespace netstack {
namespace {

const Time kT0 = TimeFromUnixSeconds(1'700'000'000);

IndexEntry MakeEntry(const std::string& key, int64_t size, int64_t last_used_s,
                     uint32_t use_count = 0, uint64_t id = 1) {
  IndexEntry e;
  e.id = id;
  e.info.key = key;
  e.info.body_size = size;
  e.info.created = kT0;
  e.info.last_used = kT0 + Seconds(last_used_s);
  e.info.use_count = use_count;
  return e;
}

std::vector<std::string> Keys(const std::vector<IndexEntry>& entries) {
  std::vector<std::string> keys;
  for (const auto& e : entries) keys.push_back(e.info.key);
  return keys;
}

// max 2000: high watermark 1900, low 1800. a, b, c are candidates; the fillers are young.
void FillScenario(CacheIndex& index) {
  index.Insert(MakeEntry("a", 100, 0, 7), nullptr);   // age 100
  index.Insert(MakeEntry("b", 150, 40, 0), nullptr);  // age 60
  index.Insert(MakeEntry("c", 50, 10, 0), nullptr);   // age 90
  for (int i = 0; i < 33; ++i) {
    index.Insert(MakeEntry("f" + std::to_string(i), 50, 99), nullptr);  // age 1
  }
}

CacheConfig Config(int64_t max, EvictionPolicy policy) {
  CacheConfig config;
  config.max_bytes = max;
  config.eviction = policy;
  return config;
}

TEST_CASE("CacheIndex keeps its entries across Reserve", "[cache]") {
  CacheIndex index(Config(1'000'000, EvictionPolicy::kSizeWeightedLru));
  index.Insert(MakeEntry("a", 100, 0, 0, 1), nullptr);
  index.Insert(MakeEntry("b", 200, 0, 0, 2), nullptr);
  index.Reserve(1000);
  for (int i = 0; i < 500; ++i) {
    index.Insert(MakeEntry("f" + std::to_string(i), 10, 1, 0, 10 + i), nullptr);
  }
  index.Reserve(10);  // smaller than the index: nothing changes
  IndexEntry removed;
  REQUIRE(index.Remove("a", 1, &removed));
  CHECK(removed.info.body_size == 100);
  CHECK(index.Find("a") == nullptr);
  REQUIRE(index.Find("b") != nullptr);
  CHECK(index.Find("b")->id == 2);
  for (int i = 0; i < 500; ++i) {
    const IndexEntry* e = index.Find("f" + std::to_string(i));
    REQUIRE(e != nullptr);
    CHECK(e->id == static_cast<uint64_t>(10 + i));
  }
  CHECK(index.entry_count() == 501);
  CHECK(index.total_bytes() == 200 + 500 * 10);
}

TEST_CASE("CacheIndex ranks by size-weighted LRU", "[cache]") {
  CacheEntryInfo info;
  info.body_size = 488;
  info.last_used = kT0;
  CHECK(CacheIndex::Rank(EvictionPolicy::kSizeWeightedLru, info, kT0 + Seconds(10)) == 10000.0);
  info.use_count = 3;  // weight 1 + log2(4) = 3
  CHECK(CacheIndex::Rank(EvictionPolicy::kFrequencyWeighted, info, kT0 + Seconds(10)) ==
        Approx(10000.0 / 3));
  // A last use in the future (clock stepped back) counts as age 0.
  CHECK(CacheIndex::Rank(EvictionPolicy::kSizeWeightedLru, info, kT0 - Seconds(5)) == 0.0);
}

TEST_CASE("CacheIndex evicts exact victims under size-weighted LRU", "[cache]") {
  CacheIndex index(Config(2000, EvictionPolicy::kSizeWeightedLru));
  FillScenario(index);
  REQUIRE(index.total_bytes() == 1950);
  // Ranks at kT0+100: a 100*612=61200, c 90*562=50580, b 60*662=39720, fillers 562.
  std::vector<IndexEntry> victims = index.Evict(kT0 + Seconds(100));
  CHECK(Keys(victims) == std::vector<std::string>{"a", "c"});
  CHECK(index.total_bytes() == 1800);
  CHECK(index.Find("a") == nullptr);
  CHECK(index.Find("b") != nullptr);
}

TEST_CASE("CacheIndex evicts exact victims under the frequency policy", "[cache]") {
  CacheIndex index(Config(2000, EvictionPolicy::kFrequencyWeighted));
  FillScenario(index);
  // a's 7 uses divide its rank by 1 + log2(8) = 4: 15300, below c 50580 and b 39720.
  std::vector<IndexEntry> victims = index.Evict(kT0 + Seconds(100));
  CHECK(Keys(victims) == std::vector<std::string>{"c", "b"});
  CHECK(index.total_bytes() == 1750);
  CHECK(index.Find("a") != nullptr);
}

TEST_CASE("CacheIndex evicts only above the high watermark", "[cache]") {
  CacheIndex index(Config(2000, EvictionPolicy::kSizeWeightedLru));
  index.Insert(MakeEntry("old", 900, 0), nullptr);
  index.Insert(MakeEntry("new", 1000, 50), nullptr);
  REQUIRE(index.total_bytes() == 1900);  // exactly the high watermark
  CHECK(index.Evict(kT0 + Seconds(100)).empty());
  index.Insert(MakeEntry("one", 1, 100), nullptr);
  CHECK(Keys(index.Evict(kT0 + Seconds(100))) == std::vector<std::string>{"old"});
  CHECK(index.total_bytes() == 1001);
}

TEST_CASE("CacheIndex breaks rank ties by size, then by least recent touch", "[cache]") {
  CacheIndex index(Config(1000, EvictionPolicy::kSizeWeightedLru));
  // All used now: every rank is 0.
  index.Insert(MakeEntry("x", 300, 100), nullptr);
  index.Insert(MakeEntry("y", 300, 100), nullptr);
  index.Insert(MakeEntry("z", 400, 100), nullptr);
  CHECK(Keys(index.Evict(kT0 + Seconds(100))) == std::vector<std::string>{"z"});
  index.Insert(MakeEntry("w", 300, 100), nullptr);
  index.Insert(MakeEntry("v", 100, 100), nullptr);
  index.Touch("x", kT0 + Seconds(100));  // x is now touched after y and w
  REQUIRE(index.total_bytes() == 1000);
  CHECK(Keys(index.Evict(kT0 + Seconds(100))) == std::vector<std::string>{"y"});
}

TEST_CASE("CacheIndex keeps totals through replace, remove, touch and headers", "[cache]") {
  CacheIndex index(Config(1 << 20, EvictionPolicy::kSizeWeightedLru));
  IndexEntry replaced;
  CHECK_FALSE(index.Insert(MakeEntry("k", 100, 0, 0, 1), &replaced));
  CHECK(index.Insert(MakeEntry("k", 40, 0, 0, 2), &replaced));
  CHECK(replaced.id == 1);
  CHECK(index.total_bytes() == 40);
  CHECK(index.SetHeadersSize("k", 2, 10));
  CHECK_FALSE(index.SetHeadersSize("k", 1, 99));  // an old version's update is ignored
  CHECK(index.total_bytes() == 50);
  CHECK(index.Touch("k", kT0 + Seconds(5)));
  CHECK(index.Find("k")->info.use_count == 1);
  CHECK(index.Find("k")->info.last_used == kT0 + Seconds(5));
  CHECK_FALSE(index.Remove("k", 1, nullptr));  // wrong version
  CHECK(index.Remove("k", 2, nullptr));
  CHECK(index.total_bytes() == 0);
  CHECK(index.entry_count() == 0);
}

TEST_CASE("CacheIndex enumerates most recently used first and removes by date", "[cache]") {
  CacheIndex index(Config(1 << 20, EvictionPolicy::kSizeWeightedLru));
  index.Insert(MakeEntry("a", 1, 10), nullptr);
  index.Insert(MakeEntry("b", 1, 30), nullptr);
  index.Insert(MakeEntry("c", 1, 20), nullptr);
  index.Insert(MakeEntry("d", 1, 20), nullptr);  // same time as c, inserted later
  std::vector<std::string> order;
  for (const auto& info : index.Enumerate()) order.push_back(info.key);
  CHECK(order == std::vector<std::string>{"b", "d", "c", "a"});
  std::vector<std::string> removed =
      Keys(index.RemoveUsedBetween(kT0 + Seconds(20), kT0 + Seconds(30)));
  std::sort(removed.begin(), removed.end());
  CHECK(removed == std::vector<std::string>{"c", "d"});
  CHECK(index.entry_count() == 2);
  CHECK(index.RemoveAll().size() == 2);
  CHECK(index.total_bytes() == 0);
}

TEST_CASE("CacheIndex eviction at 100,000 entries matches a full sort", "[cache]") {
  for (EvictionPolicy policy :
       {EvictionPolicy::kSizeWeightedLru, EvictionPolicy::kFrequencyWeighted}) {
    std::mt19937 rng(42);
    std::uniform_int_distribution<int64_t> size(100, 20000), age(0, 100000), uses(0, 20);
    CacheIndex index(Config(int64_t{1} << 40, policy));  // no eviction while filling
    std::vector<IndexEntry> all;
    int64_t total = 0;
    for (int i = 0; i < 100'000; ++i) {
      all.push_back(MakeEntry("k" + std::to_string(i), size(rng), age(rng),
                              static_cast<uint32_t>(uses(rng)), i + 1));
      total += all.back().info.body_size;
    }
    // A limit the filled index is just above: about 10% must go.
    CacheIndex limited(Config(total * 20 / 19 - 1, policy));
    Time now = kT0 + Seconds(100000);
    for (const auto& e : all) limited.Insert(e, nullptr);
    REQUIRE(limited.total_bytes() > limited.high_watermark());
    std::vector<IndexEntry> victims = limited.Evict(now);
    CHECK(limited.total_bytes() <= limited.low_watermark());
    CHECK(victims.size() > 100);

    // Reference: every entry sorted by rank (desc; then size desc, insertion order).
    std::stable_sort(all.begin(), all.end(), [&](const IndexEntry& a, const IndexEntry& b) {
      double ra = CacheIndex::Rank(policy, a.info, now), rb = CacheIndex::Rank(policy, b.info, now);
      if (ra != rb) return ra > rb;
      return a.info.total_size() > b.info.total_size();
    });
    REQUIRE(victims.size() <= all.size());
    for (size_t i = 0; i < victims.size(); ++i) {
      REQUIRE(victims[i].info.key == all[i].info.key);
    }
    // The last victim was needed: without it the total would be above the low watermark.
    CHECK(limited.total_bytes() + victims.back().info.total_size() > limited.low_watermark());
  }
}

}  // namespace
}  // namespace netstack

namespace netstack {
namespace {

TEST_CASE("CacheIndex adopts a loaded array, dropping a repeated key", "[cache]") {
  std::vector<IndexEntry> loaded;
  for (int i = 0; i < 100; ++i) {
    loaded.push_back(MakeEntry("k" + std::to_string(i), 10, i, 0, static_cast<uint64_t>(i + 1)));
  }
  loaded.push_back(MakeEntry("k5", 99, 0, 0, 500));  // a repeat of k5 (a damaged database)
  CacheIndex index(Config(1'000'000, EvictionPolicy::kSizeWeightedLru));
  CHECK(index.Adopt(std::move(loaded)) == 1);
  CHECK(index.entry_count() == 100);
  CHECK(index.total_bytes() == 1000);
  for (int i = 0; i < 100; ++i) {
    const IndexEntry* e = index.Find("k" + std::to_string(i));
    REQUIRE(e != nullptr);
    CHECK(e->id == static_cast<uint64_t>(i + 1));
  }
  // The adopted index works as one built by Insert: replace, remove, evict.
  IndexEntry replaced;
  CHECK(index.Insert(MakeEntry("k7", 20, 200, 0, 700), &replaced));
  CHECK(replaced.id == 8);
  CHECK(index.Remove("k0", 0, nullptr));
  CHECK(index.Find("k0") == nullptr);
  CHECK(index.Find("k99") != nullptr);
  CHECK(index.entry_count() == 99);
  CHECK(index.total_bytes() == 1000 - 10 + 10);
}

TEST_CASE("CacheIndex holds each key once", "[cache][memory]") {
  // Keys of 1,000 bytes: a second copy per entry (the old key -> slot map) would add 1 MB.
  constexpr int kEntries = 1000;
  constexpr size_t kKeyBytes = 1000;
  CacheIndex index(Config(int64_t{1} << 40, EvictionPolicy::kSizeWeightedLru));
  const size_t empty = index.EstimateMemoryUsage();
  for (int i = 0; i < kEntries; ++i) {
    std::string key = std::to_string(i);
    key.resize(kKeyBytes, 'k');
    index.Insert(MakeEntry(key, 10, i, 0, static_cast<uint64_t>(i + 1)), nullptr);
  }
  const size_t per_entry = (index.EstimateMemoryUsage() - empty) / kEntries;
  INFO("bytes per entry " << per_entry);
  CHECK(per_entry > kKeyBytes);
  CHECK(per_entry < kKeyBytes + 400);
  std::string probe = "999";
  probe.resize(kKeyBytes, 'k');
  CHECK(index.Find(probe) != nullptr);
}

}  // namespace
}  // namespace netstack
