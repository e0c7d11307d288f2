// The disk backend when things go wrong: damaged bodies and databases are detected and recovered
// from, leftover files removed, a full disk and another connection's lock survived, unusable or
// taken directories refused with a message.
#include <sqlite3.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <optional>

#include "cache/disk_backend.h"
#include "cache/sqlite_store.h"
#include "tests/cache/backend_test_util.h"
#include "tests/cache/disk_backend_test_util.h"
#include "tests/cache/disk_test_util.h"

namespace netstack {
namespace {

TEST_CASE("DiskBackend reports a corrupted body file at the end of the read", "[cache]") {
  TempDir dir;
  DiskHarness h(Config(), &dir.path());
  const std::string body = MakeBody(300000, 5);
  REQUIRE(Store(h, "k", "h", body) == OK);
  std::string path = BodiesDir(h) + "/" + SqliteStore::BodyFileName(IdOf(h, "k"));
  h.Close();
  std::string damaged = ReadFile(path);
  damaged[200000] ^= 0x55;  // same size, one bit pattern changed past the prefetched start
  WriteFile(path, damaged);
  REQUIRE(h.Open() == OK);

  std::unique_ptr<CacheEntry> entry;
  REQUIRE(OpenSync(h, "k", &entry) == OK);  // the size is right
  std::string read;
  CHECK(ReadAll(h, *entry, &read) == ERR_CACHE_CHECKSUM_MISMATCH);
  CacheEntryInfo info;
  CHECK_FALSE(h.backend().GetEntryInfo("k", &info));
  CHECK(h.backend().GetStats().read_failures == 1);
  char buf[16];
  CHECK(entry->ReadBody(0, buf, 16, nullptr) < 0);  // stays failed
  entry.reset();
  REQUIRE(FlushSync(h) == OK);
  CHECK(ListDir(BodiesDir(h)).empty());
  REQUIRE(h.Reopen());
  CHECK(OpenSync(h, "k", &entry) == ERR_CACHE_MISS);
}

TEST_CASE("DiskBackend checks small bodies' checksums at open", "[cache]") {
  TempDir dir;
  DiskHarness h(Config(), &dir.path());
  REQUIRE(Store(h, "inline", "h", MakeBody(1000, 1)) == OK);
  REQUIRE(Store(h, "file", "h", MakeBody(20000, 2)) == OK);  // whole body prefetched
  std::string path = BodiesDir(h) + "/" + SqliteStore::BodyFileName(IdOf(h, "file"));
  h.Close();
  ExecSql(DbPath(h), "UPDATE entries SET body = zeroblob(1000) WHERE key = 'inline'");
  std::string damaged = ReadFile(path);
  damaged[19999] ^= 1;
  WriteFile(path, damaged);
  REQUIRE(h.Open() == OK);
  REQUIRE(h.backend().GetEntryCount() == 2);
  for (const char* key : {"inline", "file"}) {
    std::unique_ptr<CacheEntry> entry;
    CHECK(OpenSync(h, key, &entry) == ERR_CACHE_MISS);
    CHECK(entry == nullptr);
  }
  CacheStats stats = h.backend().GetStats();
  CHECK(stats.read_failures == 2);
  CHECK(stats.open_misses == 2);
  CHECK(stats.entry_count == 0);
}

TEST_CASE("DiskBackend misses a truncated or missing body file", "[cache]") {
  TempDir dir;
  DiskHarness h(Config(), &dir.path());
  REQUIRE(Store(h, "k", "h", MakeBody(100000, 1)) == OK);
  std::string path = BodiesDir(h) + "/" + SqliteStore::BodyFileName(IdOf(h, "k"));
  REQUIRE(Store(h, "gone", "h", MakeBody(100000, 2)) == OK);
  h.Close();
  REQUIRE(::truncate(path.c_str(), 50000) == 0);
  for (const std::string& name : ListDir(BodiesDir(h))) {
    if (BodiesDir(h) + "/" + name != path) std::filesystem::remove(BodiesDir(h) + "/" + name);
  }
  REQUIRE(h.Open() == OK);
  for (const char* key : {"k", "gone"}) {
    std::unique_ptr<CacheEntry> entry;
    bool called = false;
    int result = 0;
    REQUIRE(h.backend().OpenEntry(key, &entry, [&](int r, std::unique_ptr<CacheEntry> e) {
      called = true;
      result = r;
      entry = std::move(e);
    }) == ERR_IO_PENDING);
    REQUIRE(h.RunUntil([&] { return called; }));
    CHECK(result == ERR_CACHE_MISS);
    CHECK(entry == nullptr);
    CacheEntryInfo info;
    CHECK_FALSE(h.backend().GetEntryInfo(key, &info));
  }
  CHECK(h.backend().GetStats().read_failures == 2);
}

TEST_CASE("DiskBackend moves a database that is not one aside and starts empty", "[cache]") {
  TempDir dir;
  {
    DiskHarness h(Config(), &dir.path());
    REQUIRE(Store(h, "k", "h", MakeBody(100000, 1)) == OK);
  }
  const std::string db = dir.path() + "/cache/index.db";
  std::string garbage(8192, 'G');
  garbage += "garbage, not sqlite";
  WriteFile(db, garbage);
  // The whole database replaced by a file that is not one: its WAL goes too (a small session
  // closes without a checkpoint, so the pages would still be in the WAL and sqlite would read
  // them from there).
  std::filesystem::remove(db + "-wal");
  std::filesystem::remove(db + "-shm");
  DiskHarness h(Config(), &dir.path());
  REQUIRE(h.disk() != nullptr);
  const std::string& message = h.last_message();
  INFO(message);
  CHECK(message.find("cache database " + db + " was damaged (file is not a database)") == 0);
  CHECK(message.find("moved to " + db + ".corrupt-1700000000") != std::string::npos);
  CHECK(message.find("starting empty") != std::string::npos);
  CHECK(h.backend().GetStats().recovery_message == message);
  CHECK(ReadFile(db + ".corrupt-1700000000").substr(0, 5) == "GGGGG");
  CHECK(h.backend().GetEntryCount() == 0);
  CHECK(ListDir(dir.path() + "/cache/bodies").empty());  // the old body file was an orphan
  // Usable.
  REQUIRE(Store(h, "k2", "h", MakeBody(50000, 2)) == OK);
  REQUIRE(h.Reopen());
  CHECK(h.last_message().empty());
  CHECK(h.backend().GetEntryCount() == 1);
}

TEST_CASE("DiskBackend recovers from a truncated database", "[cache]") {
  TempDir dir;
  {
    DiskHarness h(Config(), &dir.path());
    for (int i = 0; i < 300; ++i) {
      auto entry = h.backend().CreateEntry("http://example.com/" + std::to_string(i));
      entry->WriteHeaders(MakeBody(500, i));
      std::string body = MakeBody(3000, i);
      entry->AppendBody(body.data(), static_cast<int>(body.size()));
      entry->Commit(nullptr);
    }
    REQUIRE(FlushSync(h) == OK);
    REQUIRE(h.backend().GetEntryCount() == 300);
  }
  const std::string db = dir.path() + "/cache/index.db";
  auto size = std::filesystem::file_size(db);
  REQUIRE(size > 500'000);
  std::filesystem::resize_file(db, size / 2);
  DiskHarness h(Config(), &dir.path());
  REQUIRE(h.disk() != nullptr);
  INFO(h.last_message());
  CHECK(h.last_message().find("was damaged") != std::string::npos);
  CHECK(h.backend().GetEntryCount() == 0);
  REQUIRE(Store(h, "k", "h", "b") == OK);
  std::unique_ptr<CacheEntry> entry;
  CHECK(OpenSync(h, "k", &entry) == OK);
}

TEST_CASE("DiskBackend moves aside a database with another schema", "[cache]") {
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/cache");
  const std::string db = dir.path() + "/cache/index.db";
  ExecSql(db, "CREATE TABLE entries(key TEXT); PRAGMA user_version = 1");
  DiskHarness h(Config(), &dir.path());
  REQUIRE(h.disk() != nullptr);
  CHECK(h.last_message().find("schema mismatch") != std::string::npos);
  ExecSql(db + ".other", "CREATE TABLE t(x); PRAGMA user_version = 7");
  h.Close();
  std::filesystem::rename(db + ".other", db);
  std::filesystem::remove(db + "-wal");
  std::filesystem::remove(db + "-shm");
  std::string message;
  REQUIRE(h.Open(&message) == OK);
  CHECK(message.find("schema version 7, expected 1") != std::string::npos);
  CHECK(message.find(".corrupt-1700000000-2") != std::string::npos);  // a second name
}

TEST_CASE("DiskBackend recovers a database marked damaged while in use", "[cache]") {
  TempDir dir;
  DiskHarness h(Config(), &dir.path());
  REQUIRE(Store(h, "k", "h", "b") == OK);
  h.Close();
  WriteFile(dir.path() + "/cache/index.db.damaged", "");
  std::string message;
  REQUIRE(h.Open(&message) == OK);
  CHECK(message.find("found damaged while in use") != std::string::npos);
  CHECK(h.backend().GetEntryCount() == 0);
  CHECK_FALSE(std::filesystem::exists(dir.path() + "/cache/index.db.damaged"));
}

TEST_CASE("DiskBackend removes leftover temporary and orphan body files at open", "[cache]") {
  TempDir dir;
  DiskHarness h(Config(), &dir.path());
  REQUIRE(Store(h, "k", "h", MakeBody(100000, 1)) == OK);
  std::vector<std::string> kept = ListDir(BodiesDir(h));
  REQUIRE(kept.size() == 1);
  h.Close();
  WriteFile(BodiesDir(h) + "/tmp-0000000000000063", "half a body");
  WriteFile(BodiesDir(h) + "/00000000000000ff", "renamed, row never committed");
  WriteFile(BodiesDir(h) + "/README", "not ours");
  REQUIRE(h.Open() == OK);
  std::vector<std::string> expected = kept;
  expected.push_back("README");
  std::sort(expected.begin(), expected.end());
  CHECK(ListDir(BodiesDir(h)) == expected);
  std::unique_ptr<CacheEntry> entry;
  REQUIRE(OpenSync(h, "k", &entry) == OK);
  std::string read;
  CHECK(ReadAll(h, *entry, &read) == OK);
  CHECK(read == MakeBody(100000, 1));
}

TEST_CASE("DiskBackend fails a commit on a full disk and stays usable", "[cache]") {
  FailingFileOperations ops;
  DiskHarness h(Config(), nullptr, &ops);
  ops.fail_writes = true;
  const std::string body = MakeBody(200000, 1);
  auto entry = h.backend().CreateEntry("big");
  entry->WriteHeaders("h");
  for (size_t pos = 0; pos < body.size(); pos += 20000) {
    int rv = entry->AppendBody(body.data() + pos, 20000);
    CHECK((rv == OK || rv == ERR_FILE_NO_SPACE));
  }
  CHECK(CommitSync(h, *entry) == ERR_FILE_NO_SPACE);
  entry.reset();
  REQUIRE(FlushSync(h) == OK);
  CHECK(ListDir(BodiesDir(h)).empty());  // the temp file is gone
  CacheStats stats = h.backend().GetStats();
  CHECK(stats.commit_failures == 1);
  CHECK(stats.pending_write_bytes == 0);
  CHECK(stats.entry_count == 0);
  // Inline bodies need no body file; after the disk has room again, large ones work too.
  CHECK(Store(h, "small", "h", "fits in the row") == OK);
  ops.fail_writes = false;
  REQUIRE(Store(h, "big", "h", body) == OK);
  std::unique_ptr<CacheEntry> opened;
  REQUIRE(OpenSync(h, "big", &opened) == OK);
  std::string read;
  CHECK(ReadAll(h, *opened, &read) == OK);
  CHECK(read == body);
}

TEST_CASE("DiskBackend fails commits while another connection holds the database", "[cache]") {
  // SQLITE_BUSY (no busy handler: the cache thread never waits): the batch rolls back, its
  // commits fail, the renamed body file is removed, and the next batches work again.
  TempDir dir;
  DiskHarness h(Config(), &dir.path());
  const std::string keep = MakeBody(50000, 1), big = MakeBody(60000, 2);
  REQUIRE(Store(h, "keep", "h", keep) == OK);
  const std::vector<std::string> before = ListDir(BodiesDir(h));
  REQUIRE(before.size() == 1);

  sqlite3* other = nullptr;
  REQUIRE(sqlite3_open(DbPath(h).c_str(), &other) == SQLITE_OK);
  REQUIRE(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK);
  CHECK(Store(h, "big", "h", big) == ERR_CACHE_WRITE_FAILURE);
  CHECK(Store(h, "small", "h", "inline") == ERR_CACHE_WRITE_FAILURE);
  FlushSync(h);
  CHECK(ListDir(BodiesDir(h)) == before);  // no row, so no file: nothing half-stored
  CacheStats stats = h.backend().GetStats();
  CHECK(stats.commit_failures == 2);
  CHECK(stats.entry_count == 1);
  CHECK(stats.pending_write_bytes == 0);
  std::unique_ptr<CacheEntry> opened;
  CHECK(OpenSync(h, "big", &opened) == ERR_CACHE_MISS);
  // Reads are not blocked by the other writer (WAL).
  REQUIRE(OpenSync(h, "keep", &opened) == OK);
  std::string read;
  CHECK(ReadAll(h, *opened, &read) == OK);
  CHECK(read == keep);
  opened.reset();

  REQUIRE(sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(other);
  REQUIRE(Store(h, "big", "h", big) == OK);
  REQUIRE(h.Reopen());
  for (const auto& [key, body] : {std::pair{"keep", keep}, std::pair{"big", big}}) {
    REQUIRE(OpenSync(h, key, &opened) == OK);
    CHECK(ReadAll(h, *opened, &read) == OK);
    CHECK(read == body);
  }
}

TEST_CASE("DiskBackend drops rows whose sizes cannot be true, clamps their times", "[cache]") {
  TempDir dir;
  DiskHarness h(Config(), &dir.path());
  REQUIRE(Store(h, "a", "h", "body a") == OK);
  REQUIRE(Store(h, "b", "h", "body b") == OK);
  REQUIRE(Store(h, "c", "h", "body c") == OK);
  h.Close();
  // Sizes that would overflow the index's total if summed.
  ExecSql(DbPath(h),
          "UPDATE entries SET body_size = 9223372036854775000 WHERE key = 'a';"
          "UPDATE entries SET headers_size = 9223372036854775000 WHERE key = 'b';"
          // Times are clamped instead (the row is fine otherwise): now - last_used must not
          // overflow when ranking.
          "UPDATE entries SET last_used = -9223372036854775807, created = 9223372036854775807 "
          "WHERE key = 'c'");
  std::string message;
  REQUIRE(h.Open(&message) == OK);
  CHECK(message.find("2 malformed entries") != std::string::npos);
  CHECK(h.backend().GetEntryCount() == 1);
  CHECK(h.backend().GetSizeOfAllEntries() == 7);
  CacheEntryInfo info;
  REQUIRE(h.backend().GetEntryInfo("c", &info));
  CHECK(info.last_used == TimeFromUnixMicros(0));
  CHECK(ToUnixMicros(info.created) == int64_t{253'402'300'799'999'999});
  CHECK(CacheIndex::Rank(EvictionPolicy::kFrequencyWeighted, info, h.clock().Now()) > 0);
  REQUIRE(h.Reopen());  // they were deleted, not just skipped
  CHECK(h.last_message().empty());
}

TEST_CASE("DiskBackend refuses an unusable directory with a message", "[cache]") {
  TempDir dir;
  WriteFile(dir.path() + "/cache", "a file where the directory should be");
  TestCrossThreadPoster poster;
  ManualClock clock;
  DiskBackend::Params params;
  params.directory = dir.path() + "/cache";
  params.clock = &clock;
  params.poster = &poster;
  std::optional<int> result;
  std::string message;
  std::unique_ptr<DiskBackend> backend;
  DiskBackend::Create(params, [&](int rv, std::unique_ptr<DiskBackend> b, std::string m) {
    result = rv;
    backend = std::move(b);
    message = m;
  });
  CHECK_FALSE(result.has_value());  // never inside the call
  REQUIRE(poster.RunUntil([&] { return result.has_value(); }));
  CHECK(*result == ERR_CACHE_OPEN_FAILURE);
  CHECK(backend == nullptr);
  CHECK(message.find("cannot use cache directory " + params.directory + ": ") == 0);
}

TEST_CASE("DiskBackend refuses a directory another backend has open", "[cache]") {
  TempDir dir;
  DiskHarness first(Config(), &dir.path());
  REQUIRE(first.disk() != nullptr);
  DiskHarness second(Config(), &dir.path());
  CHECK(second.disk() == nullptr);
  CHECK(second.last_message() ==
        "cache directory " + dir.path() + "/cache is in use by another process");
  first.Close();
  CHECK(second.Open() == OK);
}

}  // namespace
}  // namespace netstack
