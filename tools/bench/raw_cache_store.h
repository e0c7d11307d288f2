// The floor of the cache benchmark: what a straightforward program would write with plain
// sqlite3 and files, synchronously on the calling thread. One table (key, headers blob, body
// size, inline body blob or the number of a body file, last use), bodies up to 16 KiB in the
// row and larger ones in a file each, written with write() to a temporary name and renamed, as
// the disk backend does. No fsync (the backend's contract is surviving a killed process, not a
// power cut). Journal mode WAL with synchronous=NORMAL, the usual tuning.
//
// It keeps no checksums, no use counts and no eviction: it is the least work that stores and
// serves the same data, the yardstick for the backend's overhead, not a cache.
#ifndef TOOLS_BENCH_RAW_CACHE_STORE_H_
#define TOOLS_BENCH_RAW_CACHE_STORE_H_

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace netstack {

class RawCacheStore {
 public:
  static constexpr int64_t kInlineBodyBytes = 16 * 1024;
  static constexpr int kReadChunk = 64 * 1024;

  RawCacheStore() = default;
  ~RawCacheStore();
  RawCacheStore(const RawCacheStore&) = delete;
  RawCacheStore& operator=(const RawCacheStore&) = delete;

  // Opens (creating if needed) `dir`/index.db and `dir`/bodies/. False with a one-line
  // `*error` naming the file on failure.
  bool Open(const std::string& dir, std::string* error);
  // Reads every key and body size into the in-memory index (what a program needs to answer a
  // miss without asking the database). Part of "open" in the benchmark.
  bool LoadIndex(std::string* error);
  size_t index_size() const { return index_.size(); }
  // The in-memory index only.
  bool Contains(const std::string& key) const { return index_.count(key) != 0; }

  // BEGIN / COMMIT around a batch of inserts.
  bool BeginTransaction(std::string* error);
  bool CommitTransaction(std::string* error);

  // Stores one entry: the body file first (if the body is above the inline limit), then the row
  // (INSERT OR REPLACE), in the current transaction or in one of its own.
  bool Insert(const std::string& key, const std::string& headers, std::string_view body,
              std::string* error);

  // A body written piece by piece (the loop-lag phase): opens a temporary file and returns its
  // descriptor and number; Append writes to it; FinishBodyFile closes and renames it into
  // place; then InsertFileRow adds its row.
  int OpenBodyFile(int64_t* file_id, std::string* error);
  bool Append(int fd, std::string_view data, std::string* error);
  bool FinishBodyFile(int fd, int64_t file_id, std::string* error);
  bool InsertFileRow(const std::string& key, const std::string& headers, int64_t body_size,
                     int64_t file_id, std::string* error);

  // SELECT by key, then the body from the row or its file (read in kReadChunk pieces). False
  // for a missing key (`*error` empty) or a failure (`*error` says what).
  bool Read(const std::string& key, std::string* headers, std::string* body, std::string* error);
  // The SELECT alone, for a key the index does not have (a miss asked of the database).
  bool HasRow(const std::string& key, std::string* error);

 private:
  std::string BodyPath(int64_t file_id) const;
  bool Exec(const char* sql, std::string* error);
  bool Fail(const std::string& what, std::string* error) const;

  std::string dir_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
  sqlite3_stmt* select_ = nullptr;
  int64_t next_file_id_ = 1;
  std::unordered_map<std::string, int64_t> index_;  // key -> body size
};

}  // namespace netstack

#endif  // TOOLS_BENCH_RAW_CACHE_STORE_H_
