// HostResolverManager: local answers, the cache, merging, errors, NetLog and lifetimes.
// Dispatcher rules are in host_resolver_dispatcher_test.cc, stale answers in
// host_resolver_stale_test.cc.
#include "net/dns/host_resolver_manager.h"

#include <catch2/catch.hpp>
#include <set>

#include "tests/dns/resolver_test_util.h"

using namespace netstack;
using namespace std::chrono_literals;
using Strings = std::vector<std::string>;

TEST_CASE("resolver: IP literals answer synchronously without DNS") {
  ResolverEnv env;
  auto v4 = env.Resolve("10.1.2.3", 80);
  CHECK(v4->start_result == OK);
  CHECK(v4->AddressStrings() == Strings{"10.1.2.3:80"});
  CHECK_FALSE(v4->request->from_cache());

  auto v6 = env.Resolve("::1", 443);
  CHECK(v6->start_result == OK);
  CHECK(v6->AddressStrings() == Strings{"[::1]:443"});
  auto bracketed = env.Resolve("[fd00::5]", 8443);
  CHECK(bracketed->start_result == OK);
  CHECK(bracketed->AddressStrings() == Strings{"[fd00::5]:8443"});

  CHECK(env.transport->calls().empty());
  CHECK(env.observer.Count(NetLogEventType::HOST_RESOLVER_MANAGER_IP_LITERAL) == 3);
  CHECK(v4->callbacks == 0);
  env.scheduler.RunAll();
  CHECK(v4->callbacks == 0);  // A synchronous result never calls back.
}

// Only a name of digits and dots, or one with a ':', is tried as an IP literal; every other name
// skips the parse. Either way, what is not an address goes to DNS.
TEST_CASE("resolver: only names that can be IP literals are parsed as one") {
  ResolverEnv env;
  for (const char* literal : {"192.168.0.1", "FD00::1", "::ffff:10.0.0.1"}) {
    auto r = env.Resolve(literal, 80);
    CHECK(r->start_result == OK);
  }
  CHECK(env.transport->calls().empty());
  env.transport->SetAddresses("1.2.3", {"10.0.0.7"}, 60s);
  env.transport->SetAddresses("1e100.test", {"10.0.0.8"}, 60s);
  env.transport->SetAddresses("abcd.test", {"10.0.0.9"}, 60s);
  auto digits = env.Resolve("1.2.3", 80);  // Digits and dots, but not an address.
  auto hex = env.Resolve("1E100.test", 80);
  auto letters = env.Resolve("abcd.test", 80);
  CHECK(digits->start_result == ERR_IO_PENDING);
  CHECK(hex->start_result == ERR_IO_PENDING);
  CHECK(letters->start_result == ERR_IO_PENDING);
  env.scheduler.RunAll();
  CHECK(digits->AddressStrings() == Strings{"10.0.0.7:80"});
  CHECK(hex->AddressStrings() == Strings{"10.0.0.8:80"});
  CHECK(letters->AddressStrings() == Strings{"10.0.0.9:80"});
  CHECK(env.transport->calls().size() == 3);
}

// Without a NetLog observer the request's end event is not built at all; the answer must be
// complete all the same.
TEST_CASE("resolver: a request on a NetLog nobody observes still gets its answer") {
  ResolverEnv env;
  env.net_log.RemoveObserver(&env.observer);
  env.transport->SetAddresses("a.test", {"10.0.0.1", "fd00::1"}, 60s);
  std::unique_ptr<HostResolver::Request> request =
      env.resolver->CreateRequest("a.test", 443, MEDIUM, NetLogWithSource());
  int result = ERR_IO_PENDING;
  REQUIRE(request->Start([&](int rv) { result = rv; }) == ERR_IO_PENDING);
  env.scheduler.RunAll();
  CHECK(result == OK);
  REQUIRE(request->addresses().size() == 2);
  CHECK(request->addresses()[0].ToString() == "[fd00::1]:443");
  CHECK(request->addresses()[1].ToString() == "10.0.0.1:443");
  auto failed = env.resolver->CreateRequest("gone.test", 443, MEDIUM, NetLogWithSource());
  result = ERR_IO_PENDING;
  REQUIRE(failed->Start([&](int rv) { result = rv; }) == ERR_IO_PENDING);
  env.scheduler.RunAll();
  CHECK(result == ERR_NAME_NOT_RESOLVED);
  CHECK(failed->error_detail().rfind("gone.test", 0) == 0);
  env.net_log.AddObserver(&env.observer);  // The destructor removes it.
}

TEST_CASE("resolver: localhost is loopback without DNS") {
  ResolverEnv env;
  for (const char* name : {"localhost", "LOCALHOST", "localhost.", "app.localhost"}) {
    auto r = env.Resolve(name, 8080);
    CHECK(r->start_result == OK);
    CHECK(r->AddressStrings() == Strings{"[::1]:8080", "127.0.0.1:8080"});
  }
  CHECK(env.transport->calls().empty());

  HostResolverManager::Config v4_only;
  v4_only.family = AddressFamily::kIPv4;
  ResolverEnv env4(v4_only);
  auto r = env4.Resolve("localhost", 80);
  CHECK(r->AddressStrings() == Strings{"127.0.0.1:80"});
}

TEST_CASE("resolver: names DNS cannot carry fail synchronously") {
  ResolverEnv env;
  for (const char* name : {"", "a..b", ".a", "bad host", "x/y", "under\xC3\xA9"}) {
    auto r = env.Resolve(name);
    CHECK(r->start_result == ERR_NAME_NOT_RESOLVED);
  }
  CHECK(env.resolver->num_jobs() == 0);
  CHECK(env.transport->calls().empty());
}

TEST_CASE("resolver: --resolve overrides answer for their host and port") {
  ResolverEnv env;
  env.resolver->AddOverride("Example.TEST", 443, {*IPAddress::Parse("10.0.0.9")});
  auto hit = env.Resolve("example.test", 443);
  CHECK(hit->start_result == OK);
  CHECK(hit->AddressStrings() == Strings{"10.0.0.9:443"});

  auto other_port = env.Resolve("example.test", 80);
  CHECK(other_port->start_result == ERR_IO_PENDING);  // Not overridden: goes to DNS.

  env.resolver->AddOverride("any.test", 0,
                            {*IPAddress::Parse("10.0.0.1"), *IPAddress::Parse("fd00::1")});
  auto any = env.Resolve("any.test", 1234);
  CHECK(any->AddressStrings() == Strings{"10.0.0.1:1234", "[fd00::1]:1234"});  // Given order.

  env.resolver->AddOverride("any.test", 0, {});  // Removes it.
  CHECK(env.Resolve("any.test", 1234)->start_result == ERR_IO_PENDING);
  CHECK(env.transport->CallCount("example.test") == 1);
  CHECK(env.transport->CallCount("any.test") == 1);
}

TEST_CASE("resolver: an answer is cached with its TTL, a hit is synchronous") {
  ResolverEnv env;
  env.transport->SetAddresses("a.test", {"10.0.0.1", "fd00::1", "10.0.0.2"}, 60s, 20ms);
  auto first = env.Resolve("a.test", 443);
  REQUIRE(first->start_result == ERR_IO_PENDING);
  env.scheduler.AdvanceBy(19ms);
  CHECK_FALSE(first->done());
  env.scheduler.AdvanceBy(1ms);
  CHECK(first->result == OK);
  CHECK(first->callbacks == 1);
  // IPv6 first, then IPv4, each in answer order.
  CHECK(first->AddressStrings() == Strings{"[fd00::1]:443", "10.0.0.1:443", "10.0.0.2:443"});
  CHECK_FALSE(first->request->from_cache());

  auto second = env.Resolve("A.TEST", 80);  // Case-insensitive; any port.
  CHECK(second->start_result == OK);
  CHECK(second->request->from_cache());
  CHECK_FALSE(second->request->served_stale());
  CHECK(second->AddressStrings() == Strings{"[fd00::1]:80", "10.0.0.1:80", "10.0.0.2:80"});
  CHECK(env.observer.Count(NetLogEventType::HOST_RESOLVER_MANAGER_CACHE_HIT) == 1);

  const HostCache::Entry* entry = env.resolver->GetCache().Lookup(
      HostCache::Key("a.test", AddressFamily::kUnspecified), env.scheduler.Now());
  REQUIRE(entry);
  CHECK(entry->ttl() == TimeDelta(60s));

  // Just before the TTL ends: still a hit. At the TTL: asked again.
  env.scheduler.AdvanceBy(60s - 1ms);
  CHECK(env.Resolve("a.test")->start_result == OK);
  env.scheduler.AdvanceBy(1ms);
  auto third = env.Resolve("a.test");
  CHECK(third->start_result == ERR_IO_PENDING);
  env.scheduler.RunAll();
  CHECK(third->result == OK);
  CHECK(env.transport->CallCount("a.test") == 2);
}

TEST_CASE("resolver: identical in-flight lookups are merged into one job") {
  ResolverEnv env;
  env.transport->SetAddresses("a.test", {"10.0.0.1"}, 60s);
  auto r1 = env.Resolve("a.test", 443);
  auto r2 = env.Resolve("a.test", 80, HIGHEST);
  auto r3 = env.Resolve("a.test", 8080, IDLE);
  CHECK(env.resolver->num_jobs() == 1);
  env.scheduler.RunAll();
  CHECK(env.transport->CallCount("a.test") == 1);
  CHECK(r1->result == OK);
  CHECK(r2->result == OK);
  CHECK(r3->result == OK);
  CHECK(r1->AddressStrings() == Strings{"10.0.0.1:443"});
  CHECK(r2->AddressStrings() == Strings{"10.0.0.1:80"});
  CHECK(r3->AddressStrings() == Strings{"10.0.0.1:8080"});
  // Each request logs its attachment to the job's source, and the job logs each request.
  CHECK(env.observer.ForSource(r2->net_log.source().id).size() == 3);  // Begin, attach, end.
  CHECK(env.observer.Count(NetLogEventType::HOST_RESOLVER_MANAGER_JOB_ATTACH) == 6);
}

TEST_CASE("resolver: DNS failures are distinct errors with clear messages, never cached") {
  ResolverEnv env;
  env.transport->SetError("nx.test", ERR_NAME_NOT_RESOLVED);
  env.transport->SetError("servfail.test", ERR_DNS_SERVER_FAILED);
  env.transport->SetError("timeout.test", ERR_DNS_TIMED_OUT);
  env.transport->SetError("refused.test", ERR_DNS_REFUSED);
  env.transport->SetError("garbage.test", ERR_DNS_MALFORMED_RESPONSE);
  const std::vector<std::pair<std::string, int>> cases = {
      {"nx.test", ERR_NAME_NOT_RESOLVED},
      {"servfail.test", ERR_DNS_SERVER_FAILED},
      {"timeout.test", ERR_DNS_TIMED_OUT},
      {"refused.test", ERR_DNS_REFUSED},
      {"garbage.test", ERR_DNS_MALFORMED_RESPONSE}};
  std::set<std::string> messages;
  for (const auto& [host, error] : cases) {
    auto r = env.Resolve(host);
    env.scheduler.RunAll();
    CHECK(r->result == error);
    CHECK(r->request->addresses().empty());
    messages.insert(ErrorToMessage(r->result));
    // Not cached by default: asking again asks DNS again.
    auto again = env.Resolve(host);
    CHECK(again->start_result == ERR_IO_PENDING);
    env.scheduler.RunAll();
    CHECK(env.transport->CallCount(host) == 2);
  }
  CHECK(messages.size() == cases.size());
  CHECK(messages.count("host name not found") == 1);
  CHECK(messages.count("DNS server failed (SERVFAIL)") == 1);
  CHECK(messages.count("DNS query timed out") == 1);
}

TEST_CASE("resolver: a failure carries a one-line detail that starts with the host") {
  HostResolverManager::Config config;
  config.negative_cache_ttl = 5s;
  ResolverEnv env(config);
  DnsTransportResult nx;
  nx.error = ERR_NAME_NOT_RESOLVED;
  nx.detail = "NXDOMAIN from 127.0.0.1:5353";
  env.transport->SetResult("nx.test", nx);
  env.transport->SetError("bare.test", ERR_DNS_SERVER_FAILED);  // The transport says nothing.
  env.transport->SetAddresses("ok.test", {"10.0.0.1"}, 60s);

  auto r = env.Resolve("nx.test");
  auto shared = env.Resolve("nx.test");  // Merged: gets the same detail.
  auto bare = env.Resolve("bare.test");
  auto ok = env.Resolve("ok.test");
  CHECK(r->request->error_detail().empty());  // Nothing yet.
  env.scheduler.RunAll();
  CHECK(r->result == ERR_NAME_NOT_RESOLVED);
  CHECK(r->request->error_detail() == "nx.test: NXDOMAIN from 127.0.0.1:5353");
  CHECK(shared->request->error_detail() == "nx.test: NXDOMAIN from 127.0.0.1:5353");
  CHECK(bare->request->error_detail() == "bare.test");
  CHECK(ok->result == OK);
  CHECK(ok->request->error_detail().empty());

  // Local failures say why too.
  CHECK(env.Resolve("bad host")->request->error_detail() == "bad host: not a valid DNS name");
  auto cached = env.Resolve("nx.test");
  CHECK(cached->start_result == ERR_NAME_NOT_RESOLVED);
  CHECK(cached->request->error_detail() == "nx.test: negative answer from the host cache");
  // And the NetLog has it where the request ends.
  bool logged = false;
  for (const NetLogEntry& e : env.observer.ForSource(r->net_log.source().id)) {
    if (e.type == NetLogEventType::HOST_RESOLVER_MANAGER_REQUEST &&
        e.phase == NetLogEventPhase::END) {
      logged = e.params.value("error_detail", "") == "nx.test: NXDOMAIN from 127.0.0.1:5353";
    }
  }
  CHECK(logged);
}

TEST_CASE("resolver: with a negative TTL, only NXDOMAIN is cached, for that long") {
  HostResolverManager::Config config;
  config.negative_cache_ttl = 5s;
  ResolverEnv env(config);
  env.transport->SetError("nx.test", ERR_NAME_NOT_RESOLVED);
  env.transport->SetError("servfail.test", ERR_DNS_SERVER_FAILED);
  env.Resolve("nx.test");
  env.Resolve("servfail.test");
  env.scheduler.AdvanceBy(10ms);

  auto cached = env.Resolve("nx.test");
  CHECK(cached->start_result == ERR_NAME_NOT_RESOLVED);
  CHECK(cached->request->from_cache());
  CHECK(env.Resolve("servfail.test")->start_result == ERR_IO_PENDING);

  env.scheduler.AdvanceBy(5s);
  CHECK(env.Resolve("nx.test")->start_result == ERR_IO_PENDING);
  env.scheduler.RunAll();
  CHECK(env.transport->CallCount("nx.test") == 2);
}

TEST_CASE("resolver: the configured family is what the transport is asked") {
  HostResolverManager::Config config;
  config.family = AddressFamily::kIPv4;
  ResolverEnv env(config);
  env.transport->SetAddresses("a.test", {"fd00::1", "10.0.0.1"}, 60s);
  auto r = env.Resolve("a.test", 80);
  env.scheduler.RunAll();
  REQUIRE(env.transport->calls().size() == 1);
  CHECK(env.transport->calls()[0].family == AddressFamily::kIPv4);
  CHECK(r->AddressStrings() == Strings{"10.0.0.1:80"});
}

TEST_CASE("resolver: a network change makes cached answers stale, not gone") {
  ResolverEnv env;
  env.transport->SetAddresses("a.test", {"10.0.0.1"}, 60s);
  env.Resolve("a.test");
  env.scheduler.RunAll();
  REQUIRE(env.Resolve("a.test")->start_result == OK);

  env.resolver->OnNetworkChange();
  CHECK(env.resolver->GetCache().size() == 1);
  auto after = env.Resolve("a.test");
  CHECK(after->start_result == ERR_IO_PENDING);  // Stale is not served by default.
  env.scheduler.RunAll();
  CHECK(after->result == OK);
  CHECK(env.Resolve("a.test")->start_result == OK);  // Fresh again.

  // An answer to a lookup that started before a change is stored as stale.
  env.transport->SetAddresses("b.test", {"10.0.0.2"}, 60s);
  auto b = env.Resolve("b.test");
  env.resolver->OnNetworkChange();
  env.scheduler.RunAll();
  CHECK(b->result == OK);
  CHECK(env.Resolve("b.test")->start_result == ERR_IO_PENDING);
  env.scheduler.RunAll();
}

TEST_CASE("resolver: ClearCache empties the cache") {
  ResolverEnv env;
  env.transport->SetAddresses("a.test", {"10.0.0.1"}, 60s);
  env.Resolve("a.test");
  env.scheduler.RunAll();
  env.resolver->ClearCache();
  CHECK(env.resolver->GetCache().size() == 0);
  CHECK(env.Resolve("a.test")->start_result == ERR_IO_PENDING);
  env.scheduler.RunAll();
}

TEST_CASE("resolver: NetLog shows the request and the job with its DNS task") {
  ResolverEnv env;
  env.transport->SetAddresses("a.test", {"10.0.0.1"}, 60s);
  auto r = env.Resolve("a.test");
  env.scheduler.RunAll();

  auto request_events = env.observer.ForSource(r->net_log.source().id);
  REQUIRE(request_events.size() == 3);
  CHECK(request_events[0].type == NetLogEventType::HOST_RESOLVER_MANAGER_REQUEST);
  CHECK(request_events[0].phase == NetLogEventPhase::BEGIN);
  CHECK(request_events[0].params["host"] == "a.test");
  CHECK(request_events[1].type == NetLogEventType::HOST_RESOLVER_MANAGER_JOB_ATTACH);
  CHECK(request_events[2].type == NetLogEventType::HOST_RESOLVER_MANAGER_REQUEST);
  CHECK(request_events[2].phase == NetLogEventPhase::END);
  CHECK(request_events[2].params["addresses"] == nlohmann::json({"10.0.0.1"}));

  uint32_t job_id = request_events[1].params["source_dependency"]["id"];
  auto job_events = env.observer.ForSource(job_id);
  std::vector<std::pair<NetLogEventType, NetLogEventPhase>> seen;
  for (const NetLogEntry& e : job_events) seen.emplace_back(e.type, e.phase);
  using T = NetLogEventType;
  using P = NetLogEventPhase;
  CHECK(seen == std::vector<std::pair<T, P>>{{T::HOST_RESOLVER_MANAGER_JOB, P::BEGIN},
                                             {T::HOST_RESOLVER_MANAGER_JOB_ATTACH, P::NONE},
                                             {T::HOST_RESOLVER_MANAGER_JOB_STARTED, P::NONE},
                                             {T::HOST_RESOLVER_MANAGER_DNS_TASK, P::BEGIN},
                                             {T::HOST_RESOLVER_MANAGER_DNS_TASK, P::END},
                                             {T::HOST_RESOLVER_MANAGER_JOB, P::END}});
  CHECK(job_events[0].source.type == NetLogSourceType::HOST_RESOLVER_MANAGER_JOB);
  CHECK(job_events[4].params["ttl_ms"] == 60000.0);
}

TEST_CASE("resolver: polled data has the cache, the transport and the jobs") {
  ResolverEnv env;
  env.transport->SetAddresses("a.test", {"10.0.0.1"}, 60s);
  env.Resolve("a.test");
  env.Resolve("b.test");
  nlohmann::json running = env.resolver->GetPolledData();
  CHECK(running["jobs"]["running"] == 2);
  env.scheduler.RunAll();
  nlohmann::json data = env.resolver->GetPolledData();
  CHECK(data["cache"]["capacity"] == 1000);
  REQUIRE(data["cache"]["entries"].size() == 1);
  CHECK(data["cache"]["entries"][0]["hostname"] == "a.test");
  CHECK(data["dns_config"]["type"] == "scripted");
  CHECK(data["jobs"]["running"] == 0);
  CHECK(data["jobs"]["max_concurrent"] == 6);
  CHECK(data["config"]["allow_stale"] == false);
}

TEST_CASE("resolver: callbacks may destroy other requests, start new ones, or the manager") {
  SECTION("a callback destroys another request of the same job") {
    ResolverEnv env;
    env.transport->SetAddresses("a.test", {"10.0.0.1"}, 60s);
    std::unique_ptr<HostResolver::Request> victim;
    int victim_callbacks = 0;
    auto killer = env.resolver->CreateRequest("a.test", 80, MEDIUM, {});
    victim = env.resolver->CreateRequest("a.test", 80, MEDIUM, {});
    REQUIRE(killer->Start([&](int) { victim.reset(); }) == ERR_IO_PENDING);
    REQUIRE(victim->Start([&](int) { ++victim_callbacks; }) == ERR_IO_PENDING);
    env.scheduler.RunAll();
    CHECK(victim == nullptr);
    CHECK(victim_callbacks == 0);
  }
  SECTION("a callback starts a request for the same host: a cache hit") {
    ResolverEnv env;
    env.transport->SetAddresses("a.test", {"10.0.0.1"}, 60s);
    std::unique_ptr<HostResolver::Request> second;
    int second_rv = 1;
    auto first = env.resolver->CreateRequest("a.test", 80, MEDIUM, {});
    first->Start([&](int) {
      second = env.resolver->CreateRequest("a.test", 80, MEDIUM, {});
      second_rv = second->Start([](int) {});
    });
    env.scheduler.RunAll();
    CHECK(second_rv == OK);
    CHECK(second->from_cache());
  }
  SECTION("a callback destroys the manager: other requests are never called") {
    ResolverEnv env;
    env.transport->SetAddresses("a.test", {"10.0.0.1"}, 60s);
    int others = 0;
    auto first = env.resolver->CreateRequest("a.test", 80, MEDIUM, {});
    auto other = env.resolver->CreateRequest("a.test", 80, MEDIUM, {});
    first->Start([&](int) { env.resolver.reset(); });
    other->Start([&](int) { ++others; });
    env.scheduler.RunAll();
    CHECK(env.resolver == nullptr);
    CHECK(others == 0);
    other.reset();  // Requests may outlive the manager.
  }
}

TEST_CASE("resolver: destroying the manager cancels everything silently") {
  ResolverEnv env;
  int callbacks = 0;
  auto running = env.resolver->CreateRequest("a.test", 80, MEDIUM, {});
  running->Start([&](int) { ++callbacks; });
  auto unstarted = env.resolver->CreateRequest("b.test", 80, MEDIUM, {});
  env.resolver.reset();
  env.scheduler.RunAll();
  CHECK(callbacks == 0);
  CHECK(unstarted->Start([&](int) { ++callbacks; }) == ERR_ABORTED);
  running.reset();
  unstarted.reset();
  CHECK(env.scheduler.pending_tasks() == 0);
}
