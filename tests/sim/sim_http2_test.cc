// HTTP/2 in the simulated world, through the edges: ALPN in the modelled TLS handshake, and the
// client's own net/http2 Http2Session (the code the live stack runs) over modelled TLS
// connections to SimHttp2Server: parallel requests on one connection, the worked example
// extended to N responses on one connection (exact, from the model's parameters), a server time
// per response, heads before bodies on a slow link.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "net/sim/sim_ssl_socket.h"
#include "tests/sim/sim_http2_env.h"

namespace netstack::test {
namespace {

TimeDelta Ms(int64_t ms) { return Milliseconds(ms); }

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

TEST_CASE("sim h2: on a slow link the response heads are readable before the bodies",
          "[sim][http2][bandwidth]") {
  NetworkParams params;
  params.downlink_bps = 8'000'000;  // one byte per microsecond
  params.uplink_bps = 0;
  params.defaults.rtt = Ms(20);
  params.defaults.dns = Ms(5);
  params.defaults.server_time = Ms(0);
  params.initial_cwnd_segments = 1000;  // one round for everything
  params.mss = 9000;
  std::string error;
  REQUIRE(params.Set("a.test:http2", "on", &error));
  H2Env env(params);
  auto tls = env.ConnectTls("a.test");
  const TimeTicks start = env.scheduler.Now();
  const int64_t kBody = 100'000;
  env.StartSession(std::move(tls), {"/size/" + std::to_string(kBody)});
  env.RunUntilStreamsClosed();
  // The request arrives 10 ms after it left and is answered at once, with the server's preface
  // (49 bytes), in one batch: the HEADERS frame, then the body as seven DATA frames (six of
  // 16384 bytes and one of 1696), each with its 9-byte header. The batch reaches the link 10 ms
  // later and crosses it at one byte per microsecond; the bytes up to the first body byte (the
  // preface, the HEADERS frame and the first DATA frame's header) are readable first.
  const int64_t block =
      static_cast<int64_t>(HeaderBlockSizes({{":status", "200"},
                                             {"content-type", "application/octet-stream"},
                                             {"content-length", std::to_string(kBody)}},
                                            1)[0]);
  const int64_t heads = 49 + 9 + block + 9;
  const int64_t total = 49 + 9 + block + 7 * 9 + kBody;
  const Stream& s = *env.streams[0];
  CHECK(s.error == OK);
  CHECK(s.body_bytes == kBody);
  CHECK(s.headers_at - start == Ms(20) + TimeDelta(heads));
  CHECK(s.closed_at - start == Ms(20) + TimeDelta(total));
  CHECK(env.network.stats().bytes_down == total);
}

}  // namespace
}  // namespace netstack::test
