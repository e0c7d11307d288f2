// The internals page's HTTP server on a real loopback socket: answers, keep-alive and
// pipelining, late answers, refusals, Listen errors, teardown, serialization.
#include <catch2/catch.hpp>

#include "tests/server/uv_http_server_test_util.h"

namespace netstack {
namespace {

using namespace server_test;

TEST_CASE("server: answers a GET with the security headers", "[server]") {
  Loop loop;
  EchoHandler echo;
  auto server = StartServer(loop, echo.Get());
  Client client(server->port());
  client.Send(kGet);
  auto response = client.ReadResponse(loop);
  REQUIRE(response);
  CHECK(response->status == 200);
  CHECK(response->body == "{\"path\":\"/api/info\"}");
  CHECK(response->headers["content-type"] == "application/json; charset=utf-8");
  CHECK(response->headers["x-test"] == "yes");
  CHECK(response->headers["x-content-type-options"] == "nosniff");
  CHECK(response->headers["cache-control"] == "no-store");
  CHECK(response->headers["referrer-policy"] == "no-referrer");
  CHECK(response->headers["x-frame-options"] == "DENY");
  CHECK(response->headers["content-security-policy"].find("default-src 'self'") !=
        std::string::npos);
  CHECK(response->headers["connection"] == "keep-alive");
  REQUIRE(echo.seen.size() == 1);
  CHECK(echo.seen[0].query.at("x") == "1");
  CHECK(server->requests_served() == 1);
}

TEST_CASE("server: keep-alive carries two requests, and pipelined ones in order", "[server]") {
  Loop loop;
  EchoHandler echo;
  auto server = StartServer(loop, echo.Get());
  Client client(server->port());
  client.Send(kGet);
  auto first = client.ReadResponse(loop);
  REQUIRE(first);
  client.Send("GET /second HTTP/1.1\r\nHost: h\r\n\r\n");
  auto second = client.ReadResponse(loop);
  REQUIRE(second);
  CHECK(second->body == "{\"path\":\"/second\"}");
  CHECK(server->connection_count() == 1);
  // Pipelined: three in one write, the last closing.
  client.Send(
      "GET /a HTTP/1.1\r\nHost: h\r\n\r\nHEAD /b HTTP/1.1\r\nHost: h\r\n\r\n"
      "GET /c HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  auto a = client.ReadResponse(loop);
  auto b = client.ReadResponse(loop, /*head=*/true);
  auto c = client.ReadResponse(loop);
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(c);
  CHECK(a->body == "{\"path\":\"/a\"}");
  CHECK(b->body.empty());  // HEAD: no body, but the GET's length
  CHECK(b->headers["content-length"] == std::to_string(std::string("{\"path\":\"/b\"}").size()));
  CHECK(c->body == "{\"path\":\"/c\"}");
  CHECK(c->headers["connection"] == "close");
  CHECK(client.WaitClosed(loop));
  CHECK(client.pending().empty());
  client.CloseSocket();  // the server drains until this EOF (or its linger timer)
  CHECK(loop.RunUntil([&] { return server->connection_count() == 0; }));
  CHECK(server->requests_served() == 5);
}

TEST_CASE("server: HTTP/1.0 without keep-alive is closed after the answer", "[server]") {
  Loop loop;
  EchoHandler echo;
  auto server = StartServer(loop, echo.Get());
  Client client(server->port());
  client.Send("GET /old HTTP/1.0\r\n\r\n");
  auto response = client.ReadResponse(loop);
  REQUIRE(response);
  CHECK(response->headers["connection"] == "close");
  CHECK(client.WaitClosed(loop));
}

TEST_CASE("server: Respond later, twice, and after the client left", "[server]") {
  Loop loop;
  std::vector<UvHttpServer::Respond> kept;
  auto server = StartServer(loop, [&](const HttpServerRequest&, UvHttpServer::Respond respond) {
    kept.push_back(std::move(respond));
  });
  Client client(server->port());
  client.Send(kGet);
  REQUIRE(loop.RunUntil([&] { return kept.size() == 1; }));
  uv_run(loop.get(), UV_RUN_NOWAIT);
  client.Pump();
  CHECK(client.pending().empty());  // nothing until the handler answers
  HttpServerResponse later;
  later.body = "{\"later\":true}";
  kept[0](later);
  kept[0](HttpServerResponse::Error(500, "second call"));  // dropped
  auto response = client.ReadResponse(loop);
  REQUIRE(response);
  CHECK(response->body == "{\"later\":true}");
  CHECK(server->requests_served() == 1);

  // The next request's answer comes after the client closed: harmless, the connection goes.
  client.Send(kGet);
  REQUIRE(loop.RunUntil([&] { return kept.size() == 2; }));
  client.CloseSocket();
  kept[1](later);
  CHECK(loop.RunUntil([&] { return server->connection_count() == 0; }));

  // A Respond kept past the server's end is harmless too.
  Client third(server->port());
  third.Send(kGet);
  REQUIRE(loop.RunUntil([&] { return kept.size() == 3; }));
  server.reset();
  uv_run(loop.get(), UV_RUN_NOWAIT);
  kept[2](later);
  CHECK(third.WaitClosed(loop));
}

TEST_CASE("server: refuses bad requests itself and closes", "[server]") {
  Loop loop;
  EchoHandler echo;
  UvHttpServer::Limits limits;
  limits.max_head_bytes = 512;
  limits.max_body_bytes = 64;
  auto server = StartServer(loop, echo.Get(), limits);
  struct Case {
    std::string wire;
    int status;
  } cases[] = {
      {"NOT-HTTP\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nHost: h\r\nX: " + std::string(1000, 'a') + "\r\n\r\n", 431},
      {"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 100000\r\n\r\n" + std::string(3000, 'b'),
       413},
  };
  for (const Case& c : cases) {
    Client client(server->port());
    client.Send(c.wire);
    auto response = client.ReadResponse(loop);
    REQUIRE(response);
    CHECK(response->status == c.status);
    CHECK(response->body.find("{\"error\":") == 0);
    CHECK(response->headers["connection"] == "close");
    CHECK(response->headers["x-content-type-options"] == "nosniff");
    CHECK(client.WaitClosed(loop));
  }
  CHECK(echo.seen.empty());
}

TEST_CASE("server: a throwing handler gives 500", "[server]") {
  Loop loop;
  auto server = StartServer(loop, [](const HttpServerRequest&, UvHttpServer::Respond) {
    throw std::runtime_error("boom");
  });
  Client client(server->port());
  client.Send(kGet);
  auto response = client.ReadResponse(loop);
  REQUIRE(response);
  CHECK(response->status == 500);
}

TEST_CASE("server: the handler may close the server", "[server]") {
  Loop loop;
  UvHttpServer* raw = nullptr;
  int calls = 0;
  auto server = StartServer(loop, [&](const HttpServerRequest&, UvHttpServer::Respond respond) {
    ++calls;
    raw->Close();
    respond(HttpServerResponse());  // dropped: the connection is closed
  });
  raw = server.get();
  Client client(server->port());
  client.Send(std::string(kGet) + kGet);
  CHECK(client.WaitClosed(loop));
  CHECK(calls == 1);  // the pipelined second request is not handled
  CHECK(server->connection_count() == 0);
}

// A handler that keeps the Respond of requests for "/hold" (answered later by the test) and
// answers the others at once with their path.
TEST_CASE("server: Listen errors", "[server]") {
  Loop loop;
  EchoHandler echo;
  auto first = StartServer(loop, echo.Get());
  UvHttpServer second(loop.get(), echo.Get());
  std::string error;
  CHECK(second.Listen("127.0.0.1", first->port(), &error) == UV_EADDRINUSE);
  CHECK(error ==
        "cannot listen on 127.0.0.1:" + std::to_string(first->port()) + ": address already in use");
  for (const char* bad : {"not-an-ip", "999.1.1.1", "", "127.0.0.1\nX"}) {
    error.clear();
    CHECK(second.Listen(bad, 0, &error) == UV_EINVAL);
    CHECK(error.find("cannot listen on ") == 0);
    CHECK(error.find('\n') == std::string::npos);
  }
  CHECK(second.Listen("127.0.0.1", 70000, &error) == UV_EINVAL);
  CHECK(first->Listen("127.0.0.1", 0, &error) == UV_EBUSY);
  // IPv6 loopback, where the host has it.
  UvHttpServer six(loop.get(), echo.Get());
  int rv = six.Listen("::1", 0, &error);
  if (rv == 0) {
    CHECK(six.port() > 0);
  } else {
    WARN("no IPv6 loopback here: " << error);
    CHECK(error.find("[::1]:0") != std::string::npos);
  }
}

TEST_CASE("server: destroying it with open connections frees everything", "[server]") {
  Loop loop;
  std::vector<UvHttpServer::Respond> kept;
  auto server = StartServer(loop, [&](const HttpServerRequest&, UvHttpServer::Respond respond) {
    kept.push_back(std::move(respond));
  });
  Client busy(server->port());
  Client quiet(server->port());
  busy.Send(kGet);
  REQUIRE(loop.RunUntil([&] { return kept.size() == 1 && server->connection_count() == 2; }));
  server->Close();
  server->Close();  // safe twice
  CHECK(server->connection_count() == 0);
  CHECK(busy.WaitClosed(loop));
  CHECK(quiet.WaitClosed(loop));
  kept[0](HttpServerResponse());  // dropped
  server.reset();
  // ~Loop runs the loop and checks uv_loop_close: every handle was closed and freed.
}

TEST_CASE("message: serialization and header safety", "[server]") {
  HttpServerResponse response;
  response.status = 404;
  response.content_type = "text/plain";
  response.body = "nope";
  response.headers = {{"Content-Disposition", "attachment; filename=\"x\r\nSet-Cookie: a=b\""},
                      {"Bad Name", "v"},
                      {"Content-Length", "999"},
                      {"X-Frame-Options", "ALLOW"},
                      {"X-Ok", "1"}};
  std::string wire = SerializeResponse(response, /*close=*/true, /*head=*/false);
  CHECK(wire.rfind("HTTP/1.1 404 Not Found\r\n", 0) == 0);
  CHECK(wire.find("Set-Cookie") == std::string::npos);
  CHECK(wire.find("Bad Name") == std::string::npos);
  CHECK(wire.find("999") == std::string::npos);
  CHECK(wire.find("ALLOW") == std::string::npos);
  CHECK(wire.find("X-Ok: 1\r\n") != std::string::npos);
  CHECK(wire.find("Content-Length: 4\r\n") != std::string::npos);
  CHECK(wire.find("Connection: close\r\n") != std::string::npos);
  for (const auto& [name, value] : SecurityHeaders()) {
    CHECK(wire.find(name + ": " + value + "\r\n") != std::string::npos);
  }
  CHECK(wire.substr(wire.size() - 8) == "\r\n\r\nnope");
  std::string head = SerializeResponse(response, false, /*head=*/true);
  CHECK(head.substr(head.size() - 4) == "\r\n\r\n");
  CHECK(head.find("Content-Length: 4\r\n") != std::string::npos);
  CHECK(HttpServerResponse::Error(403, "bad \"token\"\xff").body ==
        "{\"error\":\"bad \\\"token\\\"\xef\xbf\xbd\"}");
  CHECK(std::string(HttpStatusReason(431)) == "Request Header Fields Too Large");
  CHECK(std::string(HttpStatusReason(799)) == "Unknown");
}

}  // namespace
}  // namespace netstack
