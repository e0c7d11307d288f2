#include "cache/sqlite_store.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "net/base/net_error.h"

namespace netstack {
namespace {

const char kMarkerSuffix[] = ".damaged";

// Larger sizes in a row mean the row is damaged (no entry this big is ever written).
constexpr int64_t kMaxStoredBodyBytes = int64_t{1} << 40;
constexpr int64_t kMaxStoredHeadersBytes = int64_t{1} << 32;

int64_t ClampMicros(int64_t us) {
  return std::clamp<int64_t>(us, 0, int64_t{253'402'300'799'999'999});
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string Blob(sqlite3_stmt* stmt, int column) {
  const void* data = sqlite3_column_blob(stmt, column);
  int size = sqlite3_column_bytes(stmt, column);
  return data ? std::string(static_cast<const char*>(data), static_cast<size_t>(size))
              : std::string();
}

// Steps a statement that returns no rows and resets it.
int StepDone(sqlite3_stmt* stmt) {
  int rc = sqlite3_step(stmt);
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
  return rc;
}

}  // namespace

SqliteStore::SqliteStore() = default;

SqliteStore::~SqliteStore() { Close(); }

bool SqliteStore::IsCorruption(int rc) {
  return (rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB;
}

int SqliteStore::ToNetError(int rc, int fallback) {
  return (rc & 0xff) == SQLITE_FULL ? ERR_FILE_NO_SPACE : fallback;
}

std::string SqliteStore::BodyFileName(int64_t id) {
  // By hand rather than snprintf: the open checks every file row's name with it.
  static constexpr char kHex[] = "0123456789abcdef";
  std::string name(16, '0');
  uint64_t value = static_cast<uint64_t>(id);
  for (int i = 15; i >= 0; --i, value >>= 4) name[static_cast<size_t>(i)] = kHex[value & 0xf];
  return name;
}

void SqliteStore::Close() {
  for (sqlite3_stmt** stmt :
       {&read_, &find_key_, &insert_, &delete_, &update_use_, &update_headers_}) {
    sqlite3_finalize(*stmt);
    *stmt = nullptr;
  }
  if (db_ && wal_frames_ >= kCloseCheckpointFrames) {
    sqlite3_db_config(db_, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, nullptr);
  }
  if (db_) sqlite3_close_v2(db_);
  db_ = nullptr;
  wal_frames_ = 0;
}

int SqliteStore::OnWalCommit(void* store, sqlite3* db, const char* name, int frames) {
  if (frames >= kAutoCheckpointFrames) {
    // Best effort, as sqlite's own auto-checkpoint: a failure leaves the frames in the WAL.
    sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  }
  // Frames already copied stay in the file until the next write restarts it, and the next
  // open would read them back: they count until then.
  static_cast<SqliteStore*>(store)->wal_frames_ = frames;
  return SQLITE_OK;
}

int SqliteStore::OpenAndLoad(const std::string& path, Time now, std::vector<IndexEntry>* entries,
                             std::string* warning, std::string* error) {
  path_ = path;
  std::string reason;
  LoadResult result;
  if (Exists(path + kMarkerSuffix)) {
    result = LoadResult::kDamaged;
    reason = "found damaged while in use";
  } else {
    result = TryOpen(path, entries, &reason);
  }
  if (result == LoadResult::kDamaged) {
    Close();
    entries->clear();
    std::string aside = MoveAside(path, now, error);
    if (aside.empty()) return ERR_CACHE_OPEN_FAILURE;
    ::unlink((path + kMarkerSuffix).c_str());
    *warning = "cache database " + path + " was damaged (" + reason + "); moved to " + aside +
               ", starting empty";
    reason.clear();
    result = TryOpen(path, entries, &reason);
  }
  if (result != LoadResult::kOk) {
    Close();
    entries->clear();
    *error = "cannot open cache database " + path + ": " + reason;
    return ERR_CACHE_OPEN_FAILURE;
  }
  if (malformed_rows_ > 0 && warning->empty()) {
    *warning = "cache database " + path + " had " + std::to_string(malformed_rows_) +
               " malformed entries; removed them";
  }
  return OK;
}

SqliteStore::LoadResult SqliteStore::TryOpen(const std::string& path,
                                             std::vector<IndexEntry>* entries,
                                             std::string* reason) {
  int rc =
      sqlite3_open_v2(path.c_str(), &db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  auto fail = [&](int code) {
    *reason = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(code);
    return IsCorruption(code) ? LoadResult::kDamaged : LoadResult::kFailed;
  };
  if (rc != SQLITE_OK) return fail(rc);
  sqlite3_extended_result_codes(db_, 1);
  // WAL: a commit appends to the log instead of rewriting pages, readers never block the
  // writer, and synchronous=NORMAL (fsync at checkpoints only) stays consistent after a crash.
  rc = sqlite3_exec(db_, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL", nullptr, nullptr,
                    nullptr);
  if (rc != SQLITE_OK) return fail(rc);
  // No checkpoint when the connection closes unless the WAL is large (see Close and
  // kCloseCheckpointFrames): entries need none (a commit in the WAL survives a process kill;
  // a power loss may lose the last ones, as before), and a short read-only process would
  // otherwise spend more on the checkpoint's two fsyncs than on the rest of its life.
  sqlite3_db_config(db_, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  sqlite3_wal_hook(db_, &SqliteStore::OnWalCommit, this);
  // Keep -shm (and -wal, emptied) when closing after a checkpoint: the next open then needs no
  // new space on a full disk, where sqlite could not create and allocate a new -shm
  // (README.md, "A full disk"). journal_size_limit makes the kept WAL empty, so the next open
  // does not read back frames already in the database.
  int persist = 1;
  sqlite3_file_control(db_, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
  sqlite3_exec(db_, "PRAGMA journal_size_limit=0", nullptr, nullptr, nullptr);

  sqlite3_stmt* stmt = nullptr;
  int version = 0, tables = 0;
  rc = sqlite3_prepare_v2(db_, "PRAGMA user_version", -1, &stmt, nullptr);
  if (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    version = sqlite3_column_int(stmt, 0);
    rc = SQLITE_OK;
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_OK) return fail(rc);
  rc = sqlite3_prepare_v2(db_, "SELECT count(*) FROM sqlite_master", -1, &stmt, nullptr);
  if (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    tables = sqlite3_column_int(stmt, 0);
    rc = SQLITE_OK;
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_OK) return fail(rc);

  if (tables == 0 && version == 0) {
    rc = CreateSchema();
    if (rc != SQLITE_OK) return fail(rc);
  } else if (version != kSchemaVersion) {
    *reason = "schema version " + std::to_string(version) + ", expected " +
              std::to_string(kSchemaVersion);
    return LoadResult::kDamaged;
  }
  rc = PrepareStatements();
  if (rc != SQLITE_OK) {
    // A table that is not ours (missing columns) is as unusable as a damaged one.
    *reason = std::string("schema mismatch: ") + sqlite3_errmsg(db_);
    return LoadResult::kDamaged;
  }

  rc = sqlite3_prepare_v2(db_,
                          "SELECT id, key, body_size, headers_size, created, last_used, "
                          "use_count, body_file FROM entries",
                          -1, &stmt, nullptr);
  if (rc != SQLITE_OK) return fail(rc);
  std::vector<int64_t> malformed;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    IndexEntry entry;
    entry.id = static_cast<uint64_t>(sqlite3_column_int64(stmt, 0));
    const unsigned char* key = sqlite3_column_text(stmt, 1);
    entry.info.key = key ? reinterpret_cast<const char*>(key) : "";
    entry.info.body_size = sqlite3_column_int64(stmt, 2);
    entry.info.headers_size = sqlite3_column_int64(stmt, 3);
    // Clamped to [1970, 10000): ranking subtracts last_used from now, which must not overflow
    // whatever a damaged row says.
    entry.info.created = TimeFromUnixMicros(ClampMicros(sqlite3_column_int64(stmt, 4)));
    entry.info.last_used = TimeFromUnixMicros(ClampMicros(sqlite3_column_int64(stmt, 5)));
    int64_t use_count = sqlite3_column_int64(stmt, 6);
    const unsigned char* file = sqlite3_column_text(stmt, 7);
    entry.body_in_file = file != nullptr;
    // Sizes are bounded so that summing them in the index cannot overflow, whatever a
    // damaged row says (the body file's real size is checked again at open).
    bool ok = sqlite3_column_int64(stmt, 0) > 0 && !entry.info.key.empty() &&
              entry.info.body_size >= 0 && entry.info.body_size <= kMaxStoredBodyBytes &&
              entry.info.headers_size >= 0 && entry.info.headers_size <= kMaxStoredHeadersBytes &&
              use_count >= 0 && use_count <= UINT32_MAX &&
              (!file ||
               BodyFileName(static_cast<int64_t>(entry.id)) == reinterpret_cast<const char*>(file));
    if (!ok) {
      malformed.push_back(sqlite3_column_int64(stmt, 0));
      continue;
    }
    entry.info.use_count = static_cast<uint32_t>(use_count);
    entries->push_back(std::move(entry));
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE) return fail(rc);
  malformed_rows_ = static_cast<int64_t>(malformed.size());
  if (!malformed.empty()) {
    // Best effort (they are skipped either way), but never leave the transaction open: every
    // later batch would fail to begin.
    int rc2 = Begin();
    for (int64_t id : malformed) {
      if (rc2 == SQLITE_OK && Delete(id) != SQLITE_DONE) rc2 = SQLITE_ERROR;
    }
    if (rc2 != SQLITE_OK || Commit() != SQLITE_OK) Rollback();
  }
  return LoadResult::kOk;
}

int SqliteStore::CreateSchema() {
  return sqlite3_exec(db_,
                      "BEGIN;"
                      "CREATE TABLE entries("
                      " id INTEGER PRIMARY KEY,"
                      " key TEXT NOT NULL UNIQUE,"
                      " body_size INTEGER NOT NULL,"
                      " headers_size INTEGER NOT NULL,"
                      " body_crc32 INTEGER NOT NULL,"
                      " created INTEGER NOT NULL,"
                      " last_used INTEGER NOT NULL,"
                      " use_count INTEGER NOT NULL,"
                      " body_file TEXT,"
                      " headers BLOB NOT NULL,"
                      " body BLOB);"
                      "PRAGMA user_version=1;"
                      "COMMIT;",
                      nullptr, nullptr, nullptr);
}

int SqliteStore::PrepareStatements() {
  struct {
    sqlite3_stmt** stmt;
    const char* sql;
  } statements[] = {
      {&read_,
       "SELECT key, body_size, body_crc32, created, last_used, use_count, body_file, headers, "
       "body FROM entries WHERE id = ?"},
      {&find_key_, "SELECT id, body_file IS NOT NULL FROM entries WHERE key = ?"},
      {&insert_,
       "INSERT INTO entries(id, key, body_size, headers_size, body_crc32, created, last_used, "
       "use_count, body_file, headers, body) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"},
      {&delete_, "DELETE FROM entries WHERE id = ?"},
      {&update_use_, "UPDATE entries SET last_used = ?, use_count = ? WHERE id = ?"},
      {&update_headers_, "UPDATE entries SET headers = ?, headers_size = ? WHERE id = ?"},
  };
  for (auto& s : statements) {
    int rc = sqlite3_prepare_v3(db_, s.sql, -1, SQLITE_PREPARE_PERSISTENT, s.stmt, nullptr);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

std::string SqliteStore::MoveAside(const std::string& path, Time now, std::string* error) {
  std::string aside = path + ".corrupt-" + std::to_string(ToUnixSeconds(now));
  for (int i = 2; Exists(aside); ++i) {
    aside = path + ".corrupt-" + std::to_string(ToUnixSeconds(now)) + "-" + std::to_string(i);
  }
  if (Exists(path) && std::rename(path.c_str(), aside.c_str()) != 0) {
    *error = "cannot move damaged cache database " + path + " aside: " + std::strerror(errno);
    return "";
  }
  for (const char* suffix : {"-wal", "-shm"}) {
    if (!Exists(path + suffix)) continue;
    if (std::rename((path + suffix).c_str(), (aside + suffix).c_str()) != 0) {
      ::unlink((path + suffix).c_str());
    }
  }
  return aside;
}

int SqliteStore::Begin() { return sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr); }

int SqliteStore::Commit() { return sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr); }

void SqliteStore::Rollback() {
  if (in_transaction()) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

bool SqliteStore::in_transaction() const { return db_ && !sqlite3_get_autocommit(db_); }

int SqliteStore::Read(int64_t id, StoredEntry* out) {
  sqlite3_bind_int64(read_, 1, id);
  int rc = sqlite3_step(read_);
  if (rc == SQLITE_ROW) {
    out->id = id;
    const unsigned char* key = sqlite3_column_text(read_, 0);
    out->key = key ? reinterpret_cast<const char*>(key) : "";
    out->body_size = sqlite3_column_int64(read_, 1);
    out->body_crc32 = static_cast<uint32_t>(sqlite3_column_int64(read_, 2));
    out->created = TimeFromUnixMicros(sqlite3_column_int64(read_, 3));
    out->last_used = TimeFromUnixMicros(sqlite3_column_int64(read_, 4));
    out->use_count = static_cast<uint32_t>(sqlite3_column_int64(read_, 5));
    out->body_in_file = sqlite3_column_type(read_, 6) != SQLITE_NULL;
    out->headers = Blob(read_, 7);
    out->inline_body = Blob(read_, 8);
  }
  sqlite3_reset(read_);
  sqlite3_clear_bindings(read_);
  return rc;
}

int SqliteStore::Replace(const StoredEntry& row, int64_t* old_id, bool* old_in_file) {
  *old_id = 0;
  *old_in_file = false;
  sqlite3_bind_text(find_key_, 1, row.key.data(), static_cast<int>(row.key.size()), SQLITE_STATIC);
  int rc = sqlite3_step(find_key_);
  if (rc == SQLITE_ROW) {
    *old_id = sqlite3_column_int64(find_key_, 0);
    *old_in_file = sqlite3_column_int(find_key_, 1) != 0;
  }
  sqlite3_reset(find_key_);
  sqlite3_clear_bindings(find_key_);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return rc;
  if (*old_id != 0 && (rc = Delete(*old_id)) != SQLITE_DONE) return rc;

  sqlite3_bind_int64(insert_, 1, row.id);
  sqlite3_bind_text(insert_, 2, row.key.data(), static_cast<int>(row.key.size()), SQLITE_STATIC);
  sqlite3_bind_int64(insert_, 3, row.body_size);
  sqlite3_bind_int64(insert_, 4, static_cast<int64_t>(row.headers.size()));
  sqlite3_bind_int64(insert_, 5, row.body_crc32);
  sqlite3_bind_int64(insert_, 6, ToUnixMicros(row.created));
  sqlite3_bind_int64(insert_, 7, ToUnixMicros(row.last_used));
  sqlite3_bind_int64(insert_, 8, row.use_count);
  std::string file = row.body_in_file ? BodyFileName(row.id) : "";
  if (row.body_in_file) {
    sqlite3_bind_text(insert_, 9, file.data(), static_cast<int>(file.size()), SQLITE_STATIC);
  } else {
    sqlite3_bind_null(insert_, 9);
  }
  sqlite3_bind_blob(insert_, 10, row.headers.data(), static_cast<int>(row.headers.size()),
                    SQLITE_STATIC);
  if (row.body_in_file) {
    sqlite3_bind_null(insert_, 11);
  } else {
    sqlite3_bind_blob(insert_, 11, row.inline_body.data(), static_cast<int>(row.inline_body.size()),
                      SQLITE_STATIC);
  }
  return StepDone(insert_);
}

int SqliteStore::Delete(int64_t id) {
  sqlite3_bind_int64(delete_, 1, id);
  return StepDone(delete_);
}

int SqliteStore::UpdateUse(int64_t id, Time last_used, uint32_t use_count) {
  sqlite3_bind_int64(update_use_, 1, ToUnixMicros(last_used));
  sqlite3_bind_int64(update_use_, 2, use_count);
  sqlite3_bind_int64(update_use_, 3, id);
  return StepDone(update_use_);
}

int SqliteStore::UpdateHeaders(int64_t id, const std::string& headers) {
  sqlite3_bind_blob(update_headers_, 1, headers.data(), static_cast<int>(headers.size()),
                    SQLITE_STATIC);
  sqlite3_bind_int64(update_headers_, 2, static_cast<int64_t>(headers.size()));
  sqlite3_bind_int64(update_headers_, 3, id);
  return StepDone(update_headers_);
}

void SqliteStore::MarkDamaged() {
  if (path_.empty()) return;
  if (FILE* f = std::fopen((path_ + kMarkerSuffix).c_str(), "w")) std::fclose(f);
}

std::string SqliteStore::LastError() const { return db_ ? sqlite3_errmsg(db_) : "not open"; }

}  // namespace netstack
