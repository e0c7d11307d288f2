#include "cache/cache_index.h"

#include <algorithm>
#include <cmath>

#include "net/base/memory_usage_estimator.h"

namespace netstack {

bool IsUsableCacheKey(const CacheConfig& config, const std::string& key) {
  return !key.empty() && key.size() <= config.max_key_bytes;
}

CacheIndex::CacheIndex(const CacheConfig& config)
    : max_bytes_(config.max_bytes),
      policy_(config.eviction),
      slots_(0, SlotHash{&entries_}, SlotEq{&entries_}) {}

const IndexEntry* CacheIndex::Find(const std::string& key) const {
  auto it = slots_.find(std::string_view(key));
  return it == slots_.end() ? nullptr : &entries_[it->slot];
}

void CacheIndex::SetHot(size_t slot) {
  const CacheEntryInfo& info = entries_[slot].info;
  hot_[slot] = {ToUnixMicros(info.last_used), info.total_size(), info.use_count, next_touch_seq_++};
}

void CacheIndex::Reserve(size_t n) {
  entries_.reserve(n);
  hot_.reserve(n);
  slot_refs_.reserve(n);
  slots_.reserve(n);
}

size_t CacheIndex::Adopt(std::vector<IndexEntry> entries) {
  slots_.clear();
  entries_ = std::move(entries);
  hot_.clear();
  slot_refs_.clear();
  total_bytes_ = 0;
  hot_.reserve(entries_.size());
  slot_refs_.reserve(entries_.size());
  slots_.reserve(entries_.size());
  size_t dropped = 0;
  for (size_t slot = 0; slot < entries_.size();) {
    auto [it, inserted] = slots_.insert(SlotRef{slot});
    if (!inserted) {  // a key seen before: the last unseen entry takes this slot
      entries_[slot] = std::move(entries_.back());
      entries_.pop_back();
      ++dropped;
      continue;
    }
    slot_refs_.push_back(&it->slot);
    hot_.emplace_back();
    total_bytes_ += entries_[slot].info.total_size();
    SetHot(slot);
    ++slot;
  }
  return dropped;
}

bool CacheIndex::Insert(IndexEntry entry, IndexEntry* replaced) {
  total_bytes_ += entry.info.total_size();
  auto it = slots_.find(std::string_view(entry.info.key));
  if (it != slots_.end()) {
    IndexEntry& old = entries_[it->slot];
    total_bytes_ -= old.info.total_size();
    if (replaced) *replaced = std::move(old);
    old = std::move(entry);
    SetHot(it->slot);
    return true;
  }
  // The entry goes into its slot first: the set hashes it from there.
  const size_t slot = entries_.size();
  entries_.push_back(std::move(entry));
  hot_.emplace_back();
  it = slots_.insert(SlotRef{slot}).first;
  slot_refs_.push_back(&it->slot);
  SetHot(slot);
  return false;
}

IndexEntry CacheIndex::RemoveSlot(size_t slot) {
  // Out of the set while the entry still holds its key (the set hashes and compares by it).
  slots_.erase(slots_.find(std::string_view(entries_[slot].info.key)));
  IndexEntry removed = std::move(entries_[slot]);
  total_bytes_ -= removed.info.total_size();
  size_t last = entries_.size() - 1;
  if (slot != last) {
    entries_[slot] = std::move(entries_[last]);
    hot_[slot] = hot_[last];
    slot_refs_[slot] = slot_refs_[last];
    *slot_refs_[slot] = slot;
  }
  entries_.pop_back();
  hot_.pop_back();
  slot_refs_.pop_back();
  return removed;
}

bool CacheIndex::Remove(const std::string& key, uint64_t id, IndexEntry* removed) {
  auto it = slots_.find(std::string_view(key));
  if (it == slots_.end() || (id != 0 && entries_[it->slot].id != id)) return false;
  IndexEntry entry = RemoveSlot(it->slot);
  if (removed) *removed = std::move(entry);
  return true;
}

bool CacheIndex::Touch(const std::string& key, Time now) {
  auto it = slots_.find(std::string_view(key));
  if (it == slots_.end()) return false;
  CacheEntryInfo& info = entries_[it->slot].info;
  info.last_used = now;
  info.use_count++;
  SetHot(it->slot);
  return true;
}

bool CacheIndex::SetHeadersSize(const std::string& key, uint64_t id, int64_t headers_size) {
  auto it = slots_.find(std::string_view(key));
  if (it == slots_.end() || entries_[it->slot].id != id) return false;
  CacheEntryInfo& info = entries_[it->slot].info;
  total_bytes_ += headers_size - info.headers_size;
  info.headers_size = headers_size;
  hot_[it->slot].size = info.total_size();
  return true;
}

std::vector<IndexEntry> CacheIndex::RemoveAll() {
  slots_.clear();  // first: its elements refer to entries_
  std::vector<IndexEntry> out = std::move(entries_);
  entries_.clear();
  hot_.clear();
  slot_refs_.clear();
  total_bytes_ = 0;
  return out;
}

std::vector<IndexEntry> CacheIndex::RemoveUsedBetween(Time begin, Time end) {
  std::vector<IndexEntry> out;
  const int64_t b = ToUnixMicros(begin), e = ToUnixMicros(end);
  for (size_t slot = entries_.size(); slot-- > 0;) {
    if (hot_[slot].last_used_us >= b && hot_[slot].last_used_us < e) {
      out.push_back(RemoveSlot(slot));
    }
  }
  return out;
}

double CacheIndex::Rank(EvictionPolicy policy, const CacheEntryInfo& info, Time now) {
  double age_seconds = std::max<int64_t>(0, ToUnixMicros(now) - ToUnixMicros(info.last_used)) / 1e6;
  double rank = age_seconds * static_cast<double>(info.total_size() + 512);
  if (policy == EvictionPolicy::kFrequencyWeighted) {
    rank /= 1.0 + std::log2(1.0 + static_cast<double>(info.use_count));
  }
  return rank;
}

std::vector<IndexEntry> CacheIndex::Evict(Time now) {
  std::vector<IndexEntry> victims;
  if (total_bytes_ <= high_watermark() || entries_.empty()) return victims;
  const int64_t to_free = total_bytes_ - std::max<int64_t>(0, low_watermark());

  struct Candidate {
    double rank;
    int64_t size;
    uint64_t touch_seq;
    size_t slot;
  };
  const int64_t now_us = ToUnixMicros(now);
  const bool frequency = policy_ == EvictionPolicy::kFrequencyWeighted;
  std::vector<Candidate> candidates(hot_.size());
  for (size_t slot = 0; slot < hot_.size(); ++slot) {
    const Hot& hot = hot_[slot];
    // Rank() inlined over the dense array; the same formula.
    double rank =
        std::max<int64_t>(0, now_us - hot.last_used_us) / 1e6 * static_cast<double>(hot.size + 512);
    if (frequency) rank /= 1.0 + std::log2(1.0 + static_cast<double>(hot.use_count));
    candidates[slot] = {rank, hot.size, hot.touch_seq, slot};
  }
  // A strict total order (touch_seq is unique), so the victims do not depend on insertion
  // history: highest rank, then largest, then least recently touched.
  auto goes_first = [](const Candidate& a, const Candidate& b) {
    if (a.rank != b.rank) return a.rank > b.rank;
    if (a.size != b.size) return a.size > b.size;
    return a.touch_seq < b.touch_seq;
  };

  const size_t n = candidates.size();
  const int64_t average = std::max<int64_t>(1, total_bytes_ / static_cast<int64_t>(n));
  size_t guess = static_cast<size_t>(to_free / average + to_free / average / 4 + 8);
  size_t done = 0;  // candidates [0, done) are sorted and taken
  int64_t freed = 0;
  while (freed < to_free && done < n) {
    size_t end = std::min(n, done + guess);
    if (end < n) {
      std::nth_element(candidates.begin() + static_cast<std::ptrdiff_t>(done),
                       candidates.begin() + static_cast<std::ptrdiff_t>(end), candidates.end(),
                       goes_first);
    }
    std::sort(candidates.begin() + static_cast<std::ptrdiff_t>(done),
              candidates.begin() + static_cast<std::ptrdiff_t>(end), goes_first);
    for (; done < end && freed < to_free; ++done) freed += candidates[done].size;
    guess *= 2;
  }
  // Remove in descending slot order: each swap-remove then moves a survivor (never a victim)
  // into the freed slot, so the remaining victims' slots stay valid. Return them in eviction
  // order.
  std::vector<std::pair<size_t, size_t>> by_slot(done);  // (slot, eviction position)
  for (size_t i = 0; i < done; ++i) by_slot[i] = {candidates[i].slot, i};
  std::sort(by_slot.begin(), by_slot.end(), std::greater<>());
  victims.resize(done);
  for (const auto& [slot, position] : by_slot) victims[position] = RemoveSlot(slot);
  return victims;
}

size_t CacheIndex::EstimateMemoryUsage() const {
  size_t bytes = entries_.capacity() * sizeof(IndexEntry) + hot_.capacity() * sizeof(Hot) +
                 slot_refs_.capacity() * sizeof(size_t*);
  for (const IndexEntry& entry : entries_) bytes += netstack::EstimateMemoryUsage(entry.info.key);
  return bytes + slots_.bucket_count() * sizeof(void*) + slots_.size() * HashNodeBytes<SlotRef>();
}

std::vector<CacheEntryInfo> CacheIndex::Enumerate() const {
  std::vector<size_t> order(entries_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (hot_[a].last_used_us != hot_[b].last_used_us) {
      return hot_[a].last_used_us > hot_[b].last_used_us;
    }
    return hot_[a].touch_seq > hot_[b].touch_seq;
  });
  std::vector<CacheEntryInfo> out;
  out.reserve(order.size());
  for (size_t slot : order) out.push_back(entries_[slot].info);
  return out;
}

}  // namespace netstack
