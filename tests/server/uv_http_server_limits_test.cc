// The internals page's HTTP server at its bounds, on a real loopback socket: the connection
// limit and eviction, re-entrancy of late answers, queued-write limits, the request deadline and
// the idle timeout.
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

TEST_CASE("server: at the connection bound the stalest idle connection makes room", "[server]") {
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

  // b is idle keep-alive and the stalest: it is closed, and the new connection is served.
  Client first(server->port());
  CHECK(b.WaitClosed(loop));
  first.Send(kGet);
  CHECK(first.ReadResponse(loop));
  CHECK(server->connection_count() == 2);

  // A request head trickling in is no progress: a (answered before `first`) is the stalest even
  // though it sent bytes last.
  a.Send("GET /slow HTTP/1.1\r\nHo");
  loop.RunUntil([&] { return !a.Pump() || server->requests_served() == 2; });
  Client second(server->port());
  CHECK(a.WaitClosed(loop));
  first.Send(kGet);
  CHECK(first.ReadResponse(loop));

  // Every connection has a request in progress: the new connection is the one closed.
  first.Send("GET /hold HTTP/1.1\r\nHost: h\r\n\r\n");
  second.Send("GET /hold HTTP/1.1\r\nHost: h\r\n\r\n");
  REQUIRE(loop.RunUntil([&] { return handler.kept.size() == 2; }));
  Client refused(server->port());
  CHECK(refused.WaitClosed(loop));
  CHECK(refused.pending().empty());
  CHECK(server->connection_count() == 2);
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

TEST_CASE("server: a request trickling in is answered 408 at its deadline", "[server]") {
  Loop loop;
  HoldHandler handler;
  UvHttpServer::Limits limits;
  limits.request_timeout_ms = 50;  // the idle timeout stays 30 s: reads restart only that
  auto server = StartServer(loop, handler.Get(), limits);
  Client slow(server->port());
  slow.Send("GET /slow HTTP/1.1\r\nHost: h\r\nX-Slow: ");
  int iterations = 0;
  CHECK(loop.RunUntil([&] {
    if (++iterations % 5 == 0) slow.TrySend("a");  // a byte every few ms
    return !slow.Pump();
  }));
  auto response = slow.ReadResponse(loop);
  REQUIRE(response);
  CHECK(response->status == 408);
  CHECK(response->headers["connection"] == "close");
  CHECK(response->body.find("{\"error\":") == 0);
  CHECK(handler.answered == 0);

  // The deadline is per request: neither an idle keep-alive gap nor a slow handler counts.
  Client patient(server->port());
  patient.Send(kGet);
  REQUIRE(patient.ReadResponse(loop));
  iterations = 0;
  loop.RunUntil([&] { return ++iterations > 200; });  // well past 50 ms
  patient.Send("GET /hold HTTP/1.1\r\nHost: h\r\n\r\n");
  REQUIRE(loop.RunUntil([&] { return handler.kept.size() == 1; }));
  iterations = 0;
  loop.RunUntil([&] { return ++iterations > 200; });
  handler.kept[0](HttpServerResponse());
  auto held = patient.ReadResponse(loop);
  REQUIRE(held);
  CHECK(held->status == 200);
  patient.Send(kGet);
  auto last = patient.ReadResponse(loop);
  REQUIRE(last);
  CHECK(last->status == 200);
}

TEST_CASE("server: an idle connection is closed after the timeout", "[server]") {
  Loop loop;
  EchoHandler echo;
  UvHttpServer::Limits limits;
  limits.idle_timeout_ms = 20;
  auto server = StartServer(loop, echo.Get(), limits);
  Client idle(server->port());
  CHECK(idle.WaitClosed(loop));
  Client after_request(server->port());
  after_request.Send(kGet);
  CHECK(after_request.ReadResponse(loop));
  CHECK(after_request.WaitClosed(loop));
  CHECK(loop.RunUntil([&] { return server->connection_count() == 0; }));
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
