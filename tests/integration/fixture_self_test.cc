// The fixtures' own tests, with curl and raw DNS queries as the clients: they prove the servers
// behave as the netstack tests assume, independently of netstack.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <set>
#include <thread>

#include "tests/integration/fault_http_server.h"
#include "tests/integration/integration_test_util.h"
#include "tests/integration/local_dns.h"
#include "tests/integration/nginx_fixture.h"
#include "tests/integration/process_runner.h"

namespace netstack::test {
namespace {

// curl with the given args; skips nothing (curl is a test dependency).
ProcessResult Curl(std::vector<std::string> args) {
  args.insert(args.begin(), {"curl", "-sS", "--noproxy", "*"});
  return RunProcess(args, std::chrono::seconds(30));
}

struct DnsAnswer {
  bool answered = false;
  int rcode = -1;
  int answers = 0;
  uint32_t first_ttl = 0;
};

// Sends one query (type 1 = A) to 127.0.0.1:port and waits up to `wait_ms` for the reply.
DnsAnswer Query(int port, const std::string& name, int type = 1, int wait_ms = 1000) {
  std::string q = {'\x12', '\x34', '\x01', '\x00', '\x00', '\x01',
                   '\0',   '\0',   '\0',   '\0',   '\0',   '\0'};
  size_t start = 0;
  while (start <= name.size()) {
    size_t dot = name.find('.', start);
    if (dot == std::string::npos) dot = name.size();
    q += static_cast<char>(dot - start);
    q += name.substr(start, dot - start);
    start = dot + 1;
  }
  q += std::string{'\0', '\0', static_cast<char>(type), '\0', '\x01'};
  DnsAnswer a;
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::sendto(fd, q.data(), q.size(), 0, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  pollfd p = {fd, POLLIN, 0};
  unsigned char buf[512];
  if (::poll(&p, 1, wait_ms) == 1) {
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n >= 12) {
      a.answered = true;
      a.rcode = buf[3] & 0x0f;
      a.answers = (buf[6] << 8) | buf[7];
      // With one question echoed and a compressed name, the first answer's TTL sits right
      // after question + 2 (name pointer) + 2 (type) + 2 (class).
      size_t ttl_at = q.size() + 6;
      if (a.answers > 0 && static_cast<size_t>(n) >= ttl_at + 4) {
        a.first_ttl = (uint32_t{buf[ttl_at]} << 24) | (uint32_t{buf[ttl_at + 1]} << 16) |
                      (uint32_t{buf[ttl_at + 2]} << 8) | buf[ttl_at + 3];
      }
    }
  }
  ::close(fd);
  return a;
}

TEST_CASE("process runner captures output and exit status", "[fixture]") {
  ProcessResult r = RunProcess({"sh", "-c", "echo out; echo err >&2; exit 3"});
  REQUIRE(r.started);
  CHECK(r.exit_code == 3);
  CHECK(r.out == "out\n");
  CHECK(r.err == "err\n");
  CHECK_FALSE(r.timed_out);
}

TEST_CASE("process runner kills a child that overruns its deadline", "[fixture]") {
  ProcessResult r = RunProcess({"sleep", "30"}, std::chrono::milliseconds(300));
  CHECK(r.timed_out);
  CHECK(r.term_signal == SIGKILL);
  CHECK(r.elapsed_ms < 10000);
}

TEST_CASE("process runner reports a missing program", "[fixture]") {
  ProcessResult r = RunProcess({"/nonexistent/netstack"});
  CHECK_FALSE(r.started);
}

TEST_CASE("nginx fixture serves files over HTTP on one keep-alive connection", "[fixture]") {
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  ProcessResult r = Curl({"-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null", "-w",
                          "%{http_code} %{size_download}\n", nginx.HttpUrl("/small.txt"),
                          nginx.HttpUrl("/1m.bin"), nginx.HttpUrl("/page.html")});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.rfind("200 612\n200 1048576\n200 ", 0) == 0);
  // nginx logs a request after its response is sent, so curl can exit first: wait for the lines.
  std::vector<NginxLogEntry> log = nginx.ReadAccessLog(3);
  REQUIRE(log.size() == 3);
  // curl reuses its connection: one $connection, request numbers 1..3.
  CHECK(log[0].connection == log[2].connection);
  CHECK(log[2].connection_requests == 3);
  CHECK(log[0].request_uri == "/small.txt");
  CHECK(log[0].ssl_protocol == "-");
  CHECK(nginx.FileSize("/1m.bin") == 1048576);
}

TEST_CASE("nginx fixture serves HTTPS with the test CA and resumes sessions", "[fixture]") {
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  for (const std::string host : {"localhost", "a.test", "127.0.0.1"}) {
    std::vector<std::string> args = {"--cacert", nginx.ca_cert(), "-o", "/dev/null",
                                     "-w",       "%{http_code}"};
    if (host == "a.test") {
      args.push_back("--resolve");
      args.push_back("a.test:" + std::to_string(nginx.https_port()) + ":127.0.0.1");
    }
    args.push_back(nginx.HttpsUrl("/small.txt", host));
    ProcessResult r = Curl(args);
    CHECK(r.exit_code == 0);
    CHECK(r.out == "200");
  }
  // Without the CA the certificate does not verify.
  CHECK(Curl({"-o", "/dev/null", nginx.HttpsUrl("/small.txt")}).exit_code == 60);

  // The TLS 1.2 port: curl's two fetches in one run, on separate connections, resume.
  ProcessResult r =
      Curl({"--cacert", nginx.ca_cert(), "-H", "Connection: close", "-o", "/dev/null", "-o",
            "/dev/null", nginx.Https12Url("/small.txt"), nginx.Https12Url("/small.txt")});
  CHECK(r.exit_code == 0);
  std::vector<NginxLogEntry> log = nginx.ReadAccessLog(5);
  REQUIRE(log.size() == 5);
  CHECK(log[3].ssl_protocol == "TLSv1.2");
  CHECK(log[3].ssl_session_reused == ".");
  CHECK(log[4].ssl_session_reused == "r");
  CHECK(log[3].connection != log[4].connection);
}

TEST_CASE("nginx fixture redirects and gzips", "[fixture]") {
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  ProcessResult r =
      Curl({"-L", "-o", "/dev/null", "-w", "%{http_code} %{num_redirects} %{url_effective}",
            nginx.HttpUrl("/redirect/3")});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "200 3 " + nginx.HttpUrl("/small.txt"));
  r = Curl({"-L", "--max-redirs", "5", "-o", "/dev/null", nginx.HttpUrl("/loop")});
  CHECK(r.exit_code == 47);  // CURLE_TOO_MANY_REDIRECTS
  r = Curl(
      {"--compressed", "-o", "/dev/null", "-w", "%{size_download}", nginx.HttpUrl("/text.txt")});
  CHECK(r.exit_code == 0);
  CHECK(std::stol(r.out) < nginx.FileSize("/text.txt") / 10);
  // 4 requests for /redirect/3, 6 for /loop (the first and 5 redirects), 1 for /text.txt.
  std::vector<NginxLogEntry> log = nginx.ReadAccessLog(11);
  REQUIRE(log.size() == 11);
  CHECK(log.back().request_uri == "/text.txt");
  CHECK(log.back().accept_encoding.find("gzip") != std::string::npos);
}

TEST_CASE("fault server well-formed modes decode with curl", "[fixture]") {
  FaultHttpServer server;
  std::string error;
  REQUIRE(server.Start(0, &error));
  for (const std::string path : {"/br", "/deflate", "/gzip", "/chunked", "/close-delimited"}) {
    INFO(path);
    ProcessResult r = Curl({"--compressed", server.Url(path)});
    CHECK(r.exit_code == 0);
    CHECK(r.out == FaultHttpServer::Payload());
  }
  ProcessResult r = Curl({"-w", "%{http_code}", server.Url("/delay/50")});
  CHECK(r.out == "delayed\n200");
  r = Curl({"-L", "--max-redirs", "3", server.Url("/loop")});
  CHECK(r.exit_code == 47);
  CHECK(server.paths().size() >= 9);
}

TEST_CASE("fault server broken modes break curl", "[fixture]") {
  FaultHttpServer server;
  std::string error;
  REQUIRE(server.Start(0, &error));
  ProcessResult r = Curl({"-o", "/dev/null", server.Url("/reset-mid-body")});
  CHECK(r.exit_code == 56);  // CURLE_RECV_ERROR: connection reset
  r = Curl({"-o", "/dev/null", server.Url("/truncated-chunked")});
  CHECK((r.exit_code == 18 || r.exit_code == 56));  // partial file / recv error
  r = Curl({"-o", "/dev/null", server.Url("/huge-headers")});
  CHECK(r.exit_code == 56);  // curl refuses headers over 300 KiB
  CHECK(r.err.find("Too large response headers") != std::string::npos);
  r = Curl({"-o", "/dev/null", "--max-time", "1", server.Url("/never")});
  CHECK(r.exit_code == 28);  // CURLE_OPERATION_TIMEDOUT
  r = Curl({"-o", "/dev/null", server.Url("/malformed-status")});
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("Unsupported response code") != std::string::npos);
  r = Curl({"--compressed", "-o", "/dev/null", server.Url("/bad-br")});
  CHECK(r.exit_code == 61);  // CURLE_BAD_CONTENT_ENCODING
  // A /never request still open does not keep Stop() from returning.
  ProcessResult background;
  std::thread client([&] {
    background = Curl({"-o", "/dev/null", "--max-time", "20", server.Url("/never")});
  });
  while (server.paths().size() < 7) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  server.Stop();
  client.join();
  CHECK(background.exit_code != 0);
  CHECK(background.exit_code != 28);
}

TEST_CASE("dnsmasq fixture answers with the chosen TTL and logs queries", "[fixture]") {
  LocalDns dns;
  START_OR_SKIP(dns, {{"a.test", "127.0.0.1"}, {"ttl.test", "127.0.0.1"}}, 7);
  DnsAnswer a = Query(dns.port(), "a.test");
  CHECK(a.answered);
  CHECK(a.rcode == 0);
  CHECK(a.answers == 1);
  CHECK(a.first_ttl == 7);
  CHECK(Query(dns.port(), "ttl.test").first_ttl == 7);
  CHECK(Query(dns.port(), "a.test", 28).answers == 0);  // AAAA: NODATA
  CHECK(Query(dns.port(), "nope.test").rcode == 3);     // NXDOMAIN
  Query(dns.port(), "a.test");
  CHECK(dns.CountQueries("a.test") == 2);
  CHECK(dns.CountQueries("a.test", "AAAA") == 1);
  CHECK(dns.CountQueries("ttl.test") == 1);
}

TEST_CASE("fault DNS server answers SERVFAIL or nothing", "[fixture]") {
  FaultDns servfail;
  START_OR_SKIP(servfail, "servfail");
  DnsAnswer a = Query(servfail.port(), "a.test");
  CHECK(a.answered);
  CHECK(a.rcode == 2);
  FaultDns silent;
  START_OR_SKIP(silent, "silent");
  CHECK_FALSE(Query(silent.port(), "a.test", 1, 300).answered);
}

}  // namespace
}  // namespace netstack::test
