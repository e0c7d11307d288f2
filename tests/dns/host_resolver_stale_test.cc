// HostResolverManager with allow_stale: a stale answer is served at once and an asynchronous
// refresh updates the cache.
#include <catch2/catch.hpp>

#include "tests/dns/resolver_test_util.h"

using namespace netstack;
using namespace std::chrono_literals;
using Strings = std::vector<std::string>;

namespace {

HostResolverManager::Config AllowStale() {
  HostResolverManager::Config config;
  config.allow_stale = true;
  return config;
}

const HostCache::Entry* CacheEntry(ResolverEnv& env, const std::string& host) {
  return env.resolver->GetCache().Peek(HostCache::Key(host, AddressFamily::kUnspecified));
}

}  // namespace

TEST_CASE("stale: an expired entry is served at once and refreshed in the background") {
  ResolverEnv env(AllowStale());
  env.transport->SetAddresses("a.test", {"10.0.0.1"}, 10s);
  env.Resolve("a.test", 80);
  env.scheduler.RunAll();
  env.scheduler.AdvanceBy(20s);  // Expired by 10 s.

  env.transport->SetAddresses("a.test", {"10.0.0.2"}, 30s, 50ms);  // The refresh's answer.
  auto stale = env.Resolve("a.test", 80);
  CHECK(stale->start_result == OK);
  CHECK(stale->request->from_cache());
  CHECK(stale->request->served_stale());
  CHECK(stale->AddressStrings() == Strings{"10.0.0.1:80"});
  CHECK(env.transport->CallCount("a.test") == 2);  // The refresh started.
  CHECK(env.observer.Count(NetLogEventType::HOST_RESOLVER_MANAGER_STALE_HIT) == 1);
  // ASYNC_REFRESH on the job and, referencing it, on the request.
  CHECK(env.observer.Count(NetLogEventType::HOST_RESOLVER_MANAGER_ASYNC_REFRESH) == 2);

  // Another stale hit while the refresh runs does not start a second one.
  auto stale2 = env.Resolve("a.test", 80);
  CHECK(stale2->request->served_stale());
  CHECK(env.transport->CallCount("a.test") == 2);
  CHECK(CacheEntry(env, "a.test")->stale_hits() == 2);

  env.scheduler.AdvanceBy(50ms);
  CHECK(stale->callbacks == 0);  // The stale request was complete already.
  auto fresh = env.Resolve("a.test", 80);
  CHECK(fresh->start_result == OK);
  CHECK_FALSE(fresh->request->served_stale());
  CHECK(fresh->AddressStrings() == Strings{"10.0.0.2:80"});
  CHECK(CacheEntry(env, "a.test")->ttl() == TimeDelta(30s));
}

TEST_CASE("stale: a failed refresh keeps the stale entry") {
  ResolverEnv env(AllowStale());
  env.transport->SetAddresses("a.test", {"10.0.0.1"}, 10s);
  env.Resolve("a.test");
  env.scheduler.RunAll();
  env.scheduler.AdvanceBy(20s);
  env.transport->SetError("a.test", ERR_DNS_SERVER_FAILED);
  CHECK(env.Resolve("a.test")->request->served_stale());
  env.scheduler.RunAll();
  REQUIRE(CacheEntry(env, "a.test"));
  CHECK(CacheEntry(env, "a.test")->addresses()[0].ToString() == "10.0.0.1");
  CHECK(env.Resolve("a.test")->request->served_stale());
}

TEST_CASE("stale: off by default, too old or from another network is not served") {
  SECTION("off by default") {
    ResolverEnv env;
    env.transport->SetAddresses("a.test", {"10.0.0.1"}, 10s);
    env.Resolve("a.test");
    env.scheduler.RunAll();
    env.scheduler.AdvanceBy(20s);
    auto r = env.Resolve("a.test");
    CHECK(r->start_result == ERR_IO_PENDING);
    env.scheduler.RunAll();
    CHECK_FALSE(r->request->served_stale());
  }
  SECTION("expired longer than max_stale_age") {
    HostResolverManager::Config config = AllowStale();
    config.max_stale_age = 60s;
    ResolverEnv env(config);
    env.transport->SetAddresses("a.test", {"10.0.0.1"}, 10s);
    env.Resolve("a.test");
    env.scheduler.RunAll();
    env.scheduler.AdvanceBy(70s);  // Expired by 60 s: still allowed.
    CHECK(env.Resolve("a.test")->start_result == OK);
    env.scheduler.RunAll();        // The refresh stores a fresh entry (10 s TTL).
    env.scheduler.AdvanceBy(71s);  // Expired by 61 s.
    CHECK(env.Resolve("a.test")->start_result == ERR_IO_PENDING);
    env.scheduler.RunAll();
  }
  SECTION("stored before a network change") {
    ResolverEnv env(AllowStale());
    env.transport->SetAddresses("a.test", {"10.0.0.1"}, 600s);
    env.Resolve("a.test");
    env.scheduler.RunAll();
    env.resolver->OnNetworkChange();
    CHECK(env.Resolve("a.test")->start_result == ERR_IO_PENDING);
    env.scheduler.RunAll();
  }
  SECTION("stored before a network change, with allow_stale_from_other_network") {
    HostResolverManager::Config config = AllowStale();
    config.allow_stale_from_other_network = true;
    ResolverEnv env(config);
    env.transport->SetAddresses("a.test", {"10.0.0.1"}, 600s);
    env.Resolve("a.test");
    env.scheduler.RunAll();
    env.resolver->OnNetworkChange();
    auto r = env.Resolve("a.test");
    CHECK(r->start_result == OK);
    CHECK(r->request->served_stale());
    env.scheduler.RunAll();
    CHECK(env.transport->CallCount("a.test") == 2);
    CHECK_FALSE(env.Resolve("a.test")->request->served_stale());
  }
  SECTION("negative entries are never served stale") {
    HostResolverManager::Config config = AllowStale();
    config.negative_cache_ttl = 5s;
    ResolverEnv env(config);
    env.Resolve("nx.test");
    env.scheduler.RunAll();
    env.scheduler.AdvanceBy(10s);
    CHECK(env.Resolve("nx.test")->start_result == ERR_IO_PENDING);
    env.scheduler.RunAll();
  }
}

TEST_CASE("stale: a refresh job waits its turn and a request can attach to it") {
  HostResolverManager::Config config = AllowStale();
  config.max_concurrent_jobs = 1;
  config.max_stale_age = 5s;
  ResolverEnv env(config);
  env.transport->SetAddresses("a.test", {"10.0.0.1"}, 10s);
  env.Resolve("a.test");
  env.scheduler.RunAll();
  env.scheduler.AdvanceBy(12s);  // Expired by 2 s: servable.

  env.transport->SetAddresses("busy.test", {"10.0.0.9"}, 10s, 10s);
  auto busy = env.Resolve("busy.test");  // Occupies the only slot.
  auto stale = env.Resolve("a.test", 80, LOW);
  CHECK(stale->request->served_stale());
  CHECK(env.resolver->num_queued_jobs() == 1);  // The refresh, with no request.

  env.scheduler.AdvanceBy(4s);  // Expired by 6 s: too old to serve; attach to the refresh.
  auto waiting = env.Resolve("a.test", 80, HIGHEST);
  CHECK(waiting->start_result == ERR_IO_PENDING);
  CHECK(env.resolver->num_jobs() == 2);
  waiting->request.reset();  // The refresh job stays queued: it still has work to do.
  CHECK(env.resolver->num_queued_jobs() == 1);
  env.scheduler.RunAll();
  CHECK(env.transport->CallCount("a.test") == 2);
  CHECK_FALSE(env.Resolve("a.test")->request->served_stale());
}
