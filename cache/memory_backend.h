// The private-mode backend (Chrome's MemBackendImpl): the same CacheBackend contract with
// nothing on disk. Entries' data are immutable shared blobs, so a commit replaces the index's
// pointer and readers holding the old version keep reading it.
#ifndef CACHE_MEMORY_BACKEND_H_
#define CACHE_MEMORY_BACKEND_H_

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "cache/backend.h"
#include "cache/cache_index.h"
#include "net/base/clock.h"
#include "net/base/scheduler.h"
#include "net/base/weak_ptr.h"

namespace netstack {

class MemoryBackend : public CacheBackend {
 public:
  // The default size limit when CacheConfig::max_bytes is 0 (DESIGN.md).
  static constexpr int64_t kDefaultMaxBytes = 10 * 1024 * 1024;

  // `scheduler` and `clock` must outlive the backend. Callbacks (Commit, Doom*, Flush) are
  // posted to `scheduler`; those not yet run when the backend is destroyed never run.
  // OpenEntry and ReadBody complete synchronously. `config.max_bytes` 0 means
  // kDefaultMaxBytes. Bytes appended to entries not yet committed count as pending writes
  // (bounded by max_pending_write_bytes) so uncommitted data cannot grow without limit.
  MemoryBackend(Scheduler& scheduler, const Clock& clock, CacheConfig config);
  ~MemoryBackend() override;
  MemoryBackend(const MemoryBackend&) = delete;
  MemoryBackend& operator=(const MemoryBackend&) = delete;

  // CacheBackend:
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
  // The index, every stored version's headers and body chunks (a body shared by two versions
  // counted once), and the bytes appended to uncommitted entries (pending_write_bytes).
  size_t EstimateMemoryUsage() const override;

  const CacheConfig& config() const { return config_; }

 private:
  // OpenEntry (count_use) and PeekEntry.
  int Open(const std::string& key, std::unique_ptr<CacheEntry>* entry, EntryCallback callback,
           bool count_use);
  class Entry;
  // A body as appended: a list of chunks, so appending never moves the bytes already stored
  // (one copy per byte instead of a growing string's reallocations). Small appends share a
  // chunk, filled up to its capacity and never grown, so per-chunk overhead stays bounded. An
  // append that is one byte repeated (at least kMinRunBytes of it) is kept as that byte and a
  // count, extending the last chunk when that is a run of the same byte: a body of padding
  // costs neither its size in memory nor a copy in and out.
  struct Body {
    static constexpr size_t kMinRunBytes = 64;
    struct Chunk {
      std::string bytes;  // the bytes; empty for a run
      int64_t run = 0;    // > 0: the chunk is `run` copies of `fill`
      char fill = 0;
      size_t EstimateMemoryUsage() const;
    };
    std::vector<Chunk> chunks;
    std::vector<int64_t> ends;  // ends[i]: body offset just past chunks[i]
    int64_t size = 0;
    void Append(const char* data, size_t len);
    // Copies up to `len` bytes at `offset` (< size) into `out`; returns how many.
    size_t Read(int64_t offset, char* out, size_t len) const;

   private:
    void AppendRun(char fill, size_t len);
  };
  // One committed version: never changed after commit (a headers update makes a new Data
  // sharing the body).
  struct Data {
    std::string headers;
    std::shared_ptr<const Body> body;
  };

  // Entry's hooks.
  void PostResult(CompletionCallback callback, int result);
  int CommitEntry(const std::string& key, std::string headers, std::shared_ptr<const Body> body);
  void UpdateHeaders(const std::string& key, uint64_t id, std::string headers);
  void DoomVersion(const std::string& key, uint64_t id);
  void EvictIfNeeded();
  void DropData(const std::vector<IndexEntry>& removed);

  Scheduler& scheduler_;
  const Clock& clock_;
  CacheConfig config_;
  CacheIndex index_;
  std::unordered_map<uint64_t, std::shared_ptr<const Data>> data_;  // by IndexEntry::id
  uint64_t next_id_ = 1;
  int64_t pending_bytes_ = 0;
  CacheStats stats_;
  WeakPtrFactory<MemoryBackend> weak_factory_{this};
};

}  // namespace netstack

#endif  // CACHE_MEMORY_BACKEND_H_
