// AresDnsTransport against real servers on loopback: dnsmasq for real answers, FaultDnsServer
// for SERVFAIL, REFUSED, silence and malformed answers. Each test ends with a clean shutdown:
// uv_loop_close() == 0.
#include <catch2/catch.hpp>
#include <optional>

#include "net/dns/ares_dns_transport.h"
#include "tests/dns/ares_test_util.h"
#include "tests/dns/dnsmasq_fixture.h"
#include "tests/dns/fault_dns_server.h"
#include "tests/support/live_loop.h"
#include "tests/test_skip.h"

using namespace netstack;
using test::LiveLoop;
using namespace std::chrono_literals;
using Strings = std::vector<std::string>;

namespace {

std::unique_ptr<AresDnsTransport> MakeTransport(LiveLoop& live, uint16_t port,
                                                TimeDelta timeout = Milliseconds(2000),
                                                int tries = 2) {
  return test::MakeLoopbackAresTransport(live, live.scheduler(), port, timeout, tries);
}

DnsTransportResult Lookup(LiveLoop& live, DnsTransport& transport, const std::string& name,
                          AddressFamily family = AddressFamily::kUnspecified) {
  std::optional<DnsTransportResult> result;
  auto transaction =
      transport.StartLookup(name, family, [&](const DnsTransportResult& r) { result = r; });
  REQUIRE(live.RunUntil([&] { return result.has_value(); }));
  return *result;
}

Strings ToStrings(const std::vector<IPAddress>& addresses) {
  Strings out;
  for (const IPAddress& a : addresses) out.push_back(a.ToString());
  return out;
}

}  // namespace

TEST_CASE("c-ares over dnsmasq: A and AAAA answers with their TTL") {
  DnsmasqFixture dns;
  if (!dns.Start({{"dual.test", "10.1.2.4"},
                  {"dual.test", "fd00::4"},
                  {"v4.test", "10.1.2.3"},
                  {"two.test", "10.0.0.1"},
                  {"two.test", "10.0.0.2"}},
                 42)) {
    SKIP_TEST(dns.error());
  }
  LiveLoop live;
  {
    auto transport = MakeTransport(live, dns.port());

    DnsTransportResult dual = Lookup(live, *transport, "dual.test");
    CHECK(dual.error == OK);
    CHECK(ToStrings(dual.addresses) == Strings{"fd00::4", "10.1.2.4"});  // AAAA asked first.
    CHECK(dual.ttl == TimeDelta(42s));
    CHECK(dns.QueryCount("dual.test", "A") == 1);
    CHECK(dns.QueryCount("dual.test", "AAAA") == 1);

    DnsTransportResult v4 = Lookup(live, *transport, "v4.test");
    CHECK(v4.error == OK);  // AAAA is NODATA; the A answer carries the lookup.
    CHECK(ToStrings(v4.addresses) == Strings{"10.1.2.3"});

    DnsTransportResult v4_only = Lookup(live, *transport, "v4.test", AddressFamily::kIPv4);
    CHECK(ToStrings(v4_only.addresses) == Strings{"10.1.2.3"});
    CHECK(dns.QueryCount("v4.test", "AAAA") == 1);  // Not asked again for a kIPv4 lookup.

    DnsTransportResult v6_only = Lookup(live, *transport, "v4.test", AddressFamily::kIPv6);
    CHECK(v6_only.error == ERR_NAME_NOT_RESOLVED);  // NODATA.

    DnsTransportResult two = Lookup(live, *transport, "two.test", AddressFamily::kIPv4);
    Strings addresses = ToStrings(two.addresses);
    std::sort(addresses.begin(), addresses.end());
    CHECK(addresses == Strings{"10.0.0.1", "10.0.0.2"});

    CHECK(transport->active_transactions() == 0);
    CHECK(transport->GetInfoAsJson()["servers"] ==
          nlohmann::json({"127.0.0.1:" + std::to_string(dns.port())}));
  }
  CHECK(live.Shutdown() == 0);
}

TEST_CASE("c-ares over dnsmasq: the TTL is the server's, chosen per test") {
  DnsmasqFixture dns;
  if (!dns.Start({{"short.test", "10.9.9.9"}}, 7)) {
    SKIP_TEST(dns.error());
  }
  LiveLoop live;
  {
    auto transport = MakeTransport(live, dns.port());
    DnsTransportResult result = Lookup(live, *transport, "short.test");
    CHECK(result.error == OK);
    CHECK(result.ttl == TimeDelta(7s));
  }
  CHECK(live.Shutdown() == 0);
}

TEST_CASE("c-ares over dnsmasq: NXDOMAIN and REFUSED are distinct errors") {
  DnsmasqFixture dns;
  if (!dns.Start({{"a.test", "10.1.2.3"}}, 60)) {
    SKIP_TEST(dns.error());
  }
  LiveLoop live;
  {
    auto transport = MakeTransport(live, dns.port());
    DnsTransportResult missing = Lookup(live, *transport, "missing.test");
    CHECK(missing.error == ERR_NAME_NOT_RESOLVED);
    CHECK(missing.addresses.empty());
    // dnsmasq has no upstream for other domains: it refuses.
    DnsTransportResult elsewhere = Lookup(live, *transport, "example.org");
    CHECK(elsewhere.error == ERR_DNS_REFUSED);
  }
  CHECK(live.Shutdown() == 0);
}

TEST_CASE("c-ares over the fault server: SERVFAIL, REFUSED, silence, garbage") {
  LiveLoop live;
  {
    FaultDnsServer server(live.get());
    struct Case {
      FaultDnsServer::Mode mode;
      int error;
    };
    for (Case c : {Case{FaultDnsServer::Mode::kServfail, ERR_DNS_SERVER_FAILED},
                   Case{FaultDnsServer::Mode::kRefused, ERR_DNS_REFUSED},
                   Case{FaultDnsServer::Mode::kSilent, ERR_DNS_TIMED_OUT},
                   Case{FaultDnsServer::Mode::kGarbage, ERR_DNS_MALFORMED_RESPONSE}}) {
      INFO("mode " << FaultDnsServer::ModeToString(c.mode));
      REQUIRE(server.Start(c.mode) == 0);
      // Short timeouts: the silent case waits them out (2 tries of 100 and 200 ms).
      auto transport = MakeTransport(live, server.port(), Milliseconds(100), 2);
      DnsTransportResult result = Lookup(live, *transport, "fault.test");
      CHECK(result.error == c.error);
      CHECK(result.addresses.empty());
      CHECK(server.queries() >= 2);  // A and AAAA (and retries).
      transport.reset();
      CHECK(ErrorToMessage(result.error).find("DNS") != std::string::npos);
    }
  }
  CHECK(live.Shutdown() == 0);
}

TEST_CASE("c-ares: a destroyed transaction never calls back") {
  LiveLoop live;
  {
    FaultDnsServer server(live.get());
    REQUIRE(server.Start(FaultDnsServer::Mode::kServfail) == 0);
    auto transport = MakeTransport(live, server.port(), Milliseconds(100), 1);
    int callbacks = 0;
    auto transaction = transport->StartLookup("a.test", AddressFamily::kUnspecified,
                                              [&](const DnsTransportResult&) { ++callbacks; });
    transaction.reset();
    CHECK(transport->active_transactions() == 0);
    // c-ares still gets its answers; they are dropped. Wait until its sockets close.
    REQUIRE(live.RunUntil([&] { return server.queries() >= 2 && transport->open_sockets() == 0; }));
    live.RunFor(50ms);
    CHECK(callbacks == 0);
  }
  CHECK(live.Shutdown() == 0);
}

TEST_CASE("c-ares: destroying the transport mid-query is clean and silent") {
  LiveLoop live;
  int callbacks = 0;
  std::unique_ptr<DnsTransaction> orphan;
  {
    FaultDnsServer server(live.get());
    REQUIRE(server.Start(FaultDnsServer::Mode::kSilent) == 0);
    auto transport = MakeTransport(live, server.port(), Milliseconds(5000), 1);
    orphan = transport->StartLookup("a.test", AddressFamily::kUnspecified,
                                    [&](const DnsTransportResult&) { ++callbacks; });
    REQUIRE(live.RunUntil([&] { return server.queries() >= 2; }));
    CHECK(transport->open_sockets() >= 1);
    transport.reset();  // ares_destroy: ARES_EDESTRUCTION for both queries; polls closed.
  }
  live.RunFor(20ms);
  CHECK(callbacks == 0);
  orphan.reset();  // An inert transaction may outlive its transport.
  CHECK(live.Shutdown() == 0);
}

TEST_CASE("c-ares: servers of both families as given, the system list by default") {
  LiveLoop live;
  {
    AresDnsTransport::Options options;
    options.servers = {IPEndPoint(IPAddress::IPv4(127, 0, 0, 1), 53),
                       IPEndPoint(*IPAddress::Parse("::1"), 5353)};
    std::string error;
    auto transport = AresDnsTransport::Create(live.get(), live.scheduler(), options, &error);
    REQUIRE(transport);
    CHECK(transport->GetInfoAsJson()["servers"] == nlohmann::json({"127.0.0.1:53", "[::1]:5353"}));
    // No servers: /etc/resolv.conf's (not asked here: tests use loopback only).
    auto system = AresDnsTransport::Create(live.get(), live.scheduler(), {}, &error);
    REQUIRE(system);
    CHECK(system->GetInfoAsJson()["type"] == "c-ares");
  }
  CHECK(live.Shutdown() == 0);
}
