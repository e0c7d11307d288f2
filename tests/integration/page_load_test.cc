// `netstack fetch --page` against real servers on loopback: a page on a.test (the fault HTTP
// server) whose subresources live on b.test, c.test and d.test (nginx over HTTPS, each name
// behind its own DelayProxy that makes each new connection cost kConnectionDelay), names
// served by dnsmasq behind a DnsDelayRelay that makes each lookup cost kDnsDelay. Two loads in
// new processes share a profile: the second starts by preconnecting what the first learned,
// and its subresources find those sockets ready. The document of the second load is answered
// once every origin's proxy has seen a finished handshake (a condition, not a sleep, so a
// loaded machine does not make the preconnects late; 30 s at most). Assertions are on
// structure (DNS paid on the first load, preconnected sockets used, setup phases zero, the
// NetLog's preconnect events), never on how long anything took; the two load times are
// printed.
#include <sys/stat.h>

#include <array>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include "tests/integration/delay_proxy.h"
#include "tests/integration/dns_delay_relay.h"
#include "tests/integration/fault_http_server.h"
#include "tests/integration/fetch_test_util.h"
#include "tests/integration/local_dns.h"
#include "tests/integration/netlog_file.h"
#include "tests/support/temp_dir.h"

namespace netstack::test {
namespace {

// What a new connection to b/c/d.test costs (the proxy holds the TLS handshake's answer).
constexpr std::chrono::milliseconds kConnectionDelay(150);
// What each DNS lookup costs (the relay holds the query).
constexpr std::chrono::milliseconds kDnsDelay(100);
// The most the document waits for the preconnects' handshakes: a safety bound (the wait ends
// as soon as they are done); reaching it means they never came, and the checks say so.
constexpr std::chrono::seconds kPreconnectWaitLimit(30);
constexpr size_t kSubresourceOrigins = 3;
// The HTTP/1.1 page: this many parallel subresources on each of its subresource origins (the
// pool's per-group limit), so a load needs that many connections per origin.
constexpr size_t kParallelSubresources = 6;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

// The per-request records (kind "request") and the final page line of a --page --json run.
struct PageRun {
  NetstackRun run;
  std::vector<nlohmann::json> requests;
  nlohmann::json page;

  const nlohmann::json* Request(const std::string& url) const {
    for (const nlohmann::json& r : requests) {
      if (JsonString(r, "url") == url) return &r;
    }
    return nullptr;
  }
};

PageRun RunPage(const std::vector<std::string>& args) {
  PageRun out;
  out.run = RunFetchJson(Concat({"--page"}, args), std::chrono::seconds(60));
  for (const nlohmann::json& r : out.run.records) {
    if (JsonString(r, "kind") == "request") out.requests.push_back(r);
    if (JsonString(r, "kind") == "page") out.page = r;
  }
  return out;
}

class PageWorld {
 public:
  // `per_origin` = 1: a stylesheet, a script and an image, one on each of b, c and d.test (and
  // an image on a.test). Otherwise `per_origin` images on each of b and c.test (HTTP/1.1: one
  // connection per request in flight), and d.test unused.
  explicit PageWorld(size_t per_origin = 1) : per_origin_(per_origin) {}

  // Starts everything; false (after SKIP/FAIL bookkeeping by the caller) when a fixture
  // cannot run: `why` says which.
  bool Start(std::string* why, bool* skipped) {
    *skipped = false;
    if (!nginx.Start()) {
      *skipped = nginx.skipped();
      *why = nginx.message();
      return false;
    }
    nginx.ReadAccessLog();
    for (DelayProxy& proxy : proxies) {
      if (!proxy.Start(nginx.https_port(), kConnectionDelay, why)) return false;
    }
    if (!dns.Start({{"a.test", "127.0.0.1"},
                    {"b.test", "127.0.0.1"},
                    {"c.test", "127.0.0.1"},
                    {"d.test", "127.0.0.1"}},
                   60)) {
      *skipped = dns.skipped();
      *why = dns.message();
      return false;
    }
    if (!dns_relay.Start(dns.port(), kDnsDelay, why)) return false;
    const char* hosts[kSubresourceOrigins] = {"b.test", "c.test", "d.test"};
    if (per_origin_ == 1) {
      for (size_t i = 0; i < kSubresourceOrigins; ++i) {
        subresources.push_back("https://" + std::string(hosts[i]) + ":" +
                               std::to_string(proxies[i].port()) + "/small.txt");
      }
      html =
          "<!doctype html><html><head>\n"
          "<link rel=stylesheet href=\"" +
          subresources[0] +
          "\">\n"
          "<script src=\"" +
          subresources[1] +
          "\"></script>\n"
          "</head><body>\n"
          "<img src=\"" +
          subresources[2] +
          "\">\n"
          "<img src=\"/local.png\">\n"
          "</body></html>\n";
    } else {
      html = "<!doctype html><html><body>\n";
      for (size_t i = 0; i < 2; ++i) {
        for (size_t j = 0; j < per_origin_; ++j) {
          subresources.push_back("https://" + std::string(hosts[i]) + ":" +
                                 std::to_string(proxies[i].port()) +
                                 "/small.txt?n=" + std::to_string(j));
          html += "<img src=\"" + subresources.back() + "\">\n";
        }
      }
      html += "</body></html>\n";
    }
    origin.set_handler([this](const FaultHttpServer::Request& r) -> std::optional<std::string> {
      if (r.path == "/page.html") {
        // Preconnects begun at the navigation are done before the subresources are
        // requested, so they count as used, not late, however slow the machine is.
        if (await_preconnects.load()) {
          for (size_t i = 0; i < used_origins(); ++i)
            proxies[i].WaitForHandshakes(handshakes_before[i].load() + 1, kPreconnectWaitLimit);
          // Every connection a proxy accepted since this load began is a preconnect (the page
          // is not parsed yet): wait for those handshakes too, so each counts as ready, not
          // late. (A connection an earlier process left mid-handshake never finishes.)
          for (size_t i = 0; i < used_origins(); ++i) {
            const int started = proxies[i].connections() - connections_before[i].load();
            proxies[i].WaitForHandshakes(handshakes_before[i].load() + started,
                                         kPreconnectWaitLimit);
          }
        }
        return FaultHttpServer::Response("200 OK", {"Content-Type: text/html"}, html);
      }
      if (r.path == "/local.png")
        return FaultHttpServer::Response("200 OK", {"Content-Type: image/png"}, "png");
      return std::nullopt;
    });
    if (!origin.Start(0, why)) return false;
    page = "http://a.test:" + std::to_string(origin.port()) + "/page.html";
    return true;
  }

  // From now on, the document is answered only once every subresource origin's proxy has
  // seen one more finished handshake than it has now, and a finished one for every connection
  // accepted from now on (the next load's preconnects).
  void AwaitPreconnects() {
    for (size_t i = 0; i < used_origins(); ++i) {
      handshakes_before[i].store(proxies[i].handshakes());
      connections_before[i].store(proxies[i].connections());
    }
    await_preconnects.store(true);
  }
  // The document is answered at once again (a first load, which has nothing to wait for).
  void AnswerAtOnce() { await_preconnects.store(false); }

  // The flags of every run: names from dnsmasq through the delaying relay, the test CA; no
  // HTTP cache, so every load goes to the network (the predictor still keeps its tables in
  // the profile).
  std::vector<std::string> Flags(const std::string& profile) const {
    return {"--dns-server", dns_relay.server(), "--cacert", nginx.ca_cert(), "--profile",
            profile,        "--no-cache"};
  }

  // Subresource origins the page uses (b, c and d.test, or b and c.test).
  size_t used_origins() const { return per_origin_ == 1 ? kSubresourceOrigins : 2; }

  const size_t per_origin_;
  NginxFixture nginx;
  std::array<DelayProxy, kSubresourceOrigins> proxies;  // b.test, c.test, d.test
  LocalDns dns;
  DnsDelayRelay dns_relay;
  std::atomic<bool> await_preconnects{false};
  std::array<std::atomic<int>, kSubresourceOrigins> handshakes_before{};
  std::array<std::atomic<int>, kSubresourceOrigins> connections_before{};
  FaultHttpServer origin;
  std::vector<std::string> subresources;
  std::string html;
  std::string page;
};

#define START_WORLD(world)                      \
  do {                                          \
    std::string why;                            \
    bool skipped = false;                       \
    if (!(world).Start(&why, &skipped)) {       \
      if (skipped) SKIP_TEST(why);              \
      FAIL("fixture failed to start: " << why); \
    }                                           \
  } while (0)

void CheckRunOk(const PageRun& r, size_t requests) {
  INFO(r.run.Describe());
  REQUIRE(r.run.exit_code() == 0);
  REQUIRE(r.requests.size() == requests);
  REQUIRE(r.page.is_object());
  CHECK(r.run.StderrLines().empty());
  CHECK(JsonInt(r.page, "failed") == 0);
  for (const nlohmann::json& q : r.requests) CHECK(JsonInt(q, "status") == 200);
}

// Preconnects to the page's subresource origins the predictor started before the first host
// resolution of the load finished (each lookup costs kDnsDelay): the navigation's burst. A
// budget below the burst starts the rest only as earlier ones finish, late for the page.
int PreconnectsBeforeFirstLookup(const NetLogFile& log, const std::vector<std::string>& hosts) {
  int started = 0;
  for (const nlohmann::json& e : log.events()) {
    const std::string type = log.TypeName(e);
    if (type == "HOST_RESOLVER_MANAGER_JOB" && e.value("phase", 0) == 2) break;
    if (type != "PREDICTOR_ACTION") continue;
    const nlohmann::json params = e.value("params", nlohmann::json::object());
    if (params.value("action", "") != "preconnect") continue;
    const std::string target = params.value("target", "");
    for (const std::string& host : hosts) {
      if (target.find("//" + host + ":") != std::string::npos) {
        ++started;
        break;
      }
    }
  }
  return started;
}

TEST_CASE("second page load in a new process uses the preconnects the first one taught",
          "[page][predictor]") {
  REQUIRE_NETSTACK_BINARY();
  PageWorld world;
  START_WORLD(world);
  TempDir dir("page-load");
  const std::string profile = dir.Join("profile");
  const std::string policy =
      GENERATE(std::string("chrome"), std::string("loading"), std::string("learned"));
  INFO("--predictor " << policy);

  PageRun first = RunPage(Concat(world.Flags(profile), {"--predictor", policy, "--netlog",
                                                        dir.Join("first.json"), world.page}));
  CheckRunOk(first, 5);
  world.AwaitPreconnects();
  PageRun second = RunPage(Concat(world.Flags(profile), {"--predictor", policy, "--netlog",
                                                         dir.Join("second.json"), world.page}));
  CheckRunOk(second, 5);
  std::cout << "fetch --page --predictor " << policy << ": first load "
            << JsonNumber(first.page, "load_ms") << " ms, second load "
            << JsonNumber(second.page, "load_ms") << " ms (connection cost "
            << kConnectionDelay.count() << " ms each, DNS " << kDnsDelay.count() << " ms each)\n";

  // The first load knew nothing about the page: its subresources opened new connections,
  // and paid for them (the TLS handshake the proxy slowed down).
  for (const std::string& url : world.subresources) {
    INFO(url);
    const nlohmann::json* r = first.Request(url);
    REQUIRE(r);
    CHECK(JsonString(*r, "socket/source") == "new");
    CHECK(JsonNumber(*r, "timing/dns_ms") > 0);  // through the delaying relay
    CHECK(JsonNumber(*r, "timing/tls_ms") > 0);
    CHECK(JsonInt(*r, "speculative/preconnected") == 0);
  }
  CHECK(JsonInt(first.page, "predictor/rows_loaded") == 0);
  CHECK(JsonInt(first.page, "predictor/rows_saved") > 0);

  // The second one loaded what the first saved, preconnected at the navigation, and every
  // subresource found a socket ready: no DNS, connect or TLS of its own.
  CHECK(JsonBool(second.page, "predictor/persisted"));
  CHECK(JsonInt(second.page, "predictor/rows_loaded") > 0);
  for (const std::string& url : world.subresources) {
    INFO(url);
    const nlohmann::json* r = second.Request(url);
    REQUIRE(r);
    INFO(r->dump());
    CHECK(JsonString(*r, "socket/source") == "preconnected");
    CHECK_FALSE(JsonBool(*r, "socket/reused"));
    CHECK(JsonNumber(*r, "timing/dns_ms") == 0);
    CHECK(JsonNumber(*r, "timing/connect_ms") == 0);
    CHECK(JsonNumber(*r, "timing/tls_ms") == 0);
    CHECK(JsonInt(*r, "speculative/preconnected") >= 1);
    CHECK(JsonString(*r, "speculative/outcome") == "used");
  }
  CHECK(JsonInt(second.page, "predictor/stats/preconnect/used") >= 3);
  CHECK(JsonInt(second.page, "predictor/stats/connections/ready") >= 3);

  // The NetLog shows the predictor's actions and the pool's preconnects, every subresource
  // origin's begun at the navigation, before any lookup was answered (learned's budget once
  // started at 3, so the third origin's waited for an earlier one: its second load was no
  // faster than its first).
  NetLogFile log = ReadNetLog(dir.Join("second.json"));
  CHECK(log.Count("PREDICTOR_ACTION") >= 3);
  CHECK(log.Count("SOCKET_POOL_CONNECTING_N_SOCKETS") >= 3);
  CHECK(PreconnectsBeforeFirstLookup(log, {"b.test", "c.test", "d.test"}) == 3);
}

// Subresources of `run` among `urls` on a socket a preconnect made (ready or late).
int OnPreconnectedSockets(const PageRun& run, const std::vector<std::string>& urls) {
  int count = 0;
  for (const std::string& url : urls) {
    const nlohmann::json* r = run.Request(url);
    const std::string source = r ? JsonString(*r, "socket/source") : "";
    if (source == "preconnected" || source == "preconnected-late") ++count;
  }
  return count;
}

// Subresources of `run` among `urls` that paid no setup of their own: a preconnected socket was
// ready, or (once an earlier image finished) a kept-alive one was free; no DNS, connect or TLS.
int WithoutSetup(const PageRun& run, const std::vector<std::string>& urls) {
  int ready = 0;
  for (const std::string& url : urls) {
    const nlohmann::json* r = run.Request(url);
    if (r && JsonString(*r, "socket/source") != "new" && JsonNumber(*r, "timing/dns_ms") == 0 &&
        JsonNumber(*r, "timing/connect_ms") == 0 && JsonNumber(*r, "timing/tls_ms") == 0) {
      ++ready;
    }
  }
  return ready;
}

// The page needs six connections to each of two origins (HTTP/1.1, six images each). What
// one load taught must give the next, in a new process, every one of them ready: the learned
// policy once preconnected too few (362 -> 357 ms, against chrome's 359 -> 261 ms).
TEST_CASE("over HTTP/1.1 the learned second load readies every connection per origin it needs",
          "[page][predictor]") {
  REQUIRE_NETSTACK_BINARY();
  PageWorld world(kParallelSubresources);
  START_WORLD(world);
  TempDir dir("page-h1");
  const size_t subresources = 2 * kParallelSubresources;
  const size_t requests = 1 + subresources;  // and the document
  std::map<std::string, int> ready;
  for (const std::string policy : {"chrome", "learned"}) {
    INFO("--predictor " << policy);
    const std::string profile = dir.Join("profile-" + policy);
    world.AnswerAtOnce();
    PageRun first = RunPage(Concat(world.Flags(profile), {"--predictor", policy, world.page}));
    CheckRunOk(first, requests);
    world.AwaitPreconnects();
    PageRun second = RunPage(Concat(world.Flags(profile), {"--predictor", policy, world.page}));
    CheckRunOk(second, requests);
    std::cout << "fetch --page --predictor " << policy << " (" << kParallelSubresources
              << " HTTP/1.1 requests on each of 2 origins): first load "
              << JsonNumber(first.page, "load_ms") << " ms, second load "
              << JsonNumber(second.page, "load_ms") << " ms\n";
    // The first load knew nothing: a new connection per request in flight, at most six per
    // origin (the pool's limit per group), each paying the proxy's delay.
    CHECK(OnPreconnectedSockets(first, world.subresources) == 0);
    ready[policy] = WithoutSetup(second, world.subresources);
    std::cout << "  second load: " << OnPreconnectedSockets(second, world.subresources) << " of "
              << subresources << " images on preconnected sockets, " << ready[policy]
              << " without a setup of their own\n";
  }
  INFO("subresources without a setup of their own: chrome " << ready["chrome"] << ", learned "
                                                            << ready["learned"]);
  CHECK(ready["learned"] == static_cast<int>(subresources));
  CHECK(ready["learned"] >= ready["chrome"]);
}

TEST_CASE("a damaged predictor.db: one warning, the page loads, the file is left as it was",
          "[page][predictor]") {
  REQUIRE_NETSTACK_BINARY();
  PageWorld world;
  START_WORLD(world);
  TempDir dir("page-corrupt");
  const std::string profile = dir.Join("profile");
  REQUIRE(mkdir(profile.c_str(), 0700) == 0);
  const std::string db = profile + "/predictor.db";
  std::string garbage;
  for (int i = 0; i < 200; ++i) garbage += "this is not an sqlite database " + std::to_string(i);
  WriteFile(db, garbage);

  PageRun run = RunPage(Concat(world.Flags(profile), {world.page}));
  INFO(run.run.Describe());
  REQUIRE(run.run.exit_code() == 0);
  CHECK(run.requests.size() == 5);
  CHECK(JsonInt(run.page, "failed") == 0);
  std::vector<std::string> errors = run.run.StderrLines();
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].rfind("netstack: warning: predictor database ", 0) == 0);
  CHECK(errors[0].find("predictor.db") != std::string::npos);
  CHECK_FALSE(JsonBool(run.page, "predictor/persisted", true));
  CHECK(ReadFile(db) == garbage);
}

TEST_CASE("fetch --page --predictor off: no speculative work, speculative is null",
          "[page][predictor]") {
  REQUIRE_NETSTACK_BINARY();
  PageWorld world;
  START_WORLD(world);
  TempDir dir("page-off");
  PageRun run =
      RunPage(Concat(world.Flags(dir.Join("profile")),
                     {"--predictor", "off", "--netlog", dir.Join("log.json"), world.page}));
  CheckRunOk(run, 5);
  for (const nlohmann::json& r : run.requests) {
    CHECK(JsonIsNull(r, "speculative"));
    CHECK(JsonString(r, "socket/source") != "preconnected");
  }
  CHECK(ReadNetLog(dir.Join("log.json")).Count("PREDICTOR_ACTION") == 0);
}

}  // namespace
}  // namespace netstack::test
