// HTTPS against nginx with a test CA made at test time: verification, SNI/name checks and
// session resumption (per host), seen in the JSON records and in nginx's $ssl_session_reused.
#include <cstdio>

#include "tests/integration/fetch_test_util.h"

namespace netstack::test {
namespace {

// Fetches `url` four times, each on a new connection (Connection: close), and checks that the
// first handshake is full and the later ones resume the session.
void CheckResumption(const NginxFixture& nginx, const std::string& url,
                     const std::string& tls_version) {
  NetstackRun run = RunFetchJson(Concat(
      {"--no-cache", "--cacert", nginx.ca_cert(), "-H", "Connection: close"}, Repeat(url, 4)));
  CHECK_FETCH_OK(run, 4u);
  CHECK(run.SocketIds().size() == 4);
  for (size_t i = 0; i < run.records.size(); ++i) {
    const nlohmann::json& r = run.records[i];
    INFO("fetch " << i);
    CHECK(JsonInt(r, "status") == 200);
    CHECK(JsonString(r, "socket/tls_version") == tls_version);
    CHECK(JsonBool(r, "socket/tls_resumed", i == 0) == (i > 0));
    // Measured, never asserted: with TLS 1.2 a resumed handshake is one round trip shorter.
    std::printf("%s fetch %zu: tls_ms %.3f resumed %d\n", tls_version.c_str(), i,
                JsonNumber(r, "timing/tls_ms"), JsonBool(r, "socket/tls_resumed") ? 1 : 0);
  }
  std::vector<NginxLogEntry> log = nginx.ReadAccessLog(4);
  REQUIRE(log.size() >= 4);
  std::vector<NginxLogEntry> last(log.end() - 4, log.end());
  CHECK(Connections(last).size() == 4);
  CHECK(last[0].ssl_session_reused == ".");
  for (size_t i = 1; i < 4; ++i) CHECK(last[i].ssl_session_reused == "r");
  CHECK(last[0].ssl_protocol == tls_version);
}

TEST_CASE("TLS sessions resume with TLS 1.3", "[fetch][tls]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  CheckResumption(nginx, nginx.HttpsUrl("/small.txt"), "TLSv1.3");
}

TEST_CASE("TLS sessions resume with TLS 1.2", "[fetch][tls]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  CheckResumption(nginx, nginx.Https12Url("/small.txt"), "TLSv1.2");
}

TEST_CASE("HTTPS keep-alive reuses the TLS connection", "[fetch][tls]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  NetstackRun run = RunFetchJson(
      Concat({"--no-cache", "--cacert", nginx.ca_cert()}, Repeat(nginx.HttpsUrl("/small.txt"), 5)));
  CHECK_FETCH_OK(run, 5u);
  CHECK(run.SocketIds().size() == 1);
  CHECK(run.ReusedCount() == 4);
  CHECK(JsonNumber(run.records[4], "timing/tls_ms") == 0);
  CHECK(Connections(nginx.ReadAccessLog(5)).size() == 1);
}

TEST_CASE("an unknown CA fails verification and -k skips it", "[fetch][tls]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  const std::string url = nginx.HttpsUrl("/small.txt");
  NetstackRun run = RunFetchJson({url});
  CHECK_FETCH_FAILED(run, 0, "ERR_CERT_AUTHORITY_INVALID");
  CHECK(JsonInt(run.records[0], "status") == 0);

  run = RunFetchJson({"-k", url});
  CHECK_FETCH_OK(run, 1u);
  CHECK(JsonInt(run.records[0], "status") == 200);
}

// Without --cacert the system store is used: OpenSSL's default verify paths, which honour
// SSL_CERT_FILE (and SSL_CERT_DIR). Pointing SSL_CERT_FILE at the test CA in the child's
// environment makes the system-store path verify; without it the test CA is unknown.
TEST_CASE("without --cacert the system store (SSL_CERT_FILE) verifies", "[fetch][tls]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  const std::string url = nginx.HttpsUrl("/small.txt");
  NetstackRun run = RunFetchJson({url}, std::chrono::seconds(60),
                                 {"SSL_CERT_FILE=" + nginx.ca_cert(), "SSL_CERT_DIR=/nonexistent"});
  CHECK_FETCH_OK(run, 1u);
  CHECK(JsonInt(run.records[0], "status") == 200);
  CHECK(JsonInt(run.records[0], "bytes") == 612);

  // The same fetch with neither variable set: the system store does not know the test CA.
  run = RunFetchJson({url}, std::chrono::seconds(60), {"SSL_CERT_FILE", "SSL_CERT_DIR"});
  CHECK_FETCH_FAILED(run, 0, "ERR_CERT_AUTHORITY_INVALID");
}

TEST_CASE("a host name the certificate does not cover is rejected", "[fetch][tls]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  // e.test is not in the certificate's subjectAltName; a.test is.
  NetstackRun run = RunFetchJson({"--cacert", nginx.ca_cert(), "--resolve",
                                  Loopback("e.test", nginx.https_port()),
                                  nginx.HttpsUrl("/small.txt", "e.test")});
  CHECK_FETCH_FAILED(run, 0, "ERR_CERT_COMMON_NAME_INVALID");

  run = RunFetchJson({"--cacert", nginx.ca_cert(), "--resolve",
                      Loopback("a.test", nginx.https_port()),
                      nginx.HttpsUrl("/small.txt", "a.test")});
  CHECK_FETCH_OK(run, 1u);
  CHECK(nginx.ReadAccessLog(1).back().host == "a.test");
}

}  // namespace
}  // namespace netstack::test
