// HTTP/2 on the wire in the simulated world: responder heads turned into HTTP/2 responses,
// prior knowledge (h2c) on clear text, the preface told from HTTP/1.1, byte streams that are
// not HTTP/2; with the client's own Http2Session or raw bytes on a modelled socket.
#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/sim/sim_http2_env.h"

namespace netstack::test {
namespace {

TimeDelta Ms(int64_t ms) { return Milliseconds(ms); }

TEST_CASE("sim h2: responses keep the responder's head: real body bytes, HEAD, 204, 304",
          "[sim][http2]") {
  H2Env env(H2Env::Plain());
  env.responder.pages["a.test/page"] = "<html>hello</html>";  // real bytes in the head
  SimResponse no_content;
  no_content.head = "HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\nX-A: 1\r\n\r\n";
  env.responder.scripted["/204"] = no_content;
  SimResponse not_modified;
  not_modified.head = "HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\nETag: \"e\"\r\n\r\n";
  env.responder.scripted["/304"] = not_modified;
  SimResponse chunked;
  chunked.head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  chunked.body_bytes = 5;
  env.responder.scripted["/chunked"] = chunked;
  auto tls = env.ConnectTls("a.test");
  env.StartSession(std::move(tls), {"/page", "/204", "/304", "/chunked"});
  env.RunUntilStreamsClosed();
  const Stream& page = *env.streams[0];
  CHECK(page.error == OK);
  CHECK(page.body == "<html>hello</html>");
  CHECK(page.Header("content-type") == "text/html");
  CHECK(page.Header("content-length") == "18");
  const Stream& nc = *env.streams[1];
  CHECK(nc.error == OK);
  CHECK(nc.status == 204);
  CHECK(nc.Header("connection").empty());  // connection-specific: dropped
  CHECK(nc.Header("x-a") == "1");
  CHECK(nc.body_bytes == 0);
  const Stream& nm = *env.streams[2];
  CHECK(nm.error == OK);
  CHECK(nm.status == 304);
  CHECK(nm.Header("etag") == "\"e\"");
  CHECK(nm.body_bytes == 0);
  const Stream& ch = *env.streams[3];
  CHECK(ch.error == OK);
  CHECK(ch.Header("transfer-encoding").empty());
  CHECK(ch.Header("content-length").empty());  // the h1 head had none: END_STREAM frames it
  CHECK(ch.body_bytes == 5);
}

TEST_CASE("sim h2: prior knowledge (h2c): a clear-text connection that starts with the preface",
          "[sim][http2][h2c]") {
  H2Env env(H2Env::Plain());
  auto tcp = env.ConnectTcp("a.test", 80);
  const TimeTicks start = env.scheduler.Now();
  env.StartSession(std::move(tcp), {"/size/10", "/size/20", "/size/30"}, "http");
  env.RunUntilStreamsClosed();
  for (size_t i = 0; i < env.streams.size(); ++i) {
    CHECK(env.streams[i]->error == OK);
    CHECK(env.streams[i]->body_bytes == 10 * static_cast<int64_t>(i + 1));
    CHECK(env.streams[i]->closed_at - start == Ms(150));
  }
  REQUIRE(env.responder.requests.size() == 3);
  CHECK(env.responder.requests[0].scheme == "http");
  CHECK(env.responder.requests[0].host == "a.test");
  CHECK(env.network.stats().tcp_connects == 1);
  CHECK(env.network.stats().tls_handshakes == 0);
}

TEST_CASE("sim h2: on clear text the server tells the preface from HTTP/1.1", "[sim][http2][h2c]") {
  H2Env env(H2Env::Plain());  // a.test speaks h2, b.test only HTTP/1.1
  bool eof = false;
  SECTION("the preface over several writes") {
    auto socket = env.ConnectTcp("a.test", 80);
    Write(socket.get(), kPreface.substr(0, 5));
    Write(socket.get(), kPreface.substr(5, 10));
    Write(socket.get(), kPreface.substr(15) + kEmptySettings);
    const std::string got = ReadToEnd(env.scheduler, socket.get(), &eof);
    CHECK_FALSE(eof);
    CHECK(FrameTypes(got) ==
          std::vector<int>{NGHTTP2_SETTINGS, NGHTTP2_SETTINGS, NGHTTP2_WINDOW_UPDATE});
  }
  SECTION("HTTP/1.1 to a host that speaks h2") {
    auto socket = env.ConnectTcp("a.test", 80);
    Write(socket.get(), "GET /size/10 HTTP/1.1\r\nHost: a.test\r\n\r\n");
    const std::string got = ReadToEnd(env.scheduler, socket.get(), &eof);
    CHECK(got == TestResponder::Head(10) + std::string(10, 'x'));
  }
  SECTION("HTTP/1.1 that starts like the preface") {
    auto socket = env.ConnectTcp("a.test", 80);
    Write(socket.get(), "P");
    Write(socket.get(), "OST /size/3 HTTP/1.1\r\nHost: a.test\r\nContent-Length: 2\r\n\r\nab");
    const std::string got = ReadToEnd(env.scheduler, socket.get(), &eof);
    CHECK(got == TestResponder::Head(3) + "xxx");
    REQUIRE(env.responder.requests.size() == 1);
    CHECK(env.responder.requests[0].method == "POST");
    CHECK(env.responder.requests[0].body_bytes == 2);
  }
  SECTION("the preface to a host that speaks only HTTP/1.1: the server closes") {
    env.StartSession(env.ConnectTcp("b.test", 80), {"/size/10"}, "http");
    env.RunUntilStreamsClosed();
    CHECK(env.streams[0]->error != OK);
    CHECK(env.responder.requests.empty());
  }
}

TEST_CASE("sim h2: a byte stream that is not HTTP/2 ends the connection, after a GOAWAY",
          "[sim][http2][errors]") {
  H2Env env(H2Env::Plain());
  bool eof = false;
  SECTION("garbage after the preface (h2c)") {
    auto socket = env.ConnectTcp("a.test", 80);
    Write(socket.get(), kPreface + kEmptySettings + std::string(100, '\xff'));
    const std::string got = ReadToEnd(env.scheduler, socket.get(), &eof);
    CHECK(eof);
    const std::vector<int> types = FrameTypes(got);
    CHECK(std::find(types.begin(), types.end(), NGHTTP2_GOAWAY) != types.end());
  }
  SECTION("an HTTP/1.1 request on a TLS connection that chose h2") {
    auto tls = env.ConnectTls("a.test");
    REQUIRE(tls->NegotiatedProtocol() == "h2");
    Write(tls.get(), "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n");
    ReadToEnd(env.scheduler, tls.get(), &eof);
    CHECK(eof);
  }
  CHECK(env.responder.requests.empty());
}

}  // namespace
}  // namespace netstack::test
