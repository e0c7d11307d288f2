#include "tools/bench/raw_cache_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace netstack {
namespace {

const char kSchema[] =
    "CREATE TABLE IF NOT EXISTS entries ("
    "  key TEXT PRIMARY KEY,"
    "  headers BLOB NOT NULL,"
    "  body_size INTEGER NOT NULL,"
    "  body BLOB,"        // the body when it is at most kInlineBodyBytes
    "  file_id INTEGER,"  // else the number of its file under bodies/
    "  last_used INTEGER NOT NULL)";

int64_t NowSeconds() { return static_cast<int64_t>(time(nullptr)); }

}  // namespace

RawCacheStore::~RawCacheStore() {
  sqlite3_finalize(insert_);
  sqlite3_finalize(select_);
  if (db_) sqlite3_close(db_);
}

bool RawCacheStore::Fail(const std::string& what, std::string* error) const {
  *error = what + (db_ ? std::string(": ") + sqlite3_errmsg(db_) : "");
  return false;
}

bool RawCacheStore::Exec(const char* sql, std::string* error) {
  char* msg = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
    *error = dir_ + "/index.db: " + sql + ": " + (msg ? msg : "?");
    sqlite3_free(msg);
    return false;
  }
  return true;
}

bool RawCacheStore::Open(const std::string& dir, std::string* error) {
  dir_ = dir;
  mkdir(dir.c_str(), 0700);
  if (mkdir((dir + "/bodies").c_str(), 0700) != 0 && errno != EEXIST) {
    *error = dir + "/bodies: " + strerror(errno);
    return false;
  }
  std::string path = dir + "/index.db";
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    return Fail(path + ": open", error);
  }
  if (!Exec("PRAGMA journal_mode=WAL", error) || !Exec("PRAGMA synchronous=NORMAL", error) ||
      !Exec(kSchema, error)) {
    return false;
  }
  if (sqlite3_prepare_v2(db_,
                         "INSERT OR REPLACE INTO entries(key, headers, body_size, body, file_id, "
                         "last_used) VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
                         -1, &insert_, nullptr) != SQLITE_OK ||
      sqlite3_prepare_v2(db_,
                         "SELECT headers, body_size, body, file_id FROM entries WHERE key = ?1", -1,
                         &select_, nullptr) != SQLITE_OK) {
    return Fail(path + ": prepare", error);
  }
  sqlite3_stmt* max_id = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT max(file_id) FROM entries", -1, &max_id, nullptr) !=
      SQLITE_OK) {
    return Fail(path + ": prepare", error);
  }
  if (sqlite3_step(max_id) == SQLITE_ROW) next_file_id_ = sqlite3_column_int64(max_id, 0) + 1;
  sqlite3_finalize(max_id);
  return true;
}

bool RawCacheStore::LoadIndex(std::string* error) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT key, body_size FROM entries", -1, &stmt, nullptr) !=
      SQLITE_OK) {
    return Fail(dir_ + "/index.db: prepare", error);
  }
  index_.clear();
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    const char* key = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    index_.emplace(std::string(key, sqlite3_column_bytes(stmt, 0)), sqlite3_column_int64(stmt, 1));
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE) return Fail(dir_ + "/index.db: reading the keys", error);
  return true;
}

bool RawCacheStore::BeginTransaction(std::string* error) { return Exec("BEGIN", error); }
bool RawCacheStore::CommitTransaction(std::string* error) { return Exec("COMMIT", error); }

std::string RawCacheStore::BodyPath(int64_t file_id) const {
  return dir_ + "/bodies/" + std::to_string(file_id);
}

int RawCacheStore::OpenBodyFile(int64_t* file_id, std::string* error) {
  *file_id = next_file_id_++;
  std::string tmp = BodyPath(*file_id) + ".tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) *error = tmp + ": " + strerror(errno);
  return fd;
}

bool RawCacheStore::Append(int fd, std::string_view data, std::string* error) {
  while (!data.empty()) {
    ssize_t n = write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = dir_ + "/bodies: write: " + strerror(errno);
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool RawCacheStore::FinishBodyFile(int fd, int64_t file_id, std::string* error) {
  std::string path = BodyPath(file_id);
  if (close(fd) != 0 || rename((path + ".tmp").c_str(), path.c_str()) != 0) {
    *error = path + ": " + strerror(errno);
    return false;
  }
  return true;
}

bool RawCacheStore::InsertFileRow(const std::string& key, const std::string& headers,
                                  int64_t body_size, int64_t file_id, std::string* error) {
  sqlite3_bind_text(insert_, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
  sqlite3_bind_blob(insert_, 2, headers.data(), static_cast<int>(headers.size()), SQLITE_STATIC);
  sqlite3_bind_int64(insert_, 3, body_size);
  sqlite3_bind_null(insert_, 4);
  sqlite3_bind_int64(insert_, 5, file_id);
  sqlite3_bind_int64(insert_, 6, NowSeconds());
  int rc = sqlite3_step(insert_);
  sqlite3_reset(insert_);
  if (rc != SQLITE_DONE) return Fail(dir_ + "/index.db: insert", error);
  index_[key] = body_size;
  return true;
}

bool RawCacheStore::Insert(const std::string& key, const std::string& headers,
                           std::string_view body, std::string* error) {
  int64_t size = static_cast<int64_t>(body.size());
  if (size > kInlineBodyBytes) {
    int64_t file_id = 0;
    int fd = OpenBodyFile(&file_id, error);
    if (fd < 0) return false;
    if (!Append(fd, body, error)) {
      close(fd);
      return false;
    }
    if (!FinishBodyFile(fd, file_id, error)) return false;
    return InsertFileRow(key, headers, size, file_id, error);
  }
  sqlite3_bind_text(insert_, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
  sqlite3_bind_blob(insert_, 2, headers.data(), static_cast<int>(headers.size()), SQLITE_STATIC);
  sqlite3_bind_int64(insert_, 3, size);
  sqlite3_bind_blob(insert_, 4, body.data(), static_cast<int>(size), SQLITE_STATIC);
  sqlite3_bind_null(insert_, 5);
  sqlite3_bind_int64(insert_, 6, NowSeconds());
  int rc = sqlite3_step(insert_);
  sqlite3_reset(insert_);
  if (rc != SQLITE_DONE) return Fail(dir_ + "/index.db: insert", error);
  index_[key] = size;
  return true;
}

bool RawCacheStore::Read(const std::string& key, std::string* headers, std::string* body,
                         std::string* error) {
  error->clear();
  sqlite3_bind_text(select_, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
  int rc = sqlite3_step(select_);
  if (rc != SQLITE_ROW) {
    sqlite3_reset(select_);
    if (rc != SQLITE_DONE) return Fail(dir_ + "/index.db: select", error);
    return false;
  }
  headers->assign(static_cast<const char*>(sqlite3_column_blob(select_, 0)),
                  sqlite3_column_bytes(select_, 0));
  int64_t size = sqlite3_column_int64(select_, 1);
  bool in_file = sqlite3_column_type(select_, 3) != SQLITE_NULL;
  int64_t file_id = in_file ? sqlite3_column_int64(select_, 3) : 0;
  if (!in_file) {
    const char* blob = static_cast<const char*>(sqlite3_column_blob(select_, 2));
    body->assign(blob ? blob : "", sqlite3_column_bytes(select_, 2));
  }
  sqlite3_reset(select_);
  if (!in_file) return true;

  std::string path = BodyPath(file_id);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = path + ": " + strerror(errno);
    return false;
  }
  body->resize(static_cast<size_t>(size));
  int64_t done = 0;
  while (done < size) {
    ssize_t n = read(fd, body->data() + done, std::min<int64_t>(kReadChunk, size - done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = path + ": " + (n < 0 ? strerror(errno) : "shorter than its row says");
      close(fd);
      return false;
    }
    done += n;
  }
  close(fd);
  return true;
}

bool RawCacheStore::HasRow(const std::string& key, std::string* error) {
  error->clear();
  sqlite3_bind_text(select_, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
  int rc = sqlite3_step(select_);
  sqlite3_reset(select_);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return Fail(dir_ + "/index.db: select", error);
  return rc == SQLITE_ROW;
}

}  // namespace netstack
