// The persistent backend (Chrome's simple backend, with an sqlite index): entries' metadata
// in memory on the loop (CacheIndex, so a miss never waits), rows in index.db, bodies larger
// than inline_body_bytes in files of their own, and one cache thread (CacheThread +
// DiskWorker) that does every disk access. See README.md for the layout, the crash-safety
// argument and the threading model.
#ifndef CACHE_DISK_BACKEND_H_
#define CACHE_DISK_BACKEND_H_

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "cache/backend.h"
#include "cache/cache_index.h"
#include "cache/cache_thread.h"
#include "cache/disk_space.h"
#include "cache/disk_worker.h"
#include "cache/file_operations.h"
#include "net/base/clock.h"
#include "net/base/cross_thread_poster.h"
#include "net/base/weak_ptr.h"

namespace netstack {

class DiskEntry;

class DiskBackend : public CacheBackend {
 public:
  struct Params {
    // The cache directory; created (with parents) if absent.
    std::string directory;
    // config.max_bytes > 0 is the user's size limit; <= 0 means auto (cache_size_policy.h).
    // With watch_disk_space, either is applied to the file system's space (never above 80% of
    // what is free above the margin); without it, the size as given (<= 0: 80 MiB).
    CacheConfig config;
    // Wall time for last_used/created and the damaged database's new name. Loop thread only;
    // must outlive the backend.
    const Clock* clock = nullptr;
    // Carries completions to the loop; must outlive the backend.
    CrossThreadPoster* poster = nullptr;
    // Tests only: the body files' file system (null: the real one). Must outlive the backend.
    FileOperations* file_ops = nullptr;
    // Size the cache against the file system's free space, stop storing below the margin, and
    // keep the reserve file (README.md, "A full disk"). Off for inspection (`netstack cache`),
    // which must not evict.
    bool watch_disk_space = true;
    // Tests only: where the free space is read (null: statvfs). Must outlive the backend.
    DiskSpaceSource* disk_space = nullptr;
  };
  // The free space is read again once this many bytes were committed since the last reading,
  // or kSpaceCheckInterval after it (at the next commit or create), never per write.
  static constexpr int64_t kSpaceCheckBytes = int64_t{1} << 20;
  static constexpr TimeDelta kSpaceCheckInterval = std::chrono::seconds(10);
  using CreateCallback =
      std::function<void(int rv, std::unique_ptr<DiskBackend> backend, std::string message)>;

  // Opens the cache in `params.directory` on a new cache thread and loads its index; then
  // `callback` runs on the loop (through params.poster), never inside this call, with OK and
  // the backend, or ERR_CACHE_OPEN_FAILURE, null and a one-line message naming the path and
  // the reason (unusable directory, directory in use by another process, database that cannot
  // be created). With OK, a non-empty `message` is a warning: the database was damaged and was
  // moved aside (the cache starts empty), or malformed rows were dropped. If the poster drops
  // the completion (shutting down), the thread and what it opened are released.
  static void Create(const Params& params, CreateCallback callback);

  // Finishes the writes already queued (commits, dooms, use updates), then joins the cache
  // thread. Callbacks not yet run are dropped; queued reads are dropped. Entries must be
  // destroyed first.
  ~DiskBackend() override;
  DiskBackend(const DiskBackend&) = delete;
  DiskBackend& operator=(const DiskBackend&) = delete;

  // CacheBackend. OpenEntry returns ERR_CACHE_MISS (absent key, synchronously) or
  // ERR_IO_PENDING: the row and the start of the body are read on the cache thread. Commit's
  // callback gets OK once the row is committed on disk; a full disk gives ERR_FILE_NO_SPACE,
  // and so does every entry created while the free space is below the margin (counted in
  // CacheStats::low_space_refusals). Deletions (Doom*, eviction) land on a full disk too.
  int OpenEntry(const std::string& key, std::unique_ptr<CacheEntry>* entry,
                EntryCallback callback) override;
  int PeekEntry(const std::string& key, std::unique_ptr<CacheEntry>* entry,
                EntryCallback callback) override;
  std::unique_ptr<CacheEntry> CreateEntry(const std::string& key) override;
  void DoomEntry(const std::string& key) override;
  void DoomAllEntries(CompletionCallback callback) override;
  void DoomEntriesBetween(Time begin, Time end, CompletionCallback callback) override;
  bool GetEntryInfo(const std::string& key, CacheEntryInfo* info) const override;
  std::vector<CacheEntryInfo> EnumerateEntries() const override;
  int64_t GetEntryCount() const override;
  int64_t GetSizeOfAllEntries() const override;
  CacheStats GetStats() const override;
  void Flush(CompletionCallback callback) override;
  // The index and the loop thread's write-behind maps (pending header updates, unsaved uses);
  // not the cache thread's queue nor sqlite's own memory.
  size_t EstimateMemoryUsage() const override;

  // max_bytes is the limit in force (it follows the free space when watched).
  const CacheConfig& config() const { return config_; }
  const std::string& directory() const { return directory_; }

 private:
  // OpenEntry (count_use) and PeekEntry.
  int Open(const std::string& key, std::unique_ptr<CacheEntry>* entry, EntryCallback callback,
           bool count_use);
  friend class DiskEntry;
  struct Opening;

  DiskBackend(const Params& params, std::unique_ptr<CacheThread> thread,
              std::unique_ptr<DiskWorker> worker, std::unique_ptr<FileOperations> owned_ops,
              std::unique_ptr<DiskSpaceSource> owned_space, std::vector<IndexEntry> entries,
              std::string recovery_message, DiskSpace space);

  // Wraps a loop callback so it is dropped if the backend is gone when it runs.
  std::function<void(int)> Guard(CompletionCallback callback);
  // Runs `callback(result)` on the loop later (through the poster).
  void PostResult(CompletionCallback callback, int result);
  void OnOpened(const std::string& key, uint64_t id, DiskWorker::OpenedEntry opened, bool count_use,
                EntryCallback callback);

  // DiskEntry's hooks.
  void QueueCommit(IndexEntry entry, StoredEntry row, std::shared_ptr<BodyWriter> writer,
                   CompletionCallback callback);
  void OnCommitted(IndexEntry entry, int result, CompletionCallback callback);
  void QueueBodyWrite(std::shared_ptr<BodyWriter> writer, std::string data);
  void QueueAbandon(std::shared_ptr<BodyWriter> writer);
  void QueueClose(std::shared_ptr<BodyReader> file);
  void UpdateHeaders(const std::string& key, uint64_t id, std::string headers);
  // Removes version `id` of `key` (any version if 0) from the index and the disk; true if it
  // was there.
  bool DoomVersion(const std::string& key, uint64_t id);
  // A damaged entry found by a read: doomed, counted in read_failures.
  void OnEntryDamaged(const std::string& key, uint64_t id);

  void DeleteOnDisk(const std::vector<IndexEntry>& removed, CompletionCallback callback);
  // Queues the use updates collected in dirty_uses_ as one write task.
  void FlushUses();
  void EvictIfNeeded();
  // Sets the limit (and low_space_) from `space` (cache_size_policy.h), then evicts to it.
  void ApplyDiskSpace(const DiskSpace& space);
  // Reads the free space on the cache thread if a reading is due and none is running.
  void MaybeCheckSpace();

  const std::string directory_;
  CacheConfig config_;
  const Clock& clock_;
  CrossThreadPoster* const poster_;
  std::unique_ptr<FileOperations> owned_ops_;
  std::unique_ptr<DiskSpaceSource> owned_space_;
  const int64_t configured_max_bytes_;  // params.config.max_bytes (<= 0: auto)
  const bool watch_disk_space_;
  bool low_space_ = false;
  bool space_check_running_ = false;
  int64_t bytes_since_space_check_ = 0;
  Time last_space_check_{};
  std::unique_ptr<CacheThread> thread_;
  std::unique_ptr<DiskWorker> worker_;
  CacheIndex index_;
  uint64_t next_id_ = 1;
  // Headers written to opened entries and not yet on disk, by entry id: a read of the row
  // (which may overtake the queued update) sees these instead.
  std::unordered_map<uint64_t, std::pair<uint64_t, std::string>> pending_headers_;
  uint64_t next_headers_seq_ = 1;
  // Uses (last_used, use_count) by entry id not yet queued for disk: written in groups, with
  // the next commit, or on Flush, so a run of hits does not cost one WAL commit each. A crash
  // loses at most kMaxDirtyUses of them (metadata only).
  static constexpr size_t kMaxDirtyUses = 256;
  std::unordered_map<uint64_t, std::pair<Time, uint32_t>> dirty_uses_;
  CacheStats stats_;
  WeakPtrFactory<DiskBackend> weak_factory_{this};
};

}  // namespace netstack

#endif  // CACHE_DISK_BACKEND_H_
