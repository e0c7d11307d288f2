// Http2Connection against nghttp2's server session in memory (H2TestServer): Chrome's SETTINGS
// and session window, the request's pseudo-headers and dropped connection headers, a response
// with its body, queueing above the server's stream limit by priority, weights, GOAWAY and
// REFUSED_STREAM (retriable), receive windows that reopen only as the owner consumes, the
// header-list bound, a PUSH_PROMISE despite ENABLE_PUSH 0, cancellation, a closed transport and
// destruction.
#include "net/http2/http2_connection.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "net/base/net_error.h"
#include "tests/http2/h2_test_server.h"

namespace netstack {
namespace {

// The stream id the server saw for the n-th request it received (1, 3, 5...).
int32_t StreamOf(int n) { return 2 * n - 1; }

TEST_CASE("http2: Chrome's SETTINGS and a 15 MiB session window", "[http2]") {
  Http2Connection client;
  REQUIRE(client.ok());
  H2TestServer server;
  server.Pump(client);
  nghttp2_session* s = server.session();
  CHECK(nghttp2_session_get_remote_settings(s, NGHTTP2_SETTINGS_HEADER_TABLE_SIZE) == 65536);
  CHECK(nghttp2_session_get_remote_settings(s, NGHTTP2_SETTINGS_ENABLE_PUSH) == 0);
  CHECK(nghttp2_session_get_remote_settings(s, NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE) == 6291456);
  CHECK(nghttp2_session_get_remote_settings(s, NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE) == 262144);
  CHECK(nghttp2_session_get_remote_window_size(s) == 15 * 1024 * 1024);
  CHECK(client.stats().frames_received >= 1);  // the server's SETTINGS
  CHECK(client.IsIdle());
  CHECK(client.IsAvailable());
}

TEST_CASE("http2: a GET and its response", "[http2]") {
  Recorder r;
  Http2Connection client;
  H2TestServer server;
  Http2RequestHead head = Get("/x?y=1");
  head.headers = {{"Accept", "*/*"},
                  {"Connection", "keep-alive"},
                  {"Host", "a.test"},
                  {"User-Agent", "netstack"}};
  const int id = client.Submit(head, HIGHEST, &r);
  REQUIRE(id > 0);
  server.Pump(client);
  REQUIRE(server.requests().count(1) == 1);
  const auto& sent = server.requests()[1].headers;
  REQUIRE(sent.size() == 6);  // Connection and Host dropped
  CHECK(sent[0] == std::make_pair(std::string(":method"), std::string("GET")));
  CHECK(sent[1] == std::make_pair(std::string(":authority"), std::string("a.test")));
  CHECK(sent[2] == std::make_pair(std::string(":scheme"), std::string("https")));
  CHECK(sent[3] == std::make_pair(std::string(":path"), std::string("/x?y=1")));
  CHECK(sent[4] == std::make_pair(std::string("accept"), std::string("*/*")));
  CHECK(sent[5].first == "user-agent");
  CHECK(server.requests()[1].ended);

  server.Respond(1, 200, {{"content-type", "text/plain"}}, "hello");
  CHECK(server.Pump(client) == OK);
  CHECK(r.closed);
  CHECK(r.error == OK);
  CHECK(r.status == 200);
  REQUIRE(r.headers.size() == 1);
  CHECK(r.headers[0].first == "content-type");
  CHECK(r.body == "hello");
  CHECK(client.IsIdle());
  CHECK(client.stats().streams_started == 1);
  CHECK(client.stats().streams_queued == 0);  // it never waited
}

TEST_CASE("http2: a POST sends its body", "[http2]") {
  Recorder r;
  Http2Connection client;
  H2TestServer server;
  Http2RequestHead head = Get("/form");
  head.method = "POST";
  head.body = std::string(100000, 'b');  // more than one DATA frame
  client.Submit(head, MEDIUM, &r);
  server.Pump(client);
  CHECK(server.requests()[1].body == head.body);
  CHECK(server.requests()[1].ended);
  server.Respond(1, 204);
  server.Pump(client);
  CHECK(r.error == OK);
  CHECK(r.status == 204);
}

TEST_CASE("http2: above the server's stream limit requests wait, highest priority first",
          "[http2]") {
  Recorder low, highest, medium, highest2;
  Http2Connection client;
  H2TestServer server({{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 1}});
  server.Pump(client);
  CHECK(client.stats().max_concurrent_streams == 1);
  std::vector<std::string> order;
  for (auto [rec, name] : {std::pair{&low, "low"}, std::pair{&highest, "highest"},
                           std::pair{&medium, "medium"}, std::pair{&highest2, "highest2"}}) {
    rec->order = &order;
    rec->name = name;
  }
  client.Submit(Get("/low"), LOW, &low);  // starts: nothing open
  client.Submit(Get("/medium"), MEDIUM, &medium);
  client.Submit(Get("/highest"), HIGHEST, &highest);
  client.Submit(Get("/highest2"), HIGHEST, &highest2);
  server.Pump(client);
  CHECK(client.active_streams() == 1);
  CHECK(client.queued_requests() == 3);
  CHECK(client.stats().streams_queued == 3);
  // Each answer frees the slot for the next: HIGHEST in submission order, then MEDIUM.
  std::vector<std::string> paths;
  for (int n = 1; n <= 4; ++n) {
    const int32_t sid = StreamOf(n);
    REQUIRE(server.requests().count(sid) == 1);
    paths.push_back(server.Header(sid, ":path"));
    server.Respond(sid, 200);
    server.Pump(client);
  }
  CHECK(paths == std::vector<std::string>{"/low", "/highest", "/highest2", "/medium"});
  CHECK(order == std::vector<std::string>{"low", "highest", "highest2", "medium"});
  CHECK(client.IsIdle());
}

TEST_CASE("http2: priorities are stream weights, HIGHEST 256 down to THROTTLED", "[http2]") {
  CHECK(Http2Connection::WeightForPriority(HIGHEST) == 256);
  CHECK(Http2Connection::WeightForPriority(MEDIUM) == 220);
  CHECK(Http2Connection::WeightForPriority(LOW) == 183);
  CHECK(Http2Connection::WeightForPriority(LOWEST) == 147);
  CHECK(Http2Connection::WeightForPriority(IDLE) == 110);
  CHECK(Http2Connection::WeightForPriority(THROTTLED) == 74);
  Recorder r;
  Http2Connection client;
  H2TestServer server;
  client.Submit(Get("/"), LOW, &r);
  server.Pump(client);
  nghttp2_stream* stream = nghttp2_session_find_stream(server.session(), 1);
  REQUIRE(stream != nullptr);
  CHECK(nghttp2_stream_get_weight(stream) == 183);
}

TEST_CASE("http2: GOAWAY: streams above its last id are retriable, nothing new starts", "[http2]") {
  Recorder a, b, c, late;
  Http2Connection client;
  H2TestServer server;
  client.Submit(Get("/a"), MEDIUM, &a);
  client.Submit(Get("/b"), MEDIUM, &b);
  client.Submit(Get("/c"), MEDIUM, &c);
  server.Pump(client);
  server.Goaway(/*last_stream_id=*/1);
  server.Respond(1, 200, {}, "a");
  server.Pump(client);
  CHECK(a.error == OK);
  CHECK(a.body == "a");
  CHECK(b.closed);
  CHECK(b.retriable);
  CHECK(b.error == ERR_HTTP2_SERVER_REFUSED_STREAM);
  CHECK(c.retriable);
  CHECK(client.stats().last_goaway_stream_id == 1);
  CHECK_FALSE(client.IsAvailable());
  CHECK(client.Submit(Get("/late"), MEDIUM, &late) == ERR_CONNECTION_CLOSED);
  CHECK_FALSE(late.closed);
}

TEST_CASE("http2: GOAWAY fails the requests still queued here as retriable", "[http2]") {
  Recorder a, queued;
  Http2Connection client;
  H2TestServer server({{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 1}});
  server.Pump(client);
  client.Submit(Get("/a"), MEDIUM, &a);
  client.Submit(Get("/queued"), MEDIUM, &queued);
  server.Pump(client);
  server.Goaway(1);
  server.Pump(client);
  CHECK(queued.closed);
  CHECK(queued.retriable);
  CHECK_FALSE(a.closed);  // still allowed to finish
  server.Respond(1, 200);
  server.Pump(client);
  CHECK(a.error == OK);
}

TEST_CASE("http2: REFUSED_STREAM is retriable, another reset is an error", "[http2]") {
  Recorder refused, reset;
  Http2Connection client;
  H2TestServer server;
  client.Submit(Get("/refused"), MEDIUM, &refused);
  client.Submit(Get("/reset"), MEDIUM, &reset);
  server.Pump(client);
  server.Reset(1, NGHTTP2_REFUSED_STREAM);
  server.Reset(3, NGHTTP2_INTERNAL_ERROR);
  server.Pump(client);
  CHECK(refused.error == ERR_HTTP2_SERVER_REFUSED_STREAM);
  CHECK(refused.retriable);
  CHECK(reset.error == ERR_HTTP2_PROTOCOL_ERROR);
  CHECK_FALSE(reset.retriable);
  CHECK(client.IsAvailable());  // a stream error, not a connection error
}

TEST_CASE("http2: a stream's window reopens only as its owner consumes", "[http2]") {
  Recorder r;
  Http2Connection client;
  H2TestServer server;
  const int id = client.Submit(Get("/big"), MEDIUM, &r);
  server.Pump(client);
  const std::string body(7 * 1024 * 1024, 'x');  // more than the 6 MiB stream window
  server.Respond(1, 200, {}, body);
  server.Pump(client);
  CHECK(r.body.size() == 6 * 1024 * 1024);  // the window, no more
  CHECK_FALSE(r.closed);
  client.ConsumeData(id, r.body.size());
  server.Pump(client);
  CHECK(r.closed);
  CHECK(r.error == OK);
  CHECK(r.body.size() == body.size());
}

TEST_CASE("http2: a header list decoding to over 256 KiB fails its stream only", "[http2]") {
  Recorder big, next;
  Http2Connection client;
  H2TestServer server;
  client.Submit(Get("/big-head"), MEDIUM, &big);
  server.Pump(client);
  std::vector<std::pair<std::string, std::string>> headers;
  // 150 copies of one 2 KB field: after the first, HPACK sends each as a one-byte index, so the
  // block stays small (under nghttp2's CONTINUATION flood limit) while the list decodes to 300 KB.
  for (int i = 0; i < 150; ++i) headers.emplace_back("x-big", std::string(2000, 'v'));
  server.Respond(1, 200, headers, "body");
  server.Pump(client);
  CHECK(big.closed);
  CHECK(big.error == ERR_RESPONSE_HEADERS_TOO_BIG);
  CHECK(big.status == 0);
  CHECK(client.IsAvailable());
  client.Submit(Get("/next"), MEDIUM, &next);
  server.Pump(client);
  server.Respond(3, 200, {}, "ok");
  server.Pump(client);
  CHECK(next.error == OK);
  CHECK(next.body == "ok");
}

TEST_CASE("http2: a header block split over too many CONTINUATION frames fails the connection",
          "[http2]") {
  Recorder r, after;
  Http2Connection client;
  H2TestServer server;
  client.Submit(Get("/"), MEDIUM, &r);
  server.Pump(client);
  // 30 distinct 10 KB fields: 300 KB that HPACK cannot shrink, in ~19 CONTINUATION frames of
  // 16 KB, more than nghttp2's flood protection accepts.
  std::vector<std::pair<std::string, std::string>> headers;
  for (int i = 0; i < 30; ++i)
    headers.emplace_back("x-h" + std::to_string(i), std::string(10000, 'v'));
  server.Respond(1, 200, headers, "body");
  CHECK(server.Pump(client) == ERR_HTTP2_PROTOCOL_ERROR);
  CHECK(r.closed);
  CHECK(r.error == ERR_HTTP2_PROTOCOL_ERROR);
  CHECK(client.Submit(Get("/after"), MEDIUM, &after) == ERR_CONNECTION_CLOSED);
}

TEST_CASE("http2: a PUSH_PROMISE despite ENABLE_PUSH 0 fails the connection", "[http2]") {
  Recorder r;
  Http2Connection client;
  H2TestServer server;
  client.Submit(Get("/"), MEDIUM, &r);
  server.Pump(client);  // SETTINGS exchanged and acknowledged
  // PUSH_PROMISE on stream 1 promising stream 2, END_HEADERS, one indexed field (:method GET).
  const char frame[] = {0, 0, 5, 0x5, 0x4, 0, 0, 0, 1, 0, 0, 0, 2, static_cast<char>(0x82)};
  server.InjectRaw(std::string(frame, sizeof(frame)));
  const int rv = server.Pump(client);
  CHECK(rv == ERR_HTTP2_PROTOCOL_ERROR);
  CHECK(r.closed);
  CHECK(r.error == ERR_HTTP2_PROTOCOL_ERROR);
  CHECK_FALSE(client.IsAvailable());
  CHECK(client.error() == ERR_HTTP2_PROTOCOL_ERROR);
}

TEST_CASE("http2: a cancelled request is reset and its delegate not called again", "[http2]") {
  Recorder open, queued;
  Http2Connection client;
  H2TestServer server({{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 1}});
  server.Pump(client);
  const int open_id = client.Submit(Get("/open"), MEDIUM, &open);
  const int queued_id = client.Submit(Get("/queued"), MEDIUM, &queued);
  server.Pump(client);
  client.CancelRequest(queued_id);
  client.CancelRequest(open_id);
  server.Pump(client);
  CHECK(server.requests()[1].closed_with == NGHTTP2_CANCEL);
  CHECK(server.requests().count(3) == 0);  // the queued one never went out
  server.Respond(1, 200, {}, "late");
  server.Pump(client);
  CHECK_FALSE(open.closed);
  CHECK_FALSE(queued.closed);
  CHECK(client.IsIdle());
}

TEST_CASE("http2: a closed transport fails open streams, queued ones may go elsewhere", "[http2]") {
  Recorder open, queued;
  Http2Connection client;
  H2TestServer server({{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 1}});
  server.Pump(client);
  client.Submit(Get("/open"), MEDIUM, &open);
  client.Submit(Get("/queued"), MEDIUM, &queued);
  server.Pump(client);
  client.OnTransportClosed(ERR_CONNECTION_RESET);
  CHECK(open.error == ERR_CONNECTION_RESET);
  CHECK_FALSE(open.retriable);
  CHECK(queued.error == ERR_CONNECTION_RESET);
  CHECK(queued.retriable);
  CHECK_FALSE(client.IsAvailable());
}

TEST_CASE("http2: destroying the connection aborts what is left", "[http2]") {
  Recorder r;
  {
    Http2Connection client;
    H2TestServer server;
    client.Submit(Get("/"), MEDIUM, &r);
    server.Pump(client);
  }
  CHECK(r.closed);
  CHECK(r.error == ERR_ABORTED);
}

}  // namespace
}  // namespace netstack
