// SslClientSessionCache on a ManualClock, with plain numbers as the opaque sessions: the bound
// and LRU eviction, validity (expiry, a clock set back), single use and reuse, replacement,
// Clear. The OpenSSL side is in tls_client_engine_test.cc, the simulator's in tests/sim.
#include "net/socket/ssl_client_session_cache.h"

#include <catch2/catch.hpp>
#include <optional>

#include "net/base/clock.h"

namespace netstack {
namespace {

using Cache = SslClientSessionCache<int>;

// Valid from `clock`'s now for `lifetime`.
SslSessionValidity ValidFor(const Clock& clock, TimeDelta lifetime, bool single_use = false) {
  return SslSessionValidity{clock.Now(), clock.Now() + lifetime, single_use};
}

TEST_CASE("ssl session cache: keys are host:port, IPv6 literals in brackets") {
  CHECK(SslSessionCacheKey("example.test", 443) == "example.test:443");
  CHECK(SslSessionCacheKey("::1", 8443) == "[::1]:8443");
  CHECK(SslSessionCacheKey("[::1]", 443) == "[::1]:443");
}

TEST_CASE("ssl session cache: bounded, the least recently used key goes first") {
  ManualClock clock;
  Cache cache(clock, /*max_entries=*/2);
  cache.Insert("a:443", 1, ValidFor(clock, Seconds(300)));
  cache.Insert("b:443", 2, ValidFor(clock, Seconds(300)));
  CHECK(cache.Lookup("a:443") == 1);  // "a" is now the most recently used.
  cache.Insert("c:443", 3, ValidFor(clock, Seconds(300)));
  CHECK(cache.size() == 2);
  CHECK(cache.Lookup("b:443") == std::nullopt);  // Evicted.
  CHECK(cache.Lookup("a:443") == 1);
  CHECK(cache.Lookup("c:443") == 3);
  // Inserting for a cached key makes it the most recent too.
  cache.Insert("a:443", 4, ValidFor(clock, Seconds(300)));
  cache.Insert("d:443", 5, ValidFor(clock, Seconds(300)));
  CHECK(cache.Lookup("c:443") == std::nullopt);
  CHECK(cache.Lookup("a:443") == 4);

  Cache one(clock, /*max_entries=*/0);  // Taken as 1.
  one.Insert("a:443", 1, ValidFor(clock, Seconds(300)));
  one.Insert("b:443", 2, ValidFor(clock, Seconds(300)));
  CHECK(one.size() == 1);
  CHECK(one.max_entries() == 1);
  CHECK(one.Lookup("b:443") == 2);
}

TEST_CASE("ssl session cache: a session is offered only within its validity") {
  ManualClock clock;
  Cache cache(clock);
  cache.Insert("a:443", 1, ValidFor(clock, Seconds(300)));
  clock.Advance(Seconds(299));
  CHECK(cache.Lookup("a:443") == 1);
  clock.Advance(Seconds(1));  // expires is exclusive
  CHECK(cache.Lookup("a:443") == std::nullopt);
  CHECK(cache.size() == 0);  // Dropped by the lookup that found it expired.

  // Issued in the future of the clock (the clock was set back): not offered either.
  cache.Insert("b:443", 2, ValidFor(clock, Seconds(300)));
  clock.Advance(-Seconds(1));
  CHECK(cache.Lookup("b:443") == std::nullopt);
  CHECK(cache.size() == 0);

  // Already expired when stored: not stored, and evicts nothing.
  Cache small(clock, 1);
  small.Insert("a:443", 1, ValidFor(clock, Seconds(300)));
  small.Insert("b:443", 2, ValidFor(clock, TimeDelta::zero()));
  small.Insert("c:443", 3, {clock.Now() - Seconds(10), clock.Now() - Seconds(1), false});
  CHECK(small.size() == 1);
  CHECK(small.Lookup("a:443") == 1);
}

TEST_CASE("ssl session cache: single-use sessions are taken, reusable ones stay") {
  ManualClock clock;
  Cache cache(clock);
  cache.Insert("tls13:443", 13, ValidFor(clock, Seconds(7200), /*single_use=*/true));
  cache.Insert("tls12:443", 12, ValidFor(clock, Seconds(7200)));
  CHECK(cache.Lookup("tls13:443") == 13);
  CHECK(cache.Lookup("tls13:443") == std::nullopt);
  for (int i = 0; i < 3; ++i) CHECK(cache.Lookup("tls12:443") == 12);
  CHECK(cache.size() == 1);
  // A fresh ticket for the key is offered once again.
  cache.Insert("tls13:443", 14, ValidFor(clock, Seconds(7200), true));
  CHECK(cache.Lookup("tls13:443") == 14);
  CHECK(cache.Lookup("tls13:443") == std::nullopt);
}

TEST_CASE("ssl session cache: a server keeps two single-use sessions, the newest offered first") {
  ManualClock clock;
  Cache cache(clock);
  // An OpenSSL server's two tickets after a full handshake, then one more: the oldest goes.
  for (int ticket = 1; ticket <= 3; ++ticket)
    cache.Insert("a:443", ticket, ValidFor(clock, Seconds(300), /*single_use=*/true));
  CHECK(cache.size() == 1);  // One server.
  CHECK(cache.Lookup("a:443") == 3);
  CHECK(cache.Lookup("a:443") == 2);
  CHECK(cache.Lookup("a:443") == std::nullopt);
  CHECK(cache.size() == 0);

  // The newest past its lifetime, the older one still valid: the older is offered.
  cache.Insert("a:443", 4, ValidFor(clock, Seconds(300), true));
  cache.Insert("a:443", 5, ValidFor(clock, Seconds(10), true));
  clock.Advance(Seconds(60));
  CHECK(cache.Lookup("a:443") == 4);
  CHECK(cache.Lookup("a:443") == std::nullopt);

  // The older past its lifetime is dropped behind a valid newest.
  cache.Insert("a:443", 6, ValidFor(clock, Seconds(10), true));
  cache.Insert("a:443", 7, ValidFor(clock, Seconds(300), true));
  clock.Advance(Seconds(60));
  CHECK(cache.Lookup("a:443") == 7);
  CHECK(cache.Lookup("a:443") == std::nullopt);

  // A reusable session keeps nothing behind it: the next single-use one replaces it alone.
  cache.Insert("a:443", 8, ValidFor(clock, Seconds(300)));
  cache.Insert("a:443", 9, ValidFor(clock, Seconds(300), true));
  CHECK(cache.Lookup("a:443") == 9);
  CHECK(cache.Lookup("a:443") == std::nullopt);
}

TEST_CASE("ssl session cache: a newer session replaces the key's, with its own validity") {
  ManualClock clock;
  Cache cache(clock);
  cache.Insert("a:443", 1, ValidFor(clock, Seconds(10), /*single_use=*/true));
  cache.Insert("a:443", 2, ValidFor(clock, Seconds(300)));
  CHECK(cache.size() == 1);
  clock.Advance(Seconds(60));  // Past the first session's lifetime, within the second's.
  CHECK(cache.Lookup("a:443") == 2);
  CHECK(cache.Lookup("a:443") == 2);  // The replacement is reusable.
}

TEST_CASE("ssl session cache: a reusable session drops a single-use one it displaces") {
  ManualClock clock;
  Cache cache(clock);
  cache.Insert("a:443", 1, ValidFor(clock, Seconds(300), /*single_use=*/true));
  cache.Insert("a:443", 2, ValidFor(clock, Seconds(10)));  // A TLS 1.2 session after a ticket.
  CHECK(cache.Lookup("a:443") == 2);
  clock.Advance(Seconds(60));  // The reusable one expired; the ticket was not kept behind it.
  CHECK(cache.Lookup("a:443") == std::nullopt);
  CHECK(cache.size() == 0);
}

TEST_CASE("ssl session cache: Remove and Clear forget sessions") {
  ManualClock clock;
  Cache cache(clock);
  cache.Insert("a:443", 1, ValidFor(clock, Seconds(300)));
  cache.Insert("b:443", 2, ValidFor(clock, Seconds(300)));
  cache.Remove("a:443");
  cache.Remove("absent:443");
  CHECK(cache.size() == 1);
  CHECK(cache.Lookup("a:443") == std::nullopt);
  cache.Clear();
  CHECK(cache.size() == 0);
  CHECK(cache.Lookup("b:443") == std::nullopt);
  cache.Insert("b:443", 3, ValidFor(clock, Seconds(300)));  // Usable after a flush.
  CHECK(cache.Lookup("b:443") == 3);
}

}  // namespace
}  // namespace netstack
