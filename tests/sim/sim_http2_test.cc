// HTTP/2 in the simulated world, through the edges: ALPN in the modelled TLS handshake, and the
// client's own net/http2 Http2Session (the code the live stack runs) over modelled TLS and
// clear-text connections to SimHttp2Server: parallel requests on one connection, the worked
// example extended to N responses on one connection (exact, from the model's parameters),
// prior knowledge (h2c), a byte stream that is not HTTP/2.
#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "net/base/virtual_scheduler.h"
#include "net/http2/http2_session.h"
#include "net/sim/sim_http2_server.h"
#include "net/sim/sim_network.h"
#include "net/sim/sim_ssl_socket.h"
#include "tests/sim/sim_test_env.h"

namespace netstack::test {
namespace {

TimeDelta Ms(int64_t ms) { return Milliseconds(ms); }

// What one stream's delegate heard, and when.
struct Stream : Http2StreamDelegate {
  explicit Stream(Scheduler& s) : scheduler(s) {}
  void OnResponseHeaders(int s, std::vector<std::pair<std::string, std::string>> h) override {
    status = s;
    headers = std::move(h);
    headers_at = scheduler.Now();
  }
  void OnData(std::string_view data) override {
    body_bytes += static_cast<int64_t>(data.size());
    if (body.size() < 4096) body.append(data.substr(0, 4096 - body.size()));
  }
  void OnStreamClosed(int e, bool) override {
    closed = true;
    error = e;
    closed_at = scheduler.Now();
  }
  std::string Header(const std::string& name) const {
    for (const auto& [n, v] : headers) {
      if (n == name) return v;
    }
    return "";
  }

  Scheduler& scheduler;
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  int64_t body_bytes = 0;
  std::string body;  // the first 4 KiB
  bool closed = false;
  int error = 1;
  TimeTicks headers_at{}, closed_at{};
};

struct H2Env {
  explicit H2Env(NetworkParams p, std::vector<std::string> alpn = {"h2", "http/1.1"})
      : network(scheduler, p, &responder) {
    dns = network.CreateDnsTransport();
    factory = network.CreateSocketFactory(kDefaultSslSessionCacheSize, std::move(alpn));
  }

  // A network where only round trips and the server's time count.
  static NetworkParams Plain(const std::string& http2_host = "a.test") {
    NetworkParams params = SimTestEnv::PlainNetwork();  // RTT 100, DNS 10, server 50, TLS 1.3
    std::string error;
    if (!http2_host.empty()) REQUIRE(params.Set(http2_host + ":http2", "on", &error));
    return params;
  }

  IPAddress Resolve(const std::string& host) {
    DnsTransportResult result;
    auto t = dns->StartLookup(host, AddressFamily::kUnspecified,
                              [&](const DnsTransportResult& r) { result = r; });
    REQUIRE(scheduler.RunUntil([&] { return !result.addresses.empty(); }));
    return result.addresses[0];
  }
  std::unique_ptr<StreamSocket> ConnectTcp(const std::string& host, uint16_t port) {
    auto socket = factory->CreateTransportClientSocket(IPEndPoint(Resolve(host), port), nullptr,
                                                       NetLogSource());
    int rv = socket->Connect([&](int r) { rv = r; });
    REQUIRE(scheduler.RunUntil([&] { return rv != ERR_IO_PENDING; }));
    REQUIRE(rv == OK);
    return socket;
  }
  std::unique_ptr<StreamSocket> ConnectTls(const std::string& host) {
    auto tls = factory->CreateSslClientSocket(ConnectTcp(host, 443), host, 443, NetLogWithSource());
    int rv = tls->Connect([&](int r) { rv = r; });
    REQUIRE(scheduler.RunUntil([&] { return rv != ERR_IO_PENDING; }));
    REQUIRE(rv == OK);
    return tls;
  }

  // An Http2Session over `socket`, and `paths` requested on it at once.
  void StartSession(std::unique_ptr<StreamSocket> socket, const std::vector<std::string>& paths,
                    const std::string& scheme = "https") {
    session = std::make_unique<Http2Session>(scheduler, std::move(socket), Http2Session::Params(),
                                             [this](int error) { session_error = error; });
    for (const std::string& path : paths) {
      streams.push_back(std::make_unique<Stream>(scheduler));
      Http2RequestHead head;
      head.scheme = scheme;
      head.authority = "a.test";
      head.path = path;
      REQUIRE(session->StartRequest(head, MEDIUM, streams.back().get()) > 0);
    }
  }
  void RunUntilStreamsClosed() {
    REQUIRE(scheduler.RunUntil([&] {
      for (const auto& s : streams) {
        if (!s->closed) return false;
      }
      return true;
    }));
  }

  VirtualScheduler scheduler{SimTestEnv::kEpoch};
  TestResponder responder;
  SimNetwork network;
  std::unique_ptr<DnsTransport> dns;
  std::unique_ptr<ClientSocketFactory> factory;
  std::unique_ptr<Http2Session> session;
  std::vector<std::unique_ptr<Stream>> streams;
  int session_error = 1;
};

// Reads until the end of the stream, or until nothing more will come (the socket is then
// disconnected); `eof`: the stream ended.
std::string ReadToEnd(VirtualScheduler& scheduler, StreamSocket* socket, bool* eof) {
  std::string out;
  char buf[4096];
  *eof = false;
  for (;;) {
    int result = ERR_IO_PENDING;
    int rv = socket->Read(buf, sizeof(buf), [&result](int r) { result = r; });
    if (rv == ERR_IO_PENDING) {
      if (!scheduler.RunUntil([&] { return result != ERR_IO_PENDING; })) {
        socket->Disconnect();  // drops the pending read
        return out;
      }
      rv = result;
    }
    if (rv == 0) *eof = true;
    if (rv <= 0) return out;
    out.append(buf, static_cast<size_t>(rv));
  }
}

// The frame types in `bytes` (whole frames from the start).
std::vector<int> FrameTypes(const std::string& bytes) {
  std::vector<int> types;
  for (size_t at = 0; at + 9 <= bytes.size();) {
    const auto* p = reinterpret_cast<const uint8_t*>(bytes.data() + at);
    types.push_back(p[3]);
    at += 9 + ((size_t{p[0]} << 16) | (size_t{p[1]} << 8) | p[2]);
  }
  return types;
}

void Write(StreamSocket* socket, const std::string& bytes) {
  REQUIRE(socket->Write(bytes.data(), static_cast<int>(bytes.size()), [](int) {}) ==
          static_cast<int>(bytes.size()));
}

const std::string kPreface(SimHttp2Server::kClientPreface);
const std::string kEmptySettings("\0\0\0\x04\0\0\0\0\0", 9);

TEST_CASE("sim h2: ALPN picks h2 when offered and the host speaks it, else http/1.1",
          "[sim][http2][alpn]") {
  CHECK(SimSelectAlpn({"h2", "http/1.1"}, true) == "h2");
  CHECK(SimSelectAlpn({"http/1.1", "h2"}, true) == "h2");  // the server's preference
  CHECK(SimSelectAlpn({"h2", "http/1.1"}, false) == "http/1.1");
  CHECK(SimSelectAlpn({"http/1.1"}, true) == "http/1.1");
  CHECK(SimSelectAlpn({"h2"}, false).empty());  // nothing in common: no ALPN
  CHECK(SimSelectAlpn({}, true).empty());

  auto negotiated = [](NetworkParams params, std::vector<std::string> alpn,
                       const std::string& host) {
    H2Env env(std::move(params), std::move(alpn));
    auto transport = env.ConnectTcp(host, 443);
    auto tls =
        env.factory->CreateSslClientSocket(std::move(transport), host, 443, NetLogWithSource());
    CHECK(tls->NegotiatedProtocol().empty());  // before the handshake
    int rv = tls->Connect([&](int r) { rv = r; });
    REQUIRE(env.scheduler.RunUntil([&] { return rv != ERR_IO_PENDING; }));
    REQUIRE(rv == OK);
    return tls->NegotiatedProtocol();
  };
  std::string error;
  const std::vector<std::string> chrome = {"h2", "http/1.1"};
  // A host that speaks h2 (auto: its own setting), offered h2.
  CHECK(negotiated(H2Env::Plain("a.test"), chrome, "a.test") == "h2");
  // A host that does not (the default).
  CHECK(negotiated(H2Env::Plain("a.test"), chrome, "b.test") == "http/1.1");
  // `--http1.1`: the client offers only http/1.1.
  CHECK(negotiated(H2Env::Plain("a.test"), {"http/1.1"}, "a.test") == "http/1.1");
  // http2=off overrides the host; http2=on makes every host speak h2.
  NetworkParams off = H2Env::Plain("a.test");
  REQUIRE(off.Set("http2", "off", &error));
  CHECK(negotiated(off, chrome, "a.test") == "http/1.1");
  NetworkParams on = H2Env::Plain("");
  REQUIRE(on.Set("http2", "on", &error));
  CHECK(negotiated(on, chrome, "b.test") == "h2");
  // ALPN costs no round trip: the handshake takes what it took without it (TLS 1.3: one RTT).
  H2Env env(H2Env::Plain("a.test"));
  auto transport = env.ConnectTcp("a.test", 443);
  const TimeTicks start = env.scheduler.Now();
  auto tls =
      env.factory->CreateSslClientSocket(std::move(transport), "a.test", 443, NetLogWithSource());
  int rv = tls->Connect([&](int r) { rv = r; });
  REQUIRE(env.scheduler.RunUntil([&] { return rv != ERR_IO_PENDING; }));
  CHECK(env.scheduler.Now() - start == Ms(100));
}

TEST_CASE("sim h2: ten parallel GETs on one TLS connection are answered together", "[sim][http2]") {
  H2Env env(H2Env::Plain());  // RTT 100 ms, server 50 ms, unlimited links
  auto tls = env.ConnectTls("a.test");
  REQUIRE(tls->NegotiatedProtocol() == "h2");
  const TimeTicks start = env.scheduler.Now();
  std::vector<std::string> paths;
  for (int i = 0; i < 10; ++i) paths.push_back("/size/" + std::to_string(1000 + i));
  env.StartSession(std::move(tls), paths);
  env.RunUntilStreamsClosed();
  // Every request crossed in the same round (50 ms), was served in parallel (50 ms) and came
  // back in the same round (50 ms): one exchange's time, not ten.
  for (size_t i = 0; i < env.streams.size(); ++i) {
    const Stream& s = *env.streams[i];
    INFO("stream " << i);
    CHECK(s.error == OK);
    CHECK(s.status == 200);
    CHECK(s.body_bytes == 1000 + static_cast<int64_t>(i));
    CHECK(s.Header("content-length") == std::to_string(1000 + i));
    CHECK(s.Header("content-type") == "application/octet-stream");
    CHECK(s.headers_at - start == Ms(150));
    CHECK(s.closed_at - start == Ms(150));
  }
  CHECK(env.network.stats().tcp_connects == 1);
  CHECK(env.network.stats().requests == 10);
  REQUIRE(env.responder.requests.size() == 10);
  for (const SimRequest& q : env.responder.requests) {
    CHECK(q.method == "GET");
    CHECK(q.scheme == "https");
    CHECK(q.host == "a.test");
    CHECK(q.arrived_at - start == Ms(50));
  }
  CHECK(env.session->IsAvailable());
  CHECK(env.session->connection().stats().max_concurrent_streams == 128);
}

// The HPACK block nghttp2's deflater (the server's, with its default 4096-byte table) makes for
// each of `count` identical responses in turn: the first adds to the table, later ones index it.
// The client's SETTINGS_HEADER_TABLE_SIZE (65536) makes the server's encoder apply
// min(65536, 4096): it announces that size in its first block (a 3-byte size update).
std::vector<size_t> HeaderBlockSizes(const std::vector<std::pair<std::string, std::string>>& fields,
                                     int count) {
  nghttp2_hd_deflater* deflater = nullptr;
  REQUIRE(nghttp2_hd_deflate_new(&deflater, 4096) == 0);
  REQUIRE(nghttp2_hd_deflate_change_table_size(deflater, 4096) == 0);
  std::vector<nghttp2_nv> nva;
  for (const auto& [name, value] : fields) {
    nva.push_back({(uint8_t*)name.data(), (uint8_t*)value.data(), name.size(), value.size(),
                   NGHTTP2_NV_FLAG_NONE});
  }
  std::vector<size_t> sizes;
  for (int i = 0; i < count; ++i) {
    std::vector<uint8_t> out(nghttp2_hd_deflate_bound(deflater, nva.data(), nva.size()));
    const ssize_t n =
        nghttp2_hd_deflate_hd(deflater, out.data(), out.size(), nva.data(), nva.size());
    REQUIRE(n > 0);
    sizes.push_back(static_cast<size_t>(n));
  }
  nghttp2_hd_deflate_del(deflater);
  return sizes;
}

TEST_CASE("sim h2: the worked example, ten 10 kB responses on one connection: 630 ms",
          "[sim][http2][timing]") {
  // The worked example's network (unlimited bandwidth, DNS 50, RTT 80, TLS 1.2, server 100),
  // its host speaking h2; initial window 10 x 1460.
  NetworkParams params = SimTestEnv::WorkedExample();
  std::string error;
  REQUIRE(params.Set("a.test:http2", "on", &error));
  H2Env env(params);
  const TimeTicks t0 = env.scheduler.Now();
  auto tls = env.ConnectTls("a.test");  // 50 DNS + 80 TCP + 160 TLS 1.2
  REQUIRE(env.scheduler.Now() - t0 == Ms(290));
  REQUIRE(tls->NegotiatedProtocol() == "h2");
  const int kStreams = 10;
  const int64_t kBody = 10'000;
  env.StartSession(std::move(tls),
                   std::vector<std::string>(kStreams, "/size/" + std::to_string(kBody)));
  env.RunUntilStreamsClosed();

  // The bytes on the downlink, all real frames:
  //   the server's preface when the client's arrives: SETTINGS with three settings (9 + 18),
  //   the ACK of the client's SETTINGS (9), WINDOW_UPDATE (9 + 4): 49 bytes;
  //   per response a HEADERS frame (9 + its HPACK block: :status 200, content-type,
  //   content-length; the first announces the table size and adds to the dynamic table, the nine
  //   others are indexed: nghttp2's deflater, HeaderBlockSizes, says how many bytes) and one
  //   DATA frame (9 + 10000: below the 16384-byte frame size and the client's windows).
  std::vector<size_t> blocks = HeaderBlockSizes({{":status", "200"},
                                                 {"content-type", "application/octet-stream"},
                                                 {"content-length", std::to_string(kBody)}},
                                                kStreams);
  int64_t heads = 49;
  for (size_t block : blocks) heads += 9 + static_cast<int64_t>(block);
  const int64_t total = heads + kStreams * (9 + kBody);
  CHECK(env.network.stats().bytes_down == total);

  // The rounds, from the handshake's end (t0 + 290):
  //   +0    the client's preface, SETTINGS, WINDOW_UPDATE and ten HEADERS leave in one round;
  //   +40   they arrive: the server's 49 bytes leave (downlink round 0: one segment, so the
  //         window grows from 10 to 11 segments), and the ten requests are complete;
  //   +80   round 0 arrives (the client ACKs the SETTINGS);
  //   +140  the ten responses leave after the server's 100 ms, together;
  //   +180  round 1: 11 x 1460 = 16060 bytes: every HEADERS frame and one DATA frame (the heads
  //         take `heads` bytes, under 16060 - 10009); window 22;
  //   +260  round 2: 22 x 1460 = 32120 more (48180 in all): three more DATA frames; window 44;
  //   +340  round 3: the rest (total - 48180 < 44 x 1460 = 64240): the six last frames.
  REQUIRE(heads < 16'060 - (9 + kBody));
  REQUIRE(total - 48'180 > 0);
  REQUIRE(total - 48'180 <= 64'240);
  const TimeTicks handshake_end = t0 + Ms(290);
  int by_round1 = 0, by_round2 = 0, by_round3 = 0;
  for (const auto& s : env.streams) {
    CHECK(s->error == OK);
    CHECK(s->body_bytes == kBody);
    CHECK(s->headers_at == handshake_end + Ms(180));  // 470 ms: the HTTP/1.1 example's time
    const TimeDelta done = s->closed_at - handshake_end;
    by_round1 += done == Ms(180);
    by_round2 += done == Ms(260);
    by_round3 += done == Ms(340);
  }
  // Whole DATA frames: 1 fits in round 1 after the heads, 4 by the end of round 2.
  CHECK(by_round1 == 1);
  CHECK(by_round2 == 3);
  CHECK(by_round3 == 6);
  // All ten in 290 + 340 = 630 ms.
  TimeTicks last{};
  for (const auto& s : env.streams) last = std::max(last, s->closed_at);
  CHECK(last - t0 == Ms(630));
  CHECK(env.network.stats().tcp_connects == 1);
  CHECK(env.network.stats().tls_handshakes == 1);
}

TEST_CASE("sim h2: a server time per response: a slow response does not hold back a fast one",
          "[sim][http2]") {
  H2Env env(H2Env::Plain());
  SimResponse slow;
  slow.head = TestResponder::Head(10);
  slow.body_bytes = 10;
  slow.server_time = Ms(500);
  env.responder.scripted["/slow"] = slow;
  auto tls = env.ConnectTls("a.test");
  const TimeTicks start = env.scheduler.Now();
  env.StartSession(std::move(tls), {"/slow", "/size/20"});
  env.RunUntilStreamsClosed();
  CHECK(env.streams[0]->closed_at - start == Ms(50 + 500 + 50));
  CHECK(env.streams[1]->closed_at - start == Ms(50 + 50 + 50));
  CHECK(env.streams[0]->body_bytes == 10);
  CHECK(env.streams[1]->body_bytes == 20);
}

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
