// The plan's servers for real, on loopback: PlanLabServers with a free 127.X prefix (the whole
// of 127/8 is local on Linux, so no namespace or address needs making), nginx and dnsmasq started
// from plan.processes, then `netstack fetch` resolving through the plan's dnsmasq and trusting
// the lab CA. Checks the default page loads from its three hosts, think time is honoured where
// set and only there, and the files arrive unchanged (sizes, types, ETag, Last-Modified).
// Needs root (dnsmasq on port 53, nginx on 80 and 443); skips without it.
#include <ares.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "net/base/url.h"
#include "tests/integration/netstack_cli.h"
#include "tests/integration/package_installer.h"
#include "tests/integration/process_runner.h"
#include "tests/lab_servers/loopback_prefix.h"
#include "tests/support/temp_dir.h"
#include "tests/test_skip.h"
#include "tools/lab/default_site.h"
#include "tools/lab/lab_servers.h"
#include "tools/lab/nginx_config.h"

namespace netstack {
namespace {

using test::JsonInt;
using test::JsonNumber;
using test::JsonString;
using test::TempDir;

constexpr int kThinkMs = 600;
// A think time shows in the client's ttfb as at least half of it, never as the ~1 ms of a host
// without one. Not kThinkMs itself: the ttfb starts at the client's own send stamp, which can
// trail the bytes leaving by milliseconds on a loaded machine (598.6 ms, and under ASan 592.9 ms,
// were measured against 600 in CI). The server's own figure (nginx's $request_time) is checked
// against the whole think time below.
constexpr int kThinkFloorMs = kThinkMs / 2;

bool PortOpen(const std::string& address, int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, address.c_str(), &sa.sin_addr);
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0;
  ::close(fd);
  return ok;
}

// Runs the plan's processes and stops them (SIGTERM) when it goes.
class PlanServers {
 public:
  explicit PlanServers(const LabServerPlan& plan) : plan_(plan) {}

  // Starts every process, then waits (up to 10 s) for every ready port. On failure *error says
  // which port and carries the servers' logs.
  bool Start(const std::string& work, std::string* error) {
    for (size_t i = 0; i < plan_.processes.size(); ++i) {
      auto child = std::make_unique<test::ChildProcess>();
      const std::string log = work + "/logs/process" + std::to_string(i);
      if (!child->Start(plan_.processes[i], log + ".out", log + ".err", error)) return false;
      children_.push_back(std::move(child));
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (const auto& [address, port] : plan_.ready_ports) {
      while (!PortOpen(address, port)) {
        if (std::chrono::steady_clock::now() > deadline) {
          std::string logs;
          for (const char* f : {"/logs/nginx-error.log", "/logs/dnsmasq.log", "/logs/process0.err",
                                "/logs/process1.err"}) {
            std::string s;
            test::ReadFileToString(work + f, &s);
            logs += std::string("\n--- ") + f + " ---\n" + s;
          }
          *error = "nothing listens on " + address + ":" + std::to_string(port) + logs;
          return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    return true;
  }

  ~PlanServers() {
    for (auto& child : children_) child->Stop(SIGTERM);
  }

 private:
  const LabServerPlan& plan_;
  std::vector<std::unique_ptr<test::ChildProcess>> children_;
};

// One DNS exchange with the plan's dnsmasq (c-ares builds the query), over UDP or TCP (a
// two-byte length before each message). Returns the response, or "" on a timeout (2 s).
std::string DnsExchange(const std::string& address, const std::string& name, int type, bool tcp) {
  unsigned char* query = nullptr;
  int query_len = 0;
  if (ares_create_query(name.c_str(), 1 /* IN */, type, 0x4c41, 1, &query, &query_len, 0) !=
      ARES_SUCCESS) {
    return "";
  }
  std::string message(reinterpret_cast<char*>(query), query_len);
  ares_free_string(query);
  const int fd = ::socket(AF_INET, (tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0);
  if (fd < 0) return "";
  timeval timeout{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(53);
  ::inet_pton(AF_INET, address.c_str(), &sa.sin_addr);
  std::string response;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0) {
    if (tcp) {
      message.insert(
          0, std::string{static_cast<char>(query_len >> 8), static_cast<char>(query_len & 0xff)});
    }
    char buf[4096];
    ssize_t n = 0;
    if (::send(fd, message.data(), message.size(), 0) == static_cast<ssize_t>(message.size())) {
      while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) {
        response.append(buf, n);
        if (!tcp) break;
        if (response.size() >= 2 &&
            response.size() >= 2 + ((static_cast<unsigned char>(response[0]) << 8) |
                                    static_cast<unsigned char>(response[1]))) {
          response.erase(0, 2);
          break;
        }
      }
    }
  }
  ::close(fd);
  return response;
}

int Rcode(const std::string& r) { return r.size() >= 12 ? (r[3] & 0x0f) : -1; }
int AnswerCount(const std::string& r) {
  return r.size() >= 12 ? (static_cast<unsigned char>(r[6]) << 8) | static_cast<unsigned char>(r[7])
                        : -1;
}

// nginx's ETag of a static file: "<mtime hex>-<size hex>".
std::string NginxEtag(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return "";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "\"%lx-%lx\"", static_cast<unsigned long>(st.st_mtime),
                static_cast<unsigned long>(st.st_size));
  return buf;
}

std::string HttpDate(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return "";
  char buf[64];
  struct tm tm;
  ::gmtime_r(&st.st_mtime, &tm);
  std::strftime(buf, sizeof(buf), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

std::string ExpectedType(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".html") return "text/html";
  if (ext == ".css") return "text/css";
  if (ext == ".js") return "application/javascript";
  if (ext == ".png") return "image/png";
  return "?";
}

TEST_CASE("the plan's nginx and dnsmasq serve the default site on loopback", "[lab]") {
  if (::geteuid() != 0) SKIP_TEST("the lab's servers bind ports 53, 80 and 443: needs root");
  std::string why;
  if (test::EnsureProgram("nginx", "nginx-light", &why).empty()) SKIP_TEST(why);
  if (test::EnsureProgram("dnsmasq", "dnsmasq-base", &why).empty()) SKIP_TEST(why);
  if (!test::EnsurePackage(
          "nginx's echo module", "libnginx-mod-http-echo",
          [] { return std::filesystem::exists(kNginxEchoModulePath); }, &why)) {
    SKIP_TEST(why);
  }
  TempDir dir("lab-loopback");
  const std::string work = dir.Join("work");
  LabServerOptions options;
  options.work_dir = work;
  options.address_prefix = test::PickLoopbackPrefix();
  options.server_time = Milliseconds(kThinkMs);
  options.server_time_by_host["img.site0.lab"] = TimeDelta(0);
  LabServerPlan plan;
  std::string error;
  REQUIRE(PlanLabServers(options, &plan, &error));
  PlanServers servers(plan);
  REQUIRE(servers.Start(work, &error));
  const std::vector<std::string> lab_args = {"--dns-server", plan.dns_address, "--cacert",
                                             plan.ca_file};

  SECTION("the default page loads from its three hosts, with think time where set") {
    std::vector<std::string> args = lab_args;
    args.insert(args.begin(), "--page");
    args.push_back(kDefaultSitePageUrl);
    const test::NetstackRun run = test::RunFetchJson(args);
    INFO(run.Describe());
    REQUIRE(run.exit_code() == 0);
    REQUIRE(run.records.size() == 12);  // the document, 10 subresources, the page
    CHECK(JsonInt(run.records.back(), "failed") == 0);
    std::set<std::string> hosts;
    for (size_t i = 0; i + 1 < run.records.size(); ++i) {
      const nlohmann::json& r = run.records[i];
      const std::string url = JsonString(r, "url");
      INFO(url);
      Url parsed;
      std::string message;
      REQUIRE(Url::Parse(url, &parsed, &message) == 0);
      hosts.insert(parsed.host());
      std::string file = plan.site_dir + "/" + parsed.host() + parsed.path_and_query();
      if (file.back() == '/') file += "index.html";
      CHECK(JsonInt(r, "status") == 200);
      CHECK(JsonString(r, "protocol") == "h2");
      CHECK(JsonInt(r, "body_bytes") == static_cast<int64_t>(std::filesystem::file_size(file)));
      CHECK(JsonString(r, "headers/content-length") ==
            std::to_string(std::filesystem::file_size(file)));
      CHECK(JsonString(r, "headers/content-type") == ExpectedType(file));
      CHECK(JsonString(r, "headers/etag") == NginxEtag(file));
      CHECK(JsonString(r, "headers/last-modified") == HttpDate(file));
      CHECK(JsonString(r, "headers/content-encoding", "none") == "none");
      // The server waited before answering; its address is the plan's for the host.
      const double ttfb = JsonNumber(r, "timing/ttfb_ms");
      if (parsed.host() == "img.site0.lab") {
        CHECK(ttfb < kThinkMs);
      } else {
        CHECK(ttfb >= kThinkFloorMs);
      }
      std::string address;
      for (const auto& [h, a] : plan.hosts) {
        if (h == parsed.host()) address = a;
      }
      CHECK(JsonString(r, "socket/address") == address + ":443");
    }
    CHECK(hosts == std::set<std::string>{"site0.lab", "static.site0.lab", "img.site0.lab"});
  }

  SECTION("plain HTTP on port 80 waits too, and a name outside the site does not resolve") {
    std::vector<std::string> args = lab_args;
    args.push_back("http://static.site0.lab/js/app.js");
    args.push_back("https://nope.site0.lab/");
    const test::NetstackRun run = test::RunFetchJson(args);
    INFO(run.Describe());
    REQUIRE(run.records.size() == 2);
    CHECK(JsonInt(run.records[0], "status") == 200);
    CHECK(JsonString(run.records[0], "protocol") == "http/1.1");
    CHECK(JsonNumber(run.records[0], "timing/ttfb_ms") >= kThinkFloorMs);
    CHECK(JsonInt(run.records[0], "body_bytes") ==
          static_cast<int64_t>(
              std::filesystem::file_size(plan.site_dir + "/static.site0.lab/js/app.js")));
    CHECK(JsonString(run.records[1], "error_code") == "ERR_NAME_NOT_RESOLVED");
  }

  SECTION("a host with think time answers what is not a file as one without does") {
    // site0.lab waits, img.site0.lab does not: a folder without its slash (301), a folder
    // without index.html (403), a missing file (404).
    std::vector<std::string> args = lab_args;
    args.push_back("--no-follow");
    for (const char* url : {"https://site0.lab/css", "https://site0.lab/css/",
                            "https://site0.lab/nope", "https://img.site0.lab/img",
                            "https://img.site0.lab/img/", "https://img.site0.lab/nope"}) {
      args.push_back(url);
    }
    const test::NetstackRun run = test::RunFetchJson(args);
    INFO(run.Describe());
    REQUIRE(run.records.size() == 6);
    for (int i = 0; i < 3; ++i) {
      const nlohmann::json& think = run.records[i];
      const nlohmann::json& plain = run.records[i + 3];
      INFO(JsonString(think, "url") << " and " << JsonString(plain, "url"));
      CHECK(JsonInt(think, "status") == JsonInt(plain, "status"));
      CHECK(JsonInt(think, "status") == std::vector<int>{301, 403, 404}[i]);
      CHECK(JsonInt(think, "body_bytes") == JsonInt(plain, "body_bytes"));
      CHECK(JsonNumber(think, "timing/ttfb_ms") >= kThinkFloorMs);
    }
    CHECK(JsonString(run.records[0], "headers/location") == "https://site0.lab/css/");
    CHECK(JsonString(run.records[3], "headers/location") == "https://img.site0.lab/img/");
  }

  SECTION("netstack fetch trusts the lab CA through SSL_CERT_FILE, as the lab sets it") {
    const std::vector<std::string> args = {"--dns-server", plan.dns_address,
                                           "https://static.site0.lab/css/theme.css"};
    const test::NetstackRun trusted =
        test::RunFetchJson(args, std::chrono::seconds(60), {"SSL_CERT_FILE=" + plan.ca_file});
    INFO(trusted.Describe());
    REQUIRE(trusted.records.size() == 1);
    CHECK(JsonInt(trusted.records[0], "status") == 200);
    // Without it, the system store does not know the lab CA.
    const test::NetstackRun untrusted =
        test::RunFetchJson(args, std::chrono::seconds(60), {"SSL_CERT_FILE"});
    REQUIRE(untrusted.records.size() == 1);
    CHECK(JsonString(untrusted.records[0], "error_code") == "ERR_CERT_AUTHORITY_INVALID");
  }

  SECTION("dnsmasq answers the site's names, A only, with TTL 300, over UDP and TCP") {
    for (bool tcp : {false, true}) {
      INFO((tcp ? "TCP" : "UDP"));
      for (const auto& [host, address] : plan.hosts) {
        INFO(host);
        const std::string a = DnsExchange(plan.dns_address, host, 1, tcp);
        REQUIRE(Rcode(a) == 0);
        ares_addrttl addrs[4];
        int count = 4;
        REQUIRE(ares_parse_a_reply(reinterpret_cast<const unsigned char*>(a.data()),
                                   static_cast<int>(a.size()), nullptr, addrs,
                                   &count) == ARES_SUCCESS);
        REQUIRE(count == 1);
        char text[INET_ADDRSTRLEN];
        ::inet_ntop(AF_INET, &addrs[0].ipaddr, text, sizeof(text));
        CHECK(std::string(text) == address);
        CHECK(addrs[0].ttl == 300);
        const std::string aaaa = DnsExchange(plan.dns_address, host, 28, tcp);
        CHECK(Rcode(aaaa) == 0);
        CHECK(AnswerCount(aaaa) == 0);
      }
      // Not the site's: NXDOMAIN, subdomains of its hosts included.
      for (const char* other : {"nope.lab", "www.site0.lab", "example.com"}) {
        INFO(other);
        CHECK(Rcode(DnsExchange(plan.dns_address, other, 1, tcp)) == 3);
      }
    }
  }

  SECTION("the access log records each request's time and connection") {
    std::vector<std::string> args = lab_args;
    args.push_back("https://site0.lab/");
    args.push_back("https://site0.lab/css/base.css");
    const test::NetstackRun run = test::RunFetchJson(args);
    INFO(run.Describe());
    REQUIRE(run.exit_code() == 0);
    std::string log;
    for (int i = 0; i < 100 && std::count(log.begin(), log.end(), '\n') < 2; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      test::ReadFileToString(work + "/logs/access.log", &log);
    }
    INFO(log);
    // $msec $connection $connection_requests $request_time $status $host ...
    std::istringstream lines(log);
    std::string line;
    std::vector<std::vector<std::string>> rows;
    while (std::getline(lines, line)) {
      std::vector<std::string> fields;
      std::istringstream in(line);
      for (std::string f; std::getline(in, f, '\t');) fields.push_back(f);
      rows.push_back(fields);
    }
    REQUIRE(rows.size() == 2);
    for (const auto& row : rows) {
      REQUIRE(row.size() == 15);
      CHECK(std::stod(row[3]) >= (kThinkMs - 1) / 1000.0);
      CHECK(row[4] == "200");
      CHECK(row[5] == "site0.lab");
    }
    CHECK(rows[0][1] == rows[1][1]);  // one connection, reused
    CHECK(rows[1][2] == "2");
  }
}

}  // namespace
}  // namespace netstack
