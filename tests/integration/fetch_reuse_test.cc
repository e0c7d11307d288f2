// Host cache and socket pool behaviour seen from outside: dnsmasq's query log and nginx's
// access log ($connection) against the CLI's JSON records (socket.id, socket.reused).
#include <algorithm>
#include <cstdio>

#include "tests/integration/fault_http_server.h"
#include "tests/integration/fetch_test_util.h"
#include "tests/integration/local_dns.h"
#include "tests/integration/netlog_file.h"
#include "tests/support/temp_dir.h"

namespace netstack::test {
namespace {

TEST_CASE("20 sequential fetches to one host make one DNS query and one connection",
          "[fetch][reuse]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  LocalDns dns;
  START_OR_SKIP(dns, {{"a.test", "127.0.0.1"}}, 60);

  const std::string url = nginx.HttpUrl("/small.txt", "a.test");
  NetstackRun run =
      RunFetchJson(Concat({"--no-cache", "--dns-server", dns.server()}, Repeat(url, 20)));
  CHECK_FETCH_OK(run, 20u);

  for (const nlohmann::json& r : run.records) {
    CHECK(JsonInt(r, "status") == 200);
    CHECK(JsonInt(r, "bytes") == 612);
  }
  CHECK(run.SocketIds().size() == 1);
  CHECK_FALSE(JsonBool(run.records[0], "socket/reused", true));
  CHECK(run.ReusedCount() == 19);
  CHECK(JsonString(run.records[0], "socket/address") ==
        "127.0.0.1:" + std::to_string(nginx.http_port()));

  // One A query (an AAAA query for the same name is allowed, once).
  INFO(dns.ReadLog());
  CHECK(dns.CountQueries("a.test", "A") == 1);
  CHECK(dns.CountQueries("a.test", "AAAA") <= 1);

  std::vector<NginxLogEntry> log = nginx.ReadAccessLog(20);
  REQUIRE(log.size() == 20);
  CHECK(Connections(log).size() == 1);
  CHECK(log.back().connection_requests == 20);
  CHECK(log.front().host == "a.test");
}

TEST_CASE("parallel 20 to one host never opens more than 6 connections", "[fetch][reuse]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  LocalDns dns;
  START_OR_SKIP(dns, {{"a.test", "127.0.0.1"}}, 60);

  TempDir dir("netlog");
  const std::string netlog = dir.Join("netlog.json");
  const std::string url = nginx.HttpUrl("/1m.bin", "a.test");
  NetstackRun run = RunFetchJson(
      Concat({"--no-cache", "--dns-server", dns.server(), "--parallel", "20", "--netlog", netlog},
             Repeat(url, 20)));
  CHECK_FETCH_OK(run, 20u);
  for (const nlohmann::json& r : run.records) CHECK(JsonInt(r, "bytes") == 1048576);

  // All 20 requests are issued at once: the group opens exactly its limit of 6 sockets and
  // the other 14 requests wait (stalled on the per-group limit) for one of them.
  std::set<int64_t> ids = run.SocketIds();
  std::set<uint64_t> connections = Connections(nginx.ReadAccessLog(20));
  std::printf("--parallel 20: %zu sockets (netstack), %zu connections (nginx)\n", ids.size(),
              connections.size());
  CHECK(ids.size() == 6);
  CHECK(connections.size() == 6);
  CHECK(run.ReusedCount() == 14);
  NetLogFile log = ReadNetLog(netlog);
  CHECK(log.Count("SOCKET_POOL_STALLED_MAX_SOCKETS_PER_GROUP") >= 1);
  // The concurrent lookups for one name are merged into one job.
  INFO(dns.ReadLog());
  CHECK(dns.CountQueries("a.test", "A") == 1);
}

TEST_CASE("max-sockets-per-group bounds the connections to one host", "[fetch][reuse]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  const std::string url = nginx.HttpUrl("/1m.bin");
  NetstackRun run = RunFetchJson(
      Concat({"--no-cache", "--parallel", "10", "--max-sockets-per-group", "2"}, Repeat(url, 10)));
  CHECK_FETCH_OK(run, 10u);
  CHECK(run.SocketIds().size() <= 2);
  CHECK(Connections(nginx.ReadAccessLog(10)).size() <= 2);
}

TEST_CASE("a second name with the same address gets its own group", "[fetch][reuse]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  LocalDns dns;
  START_OR_SKIP(dns, {{"a.test", "127.0.0.1"}, {"b.test", "127.0.0.1"}}, 60);

  const std::string a = nginx.HttpUrl("/small.txt", "a.test");
  const std::string b = nginx.HttpUrl("/small.txt", "b.test");
  NetstackRun run = RunFetchJson({"--no-cache", "--dns-server", dns.server(), a, b, a, b});
  CHECK_FETCH_OK(run, 4u);
  const auto id = [&](size_t i) { return JsonInt(run.records[i], "socket/id"); };
  CHECK(id(0) != id(1));
  CHECK(id(0) == id(2));
  CHECK(id(1) == id(3));
  CHECK_FALSE(JsonBool(run.records[1], "socket/reused", true));
  CHECK(JsonBool(run.records[2], "socket/reused"));
  CHECK(JsonBool(run.records[3], "socket/reused"));

  std::vector<NginxLogEntry> log = nginx.ReadAccessLog(4);
  REQUIRE(log.size() == 4);
  CHECK(Connections(log).size() == 2);
  CHECK(log[0].connection != log[1].connection);
  CHECK(log[1].host == "b.test");
  CHECK(dns.CountQueries("a.test") == 1);
  CHECK(dns.CountQueries("b.test") == 1);
}

// Fetches `name` twice, 2.5 s apart, each time on a new connection, against a dnsmasq whose
// answers carry `ttl_seconds`. Connection: close makes every fetch connect (and so resolve)
// again: no idle socket spares the second fetch a lookup. The fault server's delay is the wait.
NetstackRun FetchTwiceAcrossDelay(const NginxFixture& nginx, const FaultHttpServer& fault,
                                  const LocalDns& dns, const std::string& name) {
  const std::string url = nginx.HttpUrl("/small.txt", name);
  return RunFetchJson({"--no-cache", "--dns-server", dns.server(), "-H", "Connection: close", url,
                       fault.Url("/delay/2500"), url});
}

TEST_CASE("a name whose TTL expired is resolved again", "[fetch][dns]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  FaultHttpServer fault;
  std::string error;
  REQUIRE(fault.Start(0, &error));
  LocalDns dns;
  START_OR_SKIP(dns, {{"ttl.test", "127.0.0.1"}}, 1);

  NetstackRun run = FetchTwiceAcrossDelay(nginx, fault, dns, "ttl.test");
  CHECK_FETCH_OK(run, 3u);
  INFO(dns.ReadLog());
  CHECK(dns.CountQueries("ttl.test") == 2);
  CHECK_FALSE(JsonBool(run.records[0], "dns/from_cache", true));
  CHECK_FALSE(JsonBool(run.records[2], "dns/from_cache", true));
  CHECK(run.ReusedCount() == 0);
  CHECK(Connections(nginx.ReadAccessLog(2)).size() == 2);
}

TEST_CASE("a name whose TTL has not expired comes from the host cache", "[fetch][dns]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  FaultHttpServer fault;
  std::string error;
  REQUIRE(fault.Start(0, &error));
  LocalDns dns;
  START_OR_SKIP(dns, {{"a.test", "127.0.0.1"}}, 60);

  // The same sequence as above, with a TTL that outlives it: the control experiment.
  NetstackRun run = FetchTwiceAcrossDelay(nginx, fault, dns, "a.test");
  CHECK_FETCH_OK(run, 3u);
  INFO(dns.ReadLog());
  CHECK(dns.CountQueries("a.test") == 1);
  CHECK(JsonBool(run.records[2], "dns/from_cache"));
  CHECK(Connections(nginx.ReadAccessLog(2)).size() == 2);
}

TEST_CASE("stale-dns serves an expired entry while it is refreshed", "[fetch][dns]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  FaultHttpServer fault;
  std::string error;
  REQUIRE(fault.Start(0, &error));
  LocalDns dns;
  START_OR_SKIP(dns, {{"ttl.test", "127.0.0.1"}}, 1);

  const std::string ttl = nginx.HttpUrl("/small.txt", "ttl.test");
  NetstackRun run = RunFetchJson({"--no-cache", "--dns-server", dns.server(), "--stale-dns", "-H",
                                  "Connection: close", ttl, fault.Url("/delay/2500"), ttl});
  CHECK_FETCH_OK(run, 3u);
  CHECK(JsonInt(run.records[2], "status") == 200);
  CHECK(JsonBool(run.records[2], "dns/stale"));
  CHECK(JsonBool(run.records[2], "dns/from_cache"));
  // The expired entry served the third fetch and started an asynchronous refresh: a second A
  // query reached dnsmasq (waited for briefly: netstack may exit right after sending it).
  int queries = dns.WaitForQueries("ttl.test", "A", 2);
  INFO(dns.ReadLog());
  CHECK(queries == 2);
}

}  // namespace
}  // namespace netstack::test
