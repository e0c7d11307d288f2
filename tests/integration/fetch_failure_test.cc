// Every failure path ends in one clear stderr line, a JSON record with Chrome's error name and
// exit status 1 — never a hang (the runner kills the child after 60 s) or a crash.
#include "tests/integration/fault_http_server.h"
#include "tests/integration/fetch_test_util.h"
#include "tests/integration/local_dns.h"
#include "tests/integration/loopback_port.h"

namespace netstack::test {
namespace {

// Starts a fault server for one test; the name keeps each TEST_CASE short.
#define START_FAULT_SERVER(server)          \
  FaultHttpServer server;                   \
  do {                                      \
    std::string start_error;                \
    REQUIRE(server.Start(0, &start_error)); \
  } while (0)

TEST_CASE("connection refused", "[fetch][failure]") {
  REQUIRE_NETSTACK_BINARY();
  const int port = PickClosedPort();
  NetstackRun run = RunFetchJson({"http://127.0.0.1:" + std::to_string(port) + "/"});
  CHECK_FETCH_FAILED(run, 0, "ERR_CONNECTION_REFUSED");
  CHECK(JsonInt(run.records[0], "status") == 0);
}

TEST_CASE("a failed fetch does not stop the others and the exit status is 1", "[fetch][failure]") {
  REQUIRE_NETSTACK_BINARY();
  START_FAULT_SERVER(fault);
  const std::string refused = "http://127.0.0.1:" + std::to_string(PickClosedPort()) + "/";
  NetstackRun run = RunFetchJson({fault.Url("/ok"), refused, fault.Url("/ok")});
  CHECK_FETCH_FAILED(run, 1, "ERR_CONNECTION_REFUSED");
  REQUIRE(run.records.size() == 3);
  CHECK(JsonInt(run.records[0], "status") == 200);
  CHECK(JsonInt(run.records[2], "status") == 200);
  CHECK(JsonIsNull(run.records[2], "error"));
}

// Each broken response the fault server can send fails its fetch with its own error.
TEST_CASE("a broken response fails with Chrome's error for it", "[fetch][failure]") {
  REQUIRE_NETSTACK_BINARY();
  auto [path, code] = GENERATE(table<const char*, const char*>({
      {"/reset-mid-body", "ERR_CONNECTION_RESET"},
      {"/truncated-chunked", "ERR_INCOMPLETE_CHUNKED_ENCODING"},
      {"/huge-headers", "ERR_RESPONSE_HEADERS_TOO_BIG"},
      {"/malformed-status", "ERR_INVALID_HTTP_RESPONSE"},
      {"/bad-br", "ERR_CONTENT_DECODING_FAILED"},
  }));
  INFO("path " << path);
  START_FAULT_SERVER(fault);
  NetstackRun run = RunFetchJson({fault.Url(path)});
  CHECK_FETCH_FAILED(run, 0, code);
}

TEST_CASE("a server that never answers times out", "[fetch][failure]") {
  REQUIRE_NETSTACK_BINARY();
  START_FAULT_SERVER(fault);
  NetstackRun run = RunFetchJson({"--timeout", "2", fault.Url("/never")});
  CHECK_FETCH_FAILED(run, 0, "ERR_TIMED_OUT");
  std::printf("--timeout 2 on a silent server: exited after %.0f ms\n", run.process.elapsed_ms);
}

TEST_CASE("a body over --max-body", "[fetch][failure]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  NetstackRun run = RunFetchJson({"--max-body", "1000", nginx.HttpUrl("/1m.bin")});
  CHECK_FETCH_FAILED(run, 0, "ERR_RESPONSE_BODY_TOO_BIG");
}

TEST_CASE("NXDOMAIN", "[fetch][failure][dns]") {
  REQUIRE_NETSTACK_BINARY();
  LocalDns dns;
  START_OR_SKIP(dns, {{"a.test", "127.0.0.1"}}, 60);
  NetstackRun run = RunFetchJson({"--dns-server", dns.server(), "http://nope.test:1/"});
  CHECK_FETCH_FAILED(run, 0, "ERR_NAME_NOT_RESOLVED");
  CHECK(dns.CountQueries("nope.test") >= 1);
}

TEST_CASE("a DNS server answering SERVFAIL", "[fetch][failure][dns]") {
  REQUIRE_NETSTACK_BINARY();
  FaultDns dns;
  START_OR_SKIP(dns, "servfail");
  NetstackRun run =
      RunFetchJson({"--dns-server", dns.server(), "--dns-tries", "1", "http://a.test:1/"});
  CHECK_FETCH_FAILED(run, 0, "ERR_DNS_SERVER_FAILED");
}

TEST_CASE("a DNS server that never answers", "[fetch][failure][dns]") {
  REQUIRE_NETSTACK_BINARY();
  FaultDns dns;
  START_OR_SKIP(dns, "silent");
  NetstackRun run = RunFetchJson({"--dns-server", dns.server(), "--dns-timeout", "200",
                                  "--dns-tries", "1", "http://a.test:1/"});
  CHECK_FETCH_FAILED(run, 0, "ERR_DNS_TIMED_OUT");
}

TEST_CASE("a DNS server answering garbage or REFUSED fails cleanly", "[fetch][failure][dns]") {
  REQUIRE_NETSTACK_BINARY();
  for (const char* mode : {"garbage", "refused"}) {
    INFO(mode);
    FaultDns dns;
    START_OR_SKIP(dns, mode);
    NetstackRun run = RunFetchJson({"--dns-server", dns.server(), "--dns-timeout", "200",
                                    "--dns-tries", "1", "http://a.test:1/"});
    INFO(run.Describe());
    REQUIRE_FALSE(run.process.timed_out);
    CHECK_FALSE(run.process.HasSanitizerReport());
    CHECK(run.exit_code() == 1);
    CHECK(run.StderrLines().size() == 1);
    REQUIRE(run.records.size() == 1);
    CHECK(JsonString(run.records[0], "error_code").rfind("ERR_", 0) == 0);
  }
}

}  // namespace
}  // namespace netstack::test
