// What the modelled servers and connections do besides timing: closing, errors, the NetLog,
// determinism.
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tests/sim/sim_test_env.h"

namespace netstack::test {
namespace {

TEST_CASE("sim: keep-alive: sequential requests share one connection", "[sim][server]") {
  SimTestEnv env(SimTestEnv::PlainNetwork());
  for (int i = 0; i < 5; ++i) {
    FetchResult r = env.Fetch("http://a.test/size/" + std::to_string(1000 * i));
    REQUIRE(r.result == OK);
    CHECK(r.body_bytes == 1000 * i);
    CHECK(r.timing.socket_reused == (i > 0));
  }
  CHECK(env.stats().tcp_connects == 1);
  CHECK(env.stats().requests == 5);
}

TEST_CASE("sim: Connection: close in a response closes the connection after it", "[sim][server]") {
  SimTestEnv env(SimTestEnv::PlainNetwork());
  FetchResult first = env.Fetch("http://a.test/close/500");
  FetchResult second = env.Fetch("http://a.test/close/500");
  REQUIRE(first.result == OK);
  REQUIRE(second.result == OK);
  CHECK(second.body_bytes == 500);
  CHECK_FALSE(second.timing.socket_reused);
  CHECK(env.stats().tcp_connects == 2);
}

TEST_CASE("sim: a body delimited by the close: the server closes after sending it",
          "[sim][server]") {
  SimTestEnv env(SimTestEnv::PlainNetwork());
  FetchResult r = env.Fetch("http://a.test/unframed/3000");
  REQUIRE(r.result == OK);
  CHECK(r.body_bytes == 3000);
  CHECK(r.response() == Milliseconds(150));
  FetchResult next = env.Fetch("http://a.test/");
  CHECK_FALSE(next.timing.socket_reused);
}

TEST_CASE("sim: a HEAD response carries no body on the wire", "[sim][server]") {
  SimTestEnv env(SimTestEnv::PlainNetwork());
  FetchResult r = env.Fetch("http://a.test/size/5000", "HEAD");
  REQUIRE(r.result == OK);
  CHECK(r.body_bytes == 0);
  CHECK(env.stats().bytes_down == static_cast<int64_t>(TestResponder::Head(5000).size()));
  FetchResult next = env.Fetch("http://a.test/size/10");
  CHECK(next.timing.socket_reused);  // the connection stayed in step
  CHECK(next.body_bytes == 10);
}

TEST_CASE("sim: localhost and IP-literal hosts are modelled servers reached without DNS",
          "[sim][literal]") {
  SimTestEnv env(SimTestEnv::PlainNetwork());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"http://localhost:8080/size/10", "localhost:8080"},
      {"http://127.0.0.1:9000/size/10", "127.0.0.1:9000"},
      {"http://[::1]:8000/size/10", "[::1]:8000"},
      {"http://192.0.2.7/size/10", "192.0.2.7"}};
  for (const auto& [url, host_header] : cases) {
    CAPTURE(url);
    FetchResult r = env.Fetch(url);
    REQUIRE(r.result == OK);
    CHECK(r.body_bytes == 10);
    CHECK(r.dns() == TimeDelta::zero());
    CHECK(r.tcp() == Milliseconds(100));   // SYN, SYN-ACK: one round trip
    CHECK(r.ttfb() == Milliseconds(150));  // rtt/2 + server 50 + rtt/2
    REQUIRE_FALSE(env.responder.requests.empty());
    CHECK(env.responder.requests.back().host == host_header);
  }
  CHECK(env.stats().dns_lookups == 0);
  CHECK(env.stats().tcp_connects == cases.size());
}

TEST_CASE("sim: per-host keys apply to localhost and IP literals by the URL's host",
          "[sim][literal]") {
  NetworkParams params = SimTestEnv::PlainNetwork();
  std::string error;
  REQUIRE(params.Set("localhost:rtt_ms", "10", &error));
  REQUIRE(params.Set("127.0.0.1:rtt_ms", "20", &error));
  REQUIRE(params.Set("[::1]:rtt_ms", "30", &error));
  REQUIRE(params.Set("10.0.0.1:rtt_ms", "70", &error));
  SimTestEnv env(params);
  // localhost reaches loopback as 127.0.0.1 or ::1 does, but is its own host: the URL names it.
  CHECK(env.Fetch("http://localhost:8080/").tcp() == Milliseconds(10));
  CHECK(env.Fetch("http://127.0.0.1:8080/").tcp() == Milliseconds(20));
  CHECK(env.Fetch("http://[::1]:8080/").tcp() == Milliseconds(30));
  // A literal is never the host DNS gave that address to: a.test is 10.0.0.1 in the model.
  FetchResult named = env.Fetch("http://a.test/");
  REQUIRE(env.network->HostForAddress(*IPAddress::Parse("10.0.0.1")) == "a.test");
  FetchResult literal = env.Fetch("http://10.0.0.1/");
  REQUIRE(literal.result == OK);
  CHECK(named.tcp() == Milliseconds(100));
  CHECK(literal.tcp() == Milliseconds(70));
  CHECK_FALSE(literal.timing.socket_reused);
  CHECK(env.stats().dns_lookups == 1);
}

TEST_CASE("sim: a request the server cannot parse closes the connection: ERR_EMPTY_RESPONSE",
          "[sim][errors]") {
  SimTestEnv env(SimTestEnv::PlainNetwork());
  // A token the client sends, but no method http-parser (the server) knows.
  FetchResult r = env.Fetch("http://a.test/", "BREW");
  CHECK(r.result == ERR_EMPTY_RESPONSE);
  CHECK(env.responder.requests.empty());
  CHECK(env.stats().requests == 0);
  // The request arrives after 50 ms, the server's FIN 50 ms later.
  CHECK(r.end - r.timing.send_end == Milliseconds(100));
  // The next request opens a new connection and is answered.
  FetchResult next = env.Fetch("http://a.test/");
  CHECK(next.result == OK);
  CHECK(env.stats().tcp_connects == 2);
}

TEST_CASE("sim: the request as the server parsed it", "[sim][server]") {
  SimTestEnv env(SimTestEnv::PlainNetwork());
  FetchResult r = env.Fetch("http://Example.TEST:8080/path/x?q=1#frag", "POST", "field=value");
  REQUIRE(r.result == OK);
  REQUIRE(env.responder.requests.size() == 1);
  const SimRequest& q = env.responder.requests[0];
  CHECK(q.method == "POST");
  CHECK(q.scheme == "http");
  CHECK(q.host == "example.test:8080");
  CHECK(q.target == "/path/x?q=1");
  CHECK(q.body_bytes == 11);
  CHECK(q.arrived_at == r.timing.send_end + Milliseconds(50));
}

class Recorder : public NetLog::Observer {
 public:
  explicit Recorder(NetLog* log) : log_(log) { log_->AddObserver(this); }
  ~Recorder() override { log_->RemoveObserver(this); }
  void OnAddEntry(const NetLogEntry& entry) override { entries.push_back(entry); }
  size_t Count(NetLogEventType type, NetLogEventPhase phase, uint32_t source) const {
    size_t n = 0;
    for (const NetLogEntry& e : entries) {
      n += e.type == type && e.phase == phase && e.source.id == source;
    }
    return n;
  }
  std::vector<NetLogEntry> entries;

 private:
  NetLog* log_;
};

TEST_CASE("sim: sockets log like live ones: SOCKET_ALIVE, TCP_CONNECT, SSL_CONNECT, bytes",
          "[sim][netlog]") {
  SimTestEnv env(SimTestEnv::WorkedExample());
  Recorder recorder(&env.net_log);
  FetchResult r = env.Fetch("https://a.test/size/2000");
  REQUIRE(r.result == OK);
  const uint32_t socket = r.timing.socket_log_id;
  REQUIRE(socket != 0);
  CHECK(r.connection.socket_id == socket);
  using P = NetLogEventPhase;
  CHECK(recorder.Count(NetLogEventType::SOCKET_ALIVE, P::BEGIN, socket) == 1);
  CHECK(recorder.Count(NetLogEventType::TCP_CONNECT, P::BEGIN, socket) == 1);
  CHECK(recorder.Count(NetLogEventType::TCP_CONNECT, P::END, socket) == 1);
  CHECK(recorder.Count(NetLogEventType::TCP_CONNECT_ATTEMPT, P::END, socket) == 1);
  CHECK(recorder.Count(NetLogEventType::SSL_CONNECT, P::BEGIN, socket) == 1);
  CHECK(recorder.Count(NetLogEventType::SSL_CONNECT, P::END, socket) == 1);
  CHECK(recorder.Count(NetLogEventType::SOCKET_BYTES_SENT, P::NONE, socket) == 1);
  CHECK(recorder.Count(NetLogEventType::SOCKET_BYTES_RECEIVED, P::NONE, socket) >= 1);
  int64_t received = 0;
  for (const NetLogEntry& e : recorder.entries) {
    if (e.type == NetLogEventType::SOCKET_BYTES_RECEIVED && e.source.id == socket) {
      received += e.params["byte_count"].get<int64_t>();
    }
    if (e.type == NetLogEventType::SSL_CONNECT && e.phase == P::END) {
      CHECK(e.params["version"] == "TLSv1.2");
      CHECK(e.params["is_resumed"] == false);
    }
    if (e.type == NetLogEventType::SOCKET_ALIVE && e.phase == P::BEGIN && e.source.id == socket) {
      CHECK(e.source.type == NetLogSourceType::SOCKET);
      CHECK(e.params.contains("source_dependency"));
    }
  }
  CHECK(received == env.stats().bytes_down);
  env.context->socket_pool()->CloseIdleSockets();
  CHECK(recorder.Count(NetLogEventType::SOCKET_ALIVE, P::END, socket) == 1);
}

// Everything a run produced that could differ between two runs.
using Trace = std::vector<std::tuple<int, int64_t, int64_t, int64_t, int64_t, bool, uint32_t>>;

Trace RunWorkload() {
  NetworkParams params = *NetworkParams::Preset("slow-4g");
  std::string error;
  REQUIRE(params.Set("cdn.test:rtt_ms", "40", &error));
  REQUIRE(params.Set("api.test:server_ms", "300", &error));
  SimTestEnv env(params);
  std::vector<std::string> urls;
  const char* hosts[] = {"https://www.test", "https://cdn.test", "http://api.test"};
  for (int i = 0; i < 24; ++i) {
    urls.push_back(std::string(hosts[i % 3]) + "/size/" + std::to_string(1000 + 7919 * i));
  }
  Trace trace;
  for (int round = 0; round < 2; ++round) {
    for (const FetchResult& r : env.FetchAll(urls)) {
      trace.emplace_back(r.result, (r.start - SimTestEnv::kEpoch).count(),
                         (r.end - SimTestEnv::kEpoch).count(),
                         (r.timing.receive_headers_start - SimTestEnv::kEpoch).count(),
                         r.body_bytes, r.timing.socket_reused, r.timing.socket_log_id);
    }
    env.Advance(Seconds(3));
  }
  const SimNetwork::Stats& s = env.stats();
  trace.emplace_back(0, static_cast<int64_t>(s.tcp_connects), s.bytes_down, s.bytes_up,
                     static_cast<int64_t>(s.tls_resumed), false, static_cast<uint32_t>(s.requests));
  return trace;
}

TEST_CASE("sim: the same setup twice gives identical timings", "[sim][determinism]") {
  Trace first = RunWorkload();
  Trace second = RunWorkload();
  REQUIRE(first.size() == 49);
  CHECK(first == second);
  for (size_t i = 0; i + 1 < first.size(); ++i) CHECK(std::get<0>(first[i]) == OK);
}

}  // namespace
}  // namespace netstack::test
