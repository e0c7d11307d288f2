// When the cache's database checkpoints: a session that only read (hits, so use updates) must
// not pay sqlite's checkpoint-on-close (two fsyncs), must keep its uses, and the WAL it leaves
// must stay bounded.
#include "cache/sqlite_store.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cache/disk_backend.h"
#include "tests/cache/backend_test_util.h"
#include "tests/cache/disk_test_util.h"

namespace netstack {
namespace {

// The WAL file's size, or -1 if there is none.
int64_t WalBytes(const std::string& db_path) {
  struct stat st;
  return ::stat((db_path + "-wal").c_str(), &st) == 0 ? st.st_size : -1;
}

std::unique_ptr<SqliteStore> OpenStore(const std::string& path, std::vector<IndexEntry>* rows) {
  auto store = std::make_unique<SqliteStore>();
  std::string warning, error;
  rows->clear();
  REQUIRE(store->OpenAndLoad(path, TimeFromUnixMicros(1'000'000), rows, &warning, &error) == OK);
  CHECK(warning.empty());
  return store;
}

StoredEntry Row(int64_t id, size_t headers_bytes) {
  StoredEntry row;
  row.id = id;
  row.key = "k" + std::to_string(id);
  row.headers = std::string(headers_bytes, 'h');
  row.inline_body = "body";
  row.body_size = 4;
  row.created = row.last_used = TimeFromUnixMicros(1'000'000);
  return row;
}

void Insert(SqliteStore& store, int64_t first, int64_t count, size_t headers_bytes) {
  REQUIRE(store.Begin() == SQLITE_OK);
  for (int64_t id = first; id < first + count; ++id) {
    int64_t old_id;
    bool old_in_file;
    REQUIRE(store.Replace(Row(id, headers_bytes), &old_id, &old_in_file) == SQLITE_DONE);
  }
  REQUIRE(store.Commit() == SQLITE_OK);
}

TEST_CASE("SqliteStore leaves a small WAL at close and checkpoints a large one", "[cache]") {
  TempDir dir;
  const std::string path = dir.path() + "/index.db";
  std::vector<IndexEntry> rows;
  auto store = OpenStore(path, &rows);
  Insert(*store, 1, 1, 100);
  CHECK(store->wal_frames() > 0);
  CHECK(store->wal_frames() < SqliteStore::kCloseCheckpointFrames);
  store.reset();
  // Not checkpointed: the commit is still in the WAL, and the next open reads it.
  CHECK(WalBytes(path) > 0);
  store = OpenStore(path, &rows);
  CHECK(rows.size() == 1);

  // 300 rows of 8 KiB headers: over 600 pages in the WAL.
  Insert(*store, 2, 300, 8192);
  CHECK(store->wal_frames() >= SqliteStore::kCloseCheckpointFrames);
  store.reset();
  CHECK(WalBytes(path) == 0);  // checkpointed and emptied (kept, with -shm, for a full disk)
  store = OpenStore(path, &rows);
  CHECK(rows.size() == 301);
}

TEST_CASE("SqliteStore bounds the WAL over many sessions that only update uses", "[cache]") {
  TempDir dir;
  const std::string path = dir.path() + "/index.db";
  std::vector<IndexEntry> rows;
  auto store = OpenStore(path, &rows);
  Insert(*store, 1, 1, 100);
  store.reset();
  // A WAL frame is a 4 KiB page and a 24-byte header, after a 32-byte file header. A session
  // that updates one use adds a frame or two; closing never leaves more than the threshold plus
  // what that session added.
  const int64_t bound = 32 + (SqliteStore::kCloseCheckpointFrames + 4) * (4096 + 24);
  int64_t largest = 0;
  bool shrank = false;
  const int kSessions = SqliteStore::kCloseCheckpointFrames + 20;
  for (int i = 1; i <= kSessions; ++i) {
    store = OpenStore(path, &rows);
    REQUIRE(rows.size() == 1);
    REQUIRE(rows[0].info.use_count == static_cast<uint32_t>(i - 1));
    REQUIRE(store->Begin() == SQLITE_OK);
    REQUIRE(store->UpdateUse(1, TimeFromUnixMicros(2'000'000 + i), static_cast<uint32_t>(i)) ==
            SQLITE_DONE);
    REQUIRE(store->Commit() == SQLITE_OK);
    store.reset();
    int64_t wal = WalBytes(path);
    if (wal < largest) shrank = true;
    largest = std::max(largest, wal);
  }
  CHECK(largest <= bound);
  CHECK(largest > 32);  // sessions did leave their updates in the WAL...
  CHECK(shrank);        // ...until one closed above the threshold and checkpointed
  store = OpenStore(path, &rows);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].info.use_count == static_cast<uint32_t>(kSessions));
  CHECK(rows[0].info.last_used == TimeFromUnixMicros(2'000'000 + kSessions));
}

TEST_CASE("DiskBackend keeps a hit's use after a session that only read", "[cache]") {
  TempDir dir;
  CacheConfig config;
  config.max_bytes = 8 * 1024 * 1024;
  DiskHarness h(config, &dir.path());
  const std::string body = MakeBody(1000, 1);
  REQUIRE(Store(h, "k", "headers", body) == OK);
  h.Close();

  // The read-only session: one hit, then exit.
  REQUIRE(h.Open() == OK);
  h.clock().Advance(Seconds(30));
  const Time hit_time = h.clock().Now();
  std::unique_ptr<CacheEntry> entry;
  REQUIRE(OpenSync(h, "k", &entry) == OK);
  entry.reset();
  h.Close();
  // Its use update was not checkpointed into the database: it is in the WAL.
  CHECK(WalBytes(dir.path() + "/cache/index.db") > 0);

  // The next open needs no recovery (no warning), and the use and the entry are there.
  std::string message = "unset";
  REQUIRE(h.Open(&message) == OK);
  CHECK(message.empty());
  CacheEntryInfo info;
  REQUIRE(h.backend().GetEntryInfo("k", &info));
  CHECK(info.use_count == 1);
  CHECK(info.last_used == hit_time);
  REQUIRE(OpenSync(h, "k", &entry) == OK);
  CHECK(entry->headers() == "headers");
  std::string read;
  CHECK(ReadAll(h, *entry, &read) == OK);
  CHECK(read == body);
}

TEST_CASE("SqliteStore names body files by 16 lowercase hex digits of the id", "[cache]") {
  CHECK(SqliteStore::BodyFileName(0) == "0000000000000000");
  CHECK(SqliteStore::BodyFileName(0x1a2b3c) == "00000000001a2b3c");
  CHECK(SqliteStore::BodyFileName(INT64_MAX) == "7fffffffffffffff");
}

}  // namespace
}  // namespace netstack
