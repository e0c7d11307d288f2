// InternalsRouter's safety rules and dispatch, over the real stack on the simulated network
// (tests/internals/router_test_env.h): Host check, refused paths, the token, methods, bodies,
// and every route's answer.
#include "tools/internals/internals_router.h"

#include <catch2/catch.hpp>
#include <string>

#include "net/base/ip_address.h"
#include "net/dns/host_resolver_manager.h"
#include "net/http/url_request_context.h"
#include "net/socket/client_socket_pool.h"
#include "tests/internals/router_test_env.h"
#include "tools/internals/internals_assets.h"

namespace netstack::test {
namespace {

constexpr char kScript[] = "<script>alert(1)</script>";
constexpr char kImg[] = "<img src=x onerror=alert(document.cookie)>";

bool HasHeader(const HttpServerResponse& r, const std::string& name, const std::string& value) {
  for (const auto& [n, v] : r.headers) {
    if (n == name && v == value) return true;
  }
  return false;
}

// Starts a lookup of `host` through the stack's resolver and runs until it ends; its result.
int Resolve(RouterTestEnv& t, const std::string& host) {
  auto request = t.env.context->host_resolver()->CreateRequest(
      host, 443, RequestPriority::MEDIUM,
      NetLogWithSource::Make(&t.env.net_log, NetLogSourceType::URL_REQUEST));
  int result = ERR_IO_PENDING;
  int rv = request->Start([&result](int r) { result = r; });
  if (rv != ERR_IO_PENDING) result = rv;
  t.env.scheduler.RunUntil([&result] { return result != ERR_IO_PENDING; });
  return result;
}

TEST_CASE("router: the Host header must name this server", "[internals][router]") {
  RouterTestEnv t;
  const std::string port = std::to_string(RouterTestEnv::kPort);
  for (const std::string& good : std::vector<std::string>{"127.0.0.1:" + port, "localhost:" + port,
                                                          "LOCALHOST:" + port, "[::1]:" + port}) {
    INFO(good);
    Answer a = t.Call(RouterTestEnv::MakeRequest("GET", "/api/info", {{"host", good}}));
    CHECK(a.calls == 1);
    CHECK(a.status() == 200);
  }
  for (const std::string& bad :
       std::vector<std::string>{"evil.example:" + port, "127.0.0.1:1", "127.0.0.1",
                                "localhost.evil.example:" + port, std::string()}) {
    INFO(bad);
    Answer a = t.Call(RouterTestEnv::MakeRequest("GET", "/api/info", {{"host", bad}}));
    CHECK(a.calls == 1);
    CHECK(a.status() == 403);
    CHECK(a.json().contains("error"));
  }
  // A rebinding page cannot POST either, even with the right token.
  t.Fetch("http://a.test/");
  REQUIRE(t.env.context->socket_pool()->IdleSocketCount() == 1);
  Answer a = t.Call(RouterTestEnv::MakeRequest(
      "POST", "/api/sockets/close-idle",
      {{"host", "evil.example:" + port}, {"x-netstack-token", RouterTestEnv::kToken}}));
  CHECK(a.status() == 403);
  CHECK(t.env.context->socket_pool()->IdleSocketCount() == 1);
}

TEST_CASE("router: traversal and odd targets are refused with 400", "[internals][router]") {
  RouterTestEnv t;
  for (const std::string& target : std::vector<std::string>{
           "/../../etc/passwd", "/%2e%2e/x", "/%2E%2E/etc/passwd", "/assets/..%2fx", "\\",
           "/\\etc\\passwd", "http://127.0.0.1/x", "/api/..%2fsockets", "/api/cache%2fentry",
           "/app.js/..", "/%5c..%5cetc", "*", ""}) {
    for (const char* method : {"GET", "POST"}) {
      INFO(method << " " << target);
      Answer a = t.Call(RouterTestEnv::MakeRequest(method, target,
                                                   {{"x-netstack-token", RouterTestEnv::kToken}}));
      CHECK(a.calls == 1);
      CHECK(a.status() == 400);
      CHECK(a.json().value("error", "") == "path refused");
    }
  }
}

TEST_CASE("router: unknown paths are 404, wrong methods 405", "[internals][router]") {
  RouterTestEnv t;
  for (const char* target :
       {"/nope", "/api/nope", "/api", "/./app.js", "//app.js", "/api/sockets/", "/etc/passwd"}) {
    INFO(target);
    CHECK(t.Get(target).status() == 404);
  }
  // GET on a POST route, POST (with the token) on a GET route.
  CHECK(t.Get("/api/sockets/close-idle").status() == 405);
  CHECK(t.Get("/api/quit").status() == 405);
  CHECK(t.Post("/api/sockets").status() == 405);
  CHECK(t.Call(RouterTestEnv::MakeRequest("DELETE", "/api/dns", {})).status() == 405);
  CHECK(t.host.quits == 0);
}

TEST_CASE("router: POSTs need the token, without it nothing changes", "[internals][router]") {
  RouterTestEnv t;
  t.Fetch("http://a.test/");
  t.Fetch("http://b.test/");
  ClientSocketPool* pool = t.env.context->socket_pool();
  REQUIRE(pool->IdleSocketCount() == 2);

  Answer none = t.Call(RouterTestEnv::MakeRequest("POST", "/api/sockets/close-idle", {}));
  CHECK(none.status() == 403);
  CHECK(pool->IdleSocketCount() == 2);

  for (const std::string& wrong :
       std::vector<std::string>{"00112233445566778899aabbccddeefe", "0011", std::string(),
                                std::string(RouterTestEnv::kToken) + "0"}) {
    INFO(wrong);
    Answer a = t.Call(RouterTestEnv::MakeRequest("POST", "/api/sockets/close-idle",
                                                 {{"x-netstack-token", wrong}}));
    CHECK(a.status() == 403);
    CHECK(pool->IdleSocketCount() == 2);
  }
  // The token in the query string or a cookie is not the header.
  Answer in_query = t.Call(RouterTestEnv::MakeRequest(
      "POST", std::string("/api/sockets/close-idle?token=") + RouterTestEnv::kToken, {}));
  CHECK(in_query.status() == 403);
  CHECK(pool->IdleSocketCount() == 2);

  Answer ok = t.Post("/api/sockets/close-idle");
  CHECK(ok.status() == 200);
  CHECK(ok.json() == nlohmann::json{{"closed", 2}, {"http2_sessions_closed", 0}});
  CHECK(pool->IdleSocketCount() == 0);
  CHECK(t.Get("/api/sockets").json()["idle_socket_count"] == 0);
}

TEST_CASE("router: POST bodies must be JSON objects with their fields", "[internals][router]") {
  RouterTestEnv t;
  CHECK(t.Post("/api/fetch", "{\"url\": ").status() == 400);
  CHECK(t.Post("/api/fetch", "[1, 2]").status() == 400);
  CHECK(t.Post("/api/fetch", "{}").status() == 400);
  CHECK(t.Post("/api/fetch", "{\"url\": 7}").status() == 400);
  CHECK(t.Post("/api/fetch", std::string("{\"url\": \"\xff\xfe\"")).status() == 400);
  CHECK(t.Post("/api/replay", "{\"action\": \"rewind\"}").status() == 400);
  Answer form =
      t.Call(RouterTestEnv::MakeRequest("POST", "/api/fetch",
                                        {{"x-netstack-token", RouterTestEnv::kToken},
                                         {"content-type", "application/x-www-form-urlencoded"}},
                                        "url=http://a.test/"));
  CHECK(form.status() == 415);
  CHECK(t.host.fetched.empty());

  Answer ok = t.Post("/api/fetch", "{\"url\": \"http://a.test/\"}");
  CHECK(ok.status() == 200);
  CHECK(ok.json() == nlohmann::json{{"id", 1}});
  CHECK(t.host.fetched == std::vector<std::string>{"http://a.test/"});
  CHECK(t.Post("/api/omnibox", "{\"text\": \"a.te\"}").json()["text"] == "a.te");
  // The host's defaults answer 404 outside their mode.
  CHECK(t.Post("/api/replay", "{\"action\": \"step\"}").status() == 404);
  CHECK(t.Post("/api/hover", "{\"url\": \"http://a.test/x\"}").status() == 404);
  CHECK(t.Get("/api/fetches").status() == 404);
}

TEST_CASE("router: quit answers first, then asks the host", "[internals][router]") {
  RouterTestEnv t;
  int quits_when_answered = -1;
  t.router->Handle(RouterTestEnv::MakeRequest("POST", "/api/quit",
                                              {{"x-netstack-token", RouterTestEnv::kToken}}),
                   [&](HttpServerResponse response) {
                     quits_when_answered = t.host.quits;
                     CHECK(response.status == 200);
                     CHECK(response.body == "{\"quitting\":true}");
                   });
  CHECK(quits_when_answered == 0);
  CHECK(t.host.quits == 1);
}

TEST_CASE("router: info, dns clear, flush", "[internals][router]") {
  RouterTestEnv t;
  t.Fetch("http://a.test/");
  nlohmann::json info = t.Get("/api/info").json();
  CHECK(info["version"] == "netstack 0.1.0");
  CHECK(info["stack"] == true);
  CHECK(info["mode"] == "internals");
  CHECK(info["time_tick_offset_ms"] == 1'700'000'000'000);
  CHECK(info["now_ms"].get<double>() == ToMilliseconds(t.env.scheduler.Now()));
  CHECK(info["pid"].get<int64_t>() > 0);
  CHECK_FALSE(info.dump().find(RouterTestEnv::kToken) != std::string::npos);

  REQUIRE(t.env.context->host_resolver()->GetCache().size() == 1);
  Answer cleared = t.Post("/api/dns/clear");
  CHECK(cleared.json() == nlohmann::json{{"cleared", 1}});
  CHECK(t.env.context->host_resolver()->GetCache().size() == 0);
  CHECK(t.Get("/api/dns").json()["cache"]["entries"].empty());

  const int64_t generation = t.env.context->socket_pool()->generation();
  Answer flushed = t.Post("/api/sockets/flush");
  CHECK(flushed.json()["flushed"] == true);
  CHECK(flushed.json()["pool_generation_number"] == generation + 1);
  CHECK(t.env.context->socket_pool()->IdleSocketCount() == 0);

  // Without a stack the stack views say so; the others still answer.
  t.host.context_ = nullptr;
  CHECK(t.Get("/api/sockets").status() == 503);
  CHECK(t.Post("/api/dns/clear").status() == 503);
  CHECK(t.Get("/api/info").json()["stack"] == false);
  CHECK(t.Get("/api/info").json()["now_ms"].is_null());
}

TEST_CASE("router: network strings with markup come out as JSON strings", "[internals][router]") {
  RouterTestEnv t;
  const std::string evil_host = std::string(kScript) + kImg;
  // The resolver refuses such a name, but the name still reaches the NetLog (the Events view).
  CHECK(Resolve(t, evil_host) == ERR_NAME_NOT_RESOLVED);
  Answer events = t.Get("/api/events?filter=onerror");
  REQUIRE(events.status() == 200);
  CHECK(events.response.content_type == "application/json; charset=utf-8");
  CHECK_FALSE(events.json()["events"].empty());
  INFO(events.response.body);
  CHECK(events.json()["events"].dump().find(evil_host) != std::string::npos);
  // A host cache entry under such a name (as a resolver with looser rules would store it).
  HostCache& host_cache = t.env.context->host_resolver()->GetCache();
  host_cache.Set(HostCache::Key(evil_host, AddressFamily::kUnspecified),
                 HostCache::Entry::ForAddresses({*IPAddress::Parse("10.0.0.1")}, Seconds(60)),
                 t.env.scheduler.Now());
  const std::string evil_key = std::string("http://a.test/?q=") + kScript + kImg + "\xff";
  t.PutEntry(evil_key, std::string("HTTP/1.1 200 OK\r\nX-Evil: ") + kImg + "\r\n\r\n",
             std::string("<html>") + kScript + "</html>");

  Answer dns = t.Get("/api/dns");
  CHECK(dns.response.content_type == "application/json; charset=utf-8");
  bool found_host = false;
  const nlohmann::json dns_json = dns.json();
  for (const auto& e : dns_json["cache"]["entries"]) found_host |= e["hostname"] == evil_host;
  INFO(dns.response.body);
  CHECK(found_host);

  Answer list = t.Get("/api/cache?q=%3Cscript%3E");
  REQUIRE(list.status() == 200);
  CHECK(list.response.content_type == "application/json; charset=utf-8");
  nlohmann::json listed = list.json();
  REQUIRE(listed["entries"].size() == 1);
  // The invalid byte became U+FFFD; the markup is a JSON string, unchanged.
  CHECK(listed["entries"][0]["key"] ==
        std::string("http://a.test/?q=") + kScript + kImg + "\xef\xbf\xbd");

  Answer entry = t.Call(RouterTestEnv::MakeRequest("GET", "/api/cache/entry?key=" + evil_key,
                                                   {}));  // query values arrive decoded
  REQUIRE(entry.status() == 200);
  nlohmann::json shown = entry.json();
  CHECK(shown["response"]["headers"][0] == nlohmann::json::array({"X-Evil", kImg}));
  CHECK(shown["body"]["encoding"] == "text");
  CHECK(shown["body"]["data"] == std::string("<html>") + kScript + "</html>");

  // On the wire every answer carries nosniff and the CSP (the server adds them).
  const std::string wire = SerializeResponse(entry.response, false, false);
  CHECK(wire.find("Content-Type: application/json; charset=utf-8\r\n") != std::string::npos);
  CHECK(wire.find("X-Content-Type-Options: nosniff\r\n") != std::string::npos);
  CHECK(wire.find("Content-Security-Policy: default-src 'self'") != std::string::npos);
}

TEST_CASE("router: events, netlog, histograms and memory answer JSON", "[internals][router]") {
  RouterTestEnv t;
  t.Fetch("http://a.test/");
  Answer events = t.Get("/api/events?after=0&limit=5");
  REQUIRE(events.status() == 200);
  CHECK(events.json()["events"].size() == 5);
  CHECK(t.Get("/api/events?after=x").status() == 400);
  CHECK(t.Get("/api/events/source").status() == 400);
  uint32_t id = events.json()["events"][0]["source"]["id"];
  CHECK(t.Get("/api/events/source?id=" + std::to_string(id)).json()["source_id"] == id);

  Answer netlog = t.Get("/api/netlog");
  CHECK(netlog.status() == 200);
  CHECK(HasHeader(netlog.response, "Content-Disposition",
                  "attachment; filename=\"netstack-netlog.json\""));
  nlohmann::json file = netlog.json();
  CHECK(file.contains("constants"));
  CHECK(file["polledData"].contains("socketPoolInfo"));

  Answer histograms = t.Get("/api/histograms");
  CHECK(histograms.status() == 200);
  CHECK(histograms.json()["histograms"].is_array());
  CHECK(t.Post("/api/histograms/reset").json() == nlohmann::json{{"reset", true}});

  Answer memory = t.Get("/api/memory");
  CHECK(memory.status() == 200);
  CHECK(memory.json()["parts"].is_array());

  Answer predictor = t.Get("/api/predictor");
  CHECK(predictor.json()["policy"] == "chrome");
  // The split accounting is on the page (its Statistics table shows every stats field).
  const nlohmann::json stats = predictor.json()["stats"];  // json() parses: a copy
  CHECK(stats["connections"].contains("needed_background"));
  CHECK(stats["preconnect"].contains("used_background"));
  CHECK(stats["fetch_ahead"].contains("warmed"));
  t.host.predictor_ = nullptr;
  CHECK(t.Get("/api/predictor").json() == nlohmann::json{{"policy", "off"}});
}

TEST_CASE("router: the page carries the token, API answers never do", "[internals][router]") {
  RouterTestEnv t;
  const InternalsAsset* index = FindInternalsAsset("/");
  if (!index) {
    WARN("no built-in index.html in this build; nothing to check");
    return;
  }
  Answer page = t.Get("/");
  REQUIRE(page.status() == 200);
  CHECK(page.response.content_type.rfind("text/html", 0) == 0);
  CHECK(page.response.body.find(RouterTestEnv::kToken) != std::string::npos);
  CHECK(page.response.body.find(kInternalsTokenPlaceholder) == std::string::npos);
  CHECK(t.Post("/").status() == 405);
}

TEST_CASE("router: tokens are 32 hex digits and differ", "[internals][router]") {
  std::string a = MakeInternalsToken();
  std::string b = MakeInternalsToken();
  CHECK(a.size() == 32);
  CHECK(a.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(a != b);
}

}  // namespace
}  // namespace netstack::test
