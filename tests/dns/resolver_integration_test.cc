// HostResolverManager over AresDnsTransport against dnsmasq on loopback: the cache saves
// queries until the TTL ends, identical lookups share queries, localhost never reaches DNS.
#include <catch2/catch.hpp>

#include "net/dns/ares_dns_transport.h"
#include "net/dns/host_resolver_manager.h"
#include "tests/dns/dnsmasq_fixture.h"
#include "tests/dns/fault_dns_server.h"
#include "tests/support/live_loop.h"
#include "tests/test_skip.h"

using namespace netstack;
using test::LiveLoop;
using namespace std::chrono_literals;
using Strings = std::vector<std::string>;

namespace {

std::unique_ptr<HostResolverManager> MakeResolver(LiveLoop& live, uint16_t port,
                                                  TimeDelta timeout = Milliseconds(2000)) {
  AresDnsTransport::Options options;
  options.servers = {IPEndPoint(IPAddress::IPv4(127, 0, 0, 1), port)};
  options.use_search_domains = false;
  options.timeout = timeout;
  std::string error;
  auto transport = AresDnsTransport::Create(live.get(), live.scheduler(), options, &error);
  INFO(error);
  REQUIRE(transport);
  return std::make_unique<HostResolverManager>(live.scheduler(), std::move(transport), nullptr);
}

struct Outcome {
  std::unique_ptr<HostResolver::Request> request;
  int start_result = ERR_IO_PENDING;
  int result = ERR_IO_PENDING;
};

std::unique_ptr<Outcome> Start(HostResolver& resolver, const std::string& host) {
  auto outcome = std::make_unique<Outcome>();
  outcome->request = resolver.CreateRequest(host, 443, MEDIUM, {});
  Outcome* raw = outcome.get();
  outcome->start_result = outcome->request->Start([raw](int rv) { raw->result = rv; });
  if (outcome->start_result != ERR_IO_PENDING) outcome->result = outcome->start_result;
  return outcome;
}

std::unique_ptr<Outcome> Resolve(LiveLoop& live, HostResolver& resolver, const std::string& host) {
  auto outcome = Start(resolver, host);
  REQUIRE(live.RunUntil([&] { return outcome->result != ERR_IO_PENDING; }));
  return outcome;
}

Strings ToStrings(const AddressList& list) {
  Strings out;
  for (const IPEndPoint& endpoint : list) out.push_back(endpoint.ToString());
  return out;
}

}  // namespace

TEST_CASE("resolver over dnsmasq: cached until the TTL ends, then asked again") {
  DnsmasqFixture dns;
  if (!dns.Start({{"a.test", "10.1.2.3"}, {"a.test", "fd00::3"}}, 1)) {
    SKIP_TEST(dns.error());
  }
  LiveLoop live;
  {
    auto resolver = MakeResolver(live, dns.port());
    auto first = Resolve(live, *resolver, "a.test");
    CHECK(first->result == OK);
    CHECK(ToStrings(first->request->addresses()) == Strings{"[fd00::3]:443", "10.1.2.3:443"});
    CHECK(dns.QueryCount("a.test") == 2);  // A and AAAA.

    auto second = Start(*resolver, "a.test");
    CHECK(second->start_result == OK);
    CHECK(second->request->from_cache());
    CHECK(dns.QueryCount("a.test") == 2);  // No new query.

    live.RunFor(1100ms);  // The 1 s TTL runs out.
    auto third = Resolve(live, *resolver, "a.test");
    CHECK(third->start_result == ERR_IO_PENDING);
    CHECK(third->result == OK);
    CHECK_FALSE(third->request->from_cache());
    CHECK(dns.QueryCount("a.test") == 4);
  }
  CHECK(live.Shutdown() == 0);
}

TEST_CASE("resolver over dnsmasq: concurrent identical lookups share one pair of queries") {
  DnsmasqFixture dns;
  if (!dns.Start({{"shared.test", "10.1.2.3"}}, 60)) {
    SKIP_TEST(dns.error());
  }
  LiveLoop live;
  {
    auto resolver = MakeResolver(live, dns.port());
    std::vector<std::unique_ptr<Outcome>> outcomes;
    for (int i = 0; i < 5; ++i) outcomes.push_back(Start(*resolver, "shared.test"));
    REQUIRE(live.RunUntil([&] {
      for (auto& o : outcomes)
        if (o->result == ERR_IO_PENDING) return false;
      return true;
    }));
    for (auto& o : outcomes) CHECK(o->result == OK);
    CHECK(dns.QueryCount("shared.test") == 2);

    auto missing = Resolve(live, *resolver, "missing.test");
    CHECK(missing->result == ERR_NAME_NOT_RESOLVED);
    CHECK(ErrorToMessage(missing->result) == "host name not found");

    auto local = Start(*resolver, "localhost");
    CHECK(local->start_result == OK);
    CHECK(dns.QueryCount("localhost") == 0);
  }
  CHECK(live.Shutdown() == 0);
}

TEST_CASE("resolver over the fault server: SERVFAIL and silence end in clear errors") {
  LiveLoop live;
  {
    FaultDnsServer server(live.get());
    REQUIRE(server.Start(FaultDnsServer::Mode::kServfail) == 0);
    auto resolver = MakeResolver(live, server.port(), Milliseconds(100));
    auto failed = Resolve(live, *resolver, "a.test");
    CHECK(failed->result == ERR_DNS_SERVER_FAILED);
    CHECK(ErrorToMessage(failed->result) == "DNS server failed (SERVFAIL)");
    const std::string server_text = "127.0.0.1:" + std::to_string(server.port());
    CHECK(failed->request->error_detail() == "a.test: SERVFAIL from " + server_text);

    server.set_mode(FaultDnsServer::Mode::kSilent);
    auto silent = Resolve(live, *resolver, "a.test");  // Not cached: asked again.
    CHECK(silent->result == ERR_DNS_TIMED_OUT);
    CHECK(ErrorToMessage(silent->result) == "DNS query timed out");
    CHECK(silent->request->error_detail() ==
          "a.test: no answer from " + server_text + " after 2 tries");

    // Destroying the resolver with a lookup in flight: no callback, no leaked handle.
    auto pending = Start(*resolver, "b.test");
    CHECK(pending->start_result == ERR_IO_PENDING);
    resolver.reset();
    live.RunFor(20ms);
    CHECK(pending->result == ERR_IO_PENDING);
  }
  CHECK(live.Shutdown() == 0);
}
