#include "net/dns/host_cache.h"

#include <cassert>
#include <iterator>
#include <utility>

#include "net/base/memory_usage_estimator.h"

namespace netstack {

HostCache::Entry HostCache::Entry::ForAddresses(std::vector<IPAddress> addresses, TimeDelta ttl) {
  assert(!addresses.empty());
  return Entry(OK, std::move(addresses), ttl);
}

HostCache::Entry HostCache::Entry::ForError(int error, TimeDelta ttl) {
  assert(error < 0);
  return Entry(error, {}, ttl);
}

HostCache::HostCache(size_t max_entries) : max_entries_(max_entries) {}

HostCache::EntryStaleness HostCache::StalenessOf(const Entry& entry, TimeTicks now) const {
  EntryStaleness staleness;
  staleness.expired_by = now - entry.expires_;
  staleness.network_changes = network_generation_ - entry.network_generation_;
  staleness.stale_hits = entry.stale_hits_;
  return staleness;
}

const HostCache::Entry* HostCache::Lookup(const Key& key, TimeTicks now) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) return nullptr;
  if (StalenessOf(it->second, now).is_stale()) return nullptr;
  return &it->second;
}

const HostCache::Entry* HostCache::Peek(const Key& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

const HostCache::Entry* HostCache::LookupStale(const Key& key, TimeTicks now,
                                               EntryStaleness* staleness) {
  auto it = entries_.find(key);
  if (it == entries_.end()) return nullptr;
  Entry& entry = it->second;
  EntryStaleness result = StalenessOf(entry, now);
  if (result.is_stale()) result.stale_hits = ++entry.stale_hits_;
  if (staleness) *staleness = result;
  return &entry;
}

void HostCache::Set(const Key& key, Entry entry, TimeTicks now, int network_generation) {
  if (max_entries_ == 0) return;
  entry.expires_ = now + entry.ttl_;
  // A generation from the future makes no sense; clamp so staleness never goes negative.
  entry.network_generation_ = (network_generation < 0 || network_generation > network_generation_)
                                  ? network_generation_
                                  : network_generation;
  entry.stale_hits_ = 0;

  auto it = entries_.find(key);
  if (it != entries_.end()) {
    // Replacing does not grow the cache, so nothing is evicted. The index orders by the fields
    // about to change: its node comes out first and goes back after (no allocation).
    auto node = eviction_order_.extract(EntryMap::const_iterator(it));
    it->second = std::move(entry);
    eviction_order_.insert(std::move(node));
    return;
  }
  if (entries_.size() >= max_entries_) EvictOneEntry();
  // Both containers or neither: if the index cannot take the new entry (out of memory), the
  // entry is removed again before the exception leaves.
  it = entries_.emplace(key, std::move(entry)).first;
  try {
    eviction_order_.insert(EntryMap::const_iterator(it));
  } catch (...) {
    entries_.erase(it);
    throw;
  }
  assert(entries_.size() <= max_entries_);
  assert(eviction_order_.size() == entries_.size());
}

bool HostCache::EvictionOrder::operator()(EntryMap::const_iterator a,
                                          EntryMap::const_iterator b) const {
  // Oldest network generation first (most network changes), then soonest expiry, then key.
  if (a->second.network_generation_ != b->second.network_generation_)
    return a->second.network_generation_ < b->second.network_generation_;
  if (a->second.expires_ != b->second.expires_) return a->second.expires_ < b->second.expires_;
  return a->first < b->first;
}

void HostCache::EvictOneEntry() {
  if (entries_.empty()) return;
  auto victim = *eviction_order_.begin();
  eviction_order_.erase(eviction_order_.begin());
  entries_.erase(victim);
  ++evictions_;
}

void HostCache::OnNetworkChange() { ++network_generation_; }

bool HostCache::Remove(const Key& key) {
  auto it = entries_.find(key);
  if (it == entries_.end()) return false;
  eviction_order_.erase(EntryMap::const_iterator(it));
  entries_.erase(it);
  return true;
}

void HostCache::Clear() {
  eviction_order_.clear();
  entries_.clear();
}

size_t HostCache::EstimateMemoryUsage() const {
  size_t bytes = entries_.size() * (TreeNodeBytes<std::pair<const Key, Entry>>() +
                                    TreeNodeBytes<EntryMap::const_iterator>());
  for (const auto& [key, entry] : entries_)
    bytes += netstack::EstimateMemoryUsage(key.hostname) +
             netstack::EstimateMemoryUsage(entry.addresses_);
  return bytes;
}

void HostCache::ForEach(const std::function<void(const Key&, const Entry&)>& visitor) const {
  for (const auto& [key, entry] : entries_) visitor(key, entry);
}

nlohmann::json HostCache::ToJson(TimeTicks now) const {
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& [key, entry] : entries_) {
    EntryStaleness staleness = StalenessOf(entry, now);
    nlohmann::json item = {
        {"hostname", key.hostname},
        {"address_family", static_cast<int>(key.family)},
        {"ttl", ToMilliseconds(entry.ttl())},
        {"expiration", std::to_string(static_cast<int64_t>(ToMilliseconds(entry.expires())))},
        {"expired_by_ms", ToMilliseconds(staleness.expired_by)},
        {"network_changes", staleness.network_changes},
        {"stale_hits", staleness.stale_hits},
        {"stale", staleness.is_stale()},
    };
    if (entry.error() == OK) {
      nlohmann::json addresses = nlohmann::json::array();
      for (const IPAddress& address : entry.addresses()) addresses.push_back(address.ToString());
      item["addresses"] = std::move(addresses);
    } else {
      item["net_error"] = entry.error();
      item["error"] = ErrorToString(entry.error());
    }
    entries.push_back(std::move(item));
  }
  return {
      {"capacity", max_entries_},
      {"size", entries_.size()},
      {"network_changes", network_generation_},
      {"evictions", evictions_},
      {"entries", std::move(entries)},
  };
}

}  // namespace netstack
