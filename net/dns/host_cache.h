// The host cache: answers (and, if configured, failures) keyed by host name and address family,
// kept for their DNS TTL. As in Chrome, an entry is not deleted when it expires or when the
// network changes: it becomes stale, keeps its staleness (how long ago it expired, how many
// network changes ago it was stored, how often it was served stale), and may still be served by
// a resolver that allows stale answers while it refreshes them. Bounded: when full, storing a new
// key evicts one entry (see Set()); the cache never grows past max_entries().
#ifndef NET_DNS_HOST_CACHE_H_
#define NET_DNS_HOST_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "net/base/ip_address.h"
#include "net/base/net_error.h"
#include "net/base/time.h"

namespace netstack {

class HostCache {
 public:
  // Chrome's default capacity.
  static constexpr size_t kDefaultMaxEntries = 1000;

  struct Key {
    Key() = default;
    Key(std::string hostname, AddressFamily family)
        : hostname(std::move(hostname)), family(family) {}

    // Canonical (lower-case) host name, as HostResolverManager passes it.
    std::string hostname;
    // The family that was asked for: kUnspecified (both), kIPv4 or kIPv6. An IPv4-only answer
    // to a kUnspecified question is stored under kUnspecified, not under kIPv4.
    AddressFamily family = AddressFamily::kUnspecified;

    auto operator<=>(const Key& other) const = default;
    bool operator==(const Key& other) const = default;
  };

  // How stale an entry is at the time of a lookup.
  struct EntryStaleness {
    // Now minus the expiry time: negative while the TTL still runs, >= 0 once it has expired.
    TimeDelta expired_by = TimeDelta::zero();
    // Network changes since the entry was stored.
    int network_changes = 0;
    // How many times LookupStale() has returned this entry while it was stale (this lookup
    // included).
    int stale_hits = 0;

    // Chrome's rule: stale once expired (expired_by >= 0) or stored on another network.
    bool is_stale() const { return network_changes > 0 || expired_by >= TimeDelta::zero(); }
  };

  class Entry {
   public:
    // A positive entry. `addresses` must not be empty.
    static Entry ForAddresses(std::vector<IPAddress> addresses, TimeDelta ttl);
    // A negative entry: `error` is the net error the lookup failed with.
    static Entry ForError(int error, TimeDelta ttl);

    int error() const { return error_; }
    const std::vector<IPAddress>& addresses() const { return addresses_; }
    TimeDelta ttl() const { return ttl_; }
    // Set by HostCache::Set(): store time plus TTL.
    TimeTicks expires() const { return expires_; }
    // The cache's network generation when the entry was stored (see OnNetworkChange()).
    int network_generation() const { return network_generation_; }
    int stale_hits() const { return stale_hits_; }

   private:
    friend class HostCache;
    Entry(int error, std::vector<IPAddress> addresses, TimeDelta ttl)
        : error_(error), addresses_(std::move(addresses)), ttl_(ttl) {}

    int error_;
    std::vector<IPAddress> addresses_;
    TimeDelta ttl_;
    TimeTicks expires_{};
    int network_generation_ = 0;
    int stale_hits_ = 0;
  };

  // `max_entries` bounds the number of entries; 0 disables caching (Set() stores nothing).
  explicit HostCache(size_t max_entries = kDefaultMaxEntries);
  HostCache(const HostCache&) = delete;
  HostCache& operator=(const HostCache&) = delete;

  // The entry for `key` if it is fresh (not expired at `now`, stored on the current network);
  // nullptr otherwise. The pointer is valid until the next non-const call.
  const Entry* Lookup(const Key& key, TimeTicks now) const;

  // The entry for `key` whether fresh or stale, without counting a stale hit; nullptr if there
  // is none. For deciding whether a stale entry is usable before LookupStale() counts it.
  const Entry* Peek(const Key& key) const;

  // The entry for `key` whether fresh or stale, with its staleness in `*staleness` (may be
  // null); nullptr if there is none. Counts a stale hit when the entry is stale. The pointer is
  // valid until the next non-const call.
  const Entry* LookupStale(const Key& key, TimeTicks now, EntryStaleness* staleness);

  // Stores `entry` under `key`, replacing any previous entry (stale hits restart at zero). Its
  // expiry is `now` + its TTL. `network_generation` is the generation the answer belongs to:
  // normally the current one (the default, -1); a resolver whose lookup started before a
  // network change passes the generation it started in, so the answer is stored already stale.
  //
  // Bound: if the key is new and the cache is full, one entry is evicted first: the one stored
  // the most network changes ago, and among those the one that expires soonest (for expired
  // entries, the longest expired). So stale entries go before fresh ones, and among fresh ones
  // the entry with the least useful life left goes first, as in Chrome's HostCache.
  void Set(const Key& key, Entry entry, TimeTicks now, int network_generation = -1);

  // Marks every entry stale (they are kept, with one more network change to their name) by
  // starting a new network generation.
  void OnNetworkChange();

  // Removes one entry. Returns whether there was one.
  bool Remove(const Key& key);
  // Removes every entry. Does not reset counters or the network generation.
  void Clear();

  size_t size() const { return entries_.size(); }
  size_t max_entries() const { return max_entries_; }
  // The current network generation: how many OnNetworkChange() calls so far.
  int network_generation() const { return network_generation_; }
  // Entries evicted to make room, since construction.
  uint64_t evictions() const { return evictions_; }

  // For the internals page's Memory view: an estimate of the heap bytes the cache holds (one
  // map node per entry, the keys' host names, the entries' address lists), not counting
  // sizeof(HostCache); see net/base/memory_usage_estimator.h. Proportional to size(): an empty
  // cache holds nothing.
  size_t EstimateMemoryUsage() const;

  // Calls `visitor` for each entry in key order. The visitor must not modify the cache.
  void ForEach(const std::function<void(const Key&, const Entry&)>& visitor) const;

  // The staleness of `entry` at `now` (stale_hits as stored).
  EntryStaleness StalenessOf(const Entry& entry, TimeTicks now) const;

  // The cache as JSON for the internals page and the NetLog's polled data, in the shape of
  // Chrome's "hostResolverInfo.cache": {"capacity", "network_changes", "size", "evictions",
  // "entries": [{"hostname", "address_family" (0/1/2 as Chrome's addressFamily constants),
  // "addresses" | "net_error" + "error", "ttl" (ms), "expiration" (ms on the scheduler's clock,
  // as a string like Chrome), "expired_by_ms", "network_changes", "stale_hits", "stale"}]}.
  nlohmann::json ToJson(TimeTicks now) const;

 private:
  using EntryMap = std::map<Key, Entry>;
  // Orders entries the way eviction picks them: the oldest network generation first, then the
  // soonest expiry, then key order (the order a scan of the map would break ties in). It reads
  // the entry's fields, so an entry is taken out of the index before they change.
  struct EvictionOrder {
    bool operator()(EntryMap::const_iterator a, EntryMap::const_iterator b) const;
  };

  // Removes the entry chosen by the eviction rule in Set()'s comment: the first in
  // eviction_order_, so O(log n) rather than a scan (a resolver resolving many distinct names
  // evicts on every new name once the cache is full).
  void EvictOneEntry();

  size_t max_entries_;
  EntryMap entries_;
  // Every entry of entries_, once, in eviction order.
  std::set<EntryMap::const_iterator, EvictionOrder> eviction_order_;
  int network_generation_ = 0;
  uint64_t evictions_ = 0;
};

}  // namespace netstack

#endif  // NET_DNS_HOST_CACHE_H_
