// The in-memory index both backends keep on the loop thread: key -> metadata, the total size,
// and eviction (DESIGN.md: above the high watermark max - max/20, rank every entry by the
// backend's policy and evict the highest ranks until the total is at most the low watermark
// max - 2*max/20; Chrome's simple backend). A miss, an enumeration and a size query never
// leave this object, so they never wait for disk.
#ifndef CACHE_CACHE_INDEX_H_
#define CACHE_CACHE_INDEX_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "cache/backend.h"

namespace netstack {

// One entry as the index holds it.
struct IndexEntry {
  CacheEntryInfo info;
  // The backend's id of the stored version: unique per commit, never reused while the backend
  // lives (the disk backend's row id and body file name; the memory backend's data slot). An
  // entry object compares it to know whether "its" version is still the visible one.
  uint64_t id = 0;
  // Disk backend: the body lives in a file of its own (bodies/<id>), not in the row.
  bool body_in_file = false;
};

// Whether `key` may be stored under `config`: non-empty and at most max_key_bytes. Both
// backends refuse other keys the same way (CreateEntry fails, OpenEntry misses).
bool IsUsableCacheKey(const CacheConfig& config, const std::string& key);

class CacheIndex {
 public:
  // `config.max_bytes` sets the watermarks; `config.eviction` the ranking.
  explicit CacheIndex(const CacheConfig& config);
  CacheIndex(const CacheIndex&) = delete;
  CacheIndex& operator=(const CacheIndex&) = delete;

  // Makes room for `n` entries in all, so that loading a large index at open does not grow
  // (and rehash) its tables step by step. Changes nothing else.
  void Reserve(size_t n);

  // Changes the limit (and so the watermarks). Does not evict: call Evict afterwards.
  void SetMaxBytes(int64_t max_bytes) { max_bytes_ = max_bytes; }

  // Takes `entries` (an index loaded from disk) as the whole content of an empty index, without
  // copying them: loading 200,000 entries then holds one array of them, not two. An entry whose
  // key is already taken by an earlier one is dropped; returns how many were.
  size_t Adopt(std::vector<IndexEntry> entries);

  // The entry for `key`, or null. The pointer is valid until the next change to the index.
  const IndexEntry* Find(const std::string& key) const;

  // Adds `entry`, replacing any entry with the same key (returned in *replaced, if non-null,
  // with true; false when the key was new). Does not evict: call Evict afterwards.
  bool Insert(IndexEntry entry, IndexEntry* replaced);

  // Removes `key`'s entry if present (copied to *removed if non-null). When `id` is non-zero
  // the entry is removed only if its id matches (a doom of one version must not remove a newer
  // one).
  bool Remove(const std::string& key, uint64_t id, IndexEntry* removed);

  // Counts a use: last_used = now, use_count + 1. False if absent.
  bool Touch(const std::string& key, Time now);

  // Changes the stored headers size of `key`'s entry if its id is `id`; false otherwise.
  bool SetHeadersSize(const std::string& key, uint64_t id, int64_t headers_size);

  // Removes and returns every entry, or every entry with last_used in [begin, end).
  std::vector<IndexEntry> RemoveAll();
  std::vector<IndexEntry> RemoveUsedBetween(Time begin, Time end);

  // If the total is above the high watermark, removes the highest-ranked entries until it is
  // at or below the low watermark, and returns them (in eviction order). Otherwise returns
  // nothing. Runs in O(n) plus a sort of the victims: the candidates are partitioned with
  // nth_element around a guess of how many must go, widened if the guess was short.
  std::vector<IndexEntry> Evict(Time now);

  // The rank eviction uses (larger goes first), for `policy` at `now`:
  //   lru:       age_seconds * (size + 512)
  //   frequency: age_seconds * (size + 512) / (1 + log2(1 + use_count))
  // with age_seconds = max(0, now - last_used) in seconds. See README.md.
  static double Rank(EvictionPolicy policy, const CacheEntryInfo& info, Time now);

  // Metadata of every entry, most recently used first (ties: most recently touched first).
  std::vector<CacheEntryInfo> Enumerate() const;

  // Calls `fn(const IndexEntry&)` for each entry, in no particular order.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (const IndexEntry& entry : entries_) fn(entry);
  }

  int64_t entry_count() const { return static_cast<int64_t>(entries_.size()); }
  int64_t total_bytes() const { return total_bytes_; }
  int64_t max_bytes() const { return max_bytes_; }
  int64_t high_watermark() const { return max_bytes_ - max_bytes_ / 20; }
  int64_t low_watermark() const { return max_bytes_ - 2 * (max_bytes_ / 20); }
  EvictionPolicy policy() const { return policy_; }

  // For the Memory view: an estimate of the heap bytes the index holds (the entry and ranking
  // arrays at their capacity, the slot hash set, each key once, in its entry), not counting
  // sizeof(CacheIndex). See net/base/memory_usage_estimator.h.
  size_t EstimateMemoryUsage() const;

 private:
  // What ranking reads, kept apart from the entries in a dense array parallel to entries_, so
  // ranking 100,000 entries walks 3 MB of contiguous memory instead of 100,000 heap nodes.
  struct Hot {
    int64_t last_used_us;
    int64_t size;
    uint32_t use_count;
    uint64_t touch_seq;  // order of the last insert/touch: Enumerate's and Evict's ties
  };
  void SetHot(size_t slot);
  // Removes entries_[slot] (swapping the last entry into its place).
  IndexEntry RemoveSlot(size_t slot);

  // An element of slots_: the slot of one entry. Hashed and compared by that entry's key, so
  // the key is stored once (in entries_), not again as the set's key; a lookup by
  // std::string_view needs no copy (C++20 heterogeneous lookup). `slot` changes only when
  // the entry moves to another slot (RemoveSlot), which keeps its key, hence its hash.
  struct SlotRef {
    mutable size_t slot;
  };
  struct SlotHash {
    using is_transparent = void;
    // Not noexcept: the set then caches each hash in its node, so rehashing never reads keys.
    size_t operator()(std::string_view key) const { return std::hash<std::string_view>()(key); }
    size_t operator()(const SlotRef& ref) const { return (*this)((*entries)[ref.slot].info.key); }
    const std::vector<IndexEntry>* entries;
  };
  struct SlotEq {
    using is_transparent = void;
    std::string_view Key(std::string_view key) const { return key; }
    std::string_view Key(const SlotRef& ref) const { return (*entries)[ref.slot].info.key; }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return Key(a) == Key(b);
    }
    const std::vector<IndexEntry>* entries;
  };
  using SlotSet = std::unordered_set<SlotRef, SlotHash, SlotEq>;

  int64_t max_bytes_;
  const EvictionPolicy policy_;
  std::vector<IndexEntry> entries_;
  std::vector<Hot> hot_;
  SlotSet slots_;  // key -> index in entries_/hot_
  // For each slot, its element's value in slots_ (stable across rehashing), so moving an entry
  // to another slot needs no lookup.
  std::vector<size_t*> slot_refs_;
  int64_t total_bytes_ = 0;
  uint64_t next_touch_seq_ = 1;
};

}  // namespace netstack

#endif  // CACHE_CACHE_INDEX_H_
