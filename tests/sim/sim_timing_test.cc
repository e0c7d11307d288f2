// The model's timing through the real stack: the worked example of Chrome's networking
// chapter, TLS versions and resumption, slow start, keep-alive windows and their restart,
// bandwidth sharing, pool limits, the host cache, the radio. Exact to the microsecond.
#include <catch2/catch.hpp>

#include "tests/sim/sim_test_env.h"

namespace netstack::test {
namespace {

TimeDelta Ms(int64_t ms) { return Milliseconds(ms); }
TimeDelta Us(int64_t us) { return TimeDelta(us); }

TEST_CASE("sim: the worked example takes 470 ms: 50 DNS + 80 TCP + 160 TLS + 180 to first byte",
          "[sim][timing]") {
  SimTestEnv env(SimTestEnv::WorkedExample());
  FetchResult r = env.Fetch("https://a.test/size/1000");
  REQUIRE(r.result == OK);
  CHECK(r.body_bytes == 1000);
  CHECK(r.total() == Ms(470));
  CHECK(r.timing.request_start == r.start);
  CHECK(r.timing.connect_timing.dns_start == r.start);
  CHECK(r.dns() == Ms(50));
  CHECK(r.timing.connect_timing.connect_start == r.timing.connect_timing.dns_end);
  CHECK(r.tcp() == Ms(80));
  CHECK(r.tls() == Ms(160));
  CHECK(r.timing.connect_timing.connect_end == r.timing.connect_timing.ssl_end);
  CHECK(r.timing.send_start == r.timing.connect_timing.connect_end);
  CHECK(r.timing.send_end == r.timing.send_start);
  CHECK(r.ttfb() == Ms(180));  // 40 request + 100 server + 40 response
  CHECK(r.timing.receive_headers_end == r.timing.receive_headers_start);
  CHECK(r.timing.receive_end == r.end);
  CHECK_FALSE(r.timing.socket_reused);
  CHECK(r.connection.tls_version == "TLSv1.2");
  CHECK_FALSE(r.connection.tls_resumed);
  CHECK(r.connection.peer_address == "10.0.0.1:443");

  const SimNetwork::Stats& s = env.stats();
  CHECK(s.dns_lookups == 1);
  CHECK(s.tcp_connects == 1);
  CHECK(s.tls_handshakes == 1);
  CHECK(s.tls_resumed == 0);
  CHECK(s.requests == 1);
  CHECK(s.bytes_down == 1000 + static_cast<int64_t>(TestResponder::Head(1000).size()));
  CHECK(s.bytes_up > 0);
  CHECK(s.radio_promotions == 0);

  REQUIRE(env.responder.requests.size() == 1);
  const SimRequest& q = env.responder.requests[0];
  CHECK(q.method == "GET");
  CHECK(q.scheme == "https");
  CHECK(q.host == "a.test");
  CHECK(q.target == "/size/1000");
  CHECK(q.body_bytes == 0);
  CHECK(q.arrived_at == r.timing.send_end + Ms(40));
  CHECK(env.network->HostForAddress(*IPAddress::Parse("10.0.0.1")) == "a.test");
  CHECK(env.network->HostForAddress(*IPAddress::Parse("10.0.0.2")).empty());
}

TEST_CASE("sim: TLS 1.3 takes one round trip less than 1.2", "[sim][timing][tls]") {
  NetworkParams params = SimTestEnv::WorkedExample();
  std::string error;
  REQUIRE(params.Set("tls", "1.3", &error));
  SimTestEnv env(params);
  FetchResult r = env.Fetch("https://a.test/");
  REQUIRE(r.result == OK);
  CHECK(r.tls() == Ms(80));
  CHECK(r.total() == Ms(390));
  CHECK(r.connection.tls_version == "TLSv1.3");
}

TEST_CASE("sim: a per-host TLS version and RTT apply to that host only", "[sim][timing][tls]") {
  NetworkParams params = SimTestEnv::WorkedExample();
  std::string error;
  REQUIRE(params.Set("b.test:tls", "1.3", &error));
  REQUIRE(params.Set("b.test:rtt_ms", "20", &error));
  SimTestEnv env(params);
  FetchResult a = env.Fetch("https://a.test/");
  FetchResult b = env.Fetch("https://b.test/");
  CHECK(a.total() == Ms(470));
  CHECK(b.tls() == Ms(20));
  CHECK(b.total() == Ms(50 + 20 + 20 + 10 + 100 + 10));
  CHECK(b.connection.peer_address == "10.0.0.2:443");
}

TEST_CASE("sim: a resumed session saves one round trip on the next connection to the host",
          "[sim][timing][tls]") {
  auto second_connection = [](TlsVersion version) {
    NetworkParams params = SimTestEnv::WorkedExample();
    params.defaults.tls = version;
    SimTestEnv env(params);
    FetchResult first = env.Fetch("https://a.test/");
    REQUIRE(first.result == OK);
    // Two at once: one takes the idle socket, the other opens a connection of its own.
    std::vector<FetchResult> both = env.FetchAll({"https://a.test/1", "https://a.test/2"});
    REQUIRE(both[0].result == OK);
    REQUIRE(both[1].result == OK);
    CHECK(both[0].timing.socket_reused != both[1].timing.socket_reused);
    FetchResult fresh = both[0].timing.socket_reused ? both[1] : both[0];
    CHECK(fresh.connection.tls_resumed);
    CHECK(env.stats().tls_handshakes == 1);
    CHECK(env.stats().tls_resumed == 1);
    CHECK(fresh.dns() == Ms(0));  // from the host cache
    CHECK(fresh.tcp() == Ms(80));
    return fresh.tls();
  };
  CHECK(second_connection(TlsVersion::kTls12) == Ms(80));
  CHECK(second_connection(TlsVersion::kTls13) == Ms(0));  // 0-RTT
}

// send_end -> last byte for a fresh connection and a response of `total` bytes.
TimeDelta ResponseTime(int64_t total) {
  SimTestEnv env(SimTestEnv::PlainNetwork());
  FetchResult r =
      env.Fetch("http://a.test/size/" + std::to_string(TestResponder::BodyForTotal(total)));
  REQUIRE(r.result == OK);
  CHECK(r.ttfb() == Ms(150));  // 50 request + 50 server + 50 first round
  return r.response();
}

TEST_CASE("sim: slow start: a response needing 3 rounds at the initial window takes owd + 2 RTT",
          "[sim][timing][slow-start]") {
  // Initial window 10 x 1460: rounds of 14600, 29200, 58400 bytes.
  CHECK(ResponseTime(14'600) == Ms(150));         // one round: owd + server + owd
  CHECK(ResponseTime(14'601) == Ms(250));         // two rounds
  CHECK(ResponseTime(102'200) == Ms(150 + 200));  // exactly three rounds
  CHECK(ResponseTime(102'201) == Ms(150 + 300));  // one byte more: a fourth
}

TEST_CASE("sim: keep-alive keeps the window, idle_restart brings it back to the initial one",
          "[sim][timing][slow-start]") {
  SimTestEnv env(SimTestEnv::PlainNetwork());
  const std::string url =
      "http://a.test/size/" + std::to_string(TestResponder::BodyForTotal(300'000));
  // 14600 + 29200 + 58400 + 116800 = 219000 after four rounds: the fifth completes it.
  FetchResult first = env.Fetch(url);
  REQUIRE(first.result == OK);
  CHECK(first.response() == Ms(150 + 400));
  // The window grew to 216 segments (315360 bytes): the same response fits in one round.
  FetchResult second = env.Fetch(url);
  REQUIRE(second.result == OK);
  CHECK(second.timing.socket_reused);
  CHECK(second.response() == Ms(150));
  // Idle longer than idle_restart (1 s): slow start again, on the same connection.
  env.Advance(Seconds(2));
  FetchResult third = env.Fetch(url);
  REQUIRE(third.result == OK);
  CHECK(third.timing.socket_reused);
  CHECK(third.response() == Ms(150 + 400));
  CHECK(env.stats().tcp_connects == 1);
}

TEST_CASE("sim: with idle_restart 0 the window survives any idle time", "[sim][timing]") {
  NetworkParams params = SimTestEnv::PlainNetwork();
  params.idle_restart = TimeDelta::zero();
  SimTestEnv env(params);
  const std::string url =
      "http://a.test/size/" + std::to_string(TestResponder::BodyForTotal(300'000));
  CHECK(env.Fetch(url).response() == Ms(550));
  env.Advance(Seconds(30));
  CHECK(env.Fetch(url).response() == Ms(150));
}

// 8000 kbit/s down is one byte per microsecond; a window large enough for any response here.
NetworkParams OneBytePerMicrosecond() {
  NetworkParams params;
  params.downlink_bps = 8'000'000;
  params.uplink_bps = 0;
  params.defaults.rtt = Ms(20);
  params.defaults.dns = Ms(5);
  params.defaults.server_time = Ms(0);
  params.initial_cwnd_segments = 1000;
  params.mss = 9000;
  return params;
}

TEST_CASE("sim: two transfers at once share the downlink: each takes twice as long",
          "[sim][timing][bandwidth]") {
  const int64_t body = 1'000'000;
  const int64_t total = body + static_cast<int64_t>(TestResponder::Head(body).size());
  const std::string url = "http://a.test/size/" + std::to_string(body);
  TimeDelta alone;
  {
    SimTestEnv env(OneBytePerMicrosecond());
    FetchResult r = env.Fetch(url);
    REQUIRE(r.result == OK);
    alone = r.response() - Ms(20);  // less the round trip: the time on the link
    CHECK(alone == Us(total));      // one round, served at the link rate
  }
  SimTestEnv env(OneBytePerMicrosecond());
  std::vector<FetchResult> both = env.FetchAll({url, url});
  REQUIRE(both[0].result == OK);
  REQUIRE(both[1].result == OK);
  CHECK(env.stats().tcp_connects == 2);
  CHECK(both[0].response() - Ms(20) == 2 * alone);
  CHECK(both[1].response() - Ms(20) == 2 * alone);
  // The head is readable before the body: first byte after the head crossed (shared).
  CHECK(both[0].ttfb() - Ms(20) == Us(2 * static_cast<int64_t>(TestResponder::Head(body).size())));
}

TEST_CASE("sim: once the window exceeds the bandwidth-delay product, the link rate rules",
          "[sim][timing][bandwidth][slow-start]") {
  NetworkParams params = OneBytePerMicrosecond();
  params.initial_cwnd_segments = 10;
  params.mss = 1460;
  SimTestEnv env(params);
  const int64_t total = 200'000;
  const int64_t body = TestResponder::BodyForTotal(total);
  const int64_t head = total - body;
  FetchResult r = env.Fetch("http://a.test/size/" + std::to_string(body));
  REQUIRE(r.result == OK);
  // The first round reaches the link one RTT after the send; its head is read `head` us later.
  const TimeTicks arrival = r.timing.send_end + Ms(20);
  CHECK(r.timing.receive_headers_start == arrival + Us(head));
  // Round 0 (14600 bytes) takes 14.6 ms, then the link idles until round 1 arrives one RTT
  // after round 0 started; from round 1 on each round takes longer than an RTT, so rounds
  // queue back to back: the rest crosses at the link rate.
  CHECK(r.timing.receive_end == arrival + Ms(20) + Us(total - 14'600));
}

TEST_CASE("sim: a limited uplink delays a large request body", "[sim][timing][bandwidth]") {
  NetworkParams params = OneBytePerMicrosecond();
  params.uplink_bps = 8'000'000;
  params.downlink_bps = 0;
  SimTestEnv env(params);
  const std::string body(100'000, 'b');
  FetchResult r = env.Fetch("http://a.test/upload", "POST", body);
  REQUIRE(r.result == OK);
  REQUIRE(env.responder.requests.size() == 1);
  const SimRequest& q = env.responder.requests[0];
  CHECK(q.method == "POST");
  CHECK(q.body_bytes == 100'000);
  // Every request byte crosses the uplink at 1 byte/us, then the RTT.
  CHECK(r.ttfb() == Us(env.stats().bytes_up) + Ms(20));
}

TEST_CASE("sim: pool limits: a 7th request to one host waits for a socket and reuses one",
          "[sim][timing][pool]") {
  NetworkParams params = SimTestEnv::PlainNetwork();
  SimTestEnv env(params);
  std::vector<std::string> urls(7, "http://a.test/size/1000");
  std::vector<FetchResult> results = env.FetchAll(urls);
  int reused = 0;
  for (const FetchResult& r : results) {
    REQUIRE(r.result == OK);
    if (r.timing.socket_reused) {
      ++reused;
      // It waited for the first six (10 DNS + 100 TCP + 150), then went out on a kept socket.
      CHECK(r.total() == Ms(260 + 150));
      CHECK(r.timing.send_start - r.start == Ms(260));
    } else {
      CHECK(r.total() == Ms(260));
    }
  }
  CHECK(reused == 1);
  CHECK(env.stats().tcp_connects == 6);
  CHECK(env.stats().requests == 7);
}

TEST_CASE("sim: DNS answers stay in the host cache for their TTL", "[sim][timing][dns]") {
  NetworkParams params = SimTestEnv::PlainNetwork();
  params.defaults.dns = Ms(50);
  params.defaults.dns_ttl = Seconds(10);
  SimTestEnv env(params);
  FetchResult first = env.Fetch("http://a.test/");
  CHECK(first.dns() == Ms(50));
  CHECK_FALSE(first.connection.dns_from_cache);
  // Another port: another pool group and connection, the same name.
  FetchResult cached = env.Fetch("http://a.test:8080/");
  REQUIRE(cached.result == OK);
  CHECK_FALSE(cached.timing.socket_reused);
  CHECK(cached.connection.dns_from_cache);
  CHECK(cached.dns() == Ms(0));
  CHECK(cached.total() == Ms(100 + 150));
  CHECK(env.stats().dns_lookups == 1);
  env.Advance(Seconds(11));
  FetchResult expired = env.Fetch("http://a.test:8081/");
  CHECK_FALSE(expired.connection.dns_from_cache);
  CHECK(expired.dns() == Ms(50));
  CHECK(env.stats().dns_lookups == 2);
  CHECK(env.responder.requests[1].host == "a.test:8080");
}

TEST_CASE("sim: the radio's promotion delay is paid once after each idle period",
          "[sim][timing][radio]") {
  NetworkParams params = SimTestEnv::WorkedExample();
  std::string error;
  REQUIRE(params.Set("radio", "on", &error));
  REQUIRE(params.Set("radio_promotion_ms", "100", &error));
  REQUIRE(params.Set("radio_tail_ms", "10000", &error));
  SimTestEnv env(params);
  FetchResult first = env.Fetch("https://a.test/");
  CHECK(first.total() == Ms(470 + 100));
  CHECK(first.dns() == Ms(150));  // the lookup waited for the radio
  CHECK(env.stats().radio_promotions == 1);
  FetchResult again = env.Fetch("https://a.test/");  // radio still active
  CHECK(again.timing.socket_reused);
  CHECK(again.total() == Ms(180));
  CHECK(env.stats().radio_promotions == 1);
  env.Advance(Seconds(20));  // past the tail: idle
  FetchResult later = env.Fetch("https://a.test/");
  CHECK(later.timing.socket_reused);
  CHECK(later.total() == Ms(180 + 100));
  CHECK(env.stats().radio_promotions == 2);
}

TEST_CASE("sim: a disconnected radio pays the promotion and the reconnection",
          "[sim][timing][radio]") {
  NetworkParams params = SimTestEnv::WorkedExample();
  std::string error;
  REQUIRE(params.Set("radio", "on", &error));
  REQUIRE(params.Set("radio_promotion_ms", "100", &error));
  REQUIRE(params.Set("radio_tail_ms", "1000", &error));
  REQUIRE(params.Set("radio_disconnect_ms", "5000", &error));
  REQUIRE(params.Set("radio_reconnect_ms", "400", &error));
  SimTestEnv env(params);
  FetchResult first = env.Fetch("https://a.test/");  // starts idle, not disconnected
  CHECK(first.total() == Ms(470 + 100));
  env.Advance(Seconds(3));  // past the tail (1 s), not yet disconnected (1 + 5 s)
  FetchResult idle = env.Fetch("https://a.test/");
  CHECK(idle.timing.socket_reused);
  CHECK(idle.total() == Ms(180 + 100));
  env.Advance(Seconds(7));  // past tail + disconnect_after
  FetchResult disconnected = env.Fetch("https://a.test/");
  CHECK(disconnected.timing.socket_reused);
  CHECK(disconnected.total() == Ms(180 + 100 + 400));
  CHECK(env.stats().radio_promotions == 3);
}

}  // namespace
}  // namespace netstack::test
