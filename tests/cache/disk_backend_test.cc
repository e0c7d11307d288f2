// What only the disk backend does when nothing goes wrong: persistence, body files, read-ahead,
// the thread's shutdown, eviction at open. Damage, recovery, a full disk and the directory lock
// are in disk_backend_damage_test.cc.
#include "cache/disk_backend.h"

#include <catch2/catch.hpp>
#include <thread>

#include "cache/disk_entry.h"
#include "cache/disk_worker.h"
#include "tests/cache/backend_test_util.h"
#include "tests/cache/disk_backend_test_util.h"
#include "tests/cache/disk_test_util.h"

namespace netstack {
namespace {

TEST_CASE("DiskBackend persists entries across reopen byte for byte", "[cache]") {
  TempDir dir;
  DiskHarness h(Config(), &dir.path());
  const std::string inline_body = MakeBody(16 * 1024, 1);  // exactly the inline limit
  const std::string small_file = MakeBody(20000, 2);       // in a file, read whole at open
  const std::string large_file = MakeBody(900 * 1024 + 3, 3);
  REQUIRE(Store(h, "inline", "h-inline", inline_body) == OK);
  h.clock().Advance(Seconds(1));
  REQUIRE(Store(h, "small", "h-small", small_file) == OK);
  h.clock().Advance(Seconds(5));
  REQUIRE(Store(h, "large", "h-large", large_file, 65536) == OK);
  h.clock().Advance(Seconds(1));
  REQUIRE(Store(h, "empty", "", "") == OK);
  h.clock().Advance(Seconds(1));
  std::unique_ptr<CacheEntry> entry;
  REQUIRE(OpenSync(h, "small", &entry) == OK);
  entry->WriteHeaders("h-small-merged");
  entry.reset();
  CHECK(ListDir(BodiesDir(h)).size() == 2);
  std::vector<CacheEntryInfo> before = h.backend().EnumerateEntries();

  REQUIRE(h.Reopen());
  CHECK(h.last_message().empty());
  std::vector<CacheEntryInfo> after = h.backend().EnumerateEntries();
  REQUIRE(after.size() == before.size());
  for (size_t i = 0; i < after.size(); ++i) {
    CHECK(after[i].key == before[i].key);
    CHECK(after[i].headers_size == before[i].headers_size);
    CHECK(after[i].body_size == before[i].body_size);
    CHECK(after[i].created == before[i].created);
    CHECK(after[i].last_used == before[i].last_used);
    CHECK(after[i].use_count == before[i].use_count);
  }
  for (auto [key, headers, body] :
       {std::tuple{"inline", "h-inline", inline_body},
        std::tuple{"small", "h-small-merged", small_file},
        std::tuple{"large", "h-large", large_file}, std::tuple{"empty", "", std::string()}}) {
    REQUIRE(OpenSync(h, key, &entry) == OK);
    CHECK(entry->headers() == headers);
    std::string read;
    CHECK(ReadAll(h, *entry, &read, 10000) == OK);
    CHECK(read == body);
  }
  entry.reset();
  // New entries after a reopen never reuse an id (their files would clash).
  REQUIRE(Store(h, "another", "h", MakeBody(50000, 4)) == OK);
  CHECK(ListDir(BodiesDir(h)).size() == 3);
  CHECK(h.backend().GetStats().path == h.dir() + "/cache");
}

TEST_CASE("DiskBackend removes a replaced or doomed body file", "[cache]") {
  DiskHarness h(Config());
  REQUIRE(Store(h, "k", "h", MakeBody(100000, 1)) == OK);
  REQUIRE(Store(h, "k", "h", MakeBody(100000, 2)) == OK);
  REQUIRE(FlushSync(h) == OK);
  CHECK(ListDir(BodiesDir(h)).size() == 1);
  REQUIRE(Store(h, "k", "h", "now inline") == OK);
  REQUIRE(FlushSync(h) == OK);
  CHECK(ListDir(BodiesDir(h)).empty());
  REQUIRE(Store(h, "k", "h", MakeBody(100000, 3)) == OK);
  h.backend().DoomEntry("k");
  REQUIRE(FlushSync(h) == OK);
  CHECK(ListDir(BodiesDir(h)).empty());
}

TEST_CASE("DiskBackend opens with headers written but not yet on disk", "[cache]") {
  DiskHarness h(Config());
  REQUIRE(Store(h, "k", "old", MakeBody(50000, 1)) == OK);
  std::unique_ptr<CacheEntry> entry;
  REQUIRE(OpenSync(h, "k", &entry) == OK);
  entry->WriteHeaders("merged");
  entry.reset();
  // The open's read may overtake the queued update; it still sees the new headers.
  REQUIRE(OpenSync(h, "k", &entry) == OK);
  CHECK(entry->headers() == "merged");
  entry->WriteHeaders(std::string(300 * 1024, 'x'));  // over max_headers_bytes: ignored
  CHECK(entry->headers() == "merged");
  entry.reset();
  REQUIRE(h.Reopen());
  REQUIRE(OpenSync(h, "k", &entry) == OK);
  CHECK(entry->headers() == "merged");
}

TEST_CASE("DiskBackend finishes queued writes when destroyed", "[cache]") {
  TempDir dir;
  DiskHarness h(Config(), &dir.path());
  const std::string body = MakeBody(200000, 9);
  auto entry = h.backend().CreateEntry("k");
  entry->WriteHeaders("h");
  REQUIRE(entry->AppendBody(body.data(), static_cast<int>(body.size())) == OK);
  entry->Commit(nullptr);
  entry.reset();
  h.Close();  // no Flush: the destructor drains
  REQUIRE(h.Open() == OK);
  REQUIRE(OpenSync(h, "k", &entry) == OK);
  std::string read;
  CHECK(ReadAll(h, *entry, &read) == OK);
  CHECK(read == body);
}

TEST_CASE("DiskBackend reads a large body ahead, one trip per read-ahead", "[cache]") {
  TempDir dir;
  DiskHarness h(Config(), &dir.path());
  const int64_t kSize = 600000;
  const std::string body = MakeBody(kSize, 9);
  REQUIRE(Store(h, "k", "h", body) == OK);
  std::unique_ptr<CacheEntry> entry;
  REQUIRE(OpenSync(h, "k", &entry) == OK);

  // Sequential 16 KiB reads: the prefetched start, then one trip per kReadAheadBytes.
  std::string read;
  std::string buf(16384, '\0');
  int trips = 0;
  for (;;) {
    int rv = ReadAt(h, *entry, static_cast<int64_t>(read.size()), buf.data(), 16384, &trips);
    REQUIRE(rv >= 0);
    if (rv == 0) break;
    CHECK(rv <= 16384);
    read.append(buf.data(), static_cast<size_t>(rv));
  }
  CHECK(read == body);
  const int64_t after_prefetch = kSize - DiskWorker::kPrefetchBytes;
  CHECK(trips == (after_prefetch + DiskEntry::kReadAheadBytes - 1) / DiskEntry::kReadAheadBytes);

  // A read that skips ahead fetches only what it asks for: the next read waits again.
  REQUIRE(OpenSync(h, "k", &entry) == OK);
  trips = 0;
  REQUIRE(ReadAt(h, *entry, 100000, buf.data(), 1000, &trips) == 1000);
  CHECK(buf.compare(0, 1000, body, 100000, 1000) == 0);
  REQUIRE(ReadAt(h, *entry, 101000, buf.data(), 1000, &trips) == 1000);
  CHECK(buf.compare(0, 1000, body, 101000, 1000) == 0);
  CHECK(trips == 2);
}

TEST_CASE("DiskBackend fails only the read reaching the end of a body read ahead", "[cache]") {
  TempDir dir;
  DiskHarness h(Config(), &dir.path());
  const int64_t kStart = DiskWorker::kPrefetchBytes;  // where reads go to the cache thread
  const std::string body = MakeBody(static_cast<size_t>(kStart) + 70000, 5);
  REQUIRE(Store(h, "k", "h", body) == OK);
  std::string path = BodiesDir(h) + "/" + SqliteStore::BodyFileName(IdOf(h, "k"));
  h.Close();
  std::string damaged = ReadFile(path);
  damaged[static_cast<size_t>(kStart) + 20000] ^= 0x55;  // past the prefetched start
  WriteFile(path, damaged);
  REQUIRE(h.Open() == OK);

  std::unique_ptr<CacheEntry> entry;
  REQUIRE(OpenSync(h, "k", &entry) == OK);
  char buf[40000];
  int trips = 0;
  // The first trip reads (and checks) the rest of the body; the mismatch waits for the end.
  CHECK(ReadAt(h, *entry, kStart, buf, 40000, &trips) == 40000);
  CHECK(trips == 1);
  CacheEntryInfo info;
  CHECK(h.backend().GetEntryInfo("k", &info));  // not doomed yet
  CHECK(ReadAt(h, *entry, kStart + 40000, buf, 40000, &trips) == ERR_CACHE_CHECKSUM_MISMATCH);
  CHECK(trips == 1);
  CHECK_FALSE(h.backend().GetEntryInfo("k", &info));
  CHECK(h.backend().GetStats().read_failures == 1);
}

TEST_CASE("DiskBackend Create survives a poster that drops its completion", "[cache]") {
  TempDir dir;
  ManualClock clock;
  {
    TestCrossThreadPoster closed;
    closed.Close();
    DiskBackend::Params params;
    params.directory = dir.path() + "/cache";
    params.clock = &clock;
    params.poster = &closed;
    bool called = false;
    DiskBackend::Create(params,
                        [&](int, std::unique_ptr<DiskBackend>, std::string) { called = true; });
    // The thread opens, its completion is dropped, and it winds down, releasing the lock.
    // No sleeping: poll the lock (each attempt is a whole open on a fresh thread) until the
    // detached thread has released it, with a generous deadline.
    DiskHarness h(Config(), &dir.path());
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!h.disk() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
      h.Open();
    }
    CHECK(h.disk() != nullptr);
    CHECK_FALSE(called);
  }
}

TEST_CASE("DiskBackend evicts at open when the limit shrank", "[cache]") {
  TempDir dir;
  {
    DiskHarness h(Config(), &dir.path());
    for (int i = 0; i < 10; ++i) {
      REQUIRE(Store(h, "k" + std::to_string(i), "", MakeBody(100000, i)) == OK);
      h.clock().Advance(Seconds(1));
    }
  }
  CacheConfig small = Config();
  small.max_bytes = 500000;
  DiskHarness h(small, &dir.path());
  REQUIRE(h.disk() != nullptr);
  CHECK(h.backend().GetSizeOfAllEntries() <= 450000);
  CHECK(h.backend().GetStats().evictions == 6);
  REQUIRE(FlushSync(h) == OK);
  CHECK(ListDir(BodiesDir(h)).size() == 4);
  CacheEntryInfo info;
  CHECK(h.backend().GetEntryInfo("k9", &info));
  CHECK_FALSE(h.backend().GetEntryInfo("k0", &info));
}

}  // namespace
}  // namespace netstack
