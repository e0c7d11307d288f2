// The disk backend's database: one sqlite3 connection, owned and used only by the cache thread.
// It opens (or creates) index.db, recognises a damaged one and moves it aside, loads the index,
// and runs the few prepared statements the backend needs. It never touches body files.
//
// Schema (version 1, PRAGMA user_version): one table, small columns first so loading the index
// never reads the blobs (their pages stay unread; see README.md):
//   entries(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, body_size, headers_size,
//           body_crc32, created, last_used, use_count, body_file TEXT NULL, headers BLOB,
//           body BLOB NULL)
// Times are microseconds since the Unix epoch. body is the inline body (NULL when the body is in
// bodies/<body_file>).
#ifndef CACHE_SQLITE_STORE_H_
#define CACHE_SQLITE_STORE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cache/cache_index.h"
#include "net/base/clock.h"

struct sqlite3;
struct sqlite3_stmt;

namespace netstack {

// One row, as written at commit and read at open.
struct StoredEntry {
  int64_t id = 0;
  std::string key;
  std::string headers;
  bool body_in_file = false;
  std::string inline_body;  // when !body_in_file
  int64_t body_size = 0;
  uint32_t body_crc32 = 0;
  Time created{};
  Time last_used{};
  uint32_t use_count = 0;
};

class SqliteStore {
 public:
  static constexpr int kSchemaVersion = 1;

  SqliteStore();
  ~SqliteStore();
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  // Opens or creates the database at `path` and appends every row's metadata to *entries.
  // A damaged database (not a database, corrupt pages, a schema this code did not write, or a
  // damage marker left by MarkDamaged) is closed, moved aside with its -wal and -shm as
  // `path`.corrupt-<now's Unix seconds>, and replaced by an empty one; *warning then says so in
  // one line. Malformed rows are deleted (and counted in *warning). Returns OK, or
  // ERR_CACHE_OPEN_FAILURE with a one-line *error naming the path and the reason.
  int OpenAndLoad(const std::string& path, Time now, std::vector<IndexEntry>* entries,
                  std::string* warning, std::string* error);

  // Transactions around a batch of writes. Each returns an sqlite result code.
  int Begin();
  int Commit();
  void Rollback();
  bool in_transaction() const;

  // Reads row `id` (headers, inline body, sizes, checksum). SQLITE_ROW if found, SQLITE_DONE if
  // absent, another code on error.
  int Read(int64_t id, StoredEntry* out);
  // Deletes any row with `row.key` (its id and whether its body was in a file go to *old_id and
  // *old_in_file; *old_id is 0 if there was none), then inserts `row`. SQLITE_DONE on success.
  int Replace(const StoredEntry& row, int64_t* old_id, bool* old_in_file);
  // These return SQLITE_DONE on success (also when the row is absent).
  int Delete(int64_t id);
  int UpdateUse(int64_t id, Time last_used, uint32_t use_count);
  int UpdateHeaders(int64_t id, const std::string& headers);

  // Leaves a marker next to the database so the next OpenAndLoad treats it as damaged (used
  // when SQLITE_CORRUPT shows up after open).
  void MarkDamaged();
  // The connection's last error message.
  std::string LastError() const;
  // Frames in the WAL after this connection's last commit (0 before its first): what decides
  // whether closing checkpoints. For tests.
  int wal_frames() const { return wal_frames_; }

  // Closing checkpoints (copies the WAL into the database, fsyncing both, and removes the
  // WAL) only when the WAL holds at least this many frames (1 MiB of 4 KiB pages); below it
  // the WAL is left for the next open, which reads it back (bounded by this). A process that
  // only read wrote just its use updates (a frame or two, no fsync with synchronous=NORMAL),
  // so it exits without the two fsyncs of sqlite's default checkpoint on close.
  static constexpr int kCloseCheckpointFrames = 256;
  // A commit that leaves at least this many frames checkpoints at once (sqlite's default
  // auto-checkpoint, which the WAL hook replaces).
  static constexpr int kAutoCheckpointFrames = 1000;

  // SQLITE_CORRUPT or SQLITE_NOTADB (any extended code).
  static bool IsCorruption(int rc);
  // An sqlite failure as a net error: ERR_FILE_NO_SPACE for SQLITE_FULL, else `fallback`.
  static int ToNetError(int rc, int fallback);
  // The body file's name for entry `id`: 16 hex digits.
  static std::string BodyFileName(int64_t id);

 private:
  enum class LoadResult { kOk, kDamaged, kFailed };
  LoadResult TryOpen(const std::string& path, std::vector<IndexEntry>* entries,
                     std::string* reason);
  int CreateSchema();
  int PrepareStatements();
  void Close();
  // sqlite3_wal_hook: records the WAL's frame count after each commit and checkpoints at
  // kAutoCheckpointFrames.
  static int OnWalCommit(void* store, sqlite3* db, const char* name, int frames);
  // Moves `path` (and -wal, -shm) aside; the new name, or "" with *error set.
  std::string MoveAside(const std::string& path, Time now, std::string* error);

  sqlite3* db_ = nullptr;
  std::string path_;
  sqlite3_stmt* read_ = nullptr;
  sqlite3_stmt* find_key_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
  sqlite3_stmt* delete_ = nullptr;
  sqlite3_stmt* update_use_ = nullptr;
  sqlite3_stmt* update_headers_ = nullptr;
  int64_t malformed_rows_ = 0;
  int wal_frames_ = 0;
};

}  // namespace netstack

#endif  // CACHE_SQLITE_STORE_H_
