// curl's limits against a real server on loopback that drips its headers or its body a byte
// every 500 ms (slow_drip_server.py), over HTTP/1.1 and h2c: --max-time, --speed-limit /
// --speed-time and --headers-timeout each stop it with their own error, where --timeout (it only
// measures silence) never would. The assertions are on the error and on what the server saw (it
// was cut off mid-drip), never on the elapsed time.
#include "tests/integration/fetch_test_util.h"
#include "tests/integration/slow_drip_server.h"

namespace netstack::test {
namespace {

#define START_DRIP_SERVER(server, mode, proto)         \
  SlowDripServer server;                               \
  if (!server.Start(mode, proto)) {                    \
    if (server.skipped()) SKIP_TEST(server.message()); \
    FAIL(server.message());                            \
  }

std::vector<std::string> ProtoArgs(const std::string& proto) {
  if (proto == "h2c") return {"--http2-prior-knowledge"};
  return {"--http1.1"};
}

// The server was still dripping when the client went away.
void CheckCutOff(const SlowDripServer& server) {
  nlohmann::json closed = server.WaitForClosed();
  INFO(closed.dump());
  REQUIRE(closed.is_object());
  CHECK(closed.value("why", "") != "done");
}

TEST_CASE("fetch --max-time stops a drip of headers and of body, over HTTP/1.1 and h2c",
          "[fetch][limits]") {
  REQUIRE_NETSTACK_BINARY();
  const std::string mode = GENERATE("headers-drip", "body-drip");
  const std::string proto = GENERATE("http1", "h2c");
  INFO(mode << " over " << proto);
  START_DRIP_SERVER(server, mode, proto);
  NetstackRun run =
      RunFetchJson(Concat(ProtoArgs(proto), {"--no-cache", "--max-time", "2", server.Url("/")}));
  CHECK_FETCH_FAILED(run, 0, "ERR_TIMED_OUT");
  CHECK(JsonString(run.records[0], "error").find("total time limit of 2 s") != std::string::npos);
  CheckCutOff(server);
}

TEST_CASE("fetch --speed-limit stops a drip of headers and of body, over HTTP/1.1 and h2c",
          "[fetch][limits]") {
  REQUIRE_NETSTACK_BINARY();
  const std::string mode = GENERATE("headers-drip", "body-drip");
  const std::string proto = GENERATE("http1", "h2c");
  INFO(mode << " over " << proto);
  START_DRIP_SERVER(server, mode, proto);
  NetstackRun run = RunFetchJson(
      Concat(ProtoArgs(proto), {"--no-cache", "--speed-limit", "100", "-y", "2", server.Url("/")}));
  CHECK_FETCH_FAILED(run, 0, "ERR_TRANSFER_TOO_SLOW");
  CHECK(JsonString(run.records[0], "error").find("less than 100 bytes/s for the last 2 s") !=
        std::string::npos);
  CheckCutOff(server);
}

TEST_CASE("fetch --headers-timeout stops a headers drip, over HTTP/1.1 and h2c",
          "[fetch][limits]") {
  REQUIRE_NETSTACK_BINARY();
  const std::string proto = GENERATE("http1", "h2c");
  INFO(proto);
  START_DRIP_SERVER(server, "headers-drip", proto);
  NetstackRun run = RunFetchJson(
      Concat(ProtoArgs(proto), {"--no-cache", "--headers-timeout", "2", server.Url("/")}));
  CHECK_FETCH_FAILED(run, 0, "ERR_TIMED_OUT");
  const std::string error = JsonString(run.records[0], "error");
  INFO(error);
  // Over h2c, the stream's own wait for its headers (--timeout, 30 s) is longer: the headers
  // timeout is what fires on both.
  CHECK(error.find("response headers were not complete 2 s after the request was sent") !=
        std::string::npos);
  CheckCutOff(server);
}

TEST_CASE("without a limit, a short drip completes: --timeout only measures silence",
          "[fetch][limits]") {
  REQUIRE_NETSTACK_BINARY();
  START_DRIP_SERVER(server, "body-drip", "http1");
  // 100 bytes at one per 500 ms, with an idle timeout of 2 s: the drip is never silent that
  // long, so it runs to its end.
  NetstackRun run = RunFetchJson({"--no-cache", "--timeout", "2", server.Url("/")});
  CHECK_FETCH_OK(run, 1);
  CHECK(JsonInt(run.records[0], "bytes") == 100);
}

TEST_CASE("bad limit values are refused with one line and exit 2", "[fetch][limits]") {
  REQUIRE_NETSTACK_BINARY();
  const std::vector<std::string> args = GENERATE(
      std::vector<std::string>{"--timeout", "nan"},
      std::vector<std::string>{"--connect-timeout", "nan"},
      std::vector<std::string>{"--max-time", "inf"}, std::vector<std::string>{"--max-time", "-1"},
      std::vector<std::string>{"--speed-limit", "-5"},
      std::vector<std::string>{"--speed-time", "0"},
      std::vector<std::string>{"--headers-timeout", "1e400"},
      std::vector<std::string>{"--dns-server", "127.0.0.1:0"},
      std::vector<std::string>{"-d", "@/"});
  INFO(args[0] << " " << args[1]);
  NetstackRun run = RunNetstack(Concat({"fetch"}, Concat(args, {"http://127.0.0.1:9/"})),
                                std::chrono::seconds(20));
  INFO(run.Describe());
  CHECK(run.exit_code() == 2);
  std::vector<std::string> lines = run.StderrLines();
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].find(args[0]) != std::string::npos);
  CHECK(lines[0].find(args[1].substr(args[1][0] == '@' ? 1 : 0)) != std::string::npos);
}

}  // namespace
}  // namespace netstack::test
