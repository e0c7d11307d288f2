// The internals page's HTTP server at its bounds, on a real loopback socket: the connection
// limit, eviction and 503s, re-entrancy of late answers, queued-write limits. (Deadlines:
// uv_http_server_deadlines_test.cc; many clients at once: uv_http_server_flood_test.cc.)
#include <catch2/catch.hpp>

#include "tests/server/uv_http_server_test_util.h"

namespace netstack {
namespace {

using namespace server_test;

struct HoldHandler {
  std::vector<UvHttpServer::Respond> kept;
  int answered = 0;
  UvHttpServer::Handler Get() {
    return [this](const HttpServerRequest& request, UvHttpServer::Respond respond) {
      if (request.path == "/hold") {
        kept.push_back(std::move(respond));
        return;
      }
      ++answered;
      HttpServerResponse response;
      response.body = "{\"path\":\"" + request.path + "\"}";
      respond(std::move(response));
    };
  }
};

// A 503 as the server answers one for lack of room.
void CheckBusy(std::optional<Response> response) {
  REQUIRE(response);
  CHECK(response->status == 503);
  CHECK(response->headers["retry-after"] == "1");
  CHECK(response->headers["connection"] == "close");
  CHECK(response->body.find("{\"error\":\"server busy") == 0);
}

TEST_CASE("server: at the connection bound the connection waiting longest makes room", "[server]") {
  Loop loop;
  HoldHandler handler;
  UvHttpServer::Limits limits;
  limits.max_connections = 2;
  auto server = StartServer(loop, handler.Get(), limits);
  Client a(server->port());
  Client b(server->port());
  REQUIRE(loop.RunUntil([&] { return server->connection_count() == 2; }));
  a.Send(kGet);
  REQUIRE(a.ReadResponse(loop));  // a made progress after b was accepted

  // b has sent nothing since it was accepted, before a's answer: it is told 503 and closed,
  // and the new connection is served.
  Client first(server->port());
  CheckBusy(b.ReadResponse(loop));
  CHECK(b.WaitClosed(loop));
  first.Send(kGet);
  CHECK(first.ReadResponse(loop));
  CHECK(server->connection_count() == 2);

  // A request head trickling in is no progress: a (answered before `first`) is the stalest even
  // though it sent bytes last.
  a.Send("GET /slow HTTP/1.1\r\nHo");
  loop.RunUntil([&] { return !a.Pump() || server->requests_served() == 2; });
  Client second(server->port());
  CheckBusy(a.ReadResponse(loop));
  CHECK(a.WaitClosed(loop));
  first.Send(kGet);
  CHECK(first.ReadResponse(loop));

  // Every connection has a request in progress: the new connection is answered 503.
  first.Send("GET /hold HTTP/1.1\r\nHost: h\r\n\r\n");
  second.Send("GET /hold HTTP/1.1\r\nHost: h\r\n\r\n");
  REQUIRE(loop.RunUntil([&] { return handler.kept.size() == 2; }));
  Client refused(server->port());
  CheckBusy(refused.ReadResponse(loop));
  CHECK(refused.WaitClosed(loop));
  CHECK(refused.pending().empty());
  CHECK(server->connection_count() == 2);
  UvHttpServer::Stats stats = server->stats();
  CHECK(stats.evicted_waiting == 2);  // b, then a
  CHECK(stats.evicted_idle == 0);
  CHECK(stats.rejected_full == 1);
  CHECK(stats.accepted == 5);
  CHECK(stats.peak_open == 2);
  handler.kept[0](HttpServerResponse());
  handler.kept[1](HttpServerResponse());
  CHECK(first.ReadResponse(loop));
  CHECK(second.ReadResponse(loop));

  // A slot freed is usable again.
  first.CloseSocket();
  REQUIRE(loop.RunUntil([&] { return server->connection_count() == 1; }));
  Client again(server->port());
  again.Send(kGet);
  CHECK(again.ReadResponse(loop));
}

TEST_CASE("server: an idle keep-alive connection is closed for a new one before a waiting one",
          "[server]") {
  Loop loop;
  HoldHandler handler;
  UvHttpServer::Limits limits;
  limits.max_connections = 2;
  auto server = StartServer(loop, handler.Get(), limits);
  Client idle(server->port());
  idle.Send(kGet);
  REQUIRE(idle.ReadResponse(loop));
  // A lingering connection (answered with Connection: close, still draining) goes first of
  // all, before the idle one: make one and let it be evicted.
  Client done(server->port());
  done.Send("GET /a HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  REQUIRE(done.ReadResponse(loop));
  Client third(server->port());
  CHECK(loop.RunUntil([&] { return server->stats().evicted_idle == 1; }));
  CHECK(server->connection_count() == 2);
  // `idle` answered before `third` was accepted: it has waited longest and goes, silently (a
  // keep-alive connection may close between requests).
  Client fourth(server->port());
  CHECK(idle.WaitClosed(loop));
  CHECK(idle.pending().empty());
  third.Send(kGet);
  fourth.Send(kGet);
  CHECK(third.ReadResponse(loop));
  CHECK(fourth.ReadResponse(loop));
  UvHttpServer::Stats stats = server->stats();
  CHECK(stats.evicted_idle == 2);
  CHECK(stats.evicted_waiting == 0);
  CHECK(stats.rejected_full == 0);
}

TEST_CASE("server: a burst of new connections does not evict one not yet read", "[server]") {
  Loop loop;
  HoldHandler handler;
  UvHttpServer::Limits limits;
  limits.max_connections = 1;
  auto server = StartServer(loop, handler.Get(), limits);
  // Both wait in the listener's backlog and are accepted in one callback. The first has not
  // been read yet, so the second cannot take its place: it waits until the first was heard
  // (its request then keeps it busy, so the second is answered 503).
  Client first(server->port());
  first.Send("GET /hold HTTP/1.1\r\nHost: h\r\n\r\n");
  Client second(server->port());
  second.Send(kGet);
  auto busy = second.ReadResponse(loop);
  REQUIRE(busy);
  CHECK(busy->status == 503);
  REQUIRE(handler.kept.size() == 1);
  handler.kept[0](HttpServerResponse());
  auto served = first.ReadResponse(loop);
  REQUIRE(served);
  CHECK(served->status == 200);
  CHECK(server->stats().rejected_full == 1);
  CHECK(server->stats().evicted_waiting == 0);
}

TEST_CASE("server: a new connection waits in the backlog until the earlier ones can be judged",
          "[server]") {
  Loop loop;
  HoldHandler handler;
  UvHttpServer::Limits limits;
  limits.max_connections = 1;
  auto server = StartServer(loop, handler.Get(), limits);
  // `silent` is accepted first but sends nothing: once it has had its chance to be read, it is
  // the one that goes (503), and `talker`, which waited in the listener, is served.
  Client silent(server->port());
  Client talker(server->port());
  talker.Send(kGet);
  auto served = talker.ReadResponse(loop);
  REQUIRE(served);
  CHECK(served->status == 200);
  auto busy = silent.ReadResponse(loop);
  REQUIRE(busy);
  CHECK(busy->status == 503);
  UvHttpServer::Stats stats = server->stats();
  CHECK(stats.evicted_waiting == 1);
  CHECK(stats.rejected_full == 0);
  CHECK(stats.accepted == 2);
  CHECK(handler.answered == 1);
}

TEST_CASE("server: connections answered 503 drain apart, and the oldest goes at their bound",
          "[server]") {
  Loop loop;
  HoldHandler handler;
  UvHttpServer::Limits limits;
  limits.max_connections = 1;
  limits.max_rejected_connections = 1;
  limits.retry_after_s = 7;
  auto server = StartServer(loop, handler.Get(), limits);
  Client busy(server->port());
  busy.Send("GET /hold HTTP/1.1\r\nHost: h\r\n\r\n");
  REQUIRE(loop.RunUntil([&] { return handler.kept.size() == 1; }));
  Client a(server->port());
  auto first = a.ReadResponse(loop);
  REQUIRE(first);
  CHECK(first->status == 503);
  CHECK(first->headers["retry-after"] == "7");
  // `a` has its answer and the server's FIN, but has not closed: the server drains it.
  CHECK(server->stats().rejected_open == 1);
  Client b(server->port());
  auto second = b.ReadResponse(loop);
  REQUIRE(second);
  CHECK(second->status == 503);
  UvHttpServer::Stats stats = server->stats();  // `a` was closed at once for `b`
  CHECK(stats.rejected_full == 2);
  CHECK(stats.rejected_cut_short == 1);
  CHECK(stats.rejected_open == 1);
  CHECK(stats.open == 1);
  CHECK(stats.requests_served == 0);  // a 503 for lack of room is no request served
  handler.kept[0](HttpServerResponse());
  CHECK(busy.ReadResponse(loop));
}

TEST_CASE("server: the connection bound follows the file descriptor limit", "[server]") {
  CHECK(UvHttpServer::MaxConnectionsForFdLimit(0) == 16);
  CHECK(UvHttpServer::MaxConnectionsForFdLimit(256) == 16);
  CHECK(UvHttpServer::MaxConnectionsForFdLimit(1024) == 192);
  CHECK(UvHttpServer::MaxConnectionsForFdLimit(4096) == 960);
  CHECK(UvHttpServer::MaxConnectionsForFdLimit(uint64_t{1} << 20) == 1024);
  CHECK(UvHttpServer::FdSoftLimit() > 0);
}

TEST_CASE("server: a late answer never runs the handler inside Respond", "[server]") {
  Loop loop;
  std::vector<UvHttpServer::Respond> kept;
  bool inside_respond = false;
  std::vector<bool> second_ran_inside_respond;
  auto server =
      StartServer(loop, [&](const HttpServerRequest& request, UvHttpServer::Respond respond) {
        if (request.path == "/first") {
          kept.push_back(std::move(respond));  // answered later, as after a DNS lookup
          return;
        }
        second_ran_inside_respond.push_back(inside_respond);
        HttpServerResponse response;
        response.body = "{\"second\":true}";
        respond(std::move(response));
      });
  Client client(server->port());
  client.Send(
      "GET /first HTTP/1.1\r\nHost: h\r\n\r\n"
      "GET /second HTTP/1.1\r\nHost: h\r\n\r\n");
  REQUIRE(loop.RunUntil([&] { return kept.size() == 1; }));
  // Another component's completion callback delivers the first answer.
  HttpServerResponse first;
  first.body = "{\"first\":true}";
  inside_respond = true;
  kept[0](std::move(first));
  inside_respond = false;
  CHECK(second_ran_inside_respond.empty());
  auto a = client.ReadResponse(loop);
  auto b = client.ReadResponse(loop);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->body == "{\"first\":true}");
  CHECK(b->body == "{\"second\":true}");
  REQUIRE(second_ran_inside_respond.size() == 1);
  CHECK_FALSE(second_ran_inside_respond[0]);
}

TEST_CASE("server: a client that does not read holds back its pipelined requests", "[server]") {
  Loop loop;
  int calls = 0;
  const size_t kAnswerBytes = 1024 * 1024;
  auto server = StartServer(loop, [&](const HttpServerRequest&, UvHttpServer::Respond respond) {
    ++calls;
    HttpServerResponse big;
    big.body = std::string(kAnswerBytes, 'x');
    respond(std::move(big));
  });
  Client client(server->port(), /*receive_buffer=*/4096);
  const int kRequests = 12;
  std::string pipelined;
  for (int i = 0; i < kRequests; ++i) pipelined += kGet;
  client.Send(pipelined);
  int iterations = 0;
  REQUIRE(loop.RunUntil([&] { return ++iterations > 300; }));
  // The kernel's socket buffers take a few answers at most; without the pause mark every
  // request would have been answered (and queued) at once.
  CHECK(calls >= 1);
  CHECK(calls <= 6);
  // Once the client reads, the writes drain and the held-back requests are served in order.
  for (int i = 0; i < kRequests; ++i) {
    auto response = client.ReadResponse(loop);
    REQUIRE(response);
    CHECK(response->body.size() == kAnswerBytes);
  }
  CHECK(calls == kRequests);
}

TEST_CASE("server: the bound on bytes queued across connections closes the one passing it",
          "[server]") {
  Loop loop;
  int calls = 0;
  const size_t kAnswerBytes = 8 * 1024 * 1024;
  UvHttpServer::Limits limits;
  limits.max_total_queued_write_bytes = 12 * 1024 * 1024;
  auto server = StartServer(
      loop,
      [&](const HttpServerRequest&, UvHttpServer::Respond respond) {
        ++calls;
        HttpServerResponse big;
        big.body = std::string(kAnswerBytes, 'y');
        respond(std::move(big));
      },
      limits);
  Client reader(server->port(), /*receive_buffer=*/4096);
  Client passing(server->port(), /*receive_buffer=*/4096);
  reader.Send(kGet);
  REQUIRE(loop.RunUntil([&] { return calls == 1; }));
  // 8 MiB is still queued for `reader` (it has not read): 8 more would pass 12.
  passing.Send(kGet);
  CHECK(passing.WaitClosed(loop));
  CHECK(calls == 2);
  CHECK(passing.pending().empty());
  // The first connection keeps its answer, and once it is written the budget is free again.
  auto response = reader.ReadResponse(loop);
  REQUIRE(response);
  CHECK(response->body.size() == kAnswerBytes);
  Client later(server->port());
  later.Send(kGet);
  auto again = later.ReadResponse(loop);
  REQUIRE(again);
  CHECK(again->body.size() == kAnswerBytes);
}

TEST_CASE("server: an answer over the write bound closes the connection", "[server]") {
  Loop loop;
  UvHttpServer::Limits limits;
  limits.max_queued_write_bytes = 1024;
  auto server = StartServer(
      loop,
      [](const HttpServerRequest&, UvHttpServer::Respond respond) {
        HttpServerResponse big;
        big.body = std::string(4096, 'x');
        respond(std::move(big));
      },
      limits);
  Client client(server->port());
  client.Send(kGet);
  CHECK(client.WaitClosed(loop));
  CHECK(client.pending().empty());
}

}  // namespace
}  // namespace netstack
