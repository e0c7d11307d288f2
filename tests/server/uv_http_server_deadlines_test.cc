// The internals page's HTTP server's deadlines, on real loopback sockets with the deadlines on a
// VirtualScheduler: the test moves time by hand, so each case checks the millisecond before a
// deadline and the one at it without waiting or measuring anything.
#include <catch2/catch.hpp>

#include "net/base/virtual_scheduler.h"
#include "tests/server/uv_http_server_test_util.h"

namespace netstack {
namespace {

using namespace server_test;

constexpr size_t kBigAnswerBytes = 8 * 1024 * 1024;

struct Env {
  Loop loop;
  VirtualScheduler time;
  std::vector<UvHttpServer::Respond> kept;
  std::unique_ptr<UvHttpServer> server;

  explicit Env(UvHttpServer::Limits limits = {}) {
    server = StartServer(
        loop,
        [this](const HttpServerRequest& request, UvHttpServer::Respond respond) {
          if (request.path == "/hold") {
            kept.push_back(std::move(respond));
            return;
          }
          HttpServerResponse response;
          response.body = request.path == "/big"
                              ? std::string(kBigAnswerBytes, 'x')
                              : "{\"size\":" + std::to_string(request.body.size()) + "}";
          respond(std::move(response));
        },
        limits, &time);
  }
  ~Env() { server.reset(); }

  // Lets the server take in what the clients sent, moves virtual time on, then lets the loop
  // carry out what the deadlines did.
  void Advance(int64_t ms) {
    loop.RunPending();
    time.AdvanceBy(Milliseconds(ms));
    loop.RunPending();
  }
  // Runs the loop until the server has `n` connections.
  void WaitConnections(size_t n) {
    REQUIRE(loop.RunUntil([&] { return server->connection_count() == n; }));
  }
  // Runs the loop until `done` holds (the server took in what a client sent).
  void RunUntil(const std::function<bool()>& done) { REQUIRE(loop.RunUntil(done)); }
};

void CheckTimeout(std::optional<Response> response, const std::string& what) {
  REQUIRE(response);
  CHECK(response->status == 408);
  CHECK(response->headers["connection"] == "close");
  CHECK(response->body == "{\"error\":\"" + what + " not complete within 10000 ms\"}");
}

TEST_CASE("server deadlines: the first head must arrive within its timeout from accept",
          "[server]") {
  Env env;
  Client silent(env.server->port());
  env.WaitConnections(1);
  env.Advance(9'999);
  CHECK(silent.Pump());
  CHECK(silent.pending().empty());
  env.Advance(1);
  CheckTimeout(silent.ReadResponse(env.loop), "request head");
  CHECK(silent.WaitClosed(env.loop));
  CHECK(env.server->stats().head_timeouts == 1);
}

TEST_CASE("server deadlines: bytes trickling in do not move the head deadline", "[server]") {
  Env env;
  Client slow(env.server->port());
  env.WaitConnections(1);
  const std::string head = "GET /slow HTTP/1.1\r\nHost: h\r\nX-Slow: ";
  slow.Send(head);
  uint64_t served = 0;
  for (int i = 0; i < 99; ++i) {  // a byte every 100 ms for 9.9 s
    env.Advance(100);
    slow.Send("a");
    served = env.server->stats().head_timeouts;
  }
  CHECK(served == 0);
  CHECK(slow.Pump());
  env.Advance(100);
  CheckTimeout(slow.ReadResponse(env.loop), "request head");
  CHECK(env.server->stats().head_timeouts == 1);
  CHECK(env.server->requests_served() == 1);  // the 408
}

TEST_CASE("server deadlines: keep-alive runs from the answer, a later head from its first byte",
          "[server]") {
  Env env;
  Client client(env.server->port());
  env.Advance(9'000);  // most of the first head's time used up before it is sent
  client.Send(kGet);
  auto first = client.ReadResponse(env.loop);
  REQUIRE(first);
  CHECK(first->status == 200);
  // Keep-alive: 30 s from the answer's write.
  env.Advance(29'999);
  CHECK(client.Pump());
  // The next request starts 1 ms before the keep-alive deadline: its head has 10 s from here.
  client.Send("GET /next HTTP/1.1\r\n");
  env.Advance(9'999);
  CHECK(client.Pump());
  CHECK(client.pending().empty());
  env.Advance(1);
  CheckTimeout(client.ReadResponse(env.loop), "request head");
  CHECK(env.server->stats().keep_alive_timeouts == 0);
}

TEST_CASE("server deadlines: an idle keep-alive connection is closed without an answer",
          "[server]") {
  UvHttpServer::Limits limits;
  limits.keep_alive_timeout_ms = 5'000;
  Env env(limits);
  Client client(env.server->port());
  client.Send(kGet);
  REQUIRE(client.ReadResponse(env.loop));
  env.Advance(4'999);
  CHECK(client.Pump());
  env.Advance(1);
  CHECK(client.WaitClosed(env.loop));
  CHECK(client.pending().empty());
  CHECK(env.server->stats().keep_alive_timeouts == 1);
  CHECK(env.server->stats().head_timeouts == 0);
}

TEST_CASE("server deadlines: the body has its own deadline from the end of the head", "[server]") {
  Env env;
  Client client(env.server->port());
  env.WaitConnections(1);
  env.Advance(9'000);
  // The head ends at 9 s (its deadline was 10 s from accept); the body now has until 19 s.
  client.Send("POST /upload HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc");
  env.Advance(1'000);  // the head's deadline, which no longer applies
  CHECK(client.Pump());
  client.Send("def");
  env.Advance(8'999);
  CHECK(client.Pump());
  CHECK(client.pending().empty());
  env.Advance(1);
  CheckTimeout(client.ReadResponse(env.loop), "request body");
  CHECK(env.server->stats().body_timeouts == 1);
  CHECK(env.server->stats().head_timeouts == 0);

  // A body that completes in time is served.
  Client quick(env.server->port());
  quick.Send("POST /upload HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\n");
  env.RunUntil([&] { return env.server->connection_count() == 1; });
  env.Advance(9'999);
  quick.Send("xyz");
  auto served = quick.ReadResponse(env.loop);
  REQUIRE(served);
  CHECK(served->status == 200);
  CHECK(served->body == "{\"size\":3}");
}

TEST_CASE("server deadlines: none runs while the handler works on an answer", "[server]") {
  Env env;
  Client client(env.server->port());
  client.Send("GET /hold HTTP/1.1\r\nHost: h\r\n\r\n");
  env.RunUntil([&] { return env.kept.size() == 1; });
  env.Advance(3'600'000);
  CHECK(client.Pump());
  env.kept[0](HttpServerResponse());
  auto response = client.ReadResponse(env.loop);
  REQUIRE(response);
  CHECK(response->status == 200);
  UvHttpServer::Stats stats = env.server->stats();
  CHECK(stats.head_timeouts + stats.body_timeouts + stats.keep_alive_timeouts +
            stats.send_timeouts ==
        0);
}

TEST_CASE("server deadlines: a client that stops reading its answer is closed", "[server]") {
  Env env;
  Client client(env.server->port(), /*receive_buffer=*/4096);
  client.Send("GET /big HTTP/1.1\r\nHost: h\r\n\r\n");
  env.RunUntil([&] { return env.server->requests_served() == 1; });
  // 8 MiB cannot all leave while the client reads nothing: no progress for 30 s closes it.
  env.Advance(29'999);
  CHECK(env.server->stats().send_timeouts == 0);
  CHECK(env.server->connection_count() == 1);
  env.Advance(1);
  CHECK(env.server->stats().send_timeouts == 1);
  CHECK(env.server->connection_count() == 0);
}

TEST_CASE("server deadlines: a slow reader making progress is not closed", "[server]") {
  Env env;
  Client client(env.server->port(), /*receive_buffer=*/4096);
  client.Send("GET /big HTTP/1.1\r\nHost: h\r\n\r\n");
  env.RunUntil([&] { return env.server->requests_served() == 1; });
  // Every 20 s of virtual time the client reads what the kernel holds (the server refills it
  // between reads): each refill is progress, so the 30 s send deadline keeps moving.
  std::optional<Response> response;
  int steps = 0;
  while (!response && steps < 1000) {
    env.Advance(20'000);
    ++steps;
    const size_t before = client.pending().size();
    // The server's refill is a real write on the loop: run it until the bytes are there, rather
    // than reading once and racing it (no virtual time passes meanwhile).
    env.RunUntil([&] {
      client.Pump();
      return client.pending().size() > before;
    });
    CHECK(client.pending().size() > before);
    response = client.TakeReceivedResponse();
  }
  CHECK(steps >= 2);  // the deadline was reached at least once, and moved
  CHECK(env.server->stats().send_timeouts == 0);
  REQUIRE(response);
  CHECK(response->body.size() == kBigAnswerBytes);
}

}  // namespace
}  // namespace netstack
