// The HTTP/2 fixtures' own tests, with Debian's curl (built with nghttp2) and nghttp
// (nghttp2-client) as the clients: nginx with http2, nghttpd, and each mode of the Python fault
// server do what the netstack tests assume, independently of netstack.
//
// curl 7.88.1 (bookworm) fails ("Error in the HTTP2 framing layer") when it reuses an h2c
// (prior knowledge) connection for a second URL, so h2c checks give curl one URL per run and
// use nghttp for several.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <thread>

#include "tests/integration/h2_fault_server.h"
#include "tests/integration/integration_test_util.h"
#include "tests/integration/nghttpd_fixture.h"
#include "tests/integration/nginx_fixture.h"
#include "tests/integration/package_installer.h"
#include "tests/integration/process_runner.h"
#include "tests/support/temp_dir.h"

namespace netstack::test {
namespace {

ProcessResult Curl(std::vector<std::string> args) {
  args.insert(args.begin(), {"curl", "-sS", "--noproxy", "*"});
  return RunProcess(args, std::chrono::seconds(30));
}

// nghttp (nghttp2-client), installed if missing; "" with *why set if it cannot be.
std::string Nghttp(std::string* why) { return EnsureProgram("nghttp", "nghttp2-client", why); }

#define REQUIRE_NGHTTP(path)          \
  std::string path;                   \
  do {                                \
    std::string why;                  \
    path = Nghttp(&why);              \
    if (path.empty()) SKIP_TEST(why); \
  } while (0)

// `nghttp -nv URL...` (all URLs on one connection, in parallel; verbose frame log on stdout).
ProcessResult NghttpVerbose(const std::string& nghttp, const std::vector<std::string>& urls) {
  std::vector<std::string> argv = {nghttp, "-nv", "-t", "10"};
  argv.insert(argv.end(), urls.begin(), urls.end());
  return RunProcess(argv, std::chrono::seconds(30));
}

int CountLines(const std::string& text, const std::string& needle) {
  int n = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) n += line.find(needle) != std::string::npos;
  return n;
}

TEST_CASE("nginx fixture speaks HTTP/2 on its HTTPS ports when asked", "[fixture][h2]") {
  NginxFixture nginx;
  nginx.set_http2(true);
  START_OR_SKIP(nginx);
  const std::string small = nginx.HttpsUrl("/small.txt");
  ProcessResult r = Curl({"--cacert", nginx.ca_cert(), "--http2", "-o", "/dev/null", "-o",
                          "/dev/null", "-o", "/dev/null", "-w", "%{http_version} %{http_code}\n",
                          small, nginx.HttpsUrl("/1m.bin"), nginx.Https12Url("/small.txt")});
  INFO(r.Describe());
  CHECK(r.exit_code == 0);
  CHECK(r.out == "2 200\n2 200\n2 200\n");
  // HTTP/1.1 clients still get HTTP/1.1, and the HTTP port stays HTTP/1.1.
  r = Curl({"--cacert", nginx.ca_cert(), "--http1.1", "-o", "/dev/null", "-w", "%{http_version}",
            small});
  CHECK(r.out == "1.1");
  r = Curl({"--http2", "-o", "/dev/null", "-w", "%{http_version}", nginx.HttpUrl("/small.txt")});
  CHECK(r.out == "1.1");

  std::vector<NginxLogEntry> log = nginx.ReadAccessLog(5);
  REQUIRE(log.size() == 5);
  CHECK(log[0].server_protocol == "HTTP/2.0");
  CHECK(log[1].server_protocol == "HTTP/2.0");
  CHECK(log[2].server_protocol == "HTTP/2.0");
  CHECK(log[3].server_protocol == "HTTP/1.1");
  CHECK(log[4].server_protocol == "HTTP/1.1");
  // The streams of one HTTP/2 connection share its $connection.
  CHECK(log[0].connection == log[1].connection);
  CHECK(log[2].connection != log[0].connection);  // another port
  CHECK(log[3].connection != log[0].connection);
}

TEST_CASE("nginx fixture serves another name on an h2 connection (coalescing)", "[fixture][h2]") {
  NginxFixture nginx;
  nginx.set_http2(true);
  START_OR_SKIP(nginx);
  // A connection made for a.test (SNI a.test) asked for b.test (:authority): nginx has one
  // server block per port, so it answers (no 421 Misdirected Request).
  ProcessResult r = Curl({"--cacert", nginx.ca_cert(), "--http2", "--resolve",
                          "a.test:" + std::to_string(nginx.https_port()) + ":127.0.0.1", "-H",
                          "Host: b.test", "-o", "/dev/null", "-w", "%{http_version} %{http_code}",
                          nginx.HttpsUrl("/small.txt", "a.test")});
  INFO(r.Describe());
  CHECK(r.out == "2 200");
  std::vector<NginxLogEntry> log = nginx.ReadAccessLog(1);
  REQUIRE(log.size() == 1);
  CHECK(log[0].host == "b.test");
}

TEST_CASE("nginx fixture without http2 answers HTTP/1.1 to an h2 client", "[fixture][h2]") {
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  ProcessResult r = Curl({"--cacert", nginx.ca_cert(), "--http2", "-o", "/dev/null", "-w",
                          "%{http_version}", nginx.HttpsUrl("/small.txt")});
  CHECK(r.out == "1.1");
  std::vector<NginxLogEntry> log = nginx.ReadAccessLog(1);
  REQUIRE(log.size() == 1);
  CHECK(log[0].server_protocol == "HTTP/1.1");
}

TEST_CASE("nginx fixture advertises http2_max_concurrent_streams", "[fixture][h2]") {
  REQUIRE_NGHTTP(nghttp);
  NginxFixture nginx;
  nginx.set_http2(true);
  nginx.set_http2_max_concurrent_streams(2);
  START_OR_SKIP(nginx);
  std::vector<std::string> urls;
  for (int i = 0; i < 10; ++i) urls.push_back(nginx.HttpsUrl("/res/" + std::to_string(i) + ".txt"));
  ProcessResult r = NghttpVerbose(nghttp, urls);
  INFO(r.Describe());
  CHECK(r.out.find("[SETTINGS_MAX_CONCURRENT_STREAMS(0x03):2]") != std::string::npos);
  // nghttp sends its ten requests before nginx's SETTINGS can arrive. nginx answers two at a
  // time; when more than twice its limit arrive in one read it refuses the excess
  // (REFUSED_STREAM: safe to retry) and says so in its error log. nghttp does not retry.
  const int answered = CountLines(r.out, ":status: 200");
  const int refused = CountLines(r.out, "error_code=REFUSED_STREAM");
  std::printf("nghttp x10 against http2_max_concurrent_streams 2: %d answered, %d refused\n",
              answered, refused);
  CHECK(answered + refused == 10);
  CHECK(answered >= 2);
  if (refused > 0) {
    const std::string errors = nginx.ReadErrorLog();
    CHECK((errors.find("concurrent streams exceeded") != std::string::npos ||
           errors.find("client sent too many streams at once") != std::string::npos));
  }
  std::vector<NginxLogEntry> log = nginx.ReadAccessLog(answered);
  REQUIRE(log.size() == static_cast<size_t>(answered));
  CHECK(log.front().connection == log.back().connection);
}

TEST_CASE("nghttpd fixture serves h2c with prior knowledge and h2 over TLS", "[fixture][h2]") {
  NghttpdFixture h2c;
  h2c.AddFile("/dir/extra.txt", "extra\n");
  START_OR_SKIP(h2c);
  ProcessResult r = Curl({"--http2-prior-knowledge", "-o", "/dev/null", "-w",
                          "%{http_version} %{http_code} %{size_download}", h2c.Url("/small.txt")});
  INFO(r.Describe());
  CHECK(r.out == "2 200 612");
  r = Curl({"--http2-prior-knowledge", h2c.Url("/dir/extra.txt")});
  CHECK(r.out == "extra\n");
  // HTTP/1.1 gets nowhere: nghttpd speaks only HTTP/2.
  r = Curl({"--http1.1", "--max-time", "5", "-o", "/dev/null", h2c.Url("/small.txt")});
  CHECK(r.exit_code != 0);
  CHECK(h2c.CountRequests("/small.txt") == 1);
  CHECK(h2c.Connections() == 2);

  NghttpdFixture tls;
  START_OR_SKIP(tls, /*tls=*/true);
  r = Curl({"--cacert", tls.ca_cert(), "--http2", "-o", "/dev/null", "-w", "%{http_version}",
            tls.Url("/small.txt", "localhost")});
  CHECK(r.out == "2");
}

TEST_CASE("h2 fault server ok mode answers over TLS and h2c", "[fixture][h2]") {
  H2FaultServer tls;
  START_OR_SKIP(tls, "ok", true);
  ProcessResult r =
      Curl({"--cacert", tls.ca_cert(), "--http2", "-w", " %{http_version}", tls.Url("/x")});
  INFO(r.Describe());
  CHECK(r.out == "/x ok\n 2");
  H2FaultServer h2c;
  START_OR_SKIP(h2c, "ok", false);
  r = Curl(
      {"--http2-prior-knowledge", "-w", " %{http_version}", h2c.Url("/page.html", "127.0.0.1")});
  CHECK(r.out.find("<img src=\"/img/9.png\">") != std::string::npos);
  CHECK(h2c.Count("served", "/page.html") == 1);
  CHECK(tls.ClientSetting("ENABLE_PUSH") == 0);  // curl refuses push
}

TEST_CASE("h2 fault server goaway-mid-page: GOAWAY after K streams, then a new connection",
          "[fixture][h2]") {
  H2FaultServer server;
  server.set_goaway_after(3);
  START_OR_SKIP(server, "goaway-mid-page", true);
  std::vector<std::string> args = {"--cacert", server.ca_cert(), "--http2", "-w", "%{http_code} "};
  for (int i = 0; i < 5; ++i) {
    args.insert(args.end(), {"-o", "/dev/null", server.Url("/r/" + std::to_string(i))});
  }
  ProcessResult r = Curl(args);
  INFO(r.Describe() << server.ReadEvents());
  CHECK(r.exit_code == 0);
  CHECK(r.out == "200 200 200 200 200 ");
  CHECK(server.Connections() == 2);
  CHECK(server.ConnectionsWithRequests() == 2);
  CHECK(server.Count("served") == 5);
  CHECK(server.Count("goaway") == 1);
  CHECK(server.Unprocessed().empty());  // curl sent one request at a time

  // nghttp sends all five at once: streams after the GOAWAY's last_stream_id are unprocessed.
  REQUIRE_NGHTTP(nghttp);
  H2FaultServer parallel;
  START_OR_SKIP(parallel, "goaway-mid-page", false);
  std::vector<std::string> urls;
  for (int i = 0; i < 5; ++i) urls.push_back(parallel.Url("/r/" + std::to_string(i), "127.0.0.1"));
  r = NghttpVerbose(nghttp, urls);
  CHECK(CountLines(r.out, "recv GOAWAY frame") == 1);
  CHECK(CountLines(r.out, ":status: 200") == 3);
  CHECK(parallel.Count("goaway") == 1);
  CHECK(parallel.Unprocessed().size() == 2);
}

TEST_CASE("h2 fault server refused-stream refuses a path once", "[fixture][h2]") {
  H2FaultServer server;
  START_OR_SKIP(server, "refused-stream", true);
  // curl retries a refused stream on a new connection.
  ProcessResult r = Curl({"--cacert", server.ca_cert(), "--http2", server.Url("/a")});
  INFO(r.Describe() << server.ReadEvents());
  CHECK(r.exit_code == 0);
  CHECK(r.out == "/a ok\n");
  CHECK(server.Count("refused", "/a") == 1);
  CHECK(server.Count("served", "/a") == 1);
}

TEST_CASE("h2 fault server mcs1 advertises one stream and counts open streams", "[fixture][h2]") {
  REQUIRE_NGHTTP(nghttp);
  H2FaultServer server;
  START_OR_SKIP(server, "mcs1", true);
  ProcessResult r = NghttpVerbose(nghttp, {server.Url("/0")});
  CHECK(r.out.find("[SETTINGS_MAX_CONCURRENT_STREAMS(0x03):1]") != std::string::npos);
  // curl multiplexing five transfers (-Z) keeps to the limit once it has seen it.
  std::vector<std::string> args = {"--cacert", server.ca_cert(), "--http2", "-Z",
                                   "-w",       "%{http_code} "};
  for (int i = 1; i <= 5; ++i) {
    args.insert(args.end(), {"-o", "/dev/null", server.Url("/" + std::to_string(i))});
  }
  r = Curl(args);
  INFO(r.Describe() << server.ReadEvents());
  CHECK(r.exit_code == 0);
  CHECK(server.Count("served") == 6);
  CHECK(server.MaxOpenStreams() == 1);
}

TEST_CASE("h2 fault server no-window stalls a response and a request body", "[fixture][h2]") {
  H2FaultServer server;
  START_OR_SKIP(server, "no-window", true);
  ProcessResult r = Curl({"--cacert", server.ca_cert(), "--http2", "--max-time", "2", "-o",
                          "/dev/null", server.Url("/get")});
  CHECK(r.exit_code == 28);  // CURLE_OPERATION_TIMEDOUT: headers came, DATA never did
  CHECK(server.Count("stalled", "/get") == 1);

  TempDir dir("h2body");
  const std::string body = dir.Write("body.bin", std::string(200 * 1024, 'b'));
  r = Curl({"--cacert", server.ca_cert(), "--http2", "--max-time", "2", "--data-binary", "@" + body,
            "-o", "/dev/null", server.Url("/post")});
  CHECK(r.exit_code == 28);
  REQUIRE(server.WaitForCount("closed", 2) == 2);
  int64_t body_bytes = 0;
  for (const nlohmann::json& e : server.Events()) {
    if (e.value("event", "") == "closed" && e.value("conn", 0) == 2) {
      body_bytes = e.value("body_bytes", int64_t{-1});
    }
  }
  INFO(server.ReadEvents());
  CHECK(body_bytes <= 65535);  // the connection window, never opened further
}

TEST_CASE("h2 fault server huge-headers sends a 300 KiB header list", "[fixture][h2]") {
  REQUIRE_NGHTTP(nghttp);
  H2FaultServer server;
  START_OR_SKIP(server, "huge-headers", false);
  ProcessResult r = NghttpVerbose(nghttp, {server.Url("/h", "127.0.0.1")});
  CHECK(CountLines(r.out, "x-huge: " + std::string(3000, 'v')) == 100);
  r = Curl({"--http2-prior-knowledge", "-o", "/dev/null", server.Url("/h", "127.0.0.1")});
  CHECK(r.exit_code != 0);  // curl's own header bound
}

TEST_CASE("h2 fault server continuation-flood floods until the client gives up", "[fixture][h2]") {
  H2FaultServer server;
  START_OR_SKIP(server, "continuation-flood", true);
  ProcessResult r = Curl({"--cacert", server.ca_cert(), "--http2", "--max-time", "10", "-o",
                          "/dev/null", server.Url("/c")});
  INFO(r.Describe() << server.ReadEvents());
  CHECK(r.exit_code != 0);
  CHECK(r.exit_code != 28);  // nghttp2 (in curl) stops it, no timeout needed
  REQUIRE(server.WaitForCount("continuation_flood", 1) == 1);
  for (const nlohmann::json& e : server.Events()) {
    if (e.value("event", "") != "continuation_flood") continue;
    CHECK(e.value("frames", 0) >= 100);
    CHECK(e.value("ended", "") != "cap reached");
  }
}

TEST_CASE("h2 fault server push-promise pushes although the client said ENABLE_PUSH 0",
          "[fixture][h2]") {
  H2FaultServer server;
  START_OR_SKIP(server, "push-promise", true);
  ProcessResult r = Curl({"--cacert", server.ca_cert(), "--http2", "--max-time", "10", "-o",
                          "/dev/null", server.Url("/p")});
  INFO(r.Describe() << server.ReadEvents());
  CHECK(r.exit_code != 0);
  CHECK(server.ClientSetting("ENABLE_PUSH") == 0);
  CHECK(server.Count("push_promise") == 1);
  // curl (nghttp2) ends the connection with PROTOCOL_ERROR.
  REQUIRE(server.WaitForCount("client_goaway", 1) == 1);
  for (const nlohmann::json& e : server.Events()) {
    if (e.value("event", "") == "client_goaway") CHECK(e.value("error_code", -1) == 1);
  }
}

TEST_CASE("h2 fault server alpn-http11 selects http/1.1", "[fixture][h2]") {
  H2FaultServer server;
  START_OR_SKIP(server, "alpn-http11", true);
  ProcessResult r = Curl({"--cacert", server.ca_cert(), "--http2", "-w", " %{http_version}",
                          server.Url("/a"), server.Url("/b")});
  INFO(r.Describe() << server.ReadEvents());
  CHECK(r.out == "/a ok\n 1.1/b ok\n 1.1");
  CHECK(server.Connections() == 1);
  CHECK(server.Count("served") == 2);
}

TEST_CASE("h2 fault server exits when its parent goes away", "[fixture][h2]") {
  H2FaultServer probe;  // installs python3-h2 if needed
  START_OR_SKIP(probe, "ok", false);
  TempDir dir("h2orphan");
  // A shell starts the server in the background, prints its pid and exits at once.
  ProcessResult r =
      RunProcess({"sh", "-c",
                  std::string(H2FaultServer::kPython) + " " + H2FaultServer::ScriptPath() +
                      " --parent-pid $$ --mode ok --events " + dir.Join("events.jsonl") +
                      " >/dev/null 2>&1 & echo $!"},
                 std::chrono::seconds(10));
  const pid_t pid = std::atoi(r.out.c_str());
  REQUIRE(pid > 0);
  const auto gone = [pid] {
    std::string status;
    // Gone, or a zombie nobody reaped yet.
    return !ReadFileToString("/proc/" + std::to_string(pid) + "/status", &status) ||
           status.find("State:\tZ") != std::string::npos;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!gone() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const bool exited = gone();
  if (!exited) ::kill(pid, SIGKILL);
  CHECK(exited);
}

}  // namespace
}  // namespace netstack::test
