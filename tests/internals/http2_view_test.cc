// The HTTP/2 view (/api/http2) and the Sockets view's marking of the sockets that carry HTTP/2
// sessions (/api/sockets), through the router, over real sessions: the stack on virtual time
// with tests/http2's in-memory h2 servers (H2SocketFactory) behind a FakeInternalsHost. Also
// the NetLog export's HTTP/2 parts in Chrome's shape (what the netlog viewer's HTTP/2 tab and
// Events list read).
#include "tools/internals/http2_view.h"

#include <catch2/catch.hpp>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "net/http2/http2_session_pool.h"
#include "tests/http2/h2_stack_env.h"
#include "tests/internals/router_test_env.h"

namespace netstack::test {
namespace {

using json = nlohmann::json;

// The stack over in-memory h2 servers (H2Env), shown by a router (as RouterTestEnv, without
// the cache and the predictor).
struct H2RouterEnv : H2Env {
  explicit H2RouterEnv(H2SocketFactory::Options options = {},
                       UrlRequestContext::Config config = RequestTestEnv::DefaultConfig())
      : H2Env(std::move(options), config) {
    ring.Attach(&net_log);
    histograms.Attach(&net_log);
    host.context_ = context.get();
    host.clock_ = &clock;
    InternalsRouter::Options router_options;
    router_options.token = RouterTestEnv::kToken;
    router_options.port = RouterTestEnv::kPort;
    router_options.listen_address = "127.0.0.1";
    router = std::make_unique<InternalsRouter>(&host, &ring, &histograms, router_options);
  }
  ~H2RouterEnv() {
    router.reset();
    requests.clear();
    context.reset();
    scheduler.RunUntilIdle();
    ring.Attach(nullptr);
    histograms.Attach(nullptr);
  }

  Answer Call(const HttpServerRequest& request) {
    auto answer = std::make_shared<Answer>();
    router->Handle(request, [answer](HttpServerResponse response) {
      answer->calls++;
      answer->response = std::move(response);
    });
    return *answer;
  }
  json Get(const std::string& target) {
    Answer a = Call(RouterTestEnv::MakeRequest("GET", target, {}));
    REQUIRE(a.calls == 1);
    REQUIRE(a.status() == 200);
    return a.json();
  }
  json Post(const std::string& target) {
    Answer a = Call(RouterTestEnv::MakeRequest(
        "POST", target, {{"x-netstack-token", RouterTestEnv::kToken}}, "{}"));
    REQUIRE(a.calls == 1);
    REQUIRE(a.status() == 200);
    return a.json();
  }
  // The session of `host_port_pair` in /api/http2's list (null json if none).
  json Session(const std::string& host_port_pair) {
    const json answer = Get("/api/http2");
    for (const json& s : answer["sessions"]) {
      if (s["host_port_pair"] == host_port_pair) return s;
    }
    return nullptr;
  }

  SchedulerClock clock{scheduler, TimeFromUnixSeconds(RouterTestEnv::kOriginUnixSeconds)};
  NetLogRing ring;
  StackHistograms histograms;
  FakeInternalsHost host;
  std::unique_ptr<InternalsRouter> router;
};

TEST_CASE("http2 view: sessions of a context that has them, in Chrome's fields",
          "[internals][http2]") {
  H2RouterEnv t;
  t.AddHost("a.test");
  t.AddHost("b.test");
  for (int i = 0; i < 5; ++i) t.Start("https://a.test/a" + std::to_string(i));
  for (int i = 0; i < 3; ++i) t.Start("https://b.test/b" + std::to_string(i));
  t.RunUntilDone();
  for (const auto& d : t.delegates) REQUIRE(d->result == OK);

  json answer = t.Get("/api/http2");
  const json& status = answer["status"];
  CHECK(status["enable_http2"] == true);
  CHECK(status["alpn_protos"] == "h2,http/1.1");
  CHECK(status["sessions"] == 2);
  const std::set<std::string> known = status["known_http2_servers"];
  CHECK(known == std::set<std::string>{"https://a.test:443", "https://b.test:443"});
  REQUIRE(answer["sessions"].size() == 2);

  json a = t.Session("a.test:443");
  REQUIRE(a.is_object());
  // The ids the requests' records carry.
  const ConnectionInfo& first = t.requests[0]->connection_info();
  CHECK(a["source_id"] == first.h2_session_id);
  CHECK(a["socket_id"] == first.socket_id);
  CHECK(a["negotiated_protocol"] == "h2");
  CHECK(a["is_secure"] == true);
  CHECK(a["aliases"] == json::array());
  CHECK(a["available"] == true);
  CHECK(a["active_streams"] == 0);
  CHECK(a["queued_streams"] == 0);
  CHECK(a["streams_initiated_count"] == 5);
  CHECK(a["frames_sent"].get<int>() > 0);
  CHECK(a["frames_received"].get<int>() >= 5);  // at least each response's HEADERS
  CHECK(a["send_window_size"].get<int64_t>() > 0);
  CHECK(a["recv_window_size"].get<int64_t>() > 0);
  // The in-memory server sends no MAX_CONCURRENT_STREAMS: "unlimited", capped at 256 as Chrome.
  CHECK(a["max_concurrent_streams"] == 256);
  CHECK(a["goaway"].is_null());
  CHECK(a["error"] == 0);
  CHECK(a["error_name"] == "OK");
  CHECK(a["age_ms"].is_number());
  CHECK(t.Session("b.test:443")["streams_initiated_count"] == 3);
}

TEST_CASE("http2 view: streams active and queued above the server's limit, then a GOAWAY",
          "[internals][http2]") {
  H2SocketFactory::Options options;
  options.settings = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 2}};
  H2RouterEnv t(options);
  t.factory->set_handler([](H2ServerConnection&, int32_t) {});  // never answers
  t.AddHost("a.test");
  for (int i = 0; i < 5; ++i) t.Start("https://a.test/r" + std::to_string(i));
  t.scheduler.AdvanceBy(Seconds(1));

  json s = t.Session("a.test:443");
  REQUIRE(s.is_object());
  CHECK(s["max_concurrent_streams"] == 2);
  CHECK(s["active_streams"] == 2);
  CHECK(s["queued_streams"] == 3);
  CHECK(s["streams_initiated_count"] == 2);
  CHECK(s["streams_queued_count"].get<int>() >= 3);

  // The server says GOAWAY past the two open streams: the session stays listed (its streams
  // are open), no longer available, with the GOAWAY's fields.
  H2ServerConnection* conn = nullptr;
  for (const auto& c : t.factory->connections()) {
    if (c->requests > 0) conn = c.get();
  }
  REQUIRE(conn);
  conn->server.Goaway(3, NGHTTP2_NO_ERROR);
  conn->flush();
  t.scheduler.AdvanceBy(Milliseconds(50));
  json going = t.Get("/api/http2")["sessions"];
  REQUIRE(!going.empty());
  CHECK(going[0]["available"] == false);
  REQUIRE(going[0]["goaway"].is_object());
  CHECK(going[0]["goaway"]["last_stream_id"] == 3);
  CHECK(going[0]["goaway"]["error_code"].is_string());
  json marked = t.Get("/api/sockets")["http2_sockets"];
  REQUIRE(!marked.empty());
  CHECK(marked[0]["goaway"] == true);
  CHECK(marked[0]["available"] == false);
}

TEST_CASE("http2 view: the Sockets view marks the sockets that carry sessions",
          "[internals][http2]") {
  H2RouterEnv t;
  t.AddHost("a.test");
  for (int i = 0; i < 4; ++i) t.Start("https://a.test/r" + std::to_string(i));
  t.RunUntilDone();
  const ConnectionInfo& c = t.requests[0]->connection_info();

  json sockets = t.Get("/api/sockets");
  REQUIRE(sockets["http2_sockets"].size() == 1);
  const json& marked = sockets["http2_sockets"][0];
  CHECK(marked["socket_id"] == c.socket_id);
  CHECK(marked["session_id"] == c.h2_session_id);
  CHECK(marked["host_port_pair"] == "a.test:443");
  CHECK(marked["aliases"] == json::array());
  CHECK(marked["active_streams"] == 0);
  CHECK(marked["queued_streams"] == 0);
  CHECK(marked["available"] == true);
  CHECK(marked["goaway"] == false);
  // Its group names it; the session's socket is handed out, never idle. The other connects
  // of the first contact went back idle (they carry nothing).
  REQUIRE(sockets["groups"].contains("https://a.test:443"));
  const json& group = sockets["groups"]["https://a.test:443"];
  CHECK(group["http2_sessions"] ==
        json::array({{{"socket_id", c.socket_id}, {"session_id", c.h2_session_id}}}));
  CHECK(group["active_socket_count"].get<int>() >= 1);
  CHECK(sockets["handed_out_socket_count"].get<int>() >= 1);
  for (const json& idle : group["idle_sockets"]) CHECK(idle != c.socket_id);

  // Close idle sockets also closes idle sessions (Chrome's CloseIdleConnections): the session
  // sends GOAWAY and goes, its socket with it.
  json closed = t.Post("/api/sockets/close-idle");
  CHECK(closed["http2_sessions_closed"] == 1);
  t.scheduler.AdvanceBy(Seconds(1));
  CHECK(t.Get("/api/http2")["sessions"] == json::array());
  json after = t.Get("/api/sockets");
  CHECK(after["http2_sockets"] == json::array());
  CHECK(after["handed_out_socket_count"] == 0);
}

TEST_CASE("http2 view: Flush makes sessions go away, new requests get a new session",
          "[internals][http2]") {
  H2RouterEnv t;
  t.AddHost("a.test");
  t.Start("https://a.test/first");
  t.RunUntilDone();
  const uint32_t first = t.requests[0]->connection_info().h2_session_id;
  json flushed = t.Post("/api/sockets/flush");
  CHECK(flushed["flushed"] == true);
  CHECK(flushed["http2_sessions_going_away"] == 1);
  t.Start("https://a.test/second");
  t.RunUntilDone();
  REQUIRE(t.delegates[1]->result == OK);
  CHECK(t.requests[1]->connection_info().h2_session_id != first);
  json s = t.Session("a.test:443");
  REQUIRE(s.is_object());
  CHECK(s["source_id"] == t.requests[1]->connection_info().h2_session_id);
}

TEST_CASE("http2 view: HTTP/2 off, and no stack", "[internals][http2]") {
  UrlRequestContext::Config config = RequestTestEnv::DefaultConfig();
  config.http2.offered_in_alpn = false;
  H2SocketFactory::Options options;
  options.alpn = "http/1.1";
  H2RouterEnv t(options, config);
  json answer = t.Get("/api/http2");
  CHECK(answer["status"]["enable_http2"] == false);
  CHECK(answer["status"]["alpn_protos"] == "http/1.1");
  CHECK(answer["status"]["known_http2_servers"] == json::array());
  CHECK(answer["sessions"] == json::array());
  CHECK(t.Get("/api/sockets")["http2_sockets"] == json::array());

  t.host.context_ = nullptr;
  Answer none = t.Call(RouterTestEnv::MakeRequest("GET", "/api/http2", {}));
  CHECK(none.status() == 503);
  CHECK(t.Call(RouterTestEnv::MakeRequest("POST", "/api/http2", {})).status() == 405);
}

TEST_CASE("http2 view: the join onto the pool's groups", "[internals][http2]") {
  json pool = {{"handed_out_socket_count", 2},
               {"groups",
                {{"https://a.test:443", {{"idle_sockets", json::array()}}},
                 {"http://c.test:80", {{"idle_sockets", {7}}}}}}};
  json sessions = json::array({
      {{"host_port_pair", "https://a.test:443"},
       {"source_id", 11},
       {"socket_id", 5},
       {"aliases", {"https://b.test:443"}},
       {"is_secure", true},
       {"available", true},
       {"goaway", nullptr}},
      // Chrome's spelling (no scheme) finds its group through is_secure.
      {{"host_port_pair", "c.test:80"},
       {"source_id", 12},
       {"socket_id", 6},
       {"is_secure", false},
       {"available", false},
       {"goaway", {{"last_stream_id", 1}, {"error_code", "NO_ERROR"}}}},
      // A session whose group is gone is still listed, in no group.
      {{"host_port_pair", "https://gone.test:443"}, {"source_id", 13}, {"socket_id", 8}},
  });
  AddHttp2SocketsJson(sessions, pool);
  REQUIRE(pool["http2_sockets"].size() == 3);
  CHECK(pool["http2_sockets"][0]["aliases"] == json{"https://b.test:443"});
  CHECK(pool["http2_sockets"][1]["goaway"] == true);
  CHECK(pool["http2_sockets"][2]["session_id"] == 13);
  CHECK(pool["groups"]["https://a.test:443"]["http2_sessions"] ==
        json::array({{{"socket_id", 5}, {"session_id", 11}}}));
  CHECK(pool["groups"]["http://c.test:80"]["http2_sessions"] ==
        json::array({{{"socket_id", 6}, {"session_id", 12}}}));
  CHECK(pool["groups"]["http://c.test:80"]["idle_sockets"] == json{7});

  json empty = {{"handed_out_socket_count", 0}};  // no groups at all
  AddHttp2SocketsJson(json::array(), empty);
  CHECK(empty["http2_sockets"] == json::array());
  CHECK(!empty.contains("groups"));
}

// What Chrome's netlog viewer reads: polledData.spdySessionInfo (its HTTP/2 tab; the fields
// its table shows) and spdyStatus, and HTTP2_SESSION sources whose first event, the
// HTTP2_SESSION BEGIN, names the host (the Events list's description).
TEST_CASE("http2 view: the NetLog export has the sessions in Chrome's shape",
          "[internals][http2]") {
  H2RouterEnv t;
  t.AddHost("a.test");
  t.Start("https://a.test/x");
  t.RunUntilDone();
  Answer exported = t.Call(RouterTestEnv::MakeRequest("GET", "/api/netlog", {}));
  REQUIRE(exported.status() == 200);
  json log = exported.json();
  REQUIRE(log.is_object());
  const json& polled = log["polledData"];
  REQUIRE(polled["spdySessionInfo"].is_array());
  REQUIRE(polled["spdySessionInfo"].size() == 1);
  const json& s = polled["spdySessionInfo"][0];
  for (const char* field :
       {"host_port_pair", "aliases", "source_id", "negotiated_protocol", "is_secure", "error",
        "active_streams", "max_concurrent_streams", "streams_initiated_count", "frames_received",
        "send_window_size", "recv_window_size"}) {
    INFO(field);
    CHECK(s.contains(field));
  }
  CHECK(s["aliases"].is_array());
  CHECK(s["error"].is_number_integer());
  CHECK(polled["spdyStatus"]["enable_http2"] == true);

  const json& source_types = log["constants"]["logSourceType"];
  const json& event_types = log["constants"]["logEventTypes"];
  REQUIRE(source_types.contains("HTTP2_SESSION"));
  REQUIRE(event_types.contains("HTTP2_SESSION"));
  const int session_type = source_types["HTTP2_SESSION"];
  const json* begin = nullptr;
  std::set<std::string> names;
  for (const json& e : log["events"]) {
    if (e["source"]["type"] != session_type || e["source"]["id"] != s["source_id"]) continue;
    if (!begin) begin = &e;
    for (const auto& [name, id] : event_types.items()) {
      if (id == e["type"]) names.insert(name);
    }
  }
  REQUIRE(begin);
  CHECK((*begin)["type"] == event_types["HTTP2_SESSION"]);
  CHECK((*begin)["params"].contains("host"));
  CHECK(names.count("HTTP2_SESSION_SEND_SETTINGS") == 1);
  CHECK(names.count("HTTP2_SESSION_RECV_SETTINGS") == 1);
  CHECK(names.count("HTTP2_SESSION_SEND_HEADERS") == 1);
  CHECK(names.count("HTTP2_SESSION_RECV_HEADERS") == 1);
}

}  // namespace
}  // namespace netstack::test
