// The TLS handshake's flights and TLS records on the modelled link (tls_server_flight_bytes,
// tls_record_bytes): a handshake pays its flights' serialization besides its round trips, a
// resumed one sends no certificate, application data is readable per record. Virtual time,
// exact to the microsecond.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "tests/sim/sim_test_env.h"

namespace netstack::test {
namespace {

TimeDelta Ms(int64_t ms) { return Milliseconds(ms); }
TimeDelta Us(int64_t us) { return TimeDelta(us); }

// Serialization of `bytes` at 1 Mbit/s.
TimeDelta AtOneMbit(int64_t bytes) { return Us(bytes * 8); }

// rtt 100, dns 10, server 50, both links 1 Mbit/s, TLS 1.3.
NetworkParams SlowLink() {
  NetworkParams params = SimTestEnv::PlainNetwork();
  std::string error;
  REQUIRE(params.Set("down_kbps", "1000", &error));
  REQUIRE(params.Set("up_kbps", "1000", &error));
  REQUIRE(params.Set("tls", "1.3", &error));
  return params;
}

// Bytes read on `socket`, summed per instant: how much had become readable at each time.
class ReadRecorder : public NetLog::Observer {
 public:
  explicit ReadRecorder(NetLog* log) : log_(log) { log_->AddObserver(this); }
  ~ReadRecorder() override { log_->RemoveObserver(this); }
  void OnAddEntry(const NetLogEntry& entry) override {
    if (entry.type != NetLogEventType::SOCKET_BYTES_RECEIVED) return;
    reads[entry.source.id][entry.time] += entry.params["byte_count"].get<int64_t>();
  }
  std::map<uint32_t, std::map<TimeTicks, int64_t>> reads;

 private:
  NetLog* log_;
};

TEST_CASE("sim: a 4000-byte server flight at 1 Mbit/s adds its 32 ms to the handshake's RTT",
          "[sim][timing][tls]") {
  NetworkParams params = SlowLink();
  std::string error;
  SECTION("without it the handshake is its round trip") {
    SimTestEnv env(params);
    FetchResult r = env.Fetch("https://a.test/");
    REQUIRE(r.result == OK);
    CHECK(r.tls() == Ms(100));
  }
  SECTION("with it: the ClientHello (320 bytes) and the flight cross the link") {
    REQUIRE(params.Set("tls_server_flight_bytes", "4000", &error));
    SimTestEnv env(params);
    FetchResult r = env.Fetch("https://a.test/size/1000");
    REQUIRE(r.result == OK);
    CHECK(r.tls() == Ms(100) + AtOneMbit(320) + AtOneMbit(4000));
    CHECK(r.body_bytes == 1000);
    // The request follows the client's Finished (64 bytes) on the uplink; the response is the
    // application's first byte on the downlink.
    REQUIRE(env.responder.requests.size() == 1);
    CHECK(env.responder.requests[0].target == "/size/1000");
  }
  SECTION("a per-host flight applies to that host only") {
    REQUIRE(params.Set("b.test:tls_server_flight_bytes", "4000", &error));
    SimTestEnv env(params);
    CHECK(env.Fetch("https://a.test/").tls() == Ms(100));
    CHECK(env.Fetch("https://b.test/").tls() == Ms(100) + AtOneMbit(320) + AtOneMbit(4000));
  }
}

TEST_CASE("sim: a flight larger than the initial window takes a second round",
          "[sim][timing][tls]") {
  NetworkParams params = SimTestEnv::PlainNetwork();  // unlimited links
  std::string error;
  REQUIRE(params.Set("tls", "1.3", &error));
  REQUIRE(params.Set("tls_server_flight_bytes", "14600", &error));  // 10 x 1460: one round
  CHECK(SimTestEnv(params).Fetch("https://a.test/").tls() == Ms(100));
  REQUIRE(params.Set("tls_server_flight_bytes", "14601", &error));
  CHECK(SimTestEnv(params).Fetch("https://a.test/").tls() == Ms(200));
}

TEST_CASE("sim: a TLS 1.2 handshake's four flights cross the link", "[sim][timing][tls]") {
  NetworkParams params = SlowLink();
  std::string error;
  REQUIRE(params.Set("tls", "1.2", &error));
  REQUIRE(params.Set("tls_server_flight_bytes", "4000", &error));
  SimTestEnv env(params);
  FetchResult r = env.Fetch("https://a.test/");
  REQUIRE(r.result == OK);
  // ClientHello, the server's flight, the key exchange (130), the server's Finished (250).
  CHECK(r.tls() == Ms(200) + AtOneMbit(320 + 4000 + 130 + 250));
}

TEST_CASE("sim: a resumed handshake sends no certificate", "[sim][timing][tls]") {
  auto resumed_tls = [](TlsVersion version) {
    NetworkParams params = SlowLink();
    params.defaults.tls = version;
    std::string error;
    REQUIRE(params.Set("tls_server_flight_bytes", "4000", &error));
    SimTestEnv env(params);
    REQUIRE(env.Fetch("https://a.test/").result == OK);
    // Long responses: the reused socket stays busy while the other one connects.
    std::vector<FetchResult> both =
        env.FetchAll({"https://a.test/size/100000", "https://a.test/size/100001"});
    REQUIRE(both[0].result == OK);
    REQUIRE(both[1].result == OK);
    FetchResult fresh = both[0].timing.socket_reused ? both[1] : both[0];
    CHECK(fresh.connection.tls_resumed);
    return fresh.tls();
  };
  // TLS 1.2: its round trip, a ClientHello with the session (550), the short server flight
  // (160, sharing the downlink with the other response), no 4000-byte flight; TLS 1.3: 0-RTT,
  // the ClientHello leaves with the request.
  const TimeDelta tls12 = resumed_tls(TlsVersion::kTls12);
  CHECK(tls12 >= Ms(100) + AtOneMbit(550 + 160));
  CHECK(tls12 <= Ms(100) + AtOneMbit(550 + 2 * 160));
  CHECK(resumed_tls(TlsVersion::kTls13) == Ms(0));
}

TEST_CASE("sim: records: a 10 KB response in one record is readable at once at its end",
          "[sim][timing][tls]") {
  NetworkParams params = SlowLink();
  std::string error;
  const int64_t body = TestResponder::BodyForTotal(10'000);
  const std::string url = "https://a.test/size/" + std::to_string(body);
  SimTestEnv plain_env(params);
  FetchResult plain = plain_env.Fetch(url);
  REQUIRE(plain.result == OK);
  SECTION("readable as it arrives: the head first, the body over the link time") {
    CHECK(plain.timing.receive_end - plain.timing.receive_headers_start > Ms(70));
  }
  SECTION("tls_record_bytes=16384: one record, readable when its last byte arrived") {
    REQUIRE(params.Set("tls_record_bytes", "16384", &error));
    SimTestEnv env(params);
    ReadRecorder recorder(&env.net_log);
    FetchResult r = env.Fetch(url);
    REQUIRE(r.result == OK);
    CHECK(r.body_bytes == body);
    CHECK(r.timing.receive_end == r.timing.receive_headers_start);
    // The response ends as it did; only its head waits for the rest of its record.
    CHECK(r.response() == plain.response());
    CHECK(r.ttfb() == plain.response());
    const std::map<TimeTicks, int64_t>& reads = recorder.reads[r.timing.socket_log_id];
    REQUIRE(reads.size() == 1);
    CHECK(reads.begin()->second == 10'000);
  }
  SECTION("clear-text HTTP has no records") {
    REQUIRE(params.Set("tls_record_bytes", "16384", &error));
    SimTestEnv env(params);
    FetchResult r = env.Fetch("http://a.test/size/" + std::to_string(body));
    REQUIRE(r.result == OK);
    CHECK(r.timing.receive_end - r.timing.receive_headers_start > Ms(70));
  }
}

TEST_CASE("sim: records: a 40 KB response becomes readable in three records",
          "[sim][timing][tls]") {
  NetworkParams params = SlowLink();
  std::string error;
  REQUIRE(params.Set("tls_record_bytes", "16384", &error));
  SimTestEnv env(params);
  ReadRecorder recorder(&env.net_log);
  const int64_t body = TestResponder::BodyForTotal(40'000);
  FetchResult r = env.Fetch("https://a.test/size/" + std::to_string(body));
  REQUIRE(r.result == OK);
  CHECK(r.body_bytes == body);
  const std::map<TimeTicks, int64_t>& reads = recorder.reads[r.timing.socket_log_id];
  REQUIRE(reads.size() == 3);
  auto it = reads.begin();
  const TimeTicks first = it->first;
  CHECK(it->second == 16'384);
  ++it;
  CHECK(it->second == 16'384);
  CHECK(it->first - first == AtOneMbit(16'384));  // the link is busy: records back to back
  ++it;
  CHECK(it->second == 40'000 - 2 * 16'384);  // the last record is shorter
  CHECK(it->first == r.timing.receive_end);
  CHECK(r.timing.receive_headers_start == first);
}

TEST_CASE("sim: HTTP/2 over handshake flights and records", "[sim][timing][tls]") {
  NetworkParams params = SlowLink();
  std::string error;
  REQUIRE(params.Set("a.test:http2", "on", &error));
  REQUIRE(params.Set("tls_server_flight_bytes", "4000", &error));
  REQUIRE(params.Set("tls_record_bytes", "16384", &error));
  SimTestEnv env(params);
  std::vector<FetchResult> results =
      env.FetchAll({"https://a.test/size/30000", "https://a.test/size/500"});
  for (const FetchResult& r : results) {
    REQUIRE(r.result == OK);
    CHECK(r.connection.protocol == "h2");
  }
  CHECK(results[0].body_bytes == 30000);
  CHECK(results[1].body_bytes == 500);
  CHECK(env.responder.requests.size() == 2);
}

TEST_CASE("sim: on a FIFO link a new connection's handshake waits behind the queued bytes",
          "[sim][timing][tls]") {
  // b.test's lookup ends at 310 ms, while a.test's response is crossing the downlink.
  auto second_connection = [](const char* queue) {
    NetworkParams params = SlowLink();
    std::string error;
    REQUIRE(params.Set("b.test:dns_ms", "300", &error));
    REQUIRE(params.Set("tls_server_flight_bytes", "2000", &error));
    REQUIRE(params.Set("link_queue", queue, &error));
    SimTestEnv env(params);
    std::vector<FetchResult> results =
        env.FetchAll({"https://a.test/size/200000", "https://b.test/size/100"});
    REQUIRE(results[0].result == OK);
    REQUIRE(results[1].result == OK);
    CHECK(results[0].body_bytes == 200000);
    return results[1];
  };
  const FetchResult fair = second_connection("fair");
  const FetchResult fifo = second_connection("fifo");
  CHECK(fair.tcp() == Ms(100));  // the SYN-ACK does not cross the shared link
  // Fair: the flights get half the downlink; FIFO: the SYN-ACK and the server's flight wait
  // behind a.test's first round (14600 bytes, 117 ms at 1 Mbit/s) and the next ones.
  CHECK(fair.tls() >= Ms(100) + AtOneMbit(320) + AtOneMbit(2000));
  CHECK(fifo.tcp() >= Ms(100) + Ms(50));
  CHECK(fifo.tcp() + fifo.tls() > fair.tcp() + fair.tls() + Ms(50));
}

}  // namespace
}  // namespace netstack::test
