// HTTP/2 in `netstack fetch` against real servers (docs/fetch.md): nginx with http2 on TLS,
// nghttpd for h2c with prior knowledge, and the Python fault server (h2_fault_server.py) for
// what a client must survive or refuse. The records' `protocol` ("h2" | "http/1.1"),
// `h2_stream_id` and `h2_session_id` (the session's NetLog source id) and `socket.id` are
// checked against what the servers logged.
#include <cstdio>
#include <set>

#include "tests/integration/fetch_test_util.h"
#include "tests/integration/h2_fault_server.h"
#include "tests/integration/local_dns.h"
#include "tests/integration/nghttpd_fixture.h"
#include "tests/support/temp_dir.h"

namespace netstack::test {
namespace {

std::string Protocol(const nlohmann::json& r) { return JsonString(r, "protocol"); }

// The distinct h2_session_id values of the records (records without one are skipped).
std::set<int64_t> SessionIds(const NetstackRun& run) {
  std::set<int64_t> out;
  for (const nlohmann::json& r : run.records) {
    if (int64_t id = JsonInt(r, "h2_session_id"); id >= 0) out.insert(id);
  }
  return out;
}

// Every record is a 200 over `protocol`.
void CheckAll(const NetstackRun& run, const std::string& protocol) {
  for (size_t i = 0; i < run.records.size(); ++i) {
    INFO("record " << i << ": " << run.records[i].dump());
    CHECK(JsonInt(run.records[i], "status") == 200);
    CHECK(Protocol(run.records[i]) == protocol);
  }
}

// `n` URLs made by `url(i)`.
template <typename F>
std::vector<std::string> Urls(int n, F url) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(url(i));
  return out;
}

// How many requests nginx refused for its stream limit (info lines in its error log).
int NginxRefusals(const NginxFixture& nginx) {
  int n = 0;
  const std::string log = nginx.ReadErrorLog();
  for (const std::string needle :
       {"concurrent streams exceeded", "client sent too many streams at once"}) {
    for (size_t at = log.find(needle); at != std::string::npos; at = log.find(needle, at + 1)) {
      ++n;
    }
  }
  return n;
}

TEST_CASE("100 parallel fetches to an h2 host share one connection", "[fetch][h2]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  nginx.set_http2(true);
  START_OR_SKIP(nginx);
  const auto url = [&](int i) { return nginx.HttpsUrl("/res/" + std::to_string(i % 10) + ".txt"); };
  NetstackRun run = RunFetchJson(
      Concat({"--no-cache", "--cacert", nginx.ca_cert(), "--parallel", "100"}, Urls(100, url)));
  CHECK_FETCH_OK(run, 100u);
  CheckAll(run, "h2");
  std::set<int64_t> streams;
  for (size_t i = 0; i < run.records.size(); ++i) {
    const int64_t stream = JsonInt(run.records[i], "h2_stream_id");
    CHECK(stream % 2 == 1);  // client-initiated
    streams.insert(stream);
    CHECK(JsonInt(run.records[i], "bytes") ==
          nginx.FileSize("/res/" + std::to_string(i % 10) + ".txt"));
  }
  CHECK(streams.size() == 100);
  CHECK(run.SocketIds().size() == 1);
  CHECK(SessionIds(run).size() == 1);

  std::vector<NginxLogEntry> log = nginx.ReadAccessLog(100);
  REQUIRE(log.size() == 100);
  CHECK(Connections(log).size() == 1);
  for (const NginxLogEntry& e : log) CHECK(e.server_protocol == "HTTP/2.0");
  std::printf("--parallel 100 over h2: %zu socket(s), %zu nginx connection(s)\n",
              run.SocketIds().size(), Connections(log).size());
}

TEST_CASE("a small http2_max_concurrent_streams queues requests on one connection", "[fetch][h2]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  nginx.set_http2(true);
  nginx.set_http2_max_concurrent_streams(2);
  START_OR_SKIP(nginx);
  const auto url = [&](int i) { return nginx.HttpsUrl("/text.txt?" + std::to_string(i)); };
  NetstackRun run = RunFetchJson(
      Concat({"--no-cache", "--cacert", nginx.ca_cert(), "--parallel", "20"}, Urls(20, url)));
  CHECK_FETCH_OK(run, 20u);
  CheckAll(run, "h2");
  CHECK(run.SocketIds().size() == 1);
  CHECK(SessionIds(run).size() == 1);
  std::vector<NginxLogEntry> log = nginx.ReadAccessLog(20);
  REQUIRE(log.size() == 20);
  CHECK(Connections(log).size() == 1);
  // Streams sent before nginx's SETTINGS arrived may have been refused (and retried): printed,
  // not asserted.
  std::printf("http2_max_concurrent_streams 2, --parallel 20: nginx refused %d stream(s)\n",
              NginxRefusals(nginx));
}

TEST_CASE("fetch --http1.1 speaks HTTP/1.1 to an h2 server", "[fetch][h2]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  nginx.set_http2(true);
  START_OR_SKIP(nginx);
  NetstackRun run = RunFetchJson(Concat({"--no-cache", "--cacert", nginx.ca_cert(), "--http1.1"},
                                        Repeat(nginx.HttpsUrl("/small.txt"), 3)));
  CHECK_FETCH_OK(run, 3u);
  CheckAll(run, "http/1.1");
  for (const nlohmann::json& r : run.records) {
    CHECK(JsonInt(r, "h2_session_id") == -1);  // absent or null
    CHECK(JsonInt(r, "h2_stream_id") == -1);
  }
  std::vector<NginxLogEntry> log = nginx.ReadAccessLog(3);
  REQUIRE(log.size() == 3);
  for (const NginxLogEntry& e : log) CHECK(e.server_protocol == "HTTP/1.1");
}

TEST_CASE("h2 is negotiated by default and with --http2, http:// stays HTTP/1.1", "[fetch][h2]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  nginx.set_http2(true);
  START_OR_SKIP(nginx);
  const std::string https = nginx.HttpsUrl("/small.txt");
  const std::string http = nginx.HttpUrl("/small.txt");
  for (const std::vector<std::string>& flags :
       std::vector<std::vector<std::string>>{{}, {"--http2"}}) {
    INFO("flags: " << (flags.empty() ? "(none)" : flags[0]));
    NetstackRun run = RunFetchJson(
        Concat(Concat({"--no-cache", "--cacert", nginx.ca_cert()}, flags), {https, http}));
    CHECK_FETCH_OK(run, 2u);
    CHECK(Protocol(run.records[0]) == "h2");
    CHECK(JsonInt(run.records[0], "h2_session_id") >= 0);
    CHECK(Protocol(run.records[1]) == "http/1.1");  // no h2c upgrade, like curl
  }
  std::vector<NginxLogEntry> log = nginx.ReadAccessLog(4);
  REQUIRE(log.size() == 4);
  CHECK(log[0].server_protocol == "HTTP/2.0");
  CHECK(log[1].server_protocol == "HTTP/1.1");
  CHECK(log[2].server_protocol == "HTTP/2.0");
  CHECK(log[3].server_protocol == "HTTP/1.1");
}

TEST_CASE("a TLS server without h2 gets HTTP/1.1 through ALPN", "[fetch][h2]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;  // no http2
  START_OR_SKIP(nginx);
  NetstackRun run = RunFetchJson(
      {"--no-cache", "--cacert", nginx.ca_cert(), "--http2", nginx.HttpsUrl("/small.txt")});
  CHECK_FETCH_OK(run, 1u);
  CheckAll(run, "http/1.1");
}

TEST_CASE("fetch --http2-prior-knowledge speaks h2c to nghttpd", "[fetch][h2]") {
  REQUIRE_NETSTACK_BINARY();
  NghttpdFixture nghttpd;
  START_OR_SKIP(nghttpd);
  NetstackRun run =
      RunFetchJson(Concat({"--no-cache", "--http2-prior-knowledge", "--parallel", "10"},
                          Repeat(nghttpd.Url("/small.txt"), 10)));
  CHECK_FETCH_OK(run, 10u);
  CheckAll(run, "h2");
  for (const nlohmann::json& r : run.records) {
    CHECK(JsonInt(r, "bytes") == NghttpdFixture::kSmallSize);
  }
  CHECK(run.SocketIds().size() == 1);
  CHECK(SessionIds(run).size() == 1);
  INFO(nghttpd.ReadLog());
  CHECK(nghttpd.Connections() == 1);
  CHECK(nghttpd.CountRequests("/small.txt") == 10);

  // nghttpd over TLS: h2 by ALPN, no flag needed.
  NghttpdFixture tls;
  START_OR_SKIP(tls, /*tls=*/true);
  run = RunFetchJson({"--no-cache", "--cacert", tls.ca_cert(), tls.Url("/small.txt", "localhost")});
  CHECK_FETCH_OK(run, 1u);
  CheckAll(run, "h2");
}

TEST_CASE("two names on one address and certificate share one h2 session", "[fetch][h2]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  nginx.set_http2(true);
  START_OR_SKIP(nginx);
  LocalDns dns;
  START_OR_SKIP(dns, {{"a.test", "127.0.0.1"}, {"b.test", "127.0.0.1"}}, 60);
  NetstackRun run = RunFetchJson({"--no-cache", "--cacert", nginx.ca_cert(), "--dns-server",
                                  dns.server(), nginx.HttpsUrl("/small.txt", "a.test"),
                                  nginx.HttpsUrl("/small.txt", "b.test")});
  CHECK_FETCH_OK(run, 2u);
  CheckAll(run, "h2");
  CHECK(JsonInt(run.records[0], "h2_session_id") >= 0);
  CHECK(JsonInt(run.records[0], "h2_session_id") == JsonInt(run.records[1], "h2_session_id"));
  CHECK(JsonInt(run.records[0], "socket/id") == JsonInt(run.records[1], "socket/id"));
  // b.test was resolved (its address is what allows the coalescing), then not connected to.
  INFO(dns.ReadLog());
  CHECK(dns.CountQueries("b.test") >= 1);
  std::vector<NginxLogEntry> log = nginx.ReadAccessLog(2);
  REQUIRE(log.size() == 2);
  CHECK(Connections(log).size() == 1);
  CHECK(log[0].host == "a.test");
  CHECK(log[1].host == "b.test");
}

// ---- The fault server -------------------------------------------------------------------------

// A run against the fault server (with its CA over TLS); --timeout 10 turns a client that would
// hang into a failure the checks name (ERR_TIMED_OUT) instead of the runner's kill.
NetstackRun FetchFault(const H2FaultServer& server, const std::vector<std::string>& args) {
  std::vector<std::string> base = {"--no-cache", "--timeout", "10"};
  if (server.tls()) base = Concat(base, {"--cacert", server.ca_cert()});
  return RunFetchJson(Concat(base, args), std::chrono::seconds(60));
}

// Starts `server` in `mode` over TLS, or skips/fails the test.
#define START_H2_FAULT(server, mode) START_OR_SKIP(server, mode, /*tls=*/true)

// The error a broken HTTP/2 response must end in: one of Chrome's HTTP/2 errors
// (ERR_HTTP2_PROTOCOL_ERROR, ERR_HTTP2_COMPRESSION_ERROR, ...) or, for a header list over the
// client's bound, ERR_RESPONSE_HEADERS_TOO_BIG. Checks the failure's shape (exit 1, one
// stderr line naming the code, the record's error) with the code the run reported.
void CheckH2ProtocolFailure(const NetstackRun& run, bool headers_too_big_allowed) {
  INFO(run.Describe());
  REQUIRE(run.records.size() == 1);
  const std::string code = JsonString(run.records[0], "error_code");
  std::printf("error: %s (%s)\n", JsonString(run.records[0], "error").c_str(), code.c_str());
  CHECK((code.rfind("ERR_HTTP2_", 0) == 0 ||
         (headers_too_big_allowed && code == "ERR_RESPONSE_HEADERS_TOO_BIG")));
  CHECK_FETCH_FAILED(run, 0, code);
}

TEST_CASE("GOAWAY in the middle of parallel fetches: the rest are retried, nothing lost",
          "[fetch][h2][h2fault]") {
  REQUIRE_NETSTACK_BINARY();
  // Over TLS (h2 by ALPN) and over h2c (--http2-prior-knowledge).
  const bool tls = GENERATE(true, false);
  INFO((tls ? "h2 over TLS" : "h2c with prior knowledge"));
  H2FaultServer server;
  server.set_goaway_after(3);
  server.set_hold_ms(200);  // time for all ten requests to reach the first connection
  START_OR_SKIP(server, "goaway-mid-page", tls);
  const auto url = [&](int i) { return server.Url("/r/" + std::to_string(i), "127.0.0.1"); };
  std::vector<std::string> args = {"--parallel", "10"};
  if (!tls) args.push_back("--http2-prior-knowledge");
  NetstackRun run = FetchFault(server, Concat(args, Urls(10, url)));
  INFO(server.ReadEvents());
  CHECK_FETCH_OK(run, 10u);
  CheckAll(run, "h2");
  for (int i = 0; i < 10; ++i) {
    const std::string path = "/r/" + std::to_string(i);
    CHECK(JsonInt(run.records[i], "bytes") ==
          static_cast<int64_t>(path.size() + 4));  // "PATH ok\n"
    CHECK(server.Count("served", path) == 1);
  }
  CHECK(server.Count("goaway") == 1);
  // The retry is real: streams the client had sent were left unprocessed by the GOAWAY.
  const std::vector<int> unprocessed = server.Unprocessed();
  CHECK(unprocessed.size() >= 1);
  CHECK(server.ConnectionsWithRequests() == 2);
  CHECK(SessionIds(run).size() == 2);
  CHECK(run.SocketIds().size() == 2);
  // Connections opened and never used (Chrome opens some on first contact; once the server is
  // known to speak h2 it throttles to one): printed, not asserted.
  std::printf(
      "goaway-mid-page (%s), --parallel 10: %zu unprocessed, %d connections accepted, "
      "%d used\n",
      tls ? "TLS" : "h2c", unprocessed.size(), server.Connections(),
      server.ConnectionsWithRequests());
}

TEST_CASE("GOAWAY in the middle of a page load: the page completes", "[fetch][h2][h2fault]") {
  REQUIRE_NETSTACK_BINARY();
  H2FaultServer server;
  server.set_goaway_after(3);
  server.set_hold_ms(200);
  START_H2_FAULT(server, "goaway-mid-page");
  // The document and its ten images (/img/N.png): 11 requests, the GOAWAY after the third.
  NetstackRun run = FetchFault(server, {"--page", "--predictor", "off", server.Url("/page.html")});
  INFO(server.ReadEvents());
  CHECK_FETCH_OK(run, 12u);  // 11 requests and the page object
  for (const nlohmann::json& r : run.records) {
    if (JsonString(r, "kind") == "page") {
      CHECK(JsonInt(r, "requests") == 11);
      CHECK(JsonInt(r, "failed") == 0);
    } else {
      CHECK(JsonInt(r, "status") == 200);
    }
  }
  CHECK(server.Count("served") == 11);
  CHECK(server.Unprocessed().size() >= 1);
  CHECK(server.ConnectionsWithRequests() == 2);
}

TEST_CASE("REFUSED_STREAM is retried", "[fetch][h2][h2fault]") {
  REQUIRE_NETSTACK_BINARY();
  H2FaultServer server;
  START_H2_FAULT(server, "refused-stream");
  NetstackRun run =
      FetchFault(server, {"--parallel", "3", server.Url("/a"), server.Url("/b"), server.Url("/c")});
  INFO(server.ReadEvents());
  CHECK_FETCH_OK(run, 3u);
  CheckAll(run, "h2");
  for (const std::string path : {"/a", "/b", "/c"}) {
    CHECK(server.Count("refused", path) == 1);
    CHECK(server.Count("served", path) == 1);
  }
}

TEST_CASE("MAX_CONCURRENT_STREAMS 1 is honoured", "[fetch][h2][h2fault]") {
  REQUIRE_NETSTACK_BINARY();
  H2FaultServer server;
  START_H2_FAULT(server, "mcs1");
  const auto url = [&](int i) { return server.Url("/m/" + std::to_string(i)); };
  NetstackRun run = FetchFault(server, Concat({"--parallel", "10"}, Urls(10, url)));
  INFO(server.ReadEvents());
  CHECK_FETCH_OK(run, 10u);
  CheckAll(run, "h2");
  CHECK(server.Count("served") == 10);
  CHECK(server.MaxOpenStreams() == 1);
  std::printf("mcs1, --parallel 10: %d stream(s) refused before the SETTINGS were acknowledged\n",
              server.Count("refused"));
}

TEST_CASE("a flow-control window never opened ends with --timeout", "[fetch][h2][h2fault]") {
  REQUIRE_NETSTACK_BINARY();
  H2FaultServer server;
  START_H2_FAULT(server, "no-window");
  // A GET: response headers, then no DATA ever.
  NetstackRun run = RunFetchJson(
      {"--no-cache", "--cacert", server.ca_cert(), "--timeout", "2", server.Url("/get")},
      std::chrono::seconds(30));
  CHECK_FETCH_FAILED(run, 0, "ERR_TIMED_OUT");
  std::printf("no-window GET, --timeout 2: exited after %.0f ms\n", run.process.elapsed_ms);
  // A POST whose 200 KiB body cannot be sent past the first 64 KiB.
  TempDir dir("h2post");
  const std::string body = dir.Write("body.bin", std::string(200 * 1024, 'p'));
  run = RunFetchJson({"--no-cache", "--cacert", server.ca_cert(), "--timeout", "2", "-d",
                      "@" + body, server.Url("/post")},
                     std::chrono::seconds(30));
  CHECK_FETCH_FAILED(run, 0, "ERR_TIMED_OUT");
  std::printf("no-window POST, --timeout 2: exited after %.0f ms\n", run.process.elapsed_ms);
}

TEST_CASE("an oversized response header list is a clear error", "[fetch][h2][h2fault]") {
  REQUIRE_NETSTACK_BINARY();
  H2FaultServer server;
  START_H2_FAULT(server, "huge-headers");
  CheckH2ProtocolFailure(FetchFault(server, {server.Url("/h")}), true);
}

TEST_CASE("a CONTINUATION flood is a clear error", "[fetch][h2][h2fault]") {
  REQUIRE_NETSTACK_BINARY();
  H2FaultServer server;
  START_H2_FAULT(server, "continuation-flood");
  CheckH2ProtocolFailure(FetchFault(server, {server.Url("/c")}), true);
  // The client gave up long before the server's cap of 50,000 frames.
  REQUIRE(server.WaitForCount("continuation_flood", 1) == 1);
  for (const nlohmann::json& e : server.Events()) {
    if (e.value("event", "") == "continuation_flood") {
      std::printf("continuation flood: %d frames sent, ended: %s\n", e.value("frames", 0),
                  e.value("ended", "").c_str());
      CHECK(e.value("ended", "") != "cap reached");
    }
  }
}

TEST_CASE("a PUSH_PROMISE despite ENABLE_PUSH 0 is a protocol error", "[fetch][h2][h2fault]") {
  REQUIRE_NETSTACK_BINARY();
  H2FaultServer server;
  START_H2_FAULT(server, "push-promise");
  NetstackRun run = FetchFault(server, {server.Url("/p")});
  INFO(server.ReadEvents());
  CHECK(server.ClientSetting("ENABLE_PUSH") == 0);
  CHECK(server.Count("push_promise") == 1);
  CHECK_FETCH_FAILED(run, 0, "ERR_HTTP2_PROTOCOL_ERROR");
}

TEST_CASE("a TLS server whose ALPN picks http/1.1 is spoken HTTP/1.1", "[fetch][h2][h2fault]") {
  REQUIRE_NETSTACK_BINARY();
  H2FaultServer server;
  START_H2_FAULT(server, "alpn-http11");
  NetstackRun run = FetchFault(server, {server.Url("/a"), server.Url("/b")});
  INFO(server.ReadEvents());
  CHECK_FETCH_OK(run, 2u);
  CheckAll(run, "http/1.1");
  CHECK(server.Count("served") == 2);
  CHECK(server.Connections() == 1);
}

}  // namespace
}  // namespace netstack::test
