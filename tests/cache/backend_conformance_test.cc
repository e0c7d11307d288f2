// The CacheBackend contract, run against both backends (TEMPLATE_TEST_CASE over a harness).
#include <catch2/catch.hpp>

#include "tests/cache/backend_test_util.h"
#include "tests/cache/disk_test_util.h"

namespace netstack {
namespace {

CacheConfig SmallConfig() {
  CacheConfig config;
  config.max_bytes = 4 * 1024 * 1024;
  return config;
}

#define BACKEND_KINDS MemoryBackendKind, DiskBackendKind

TEMPLATE_TEST_CASE("Backend misses an absent key synchronously", "[cache]", BACKEND_KINDS) {
  auto h = TestType::Make(SmallConfig());
  std::unique_ptr<CacheEntry> entry;
  bool called = false;
  CHECK(h->backend().OpenEntry("nope", &entry, [&](int, std::unique_ptr<CacheEntry>) {
    called = true;
  }) == ERR_CACHE_MISS);
  CHECK(entry == nullptr);
  CHECK(h->backend().GetStats().open_misses == 1);
  FlushSync(*h);
  CHECK_FALSE(called);
}

TEMPLATE_TEST_CASE("Backend stores and reads back small and large bodies", "[cache]",
                   BACKEND_KINDS) {
  auto h = TestType::Make(SmallConfig());
  const std::string small = MakeBody(100, 1), large = MakeBody(300 * 1024 + 17, 2);
  REQUIRE(Store(*h, "http://a/small", "H1", small) == OK);
  REQUIRE(Store(*h, "http://a/large", "H2", large) == OK);
  REQUIRE(Store(*h, "http://a/empty", "H3", "") == OK);
  for (auto [key, headers, body] :
       {std::tuple{"http://a/small", "H1", small}, std::tuple{"http://a/large", "H2", large},
        std::tuple{"http://a/empty", "H3", std::string()}}) {
    std::unique_ptr<CacheEntry> entry;
    REQUIRE(OpenSync(*h, key, &entry) == OK);
    CHECK(entry->key() == key);
    CHECK(entry->headers() == headers);
    CHECK(entry->body_size() == static_cast<int64_t>(body.size()));
    std::string read;
    CHECK(ReadAll(*h, *entry, &read) == OK);
    CHECK(read == body);
  }
  CacheEntryInfo info;
  REQUIRE(h->backend().GetEntryInfo("http://a/large", &info));
  CHECK(info.headers_size == 2);
  CHECK(info.body_size == static_cast<int64_t>(large.size()));
  CHECK(info.use_count == 1);
  CHECK(h->backend().GetEntryCount() == 3);
  CHECK(h->backend().GetSizeOfAllEntries() ==
        static_cast<int64_t>(6 + small.size() + large.size()));
  CacheStats stats = h->backend().GetStats();
  CHECK(stats.creates == 3);
  CHECK(stats.commits == 3);
  CHECK(stats.open_hits == 3);
  CHECK(stats.entry_count == 3);
  CHECK(stats.max_bytes == SmallConfig().max_bytes);
}

TEMPLATE_TEST_CASE("Backend peeks at an entry without counting a use", "[cache]", BACKEND_KINDS) {
  auto h = TestType::Make(SmallConfig());
  const std::string body = MakeBody(40 * 1024, 3);
  REQUIRE(Store(*h, "http://a/p", "H", body) == OK);
  CacheEntryInfo before;
  REQUIRE(h->backend().GetEntryInfo("http://a/p", &before));
  const CacheStats stats_before = h->backend().GetStats();
  h->clock().Advance(Seconds(60));
  std::unique_ptr<CacheEntry> entry;
  REQUIRE(PeekSync(*h, "http://a/p", &entry) == OK);
  CHECK(entry->headers() == "H");
  std::string read;
  CHECK(ReadAll(*h, *entry, &read) == OK);
  CHECK(read == body);
  CHECK(PeekSync(*h, "http://a/absent", &entry) == ERR_CACHE_MISS);
  CacheEntryInfo after;
  REQUIRE(h->backend().GetEntryInfo("http://a/p", &after));
  CHECK(after.use_count == before.use_count);
  CHECK(after.last_used == before.last_used);
  CHECK(h->backend().GetStats().open_hits == stats_before.open_hits);
  CHECK(h->backend().GetStats().open_misses == stats_before.open_misses);
  // OpenEntry, by contrast, counts.
  REQUIRE(OpenSync(*h, "http://a/p", &entry) == OK);
  REQUIRE(h->backend().GetEntryInfo("http://a/p", &after));
  CHECK(after.use_count == before.use_count + 1);
  CHECK(after.last_used > before.last_used);
}

TEMPLATE_TEST_CASE("Backend hides an entry until Commit and runs callbacks later", "[cache]",
                   BACKEND_KINDS) {
  auto h = TestType::Make(SmallConfig());
  std::unique_ptr<CacheEntry> created = h->backend().CreateEntry("k");
  created->WriteHeaders("h");
  REQUIRE(created->AppendBody("abc", 3) == OK);
  CHECK(created->body_size() == 3);
  std::unique_ptr<CacheEntry> opened;
  CHECK(OpenSync(*h, "k", &opened) == ERR_CACHE_MISS);
  bool done = false;
  int result = -1;
  created->Commit([&](int r) {
    done = true;
    result = r;
  });
  CHECK_FALSE(done);  // never inside the call
  created.reset();    // the commit goes on without the entry
  REQUIRE(h->RunUntil([&] { return done; }));
  CHECK(result == OK);
  REQUIRE(OpenSync(*h, "k", &opened) == OK);
  std::string body;
  CHECK(ReadAll(*h, *opened, &body) == OK);
  CHECK(body == "abc");
}

TEMPLATE_TEST_CASE("Backend discards an entry destroyed before Commit", "[cache]", BACKEND_KINDS) {
  auto h = TestType::Make(SmallConfig());
  {
    std::unique_ptr<CacheEntry> created = h->backend().CreateEntry("k");
    created->AppendBody(MakeBody(50000, 3).data(), 50000);
  }
  REQUIRE(FlushSync(*h) == OK);
  std::unique_ptr<CacheEntry> opened;
  CHECK(OpenSync(*h, "k", &opened) == ERR_CACHE_MISS);
  CHECK(h->backend().GetEntryCount() == 0);
  CHECK(h->backend().GetStats().pending_write_bytes == 0);
}

TEMPLATE_TEST_CASE("Backend replaces atomically and old readers keep old data", "[cache]",
                   BACKEND_KINDS) {
  auto h = TestType::Make(SmallConfig());
  for (size_t size : {size_t{10}, size_t{100000}}) {
    const std::string v1 = MakeBody(size, 10), v2 = MakeBody(size + 5, 11);
    REQUIRE(Store(*h, "k", "v1", v1) == OK);
    std::unique_ptr<CacheEntry> old_reader;
    REQUIRE(OpenSync(*h, "k", &old_reader) == OK);
    REQUIRE(Store(*h, "k", "v2", v2) == OK);
    REQUIRE(FlushSync(*h) == OK);
    std::string read;
    CHECK(old_reader->headers() == "v1");
    CHECK(ReadAll(*h, *old_reader, &read) == OK);
    CHECK(read == v1);
    std::unique_ptr<CacheEntry> new_reader;
    REQUIRE(OpenSync(*h, "k", &new_reader) == OK);
    CHECK(new_reader->headers() == "v2");
    CHECK(ReadAll(*h, *new_reader, &read) == OK);
    CHECK(read == v2);
    CHECK(h->backend().GetEntryCount() == 1);
    CHECK(h->backend().GetSizeOfAllEntries() == static_cast<int64_t>(2 + v2.size()));
  }
}

TEMPLATE_TEST_CASE("Backend dooms entries", "[cache]", BACKEND_KINDS) {
  auto h = TestType::Make(SmallConfig());
  REQUIRE(Store(*h, "a", "h", "body-a") == OK);
  REQUIRE(Store(*h, "b", "h", MakeBody(40000, 4)) == OK);
  std::unique_ptr<CacheEntry> reader;
  REQUIRE(OpenSync(*h, "b", &reader) == OK);

  h->backend().DoomEntry("a");
  std::unique_ptr<CacheEntry> entry;
  CHECK(OpenSync(*h, "a", &entry) == ERR_CACHE_MISS);
  reader->Doom();
  CHECK(OpenSync(*h, "b", &entry) == ERR_CACHE_MISS);
  std::string read;
  CHECK(ReadAll(*h, *reader, &read) == OK);  // a reader holding it may finish
  CHECK(read == MakeBody(40000, 4));

  // A doomed created entry is never committed.
  std::unique_ptr<CacheEntry> created = h->backend().CreateEntry("c");
  created->AppendBody("x", 1);
  created->Doom();
  CHECK(CommitSync(*h, *created) != OK);
  CHECK(OpenSync(*h, "c", &entry) == ERR_CACHE_MISS);
  CacheStats stats = h->backend().GetStats();
  CHECK(stats.dooms == 2);
  CHECK(stats.commit_failures == 1);
  CHECK(h->backend().GetEntryCount() == 0);
}

TEMPLATE_TEST_CASE("Backend dooms all entries and entries used between dates", "[cache]",
                   BACKEND_KINDS) {
  auto h = TestType::Make(SmallConfig());
  const Time t0 = h->clock().Now();
  for (int i = 0; i < 5; ++i) {
    REQUIRE(Store(*h, "k" + std::to_string(i), "h", MakeBody(i * 10000, i)) == OK);
    h->clock().Advance(Seconds(10));
  }
  // Used at t0, +10, +20, +30, +40. k0 is opened at +50, so it is no longer in [t0, t0+20).
  std::unique_ptr<CacheEntry> entry;
  REQUIRE(OpenSync(*h, "k0", &entry) == OK);
  entry.reset();
  REQUIRE(DoomBetweenSync(*h, t0, t0 + Seconds(20)) == OK);
  std::vector<std::string> keys;
  for (const auto& info : h->backend().EnumerateEntries()) keys.push_back(info.key);
  CHECK(keys == std::vector<std::string>{"k0", "k4", "k3", "k2"});
  CHECK(h->backend().GetStats().dooms == 1);
  REQUIRE(DoomAllSync(*h) == OK);
  CHECK(h->backend().GetEntryCount() == 0);
  CHECK(h->backend().GetSizeOfAllEntries() == 0);
  CHECK(OpenSync(*h, "k3", &entry) == ERR_CACHE_MISS);
  CHECK(h->backend().GetStats().dooms == 5);
}

TEMPLATE_TEST_CASE("Backend enumerates most recently used first", "[cache]", BACKEND_KINDS) {
  auto h = TestType::Make(SmallConfig());
  for (const char* key : {"a", "b", "c"}) {
    REQUIRE(Store(*h, key, "h", key) == OK);
    h->clock().Advance(Seconds(1));
  }
  std::unique_ptr<CacheEntry> entry;
  REQUIRE(OpenSync(*h, "a", &entry) == OK);
  std::vector<CacheEntryInfo> infos = h->backend().EnumerateEntries();
  REQUIRE(infos.size() == 3);
  CHECK(infos[0].key == "a");
  CHECK(infos[0].use_count == 1);
  CHECK(infos[1].key == "c");
  CHECK(infos[2].key == "b");
  CHECK(infos[2].use_count == 0);
  CHECK(infos[0].last_used > infos[0].created);
}

TEMPLATE_TEST_CASE("Backend evicts to stay under its limit", "[cache]", BACKEND_KINDS) {
  CacheConfig config;
  config.max_bytes = 200 * 1000;  // high watermark 190,000; low 180,000
  auto h = TestType::Make(config);
  for (int i = 0; i < 40; ++i) {
    REQUIRE(Store(*h, "k" + std::to_string(i), "hh", MakeBody(i % 2 ? 9998 : 20000, i)) == OK);
    CHECK(h->backend().GetSizeOfAllEntries() <= h->backend().GetStats().max_bytes);
    h->clock().Advance(Seconds(1));
  }
  CHECK(h->backend().GetSizeOfAllEntries() <= 190'000);
  CHECK(h->backend().GetStats().evictions > 0);
  std::unique_ptr<CacheEntry> entry;
  CHECK(OpenSync(*h, "k0", &entry) == ERR_CACHE_MISS);
  REQUIRE(OpenSync(*h, "k39", &entry) == OK);
  std::string body;
  CHECK(ReadAll(*h, *entry, &body) == OK);
  CHECK(body == MakeBody(9998, 39));
}

// The same history under both policies: "hot" is old but used often.
template <typename Kind>
bool HotSurvives(EvictionPolicy policy) {
  CacheConfig config;
  config.max_bytes = 100 * 1000;  // evicts down to 90,000
  config.eviction = policy;
  auto h = Kind::Make(config);
  REQUIRE(Store(*h, "hot", "", MakeBody(10000, 1)) == OK);
  for (int i = 0; i < 8; ++i) {
    std::unique_ptr<CacheEntry> entry;
    REQUIRE(OpenSync(*h, "hot", &entry) == OK);
  }
  h->clock().Advance(Seconds(1));
  REQUIRE(Store(*h, "cold", "", MakeBody(10000, 2)) == OK);
  h->clock().Advance(Seconds(100));
  for (int i = 0; i < 8; ++i) {
    REQUIRE(Store(*h, "new" + std::to_string(i), "", MakeBody(10000, 3 + i)) == OK);
  }
  // The eighth new entry took the total to 100,000, above the 95,000 watermark: one entry
  // went, the oldest (LRU) or the one used least for its age (frequency).
  CHECK(h->backend().GetEntryCount() == 9);
  CacheEntryInfo info;
  CHECK_FALSE(h->backend().GetEntryInfo(policy == EvictionPolicy::kSizeWeightedLru ? "hot" : "cold",
                                        &info));
  return h->backend().GetEntryInfo("hot", &info);
}

TEMPLATE_TEST_CASE("Backend frequency policy keeps an often used entry LRU evicts", "[cache]",
                   BACKEND_KINDS) {
  CHECK_FALSE(HotSurvives<TestType>(EvictionPolicy::kSizeWeightedLru));
  CHECK(HotSurvives<TestType>(EvictionPolicy::kFrequencyWeighted));
}

TEMPLATE_TEST_CASE("Backend refuses entries above max_entry_bytes", "[cache]", BACKEND_KINDS) {
  CacheConfig config = SmallConfig();
  config.max_entry_bytes = 50000;
  auto h = TestType::Make(config);
  std::unique_ptr<CacheEntry> entry = h->backend().CreateEntry("big");
  entry->WriteHeaders("0123456789");
  const std::string body = MakeBody(49990, 5);
  CHECK(entry->AppendBody(body.data(), 49990) == OK);  // exactly the limit
  CHECK(entry->AppendBody("x", 1) == ERR_FILE_TOO_BIG);
  CHECK(entry->AppendBody("x", 1) == ERR_FILE_TOO_BIG);  // a failed entry stays failed
  CHECK(CommitSync(*h, *entry) == ERR_FILE_TOO_BIG);
  std::unique_ptr<CacheEntry> opened;
  CHECK(OpenSync(*h, "big", &opened) == ERR_CACHE_MISS);
  // Oversized headers too.
  config.max_headers_bytes = 100;
  auto h2 = TestType::Make(config);
  entry = h2->backend().CreateEntry("h");
  entry->WriteHeaders(std::string(101, 'h'));
  CHECK(entry->AppendBody("x", 1) == ERR_FILE_TOO_BIG);
  CHECK(CommitSync(*h2, *entry) == ERR_FILE_TOO_BIG);
  CHECK(Store(*h2, "ok", std::string(100, 'h'), "body") == OK);
  CHECK(h2->backend().GetStats().commit_failures == 1);
}

TEMPLATE_TEST_CASE("Backend refuses keys that are too long", "[cache]", BACKEND_KINDS) {
  CacheConfig config = SmallConfig();
  config.max_key_bytes = 64;
  auto h = TestType::Make(config);
  const std::string long_key(65, 'k');
  std::unique_ptr<CacheEntry> entry = h->backend().CreateEntry(long_key);
  REQUIRE(entry != nullptr);
  CHECK(entry->AppendBody("x", 1) != OK);
  CHECK(CommitSync(*h, *entry) != OK);
  std::unique_ptr<CacheEntry> opened;
  CHECK(OpenSync(*h, long_key, &opened) == ERR_CACHE_MISS);
  CHECK(Store(*h, std::string(64, 'k'), "h", "b") == OK);
  CHECK(h->backend().GetEntryCount() == 1);
}

TEMPLATE_TEST_CASE("Backend fails appends past max_pending_write_bytes", "[cache]", BACKEND_KINDS) {
  CacheConfig config = SmallConfig();
  config.max_pending_write_bytes = 30000;
  auto h = TestType::Make(config);
  std::unique_ptr<CacheEntry> entry = h->backend().CreateEntry("k");
  const std::string body = MakeBody(40000, 6);
  CHECK(entry->AppendBody(body.data(), 40000) == ERR_INSUFFICIENT_RESOURCES);
  CHECK(CommitSync(*h, *entry) == ERR_INSUFFICIENT_RESOURCES);
  CHECK(h->backend().GetStats().pending_write_bytes == 0);
  // Still usable: the same body in chunks the thread (or the commit) absorbs.
  entry.reset();
  CHECK(Store(*h, "k", "h", MakeBody(20000, 7), 20000) == OK);
}

TEMPLATE_TEST_CASE("Backend updates an opened entry's headers and keeps its body", "[cache]",
                   BACKEND_KINDS) {
  auto h = TestType::Make(SmallConfig());
  for (size_t size : {size_t{100}, size_t{70000}}) {
    const std::string body = MakeBody(size, 8);
    REQUIRE(Store(*h, "k", "old headers", body) == OK);
    std::unique_ptr<CacheEntry> entry;
    REQUIRE(OpenSync(*h, "k", &entry) == OK);
    entry->WriteHeaders("new merged headers");
    CHECK(entry->headers() == "new merged headers");
    entry.reset();
    REQUIRE(FlushSync(*h) == OK);
    CacheEntryInfo info;
    REQUIRE(h->backend().GetEntryInfo("k", &info));
    CHECK(info.headers_size == 18);
    REQUIRE(OpenSync(*h, "k", &entry) == OK);
    CHECK(entry->headers() == "new merged headers");
    std::string read;
    CHECK(ReadAll(*h, *entry, &read) == OK);
    CHECK(read == body);
  }
}

}  // namespace
}  // namespace netstack
