// The disk backend's work on the cache thread: opening the cache directory, reading entries
// and bodies, writing bodies to temporary files, committing rows, deleting. Every method runs
// on the cache thread (inside a CacheThread task); the loop only builds the tasks.
//
// Layout of a cache directory (README.md): index.db (+ -wal, -shm), lock (flock'ed while a
// backend has the directory open), bodies/<16 hex id> (committed bodies larger than
// inline_body_bytes) and bodies/tmp-<16 hex id> (bodies being written; never referenced by a
// row).
#ifndef CACHE_DISK_WORKER_H_
#define CACHE_DISK_WORKER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cache/cache_index.h"
#include "cache/cache_thread.h"
#include "cache/disk_space.h"
#include "cache/file_operations.h"
#include "cache/sqlite_store.h"
#include "net/base/clock.h"

namespace netstack {

// A created entry's body once it outgrew inline_body_bytes: bodies/tmp-<id>, written by
// WriteBody tasks in order. Only `error` is read on the loop thread.
struct BodyWriter {
  explicit BodyWriter(int64_t id) : id(id) {}
  ~BodyWriter();  // closes a still open fd (a temp file left behind is removed at next open)
  const int64_t id;
  std::atomic<int> error{0};  // a net error once a write failed (the temp file is then gone)
  // Cache thread only.
  int fd = -1;
  bool created = false;
  uint32_t crc = 0;
};

// A committed body file opened for reading. Its fd is used and closed on the cache thread.
struct BodyReader {
  ~BodyReader();  // closes the fd if CloseBody did not
  int fd = -1;
};

class DiskWorker {
 public:
  // How much of a file body OpenEntry reads ahead (and checks, if that is the whole body).
  static constexpr int64_t kPrefetchBytes = 32 * 1024;
  // At most this many leftover files are removed per open (bounded work; the rest next time).
  static constexpr int kMaxCleanupRemovals = 10000;

  // The reserve file (`reserve` in the cache directory): space held back so that deletions
  // can still commit on a full disk (README.md, "A full disk").
  static constexpr int64_t kReserveBytes = int64_t{1} << 20;
  // Rows deleted per transaction when a deletion is redone on a full disk.
  static constexpr size_t kFullDiskDeleteChunk = 64;

  // `thread`, `file_ops` and `disk_space` (if not null) must outlive the worker. A null
  // `disk_space` means the space is never read (DiskSpace unknown) and no reserve is kept.
  DiskWorker(CacheThread* thread, std::string directory, FileOperations* file_ops,
             DiskSpaceSource* disk_space);
  ~DiskWorker();
  DiskWorker(const DiskWorker&) = delete;
  DiskWorker& operator=(const DiskWorker&) = delete;

  struct OpenResult {
    int rv = 0;           // OK or ERR_CACHE_OPEN_FAILURE
    std::string message;  // the warning (OK) or the error (failure), one line
    std::vector<IndexEntry> entries;
    DiskSpace space;  // the file system's space after opening (unknown without a source)
  };
  // Creates the directory (and bodies/), locks it, opens the database (moving a damaged one
  // aside) and loads the index, then removes leftover temporary and orphan body files.
  OpenResult Open(Time now);

  struct OpenedEntry {
    // OK; ERR_CACHE_MISS (the row is gone); ERR_CACHE_READ_FAILURE (damaged: missing file or
    // wrong size); ERR_CACHE_CHECKSUM_MISMATCH (damaged: an inline or prefetched whole body
    // fails its checksum).
    int rv = 0;
    std::string headers;
    std::string prefix;  // the inline body, or the first kPrefetchBytes of a file body
    int64_t body_size = 0;
    uint32_t body_crc32 = 0;  // the stored checksum of the whole body
    uint32_t prefix_crc32 = 0;
    std::shared_ptr<BodyReader> file;  // when the body is in a file
  };
  // Reads row `id` and opens its body; checks sizes (and the checksum when the whole body is
  // read here).
  OpenedEntry OpenEntry(int64_t id);

  struct ReadResult {
    int rv = 0;  // bytes read, or ERR_CACHE_READ_FAILURE (unreadable or shorter than expected)
    std::string data;
    uint32_t crc32 = 0;  // `crc_in` extended over data, when asked
  };
  // Reads `len` bytes at `offset` (fewer only at the end of `body_size`).
  ReadResult ReadBody(BodyReader& file, int64_t offset, int len, int64_t body_size, uint32_t crc_in,
                      bool extend_crc);
  // Closes a body file an opened entry no longer needs.
  void CloseBody(BodyReader& file);

  // Write tasks.
  // Appends `data` to the writer's temp file (creating it first). A failure is recorded in
  // writer.error and the temp file removed; later writes are dropped.
  void WriteBody(BodyWriter& writer, const std::string& data);
  // Closes and removes the temp file of an entry that will not be committed.
  void AbandonBody(BodyWriter& writer);
  // Commits `row`: the body file (if `writer`) is closed and renamed into place first, then the
  // row replaces any row with the same key, in `batch`'s transaction. The replaced body file is
  // removed after the batch commits; the new one if it rolls back. `done` gets the result.
  void CommitEntry(CacheThread::Batch& batch, StoredEntry row, BodyWriter* writer,
                   std::function<void(int)> done);
  // Reads the cache file system's space (unknown without a source), first recreating the
  // reserve file if it is missing and the space stays above the margin without it.
  DiskSpace CheckSpace();

  // Deletes rows (and, after the batch commits, their body files). Post it alone
  // (CacheThread::PostWriteAlone): if the batch rolls back for lack of space, the deletion is
  // redone at once by DeleteOnFullDisk and `done` gets that result.
  struct Victim {
    int64_t id;
    bool body_in_file;
  };
  void DeleteEntries(CacheThread::Batch& batch, const std::vector<Victim>& victims,
                     std::function<void(int)> done);
  struct UseUpdate {
    int64_t id;
    Time last_used;
    uint32_t use_count;
  };
  // Stores entries' last use and use count (rows that are gone are skipped).
  void UpdateUses(CacheThread::Batch& batch, const std::vector<UseUpdate>& updates);
  void UpdateHeaders(CacheThread::Batch& batch, int64_t id, const std::string& headers,
                     std::function<void(int)> done);

  const std::string& directory() const { return directory_; }
  // Deletions that needed DeleteOnFullDisk so far. Any thread.
  uint64_t full_disk_deletes() const { return full_disk_deletes_.load(); }

 private:
  std::string BodyPath(int64_t id) const;
  std::string TempPath(int64_t id) const;
  std::string ReservePath() const;
  int LockDirectory(std::string* error);
  void CleanBodies(const std::vector<IndexEntry>& entries);
  // Makes the reserve file (kReserveBytes, allocated); false if there is no room.
  bool CreateReserve();
  // Removes the reserve file, giving its space to sqlite; false if there was none.
  bool ReleaseReserve();
  // Deletes `victims` outside any batch on a full disk: the reserve is released, then the rows
  // go in transactions of kFullDiskDeleteChunk, each chunk's body files removed once its rows
  // are gone. If a chunk still cannot commit, its body files are removed first (a row whose
  // file is missing is found damaged when opened, never served) and the chunk is tried again.
  // OK, or the error of the chunk that could not be deleted (the rest stay).
  int DeleteOnFullDisk(const std::vector<Victim>& victims);
  // One transaction deleting victims [begin, end); an sqlite code (SQLITE_OK on commit).
  int DeleteRows(const std::vector<Victim>& victims, size_t begin, size_t end);
  void RemoveBodies(const std::vector<Victim>& victims, size_t begin, size_t end);

  // What must be released on the cache thread when it exits, even if the worker is already
  // gone (see CacheThread::Shutdown).
  struct Resources {
    ~Resources();
    std::unique_ptr<SqliteStore> store;
    int lock_fd = -1;
  };

  CacheThread* const thread_;
  const std::string directory_;
  FileOperations* const file_ops_;
  DiskSpaceSource* const disk_space_;
  bool reserve_present_ = false;  // cache thread only
  std::atomic<uint64_t> full_disk_deletes_{0};
  std::shared_ptr<Resources> resources_;
  SqliteStore* store_ = nullptr;  // resources_->store once open
};

}  // namespace netstack

#endif  // CACHE_DISK_WORKER_H_
