// --netlog FILE writes Chrome's NetLog JSON layout, with the constants Chrome's netlog viewer
// requires, the events of the fetches (every step, BEGIN/END paired per source) and polled
// data.
#include <map>
#include <sstream>
#include <utility>

#include "tests/integration/fetch_test_util.h"
#include "tests/integration/local_dns.h"
#include "tests/integration/netlog_file.h"
#include "tests/support/temp_dir.h"

namespace netstack::test {
namespace {

TEST_CASE("netlog file is a viewer-loadable NetLog of two fetches", "[fetch][netlog]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  LocalDns dns;
  START_OR_SKIP(dns, {{"a.test", "127.0.0.1"}}, 60);
  TempDir dir("netlog");
  const std::string path = dir.Join("netlog.json");
  const std::string url = nginx.HttpUrl("/small.txt", "a.test");
  NetstackRun run =
      RunFetchJson({"--no-cache", "--netlog", path, "--dns-server", dns.server(), url, url});
  CHECK_FETCH_OK(run, 2u);

  NetLogFile log = ReadNetLog(path);
  const nlohmann::json& c = log.json["constants"];
  for (const char* key :
       {"logEventTypes", "clientInfo", "logEventPhase", "logSourceType", "loadFlag", "netError",
        "addressFamily", "timeTickOffset", "logFormatVersion"}) {
    INFO(key);
    CHECK(c.contains(key));
  }
  CHECK(JsonInt(c, "logFormatVersion") == 1);
  CHECK(log.phase_begin >= 0);
  CHECK(log.phase_end >= 0);
  CHECK(JsonInt(c, "logEventPhase/PHASE_NONE") >= 0);
  CHECK(log.json.contains("polledData"));

  std::set<int64_t> sources;
  for (const nlohmann::json& e : log.events()) {
    CHECK(e["time"].is_string());
    CHECK(e["phase"].is_number_integer());
    CHECK(e["source"]["id"].is_number_integer());
    CHECK(e["source"]["type"].is_number_integer());
    if (e["source"]["id"].is_number_integer()) sources.insert(e["source"]["id"].get<int64_t>());
  }
  CHECK(log.Count("TCP_CONNECT") >= 1);
  CHECK(log.Count("SOCKET_POOL_REUSED_AN_EXISTING_SOCKET") >= 1);
  CHECK(log.Count("HOST_RESOLVER_MANAGER_JOB") >= 1);
  // The socket.id of the records is the socket's NetLog source id.
  CHECK(sources.count(JsonInt(run.records[0], "socket/id")) == 1);
}

TEST_CASE("netlog of https fetches has every step, paired, and polled data",
          "[fetch][netlog][tls]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  LocalDns dns;
  START_OR_SKIP(dns, {{"a.test", "127.0.0.1"}}, 60);
  TempDir dir("netlog");
  const std::string path = dir.Join("netlog.json");
  // An https fetch, a second one on the same socket, then the same name on the HTTP port: a
  // new group, so a second connection and a second lookup of a.test, served by the host cache.
  const std::string https = nginx.HttpsUrl("/small.txt", "a.test");
  NetstackRun run =
      RunFetchJson({"--no-cache", "--netlog", path, "--dns-server", dns.server(), "--cacert",
                    nginx.ca_cert(), https, https, nginx.HttpUrl("/small.txt", "a.test")});
  CHECK_FETCH_OK(run, 3u);
  CHECK(JsonBool(run.records[1], "socket/reused"));
  CHECK_FALSE(JsonBool(run.records[2], "socket/reused", true));
  CHECK(JsonBool(run.records[2], "dns/from_cache"));

  NetLogFile log = ReadNetLog(path);
  for (const char* type :
       {"HOST_RESOLVER_MANAGER_REQUEST", "HOST_RESOLVER_MANAGER_CACHE_HIT", "CONNECT_JOB",
        "TCP_CONNECT", "SSL_CONNECT", "HTTP_TRANSACTION_SEND_REQUEST",
        "HTTP_TRANSACTION_READ_RESPONSE_HEADERS", "HTTP_TRANSACTION_READ_BODY",
        "SOCKET_POOL_REUSED_AN_EXISTING_SOCKET", "HTTP_STREAM_SOCKET_RELEASED"}) {
    INFO(type);
    CHECK(log.Count(type) >= 1);
  }
  // Three fetches, three of each per-fetch step; two connections, one TLS handshake.
  CHECK(log.Count("HOST_RESOLVER_MANAGER_CACHE_HIT") >= 1);
  CHECK(log.Count("SOCKET_POOL_REUSED_AN_EXISTING_SOCKET") == 1);

  // Every BEGIN has its END, for the same source id and type, never before it (fetch closes its
  // idle sockets before finishing the file, so even SOCKET_ALIVE ends).
  CHECK(log.UnpairedEvents() == "");

  const nlohmann::json& polled = log.json["polledData"];
  REQUIRE(polled.is_object());
  CHECK(polled.contains("hostResolverInfo"));
  CHECK(polled.contains("socketPoolInfo"));
}

}  // namespace
}  // namespace netstack::test
