// The cache's one interface (Chrome's disk_cache::Backend and disk_cache::Entry, simplified):
// entries keyed by a string (the HTTP layer uses the URL), each with two streams: stream 0, a
// small opaque blob (the HTTP layer's serialized response headers), and stream 1, the body.
// Two implementations: DiskBackend (sqlite index and files, one cache thread) and
// MemoryBackend (private mode, nothing on disk). The HTTP cache (net/http) only sees this file.
//
// Threading: every method is called on the loop thread, and every callback runs there, never
// inside the call that was given it (Chrome's and stream_socket.h's contract). Results are
// synchronous or ERR_IO_PENDING, then the callback gets the result.
//
// Visibility: a created entry is invisible until Commit() succeeds; then it atomically replaces
// any entry with the same key. A reader that opened the old entry keeps reading the old data.
// An entry never becomes visible with a body different from what was appended: the disk
// backend checks sizes when it opens an entry and a checksum of the body when a read reaches
// its end (ERR_CACHE_CHECKSUM_MISMATCH, and the entry is doomed).
//
// Bounds: the total size (CacheConfig::max_bytes, kept by eviction), one entry's size
// (max_entry_bytes: larger entries fail at AppendBody and are never stored), the key's length,
// and the bytes waiting to be written (max_pending_write_bytes: past it, new appends fail
// rather than the loop waiting or memory growing).
#ifndef CACHE_BACKEND_H_
#define CACHE_BACKEND_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "net/base/clock.h"
#include "net/base/net_error.h"

namespace netstack {

// How eviction ranks entries once the cache is above its high watermark (DESIGN.md): the entry
// with the largest rank goes first.
enum class EvictionPolicy {
  // Chrome's simple backend: (now - last_used) × (size + 512).
  kSizeWeightedLru,
  // The same, divided by a weight that grows with use_count, so an entry used often survives
  // a one-off entry of the same age and size (the formula is in cache/README.md).
  kFrequencyWeighted,
};

// "lru" | "frequency".
const char* EvictionPolicyName(EvictionPolicy policy);
// Parses EvictionPolicyName's names; false for anything else.
bool ParseEvictionPolicy(const std::string& name, EvictionPolicy* policy);

struct CacheConfig {
  // The size limit on the sum of CacheEntryInfo::total_size(). DESIGN.md: 80 MiB on disk,
  // 10 MiB in memory (MemoryBackend's default when this is 0).
  int64_t max_bytes = 80 * 1024 * 1024;
  EvictionPolicy eviction = EvictionPolicy::kSizeWeightedLru;
  // One entry's headers + body; 0 means max_bytes / 8 (Chrome's limit per entry).
  int64_t max_entry_bytes = 0;
  // Longer keys are refused (CreateEntry gives an entry that fails; OpenEntry misses).
  size_t max_key_bytes = 8 * 1024;
  // Stream 0 larger than this is refused like an oversized entry.
  size_t max_headers_bytes = 256 * 1024;
  // Bodies up to this size live in the database row; larger ones in files of their own.
  int64_t inline_body_bytes = 16 * 1024;
  // Bytes appended or written but not yet on disk; past it, AppendBody fails.
  int64_t max_pending_write_bytes = 64 * 1024 * 1024;

  int64_t entry_limit() const { return max_entry_bytes > 0 ? max_entry_bytes : max_bytes / 8; }
};

// One entry's metadata, as the in-memory index holds it (no disk access to read it).
struct CacheEntryInfo {
  std::string key;
  int64_t headers_size = 0;  // stream 0
  int64_t body_size = 0;     // stream 1
  Time created{};            // when the current version was committed
  Time last_used{};          // last OpenEntry or commit
  uint32_t use_count = 0;    // OpenEntry calls since it was committed
  int64_t total_size() const { return headers_size + body_size; }
};

// Counters since the backend was created, and its present state.
struct CacheStats {
  std::string type;  // "disk" | "memory"
  std::string path;  // the profile's cache directory ("" in memory)
  EvictionPolicy eviction = EvictionPolicy::kSizeWeightedLru;
  int64_t entry_count = 0;
  int64_t total_bytes = 0;
  int64_t max_bytes = 0;
  int64_t pending_write_bytes = 0;
  uint64_t open_hits = 0;    // OpenEntry found the key
  uint64_t open_misses = 0;  // OpenEntry did not (or the entry was found damaged)
  uint64_t creates = 0;      // CreateEntry calls
  uint64_t commits = 0;      // Commit succeeded
  uint64_t commit_failures = 0;
  uint64_t dooms = 0;  // entries removed by Doom*, not eviction
  uint64_t evictions = 0;
  int64_t evicted_bytes = 0;
  uint64_t read_failures = 0;  // damaged entries found (size or checksum) and doomed
  // The disk backend's view of its file system (cache/cache_size_policy.h); -1 and 0 when
  // not watched (memory backend, `netstack cache`).
  int64_t disk_free_bytes = -1;         // free space at the last reading; -1 unknown
  int64_t free_space_margin_bytes = 0;  // below it the cache stores nothing new
  bool low_space = false;               // the last reading was below the margin
  uint64_t low_space_refusals = 0;      // entries not stored because of low_space
  uint64_t space_checks = 0;            // free-space readings applied so far
  uint64_t full_disk_deletes = 0;       // deletions redone on a full disk (README.md)
  // Set when the database was damaged at open and moved aside; says where it went.
  std::string recovery_message;

  // {"type": ..., "entry_count": ..., ...}: every field, snake_case names (the internals page
  // and `netstack cache stats --json`).
  nlohmann::json ToJson() const;
};

class CacheEntry {
 public:
  // Closes the entry. A created entry that was not committed is discarded: nothing of it
  // becomes visible, and its temporary data is removed.
  virtual ~CacheEntry() = default;

  virtual const std::string& key() const = 0;

  // Stream 0. For an opened entry: the stored blob, available as soon as the open completed.
  // For a created entry: what WriteHeaders last set.
  virtual const std::string& headers() const = 0;

  // Replaces stream 0. On a created entry, before Commit. On an opened entry, updates the
  // stored entry's headers in place, keeping its body (a 304's merged headers); written
  // behind, and ignored if the entry was doomed or replaced meanwhile. Oversized headers
  // (CacheConfig::max_headers_bytes) make a created entry fail and are ignored on an opened one.
  virtual void WriteHeaders(std::string headers) = 0;

  // Stream 1's size: the stored size for an opened entry, the bytes appended so far for a
  // created one.
  virtual int64_t body_size() const = 0;

  // Opened entries: reads up to `len` (> 0) body bytes at `offset` into `buf`. Returns the
  // bytes read (> 0), 0 at the end of the body, ERR_IO_PENDING (then `callback` gets one of the
  // others; `buf` must stay valid until then, or until the entry is destroyed, which cancels
  // the read), or an error: ERR_CACHE_READ_FAILURE (the data is gone or unreadable) or
  // ERR_CACHE_CHECKSUM_MISMATCH (the read reached the end and the body's checksum is wrong).
  // After an error the entry is doomed. One read at a time.
  virtual int ReadBody(int64_t offset, char* buf, int len, CompletionCallback callback) = 0;

  // Created entries: appends `len` bytes (copied) to the body. Never waits. Returns OK, or an
  // error once the entry has failed (ERR_FILE_TOO_BIG past max_entry_bytes,
  // ERR_INSUFFICIENT_RESOURCES past max_pending_write_bytes, ERR_CACHE_WRITE_FAILURE or
  // ERR_FILE_NO_SPACE from the disk, possibly reported for an earlier append); a failed entry
  // ignores further appends and its Commit fails.
  virtual int AppendBody(const char* data, int len) = 0;

  // Created entries: makes the entry visible once every byte is in its final place (for the
  // disk backend: body file renamed into place, then the index row committed). `callback`
  // (may be null) later gets OK, or the error that kept the entry out of the cache. The entry
  // may be destroyed right after this call; the commit goes on without it.
  virtual void Commit(CompletionCallback callback) = 0;

  // Removes the entry from the cache now (OpenEntry misses at once); readers holding it may
  // finish. On a created entry: it will not be committed.
  virtual void Doom() = 0;
};

class CacheBackend {
 public:
  using EntryCallback = std::function<void(int result, std::unique_ptr<CacheEntry> entry)>;

  // Entries must be destroyed before their backend. The disk backend finishes the writes
  // already queued (Flush) before its thread exits; callbacks not yet run are dropped.
  virtual ~CacheBackend() = default;

  // Opens the entry for `key` and counts a use (last_used, use_count). Decided in the
  // in-memory index, so a miss never waits: returns ERR_CACHE_MISS synchronously for an
  // absent key. Otherwise OK (the entry is in *entry; the memory backend) or ERR_IO_PENDING:
  // `callback` later gets OK and the entry, or ERR_CACHE_MISS if the entry turned out damaged
  // or was doomed meanwhile (a damaged one is doomed and counted in read_failures).
  virtual int OpenEntry(const std::string& key, std::unique_ptr<CacheEntry>* entry,
                        EntryCallback callback) = 0;

  // Opens like OpenEntry but counts no use and no hit or miss: for inspection (`netstack cache
  // ls|show`, the internals page), which must not change what eviction sees.
  virtual int PeekEntry(const std::string& key, std::unique_ptr<CacheEntry>* entry,
                        EntryCallback callback) = 0;

  // A new entry for `key`, invisible until its Commit. Never null; an unusable key gives an
  // entry whose appends and commit fail.
  virtual std::unique_ptr<CacheEntry> CreateEntry(const std::string& key) = 0;

  // Removes `key`'s entry from the index now; the disk work is done behind.
  virtual void DoomEntry(const std::string& key) = 0;
  // Removes every entry / every entry last used in [begin, end). `callback` (may be null)
  // runs once the removal is on disk.
  virtual void DoomAllEntries(CompletionCallback callback) = 0;
  virtual void DoomEntriesBetween(Time begin, Time end, CompletionCallback callback) = 0;

  // The in-memory index, synchronously. Absent keys return false.
  virtual bool GetEntryInfo(const std::string& key, CacheEntryInfo* info) const = 0;
  // Every entry's metadata, most recently used first (the iteration of `cache ls`).
  virtual std::vector<CacheEntryInfo> EnumerateEntries() const = 0;
  virtual int64_t GetEntryCount() const = 0;
  virtual int64_t GetSizeOfAllEntries() const = 0;
  virtual CacheStats GetStats() const = 0;

  // `callback` runs once every write, doom and use update queued so far is on disk (at once,
  // posted, for the memory backend). Tools call it before exiting; tests before checking disk.
  virtual void Flush(CompletionCallback callback) = 0;

  // For the internals page's Memory view: an estimate of the heap bytes the backend holds on
  // the loop thread, not counting sizeof(*this) (net/base/memory_usage_estimator.h): the
  // in-memory index (keys and metadata) and write-behind bookkeeping; the memory backend also
  // its stored headers and bodies and the bytes appended to entries not yet committed. What
  // the disk backend's cache thread and sqlite hold is not included (sqlite3_memory_used()
  // counts sqlite's share). Grows with the entries; near zero for an empty backend.
  virtual size_t EstimateMemoryUsage() const = 0;
};

}  // namespace netstack

#endif  // CACHE_BACKEND_H_
