#include "net/http/http_basic_stream.h"

#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "net/base/net_error.h"
#include "net/base/virtual_scheduler.h"
#include "tests/http/compression_test_util.h"
#include "tests/http/http_basic_stream_test_util.h"
#include "tests/support/scripted_stream_socket.h"

using namespace netstack;
using namespace netstack::test;
using namespace std::chrono_literals;

TEST_CASE("basic stream: a synchronous exchange") {
  VirtualScheduler s;
  ScriptedStreamSocket socket(
      s, {ScriptedRead::Data("HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nhello world!")});
  HttpBasicStream stream(&socket, s, NetLogWithSource());
  CHECK(SendAll(s, stream, Get()) == OK);
  CHECK(socket.written() == kGetWire);
  CHECK(stream.bytes_sent() == static_cast<int64_t>(kGetWire.size()));
  CHECK(ReadHeaders(s, stream) == OK);
  REQUIRE(stream.response_headers());
  CHECK(stream.response_headers()->response_code() == 200);
  std::string body;
  CHECK(ReadBody(s, stream, &body) == 0);
  CHECK(body == "hello world!");
  CHECK(stream.IsResponseBodyComplete());
  CHECK(stream.CanReuseConnection());
  char c;
  CHECK(stream.ReadResponseBody(&c, 1, [](int) { FAIL("no callback"); }) == 0);
}

TEST_CASE("basic stream: partial and asynchronous writes") {
  VirtualScheduler s;
  ScriptedStreamSocket socket(
      s, {ScriptedRead::Data("HTTP/1.1 204 No Content\r\n\r\n")},
      {ScriptedWrite::Accept(5), ScriptedWrite::Accept(3, IoMode::kAsync, 10ms),
       ScriptedWrite::Accept(1), ScriptedWrite::Accept(ScriptedWrite::kAll, IoMode::kAsync)});
  HttpBasicStream stream(&socket, s, NetLogWithSource());
  Result r;
  REQUIRE(stream.SendRequest(Get(), r.Callback()) == ERR_IO_PENDING);
  CHECK(socket.written() == kGetWire.substr(0, 8));  // 5 now, 3 taken by the async step
  s.AdvanceBy(10ms);
  s.RunUntilIdle();
  REQUIRE(r.calls == 1);
  CHECK(*r.value == OK);
  CHECK(socket.written() == kGetWire);
  CHECK(socket.write_calls() == 4);

  LoadTimingInfo timing;
  stream.GetLoadTimingInfo(&timing);
  CHECK(timing.send_start == TimeTicks{});
  CHECK(timing.send_end == TimeTicks(10ms));
  CHECK(ReadHeaders(s, stream) == OK);
  CHECK(stream.CanReuseConnection());  // 204: complete without a body read
}

TEST_CASE("basic stream: write errors") {
  VirtualScheduler s;
  ScriptedStreamSocket socket(
      s, {},
      {ScriptedWrite::Accept(4), ScriptedWrite::Error(ERR_CONNECTION_RESET, IoMode::kAsync)});
  HttpBasicStream stream(&socket, s, NetLogWithSource());
  CHECK(SendAll(s, stream, Get()) == ERR_CONNECTION_RESET);
  CHECK_FALSE(stream.CanReuseConnection());
  Result r;
  CHECK(stream.ReadResponseHeaders(r.Callback()) == ERR_CONNECTION_RESET);

  HttpBasicStream bad(&socket, s, NetLogWithSource());
  HttpRequestMessage req = Get();
  req.target = "/a b";
  CHECK(bad.SendRequest(req, r.Callback()) == ERR_INVALID_ARGUMENT);
}

TEST_CASE("basic stream: asynchronous reads and timing points on virtual time") {
  VirtualScheduler s;
  ScriptedStreamSocket socket(
      s, {ScriptedRead::Data("HTTP/1.1 200 OK\r\n", IoMode::kAsync, 30ms),
          ScriptedRead::Data("Transfer-Encoding: chunked\r\n\r\n5\r\nhel", IoMode::kAsync, 5ms),
          ScriptedRead::Data("lo\r\n", IoMode::kAsync, 7ms),
          ScriptedRead::Data("0\r\n\r\n", IoMode::kAsync, 100ms)});
  HttpBasicStream stream(&socket, s, NetLogWithSource());
  s.AdvanceBy(2ms);
  CHECK(SendAll(s, stream, Get()) == OK);
  CHECK(ReadHeaders(s, stream) == OK);
  std::string body;
  CHECK(ReadBody(s, stream, &body, 3) == 0);
  CHECK(body == "hello");
  CHECK(stream.CanReuseConnection());
  LoadTimingInfo t;
  stream.GetLoadTimingInfo(&t);
  CHECK(t.send_start == TimeTicks(2ms));
  CHECK(t.send_end == TimeTicks(2ms));
  CHECK(t.receive_headers_start == TimeTicks(32ms));
  CHECK(t.receive_headers_end == TimeTicks(37ms));
  CHECK(t.receive_end == TimeTicks(144ms));
}

TEST_CASE("basic stream: idle timeout on virtual time") {
  VirtualScheduler s;
  SECTION("no byte at all") {
    ScriptedStreamSocket socket(s, {ScriptedRead::Hang()});
    HttpBasicStream::Params params;
    params.idle_timeout = 30s;
    HttpBasicStream stream(&socket, s, NetLogWithSource(), params);
    CHECK(SendAll(s, stream, Get()) == OK);
    Result r;
    REQUIRE(stream.ReadResponseHeaders(r.Callback()) == ERR_IO_PENDING);
    s.AdvanceBy(29s);
    CHECK(r.calls == 0);
    s.AdvanceBy(1s);
    REQUIRE(r.calls == 1);
    CHECK(*r.value == ERR_TIMED_OUT);
    CHECK(stream.error_message() == "the server sent nothing for 30 s");
    CHECK(socket.disconnect_calls() == 1);
    CHECK_FALSE(stream.CanReuseConnection());
    s.RunAll();
    CHECK(r.calls == 1);
  }
  SECTION("each byte restarts the wait; a stall mid-body times out") {
    ScriptedStreamSocket socket(
        s, {ScriptedRead::Data("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n", IoMode::kAsync, 50s),
            ScriptedRead::Data("ab", IoMode::kAsync, 59s), ScriptedRead::Hang()});
    HttpBasicStream stream(&socket, s, NetLogWithSource());  // default: 60 s
    CHECK(SendAll(s, stream, Get()) == OK);
    CHECK(ReadHeaders(s, stream) == OK);
    std::string body;
    CHECK(ReadBody(s, stream, &body) == ERR_TIMED_OUT);
    CHECK(body == "ab");
    CHECK(s.Now() == TimeTicks(50s + 59s + 60s));
  }
  SECTION("a peer that does not read the request") {
    ScriptedStreamSocket socket(s, {}, {ScriptedWrite::Accept(10), ScriptedWrite::Hang()});
    HttpBasicStream stream(&socket, s, NetLogWithSource());
    CHECK(SendAll(s, stream, Get()) == ERR_TIMED_OUT);
    CHECK(s.Now() == TimeTicks(60s));
    CHECK_THAT(stream.error_message(), Catch::Contains("accepted no request bytes"));
  }
}

TEST_CASE("basic stream: end-of-stream errors") {
  VirtualScheduler s;
  SECTION("nothing received") {
    ScriptedStreamSocket socket(s, {ScriptedRead::Eof(IoMode::kAsync)});
    HttpBasicStream stream(&socket, s, NetLogWithSource());
    CHECK(SendAll(s, stream, Get()) == OK);
    CHECK(ReadHeaders(s, stream) == ERR_EMPTY_RESPONSE);
  }
  SECTION("body cut short") {
    ScriptedStreamSocket socket(
        s, {ScriptedRead::Data("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"),
            ScriptedRead::Eof(IoMode::kAsync)});
    HttpBasicStream stream(&socket, s, NetLogWithSource());
    CHECK(SendAll(s, stream, Get()) == OK);
    CHECK(ReadHeaders(s, stream) == OK);
    std::string body;
    CHECK(ReadBody(s, stream, &body) == ERR_CONTENT_LENGTH_MISMATCH);
    CHECK(body == "abc");
    CHECK_THAT(stream.error_message(), Catch::Contains("3 of 10"));
  }
  SECTION("reset mid-body") {
    ScriptedStreamSocket socket(
        s, {ScriptedRead::Data("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab"),
            ScriptedRead::Error(ERR_CONNECTION_RESET, IoMode::kAsync)});
    HttpBasicStream stream(&socket, s, NetLogWithSource());
    CHECK(SendAll(s, stream, Get()) == OK);
    CHECK(ReadHeaders(s, stream) == OK);
    std::string body;
    CHECK(ReadBody(s, stream, &body) == ERR_CONNECTION_RESET);
  }
  SECTION("a close-delimited body ends at EOF, or at ERR_CONNECTION_CLOSED") {
    for (ScriptedRead end : {ScriptedRead::Eof(), ScriptedRead::Error(ERR_CONNECTION_CLOSED)}) {
      ScriptedStreamSocket socket(s, {ScriptedRead::Data("HTTP/1.0 200 OK\r\n\r\nall of it"), end});
      HttpBasicStream stream(&socket, s, NetLogWithSource());
      CHECK(SendAll(s, stream, Get()) == OK);
      CHECK(ReadHeaders(s, stream) == OK);
      std::string body;
      CHECK(ReadBody(s, stream, &body) == 0);
      CHECK(body == "all of it");
      CHECK_FALSE(stream.CanReuseConnection());
    }
  }
}

TEST_CASE("basic stream: reuse flag") {
  VirtualScheduler s;
  auto run = [&](const std::string& response, bool read_body, std::string method = "GET") {
    ScriptedStreamSocket socket(s, {ScriptedRead::Data(response, IoMode::kAsync)});
    HttpBasicStream stream(&socket, s, NetLogWithSource());
    REQUIRE(SendAll(s, stream, Get(method)) == OK);
    REQUIRE(ReadHeaders(s, stream) == OK);
    std::string body;
    if (read_body) REQUIRE(ReadBody(s, stream, &body) == 0);
    return stream.CanReuseConnection();
  };
  const std::string ok = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc";
  CHECK(run(ok, true));
  CHECK(run(ok + "EXTRA", true) == false);
  CHECK(run("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 3\r\n\r\nabc", true) == false);
  CHECK(run("HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nabc", true) == false);
  // The body is still on the wire: the next response would start inside it.
  CHECK(run("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\nabc", false) == false);
  CHECK(run("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n", true, "HEAD"));
  CHECK(run("HTTP/1.1 100 Continue\r\n\r\n" + ok, true));
}

TEST_CASE("basic stream: content decoding and the body bound") {
  VirtualScheduler s;
  const std::string body = SampleBody(50000);
  const std::string gz = Gzip(body);
  const std::string response =
      "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " + std::to_string(gz.size()) +
      "\r\n\r\n" + gz;
  SECTION("decoded by default") {
    ScriptedStreamSocket socket(s, {ScriptedRead::Data(response, IoMode::kAsync)});
    HttpBasicStream::Params params;
    params.read_buffer_bytes = 1000;
    HttpBasicStream stream(&socket, s, NetLogWithSource(), params);
    CHECK(SendAll(s, stream, Get()) == OK);
    CHECK(ReadHeaders(s, stream) == OK);
    std::string out;
    CHECK(ReadBody(s, stream, &out, 4096) == 0);
    CHECK(out == body);
    CHECK(stream.raw_body_bytes() == static_cast<int64_t>(gz.size()));
    CHECK(stream.body_bytes_read() == static_cast<int64_t>(body.size()));
    CHECK(stream.CanReuseConnection());
  }
  SECTION("raw when decode_content is false") {
    ScriptedStreamSocket socket(s, {ScriptedRead::Data(response)});
    HttpBasicStream::Params params;
    params.decode_content = false;
    HttpBasicStream stream(&socket, s, NetLogWithSource(), params);
    CHECK(SendAll(s, stream, Get()) == OK);
    CHECK(ReadHeaders(s, stream) == OK);
    std::string out;
    CHECK(ReadBody(s, stream, &out, 4096) == 0);
    CHECK(out == gz);
  }
  SECTION("corrupt body") {
    std::string bad = response;
    bad[bad.size() - 100] ^= 0x5a;
    ScriptedStreamSocket socket(s, {ScriptedRead::Data(bad)});
    HttpBasicStream stream(&socket, s, NetLogWithSource());
    CHECK(SendAll(s, stream, Get()) == OK);
    CHECK(ReadHeaders(s, stream) == OK);
    std::string out;
    CHECK(ReadBody(s, stream, &out, 4096) == ERR_CONTENT_DECODING_FAILED);
    CHECK_FALSE(stream.CanReuseConnection());
  }
  SECTION("decoded body over the bound") {
    ScriptedStreamSocket socket(s, {ScriptedRead::Data(response)});
    HttpBasicStream::Params params;
    params.max_body_bytes = 40000;
    HttpBasicStream stream(&socket, s, NetLogWithSource(), params);
    CHECK(SendAll(s, stream, Get()) == OK);
    CHECK(ReadHeaders(s, stream) == OK);
    std::string out;
    CHECK(ReadBody(s, stream, &out, 4096) == ERR_RESPONSE_BODY_TOO_BIG);
    CHECK(out.size() <= 40000);
  }
  SECTION("raw body over the bound") {
    ScriptedStreamSocket socket(
        s, {ScriptedRead::Data("HTTP/1.1 200 OK\r\n\r\n" + std::string(5000, 'x'))});
    HttpBasicStream::Params params;
    params.max_body_bytes = 1000;
    params.decode_content = false;
    HttpBasicStream stream(&socket, s, NetLogWithSource(), params);
    CHECK(SendAll(s, stream, Get()) == OK);
    CHECK(ReadHeaders(s, stream) == OK);
    std::string out;
    CHECK(ReadBody(s, stream, &out, 4096) == ERR_RESPONSE_BODY_TOO_BIG);
  }
}

TEST_CASE("basic stream: a bodiless response is not decoded") {
  VirtualScheduler s;
  ScriptedStreamSocket socket(
      s, {ScriptedRead::Data("HTTP/1.1 200 OK\r\nContent-Encoding: gzip, br, gzip, br, gzip\r\n"
                             "Content-Length: 100\r\n\r\n")});
  HttpBasicStream stream(&socket, s, NetLogWithSource());
  CHECK(SendAll(s, stream, Get("HEAD")) == OK);
  CHECK(socket.written().rfind("HEAD /index.html HTTP/1.1\r\n", 0) == 0);
  CHECK(ReadHeaders(s, stream) == OK);
  std::string body;
  CHECK(ReadBody(s, stream, &body) == 0);
  CHECK(body.empty());
  REQUIRE(stream.content_decoder());
  CHECK(stream.content_decoder()->passes_through());
  CHECK(stream.CanReuseConnection());
}

TEST_CASE("basic stream: header errors surface with their message") {
  VirtualScheduler s;
  ScriptedStreamSocket socket(s, {ScriptedRead::Data("HTTP/1.1 abc OK\r\n\r\n", IoMode::kAsync)});
  HttpBasicStream stream(&socket, s, NetLogWithSource());
  CHECK(SendAll(s, stream, Get()) == OK);
  CHECK(ReadHeaders(s, stream) == ERR_INVALID_HTTP_RESPONSE);
  CHECK_THAT(stream.error_message(), Catch::Contains("invalid HTTP status code"));
  CHECK(stream.response_headers() == nullptr);

  ScriptedStreamSocket big(
      s,
      {ScriptedRead::Data("HTTP/1.1 200 OK\r\nX: " + std::string(300 * 1024, 'a') + "\r\n\r\n")});
  HttpBasicStream big_stream(&big, s, NetLogWithSource());
  CHECK(SendAll(s, big_stream, Get()) == OK);
  CHECK(ReadHeaders(s, big_stream) == ERR_RESPONSE_HEADERS_TOO_BIG);
}

TEST_CASE("basic stream: destruction with I/O pending or from a callback") {
  VirtualScheduler s;
  SECTION("pending read: the socket is disconnected, nothing runs later") {
    ScriptedStreamSocket socket(
        s, {ScriptedRead::Data("HTTP/1.1 200 OK\r\n\r\n", IoMode::kAsync, 5ms)});
    auto stream = std::make_unique<HttpBasicStream>(&socket, s, NetLogWithSource());
    CHECK(SendAll(s, *stream, Get()) == OK);
    Result r;
    REQUIRE(stream->ReadResponseHeaders(r.Callback()) == ERR_IO_PENDING);
    stream.reset();
    CHECK(socket.disconnect_calls() == 1);
    s.RunAll();
    CHECK(r.calls == 0);
  }
  SECTION("the callback deletes the stream") {
    ScriptedStreamSocket socket(
        s, {ScriptedRead::Data("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx", IoMode::kAsync)});
    auto stream = std::make_unique<HttpBasicStream>(&socket, s, NetLogWithSource());
    CHECK(SendAll(s, *stream, Get()) == OK);
    int seen = 1;
    REQUIRE(stream->ReadResponseHeaders([&](int rv) {
      seen = rv;
      stream.reset();
    }) == ERR_IO_PENDING);
    s.RunAll();
    CHECK(seen == OK);
    CHECK(stream == nullptr);
    CHECK(socket.disconnect_calls() == 0);
  }
}

TEST_CASE("basic stream: endless chunk framing fails instead of idling forever") {
  // Each read arrives well within the idle timeout and restarts it, but carries no body byte:
  // one chunk-size line that never ends. The parser's framing bound ends the response.
  VirtualScheduler s;
  std::vector<ScriptedRead> reads = {ScriptedRead::Data(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=", IoMode::kAsync)};
  for (int i = 0; i < 100; ++i) {
    reads.push_back(ScriptedRead::Data(std::string(1024, 'x'), IoMode::kAsync, 30s));
  }
  reads.push_back(ScriptedRead::Hang());
  ScriptedStreamSocket socket(s, reads);
  HttpBasicStream stream(&socket, s, NetLogWithSource());
  CHECK(SendAll(s, stream, Get()) == OK);
  CHECK(ReadHeaders(s, stream) == OK);
  std::string body;
  CHECK(ReadBody(s, stream, &body) == ERR_INVALID_CHUNKED_ENCODING);
  CHECK(body.empty());
  CHECK_THAT(stream.error_message(), Catch::Contains("framing line"));
  CHECK(stream.bytes_received() < 64 + 17 * 1024);
  CHECK_FALSE(stream.CanReuseConnection());
}
