// The plain life of a request: one GET end to end, keep-alive reuse and its limits, content
// decoding, the transaction on its own, and the NetLog a request leaves.
#include <catch2/catch.hpp>
#include <string>

#include "net/http/http_network_transaction.h"
#include "tests/http/compression_test_util.h"
#include "tests/request/request_test_env.h"

namespace netstack::test {
namespace {

double Ms(TimeTicks t) { return ToMilliseconds(t); }

TEST_CASE("a simple GET: bytes written, response delivered, timing and connection", "[request]") {
  RequestTestEnv env;
  env.AddHost("a.test", Milliseconds(10));
  FakeConnection* conn = env.factory->AddSocket(
      {ScriptedRead::Data("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Test: yes\r\n"
                          "Content-Length: 11\r\n\r\nhello",
                          IoMode::kAsync, Milliseconds(30)),
       ScriptedRead::Data(" world", IoMode::kAsync, Milliseconds(5))});
  RecordingDelegate delegate;
  auto request = env.MakeRequest(env.Params("http://a.test/path/x?q=1#frag"), &delegate);
  delegate.Start(request.get());
  CHECK(delegate.events.empty());  // nothing inside Start()
  REQUIRE(env.scheduler.RunUntil([&] { return delegate.completions > 0; }));
  env.scheduler.RunUntilIdle();

  // What went on the wire.
  const std::string& written = conn->script->written();
  INFO(written);
  CHECK(written.rfind("GET /path/x?q=1 HTTP/1.1\r\n", 0) == 0);
  CHECK(written.find("\r\nHost: a.test\r\n") != std::string::npos);
  CHECK(written.find("\r\nAccept-Encoding: gzip, deflate, br\r\n") != std::string::npos);
  CHECK(written.find("frag") == std::string::npos);
  CHECK(written.find("Content-Length") == std::string::npos);  // a GET has no body
  CHECK(written.size() >= 4);
  CHECK(written.substr(written.size() - 4) == "\r\n\r\n");
  CHECK(RequestLines(written).size() == 1);

  // What the delegate heard, in order and once.
  CHECK(delegate.events == std::vector<std::string>{"started", "data", "data", "complete"});
  CHECK(delegate.completions == 1);
  CHECK(delegate.result == OK);
  CHECK(delegate.calls_inside_start == 0);
  CHECK(delegate.calls_after_complete == 0);
  CHECK(delegate.data == "hello world");
  REQUIRE(request->response_headers());
  CHECK(request->response_headers()->response_code() == 200);
  std::string value;
  CHECK(request->response_headers()->GetNormalizedHeader("x-test", &value));
  CHECK(value == "yes");
  CHECK(request->error() == OK);
  CHECK(request->error_message().empty());
  CHECK(request->decoded_body_bytes() == 11);
  CHECK(request->encoded_body_bytes() == 11);
  CHECK(request->url().spec() == "http://a.test/path/x?q=1");
  CHECK(request->redirect_chain().empty());

  // Timing: DNS 10 ms, connect 20 ms, first byte 30 ms after the send, rest 5 ms later.
  const LoadTimingInfo& t = request->load_timing_info();
  CHECK(Ms(request->start_time()) == 0);
  CHECK(Ms(t.request_start) == 0);
  CHECK(Ms(t.connect_timing.dns_start) == 0);
  CHECK(Ms(t.connect_timing.dns_end) == 10);
  CHECK(Ms(t.connect_timing.connect_start) == 10);
  CHECK(Ms(t.connect_timing.connect_end) == 30);
  CHECK(Ms(t.send_start) == 30);
  CHECK(Ms(t.send_end) == 30);
  CHECK(Ms(t.receive_headers_start) == 60);
  CHECK(Ms(t.receive_headers_end) == 60);
  CHECK(Ms(t.receive_end) == 65);
  CHECK(Ms(request->end_time()) == 65);
  CHECK(t.connect_timing.dns_start <= t.connect_timing.dns_end);
  CHECK(t.connect_timing.dns_end <= t.connect_timing.connect_start);
  CHECK(t.connect_timing.connect_end <= t.send_start);
  CHECK(t.send_end <= t.receive_headers_start);
  CHECK(t.receive_headers_end <= t.receive_end);
  CHECK_FALSE(t.socket_reused);

  // The connection.
  const ConnectionInfo& c = request->connection_info();
  CHECK(c.socket_id != 0);
  CHECK(c.socket_id == conn->net_log_id);
  CHECK(t.socket_log_id == conn->net_log_id);
  CHECK_FALSE(c.reused());
  CHECK(c.peer_address == "192.0.2.1:80");
  CHECK(conn->endpoint.ToString() == "192.0.2.1:80");
  CHECK_FALSE(c.dns_from_cache);
  CHECK(env.factory->transport_sockets_created() == 1);
  CHECK(env.factory->unscripted_sockets() == 0);
  // The socket went back to the pool, idle and alive.
  CHECK(env.context->socket_pool()->IdleSocketCount() == 1);
  CHECK_FALSE(conn->destroyed);
}

TEST_CASE("keep-alive: a second request to the origin reuses the socket", "[request][reuse]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  FakeConnection* conn = env.factory->AddSocket(
      {ScriptedRead::Data(Response("200 OK", "first"), IoMode::kAsync, Milliseconds(5)),
       ScriptedRead::Data(Response("200 OK", "second"), IoMode::kAsync, Milliseconds(5))});

  RecordingDelegate d1, d2;
  auto r1 = env.Fetch(env.Params("http://a.test/one"), &d1);
  CHECK(d1.result == OK);
  CHECK(d1.data == "first");
  size_t lookups = env.dns->CallCount("a.test");
  CHECK(lookups >= 1);

  auto r2 = env.Fetch(env.Params("http://a.test/two"), &d2);
  CHECK(d2.result == OK);
  CHECK(d2.data == "second");
  CHECK(d2.completions == 1);

  CHECK(env.factory->transport_sockets_created() == 1);
  CHECK(env.dns->CallCount("a.test") == lookups);  // no second lookup
  CHECK_FALSE(r1->connection_info().reused());
  CHECK(r2->connection_info().reused());
  CHECK(r2->connection_info().socket_id == r1->connection_info().socket_id);
  CHECK(r2->load_timing_info().socket_reused);
  // A reused socket has no connect timing (Chrome's rule).
  CHECK(r2->load_timing_info().connect_timing.connect_start == TimeTicks{});
  CHECK(RequestLines(conn->script->written()) ==
        std::vector<std::string>{"GET /one HTTP/1.1", "GET /two HTTP/1.1"});
}

TEST_CASE("responses that end the connection are not reused", "[request][reuse]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  std::string first;
  SECTION("Connection: close") {
    first = Response("200 OK", "first", "Connection: close\r\n");
    env.factory->AddSocket({ScriptedRead::Data(first, IoMode::kAsync)});
  }
  SECTION("close-delimited body") {
    first = "HTTP/1.1 200 OK\r\n\r\nfirst";
    env.factory->AddSocket({ScriptedRead::Data(first, IoMode::kAsync), ScriptedRead::Eof()});
  }
  SECTION("HTTP/1.0 without keep-alive") {
    first = "HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nfirst";
    env.factory->AddSocket({ScriptedRead::Data(first, IoMode::kAsync)});
  }
  env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "second"), IoMode::kAsync)});

  RecordingDelegate d1, d2;
  auto r1 = env.Fetch(env.Params("http://a.test/one"), &d1);
  CHECK(d1.result == OK);
  CHECK(d1.data == "first");
  CHECK(env.context->socket_pool()->IdleSocketCount() == 0);
  CHECK(env.factory->connection(0).destroyed);

  auto r2 = env.Fetch(env.Params("http://a.test/two"), &d2);
  CHECK(d2.result == OK);
  CHECK(d2.data == "second");
  CHECK(env.factory->transport_sockets_created() == 2);
  CHECK(env.factory->unscripted_sockets() == 0);
  CHECK_FALSE(r2->connection_info().reused());
  CHECK(r2->connection_info().socket_id != r1->connection_info().socket_id);
}

TEST_CASE("gzip content reaches the delegate decoded", "[request][decoding]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  std::string plain;
  for (int i = 0; i < 2000; ++i) plain += "line " + std::to_string(i) + " of the body\n";
  std::string gz = Gzip(plain);
  REQUIRE(gz.size() < plain.size());
  // Sent in three pieces so the decoder works across reads.
  std::string wire =
      "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " + std::to_string(gz.size()) +
      "\r\n\r\n" + gz;
  size_t third = wire.size() / 3;
  env.factory->AddSocket(
      {ScriptedRead::Data(wire.substr(0, third), IoMode::kAsync),
       ScriptedRead::Data(wire.substr(third, third), IoMode::kAsync, Milliseconds(1)),
       ScriptedRead::Data(wire.substr(2 * third), IoMode::kAsync, Milliseconds(1))});
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/gz"), &d);
  CHECK(d.result == OK);
  CHECK(d.data.size() == plain.size());
  CHECK(d.data == plain);
  CHECK(r->decoded_body_bytes() == static_cast<int64_t>(plain.size()));
  CHECK(r->encoded_body_bytes() == static_cast<int64_t>(gz.size()));
  // Decoded, framed and complete: the socket stays reusable.
  CHECK(env.context->socket_pool()->IdleSocketCount() == 1);
}

TEST_CASE("a chunked body is delivered without its framing", "[request]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  env.factory->AddSocket(
      {ScriptedRead::Data("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
                          IoMode::kAsync),
       ScriptedRead::Data("6\r\n world\r\n0\r\n\r\n", IoMode::kAsync, Milliseconds(3))});
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/"), &d);
  CHECK(d.result == OK);
  CHECK(d.data == "hello world");
  CHECK(env.context->socket_pool()->IdleSocketCount() == 1);
}

TEST_CASE("HttpNetworkTransaction on its own: Start, Read to the end, socket back idle",
          "[request][transaction]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  FakeConnection* conn = env.factory->AddSocket(
      {ScriptedRead::Data(Response("200 OK", "payload"), IoMode::kAsync, Milliseconds(2))});
  NetLogWithSource log = NetLogWithSource::Make(&env.net_log, NetLogSourceType::URL_REQUEST);
  HttpNetworkTransaction transaction(env.context.get(), MEDIUM, log);
  HttpRequestInfo info;
  std::string message;
  REQUIRE(Url::Parse("http://a.test/t", &info.url, &message) == OK);
  info.extra_headers.SetHeader("X-Extra", "1");

  int start_result = ERR_IO_PENDING;
  int callbacks = 0;
  int rv = transaction.Start(info, [&](int r) {
    start_result = r;
    ++callbacks;
  });
  REQUIRE(rv == ERR_IO_PENDING);
  CHECK(callbacks == 0);
  REQUIRE(env.scheduler.RunUntil([&] { return callbacks > 0; }));
  CHECK(callbacks == 1);
  REQUIRE(start_result == OK);
  REQUIRE(transaction.response_headers());
  CHECK(transaction.response_headers()->response_code() == 200);
  CHECK(conn->script->written().find("\r\nX-Extra: 1\r\n") != std::string::npos);

  std::string body;
  char buf[3];
  for (int i = 0; i < 100; ++i) {
    int n = transaction.Read(buf, sizeof(buf), [](int) { FAIL("no async read expected"); });
    REQUIRE(n >= 0);
    if (n == 0) break;
    body.append(buf, static_cast<size_t>(n));
  }
  CHECK(body == "payload");
  CHECK(transaction.encoded_body_bytes() == 7);
  CHECK(env.context->socket_pool()->IdleSocketCount() == 1);
  LoadTimingInfo t = transaction.GetLoadTimingInfo();
  CHECK(t.receive_end != TimeTicks{});
  CHECK(env.recorder.Count(NetLogEventType::HTTP_STREAM_SOCKET_RELEASED, log.source().id) == 1);
  auto released = env.recorder.Get(NetLogEventType::HTTP_STREAM_SOCKET_RELEASED);
  REQUIRE(released.size() == 1);
  CHECK(released[0].params["reusable"] == true);
}

TEST_CASE("NetLog: a request's events carry its source id", "[request][netlog]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  env.factory->AddSocket({ScriptedRead::Data(Redirect(302, "/next"), IoMode::kAsync),
                          ScriptedRead::Data(Response("200 OK", "done"), IoMode::kAsync)});
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/start"), &d);
  REQUIRE(d.result == OK);
  const uint32_t id = r->net_log().source().id;
  REQUIRE(id != 0);
  CHECK(r->net_log().source().type == NetLogSourceType::URL_REQUEST);
  const NetLogRecorder& log = env.recorder;

  CHECK(log.Count(NetLogEventType::REQUEST_ALIVE, NetLogEventPhase::BEGIN, id) == 1);
  CHECK(log.Count(NetLogEventType::REQUEST_ALIVE, NetLogEventPhase::END, id) == 1);
  auto alive = log.Get(NetLogEventType::REQUEST_ALIVE, id);
  REQUIRE(alive.size() == 2);
  CHECK(alive[0].params["url"] == "http://a.test/start");
  CHECK(alive[0].params["method"] == "GET");
  CHECK(alive[1].params.is_null());  // ended with OK: no net_error

  // One job per hop.
  CHECK(log.Count(NetLogEventType::URL_REQUEST_START_JOB, NetLogEventPhase::BEGIN, id) == 2);
  CHECK(log.Count(NetLogEventType::URL_REQUEST_START_JOB, NetLogEventPhase::END, id) == 2);
  auto redirected = log.Get(NetLogEventType::URL_REQUEST_REDIRECTED, id);
  REQUIRE(redirected.size() == 1);
  CHECK(redirected[0].params["location"] == "http://a.test/next");
  CHECK(redirected[0].params["status"] == 302);

  for (NetLogEventType type : {NetLogEventType::HTTP_TRANSACTION_SEND_REQUEST,
                               NetLogEventType::HTTP_TRANSACTION_READ_HEADERS,
                               NetLogEventType::HTTP_TRANSACTION_READ_BODY}) {
    INFO(NetLogEventTypeToString(type));
    CHECK(log.Count(type, NetLogEventPhase::BEGIN, id) == 2);
    CHECK(log.Count(type, NetLogEventPhase::END, id) == 2);
  }
  CHECK(log.Count(NetLogEventType::HTTP_TRANSACTION_SEND_REQUEST_HEADERS, id) == 2);
  CHECK(log.Count(NetLogEventType::HTTP_TRANSACTION_READ_RESPONSE_HEADERS, id) == 2);
  CHECK(log.Count(NetLogEventType::SOCKET_POOL, id) >= 2);
  // Nothing of the request went under another source.
  for (NetLogEventType type :
       {NetLogEventType::REQUEST_ALIVE, NetLogEventType::URL_REQUEST_START_JOB,
        NetLogEventType::HTTP_TRANSACTION_SEND_REQUEST}) {
    CHECK(log.Count(type) == log.Count(type, id));
  }
  // REQUEST_ALIVE brackets everything else of the request.
  const auto& entries = log.entries();
  size_t first = entries.size(), last = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].source.id != id) continue;
    first = std::min(first, i);
    last = i;
  }
  REQUIRE(first < entries.size());
  CHECK(entries[first].type == NetLogEventType::REQUEST_ALIVE);
  CHECK(entries[first].phase == NetLogEventPhase::BEGIN);
  CHECK(entries[last].type == NetLogEventType::REQUEST_ALIVE);
  CHECK(entries[last].phase == NetLogEventPhase::END);
}

}  // namespace
}  // namespace netstack::test
