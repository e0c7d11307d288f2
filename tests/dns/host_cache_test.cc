#include "net/dns/host_cache.h"

#include <catch2/catch.hpp>
#include <string>

using namespace netstack;
using namespace std::chrono_literals;

namespace {

HostCache::Key KeyFor(const std::string& host) {
  return HostCache::Key(host, AddressFamily::kUnspecified);
}

HostCache::Entry Addresses(const std::string& address, TimeDelta ttl) {
  return HostCache::Entry::ForAddresses({*IPAddress::Parse(address)}, ttl);
}

TimeTicks At(TimeDelta t) { return TimeTicks(t); }

}  // namespace

TEST_CASE("host cache: fresh until the TTL runs out, then stale with its staleness") {
  HostCache cache;
  cache.Set(KeyFor("a.test"), Addresses("10.0.0.1", 60s), At(0s));

  const HostCache::Entry* entry = cache.Lookup(KeyFor("a.test"), At(59s));
  REQUIRE(entry);
  CHECK(entry->addresses()[0].ToString() == "10.0.0.1");
  CHECK(entry->ttl() == TimeDelta(60s));
  CHECK(entry->expires() == At(60s));

  // At the expiry time the entry is stale (Chrome: expired_by >= 0), and Lookup() says so.
  CHECK(cache.Lookup(KeyFor("a.test"), At(60s)) == nullptr);
  CHECK(cache.size() == 1);  // Kept, not deleted.

  HostCache::EntryStaleness staleness;
  entry = cache.LookupStale(KeyFor("a.test"), At(75s), &staleness);
  REQUIRE(entry);
  CHECK(staleness.is_stale());
  CHECK(staleness.expired_by == TimeDelta(15s));
  CHECK(staleness.network_changes == 0);
  CHECK(staleness.stale_hits == 1);
  cache.LookupStale(KeyFor("a.test"), At(76s), &staleness);
  CHECK(staleness.stale_hits == 2);

  // A fresh LookupStale() is not a stale hit.
  cache.Set(KeyFor("b.test"), Addresses("10.0.0.2", 60s), At(0s));
  cache.LookupStale(KeyFor("b.test"), At(1s), &staleness);
  CHECK_FALSE(staleness.is_stale());
  CHECK(staleness.expired_by == TimeDelta(-59s));
  CHECK(staleness.stale_hits == 0);
}

TEST_CASE("host cache: a network change marks entries stale and keeps them") {
  HostCache cache;
  cache.Set(KeyFor("a.test"), Addresses("10.0.0.1", 60s), At(0s));
  cache.OnNetworkChange();
  CHECK(cache.size() == 1);
  CHECK(cache.Lookup(KeyFor("a.test"), At(1s)) == nullptr);

  HostCache::EntryStaleness staleness;
  REQUIRE(cache.LookupStale(KeyFor("a.test"), At(1s), &staleness));
  CHECK(staleness.is_stale());
  CHECK(staleness.network_changes == 1);
  CHECK(staleness.expired_by < TimeDelta::zero());  // Not expired, only from another network.

  cache.OnNetworkChange();
  cache.LookupStale(KeyFor("a.test"), At(1s), &staleness);
  CHECK(staleness.network_changes == 2);

  // Storing again makes it fresh on the current network.
  cache.Set(KeyFor("a.test"), Addresses("10.0.0.9", 60s), At(2s));
  REQUIRE(cache.Lookup(KeyFor("a.test"), At(3s)));
  CHECK(cache.Lookup(KeyFor("a.test"), At(3s))->addresses()[0].ToString() == "10.0.0.9");
}

TEST_CASE("host cache: an answer from an older network generation is stored stale") {
  HostCache cache;
  int generation = cache.network_generation();
  cache.OnNetworkChange();
  cache.Set(KeyFor("a.test"), Addresses("10.0.0.1", 60s), At(0s), generation);
  CHECK(cache.Lookup(KeyFor("a.test"), At(1s)) == nullptr);
  HostCache::EntryStaleness staleness;
  REQUIRE(cache.LookupStale(KeyFor("a.test"), At(1s), &staleness));
  CHECK(staleness.network_changes == 1);
}

TEST_CASE("host cache: the 1000-entry bound is never exceeded") {
  HostCache cache;
  REQUIRE(cache.max_entries() == 1000);
  for (int i = 0; i < 1500; ++i) {
    // TTLs vary so the eviction rule has choices to make.
    cache.Set(KeyFor("h" + std::to_string(i) + ".test"),
              Addresses("10.0.0.1", TimeDelta(std::chrono::seconds(1 + (i * 7919) % 600))),
              At(TimeDelta(std::chrono::milliseconds(i))));
    REQUIRE(cache.size() <= 1000);
  }
  CHECK(cache.size() == 1000);
  CHECK(cache.evictions() == 500);
}

TEST_CASE("host cache: eviction takes the most stale entry, then the soonest to expire") {
  HostCache cache(3);
  cache.Set(KeyFor("long.test"), Addresses("10.0.0.1", 100s), At(0s));
  cache.Set(KeyFor("short.test"), Addresses("10.0.0.2", 10s), At(0s));
  cache.Set(KeyFor("mid.test"), Addresses("10.0.0.3", 50s), At(0s));

  cache.Set(KeyFor("new.test"), Addresses("10.0.0.4", 5s), At(1s));  // Expires at 6 s.
  CHECK(cache.size() == 3);
  CHECK(cache.Peek(KeyFor("short.test")) == nullptr);  // Expired soonest (10 s).
  CHECK(cache.evictions() == 1);

  // After a network change the old-network entries go first, even if they expire later than
  // a fresh one.
  cache.OnNetworkChange();
  cache.Set(KeyFor("fresh1.test"), Addresses("10.0.0.5", 1s), At(2s));  // Evicts new (6 s).
  cache.Set(KeyFor("fresh2.test"), Addresses("10.0.0.6", 1s), At(2s));  // Evicts mid (50 s).
  CHECK(cache.Peek(KeyFor("new.test")) == nullptr);
  CHECK(cache.Peek(KeyFor("mid.test")) == nullptr);
  CHECK(cache.Peek(KeyFor("long.test")) != nullptr);
  cache.Set(KeyFor("fresh3.test"), Addresses("10.0.0.7", 1s), At(2s));  // Evicts long.
  CHECK(cache.Peek(KeyFor("long.test")) == nullptr);
  CHECK(cache.Peek(KeyFor("fresh1.test")) != nullptr);
  CHECK(cache.size() == 3);
}

TEST_CASE("host cache: replacing a key neither grows the cache nor evicts") {
  HostCache cache(2);
  cache.Set(KeyFor("a.test"), Addresses("10.0.0.1", 10s), At(0s));
  cache.Set(KeyFor("b.test"), Addresses("10.0.0.2", 10s), At(0s));
  cache.Set(KeyFor("a.test"), Addresses("10.0.0.3", 10s), At(1s));
  CHECK(cache.size() == 2);
  CHECK(cache.evictions() == 0);
  CHECK(cache.Lookup(KeyFor("a.test"), At(2s))->addresses()[0].ToString() == "10.0.0.3");
}

TEST_CASE("host cache: a replaced entry is evicted by its new expiry, a removed one never") {
  HostCache cache(3);
  cache.Set(KeyFor("a.test"), Addresses("10.0.0.1", 10s), At(0s));  // Expires at 10 s.
  cache.Set(KeyFor("b.test"), Addresses("10.0.0.2", 20s), At(0s));  // 20 s.
  cache.Set(KeyFor("c.test"), Addresses("10.0.0.3", 30s), At(0s));  // 30 s.
  // a is replaced with a later expiry (100 s): b is now the soonest to expire.
  cache.Set(KeyFor("a.test"), Addresses("10.0.0.4", 99s), At(1s));
  cache.Set(KeyFor("d.test"), Addresses("10.0.0.5", 50s), At(1s));
  CHECK(cache.Peek(KeyFor("b.test")) == nullptr);
  CHECK(cache.Peek(KeyFor("a.test")) != nullptr);
  // A removed entry leaves the eviction order too: c (30 s) goes next, and the cache refills.
  CHECK(cache.Remove(KeyFor("d.test")));
  cache.Set(KeyFor("e.test"), Addresses("10.0.0.6", 50s), At(1s));
  CHECK(cache.evictions() == 1);
  cache.Set(KeyFor("f.test"), Addresses("10.0.0.7", 50s), At(1s));
  CHECK(cache.Peek(KeyFor("c.test")) == nullptr);
  CHECK(cache.evictions() == 2);
  cache.Clear();
  for (int i = 0; i < 5; ++i)
    cache.Set(KeyFor("g" + std::to_string(i) + ".test"), Addresses("10.0.0.8", 5s), At(2s));
  CHECK(cache.size() == 3);
  CHECK(cache.evictions() == 4);
}

// The indexed eviction must pick what a scan of every entry would (the rule in Set()'s
// comment, ties in key order), through replacements, removals, network changes and clears.
TEST_CASE("host cache: eviction matches a scan of every entry under a random workload") {
  HostCache cache(16);
  uint32_t seed = 12345;
  auto next = [&seed](uint32_t n) {
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) % n;
  };
  for (int step = 0; step < 5000; ++step) {
    const TimeTicks now = At(TimeDelta(std::chrono::seconds(step / 50)));
    const HostCache::Key key("h" + std::to_string(next(64)) + ".test",
                             next(2) ? AddressFamily::kUnspecified : AddressFamily::kIPv4);
    const uint32_t op = next(100);
    if (op < 2) {
      cache.OnNetworkChange();
    } else if (op < 3) {
      cache.Clear();
    } else if (op < 13) {
      cache.Remove(key);
    } else {
      // What a scan would evict if this Set adds a key to a full cache.
      const HostCache::Key* expected = nullptr;
      const HostCache::Entry* best = nullptr;
      cache.ForEach([&](const HostCache::Key& k, const HostCache::Entry& e) {
        if (!best || e.network_generation() < best->network_generation() ||
            (e.network_generation() == best->network_generation() &&
             e.expires() < best->expires())) {
          best = &e;
          expected = &k;
        }
      });
      const bool evicts = cache.Peek(key) == nullptr && cache.size() == cache.max_entries();
      const HostCache::Key victim = expected ? *expected : HostCache::Key();
      const uint64_t evictions_before = cache.evictions();
      // Coarse TTLs so that expiry ties (broken by key order) happen often.
      cache.Set(key, Addresses("10.0.0.1", TimeDelta(std::chrono::seconds(next(4)))), now);
      if (evicts) {
        REQUIRE(cache.evictions() == evictions_before + 1);
        REQUIRE(cache.Peek(victim) == nullptr);
      } else {
        REQUIRE(cache.evictions() == evictions_before);
      }
      REQUIRE(cache.Peek(key) != nullptr);
    }
    REQUIRE(cache.size() <= cache.max_entries());
  }
  CHECK(cache.evictions() > 100);  // The workload did exercise eviction.
}

TEST_CASE("host cache: the family asked for is part of the key") {
  HostCache cache;
  cache.Set(HostCache::Key("a.test", AddressFamily::kIPv4), Addresses("10.0.0.1", 10s), At(0s));
  CHECK(cache.Lookup(HostCache::Key("a.test", AddressFamily::kIPv4), At(1s)));
  CHECK(cache.Lookup(HostCache::Key("a.test", AddressFamily::kUnspecified), At(1s)) == nullptr);
  CHECK(cache.Lookup(HostCache::Key("a.test", AddressFamily::kIPv6), At(1s)) == nullptr);
}

TEST_CASE("host cache: negative entries, Remove, Clear, and a zero capacity") {
  HostCache cache;
  cache.Set(KeyFor("gone.test"), HostCache::Entry::ForError(ERR_NAME_NOT_RESOLVED, 5s), At(0s));
  const HostCache::Entry* entry = cache.Lookup(KeyFor("gone.test"), At(1s));
  REQUIRE(entry);
  CHECK(entry->error() == ERR_NAME_NOT_RESOLVED);
  CHECK(entry->addresses().empty());
  CHECK(cache.Lookup(KeyFor("gone.test"), At(5s)) == nullptr);

  cache.Set(KeyFor("a.test"), Addresses("10.0.0.1", 10s), At(0s));
  CHECK(cache.Remove(KeyFor("a.test")));
  CHECK_FALSE(cache.Remove(KeyFor("a.test")));
  cache.OnNetworkChange();
  cache.Clear();
  CHECK(cache.size() == 0);
  CHECK(cache.network_generation() == 1);  // Clear() keeps the generation.

  HostCache disabled(0);
  disabled.Set(KeyFor("a.test"), Addresses("10.0.0.1", 10s), At(0s));
  CHECK(disabled.size() == 0);
}

TEST_CASE("host cache: ToJson lists entries with addresses, TTL, expiry and staleness") {
  HostCache cache(10);
  cache.Set(KeyFor("a.test"),
            HostCache::Entry::ForAddresses(
                {*IPAddress::Parse("fd00::1"), *IPAddress::Parse("10.0.0.1")}, 30s),
            At(0s));
  cache.Set(HostCache::Key("gone.test", AddressFamily::kIPv4),
            HostCache::Entry::ForError(ERR_NAME_NOT_RESOLVED, 5s), At(0s));
  cache.OnNetworkChange();
  HostCache::EntryStaleness staleness;
  cache.LookupStale(KeyFor("a.test"), At(40s), &staleness);

  nlohmann::json json = cache.ToJson(At(40s));
  CHECK(json["capacity"] == 10);
  CHECK(json["size"] == 2);
  CHECK(json["network_changes"] == 1);
  REQUIRE(json["entries"].size() == 2);
  const nlohmann::json& a = json["entries"][0];
  CHECK(a["hostname"] == "a.test");
  CHECK(a["address_family"] == 0);
  CHECK(a["addresses"] == nlohmann::json({"fd00::1", "10.0.0.1"}));
  CHECK(a["ttl"] == 30000.0);
  CHECK(a["expiration"] == "30000");
  CHECK(a["expired_by_ms"] == 10000.0);
  CHECK(a["network_changes"] == 1);
  CHECK(a["stale_hits"] == 1);
  CHECK(a["stale"] == true);
  const nlohmann::json& gone = json["entries"][1];
  CHECK(gone["hostname"] == "gone.test");
  CHECK(gone["address_family"] == 1);
  CHECK(gone["net_error"] == ERR_NAME_NOT_RESOLVED);
  CHECK(gone["error"] == "ERR_NAME_NOT_RESOLVED");
  CHECK_FALSE(gone.contains("addresses"));

  int visited = 0;
  cache.ForEach([&](const HostCache::Key&, const HostCache::Entry&) { ++visited; });
  CHECK(visited == 2);
}
