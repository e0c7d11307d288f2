#include "tools/internals/uv_http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cctype>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace netstack {
namespace {

// A libuv loop for one test; closing it checks every handle was closed.
class Loop {
 public:
  Loop() { REQUIRE(uv_loop_init(&loop_) == 0); }
  ~Loop() {
    uv_run(&loop_, UV_RUN_DEFAULT);  // lets the close callbacks run
    CHECK(uv_loop_close(&loop_) == 0);
  }
  uv_loop_t* get() { return &loop_; }
  // Runs the loop until `done` or a hang guard (a failure, never a timing assertion).
  bool RunUntil(const std::function<bool()>& done) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      uv_run(&loop_, UV_RUN_NOWAIT);
      ::poll(nullptr, 0, 1);
    }
    return true;
  }

 private:
  uv_loop_t loop_;
};

struct Response {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

// A plain POSIX client on loopback; reads are non-blocking and driven by Loop::RunUntil so the
// server runs on the same thread.
class Client {
 public:
  // `receive_buffer` > 0: a small SO_RCVBUF, so that a client that does not read stops the
  // server's writes soon (the kernel absorbs little).
  explicit Client(int port, int receive_buffer = 0) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd_ >= 0);
    if (receive_buffer > 0) {
      REQUIRE(::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof(receive_buffer)) ==
              0);
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    // The kernel completes the handshake on the listener's backlog: no loop run needed.
    REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
  }
  ~Client() { CloseSocket(); }
  void CloseSocket() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  void Send(const std::string& data) {
    REQUIRE(::send(fd_, data.data(), data.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(data.size()));
  }
  // Sends what it can, ignoring errors (the server may have closed already).
  void TrySend(const std::string& data) {
    (void)::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
  }
  // Reads what is available; false once the server closed (EOF or reset).
  bool Pump() {
    if (closed_) return false;
    char buf[4096];
    for (;;) {
      ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n > 0) {
        received_.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
      closed_ = true;
      return false;
    }
  }
  // Runs `loop` until one response is complete (`head`: it has no body) or the server closed.
  std::optional<Response> ReadResponse(Loop& loop, bool head = false) {
    std::optional<Response> response;
    loop.RunUntil([&] {
      bool open = Pump();
      response = TakeResponse(head);
      return response.has_value() || !open;
    });
    if (!response) response = TakeResponse(head);
    return response;
  }
  // Runs `loop` until the server closed the connection.
  bool WaitClosed(Loop& loop) {
    return loop.RunUntil([&] { return !Pump(); });
  }
  const std::string& pending() const { return received_; }

 private:
  std::optional<Response> TakeResponse(bool head) {
    size_t end = received_.find("\r\n\r\n");
    if (end == std::string::npos) return std::nullopt;
    Response response;
    std::string head_text = received_.substr(0, end);
    size_t line_end = head_text.find("\r\n");
    std::string status_line = head_text.substr(0, line_end);
    REQUIRE(status_line.rfind("HTTP/1.1 ", 0) == 0);
    response.status = std::stoi(status_line.substr(9, 3));
    size_t pos = line_end == std::string::npos ? head_text.size() : line_end + 2;
    while (pos < head_text.size()) {
      size_t next = head_text.find("\r\n", pos);
      if (next == std::string::npos) next = head_text.size();
      std::string line = head_text.substr(pos, next - pos);
      size_t colon = line.find(':');
      REQUIRE(colon != std::string::npos);
      std::string name = line.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      response.headers[name] = line.substr(colon + 2);
      pos = next + 2;
    }
    size_t length = head ? 0 : std::stoul(response.headers["content-length"]);
    if (received_.size() < end + 4 + length) return std::nullopt;
    response.body = received_.substr(end + 4, length);
    received_.erase(0, end + 4 + length);
    return response;
  }

  int fd_ = -1;
  bool closed_ = false;
  std::string received_;
};

const char kGet[] = "GET /api/info?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

// A handler that answers every request at once with its method and path, and records them.
struct EchoHandler {
  std::vector<HttpServerRequest> seen;
  UvHttpServer::Handler Get() {
    return [this](const HttpServerRequest& request, UvHttpServer::Respond respond) {
      seen.push_back(request);
      HttpServerResponse response;
      response.body = "{\"path\":\"" + request.path + "\"}";
      response.headers.push_back({"X-Test", "yes"});
      respond(std::move(response));
    };
  }
};

std::unique_ptr<UvHttpServer> StartServer(Loop& loop, UvHttpServer::Handler handler,
                                          UvHttpServer::Limits limits = {}) {
  auto server = std::make_unique<UvHttpServer>(loop.get(), std::move(handler), limits);
  std::string error;
  REQUIRE(server->Listen("127.0.0.1", 0, &error) == 0);
  CHECK(error.empty());
  REQUIRE(server->port() > 0);
  return server;
}

TEST_CASE("server: answers a GET with the security headers", "[internals][server]") {
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

TEST_CASE("server: keep-alive carries two requests, and pipelined ones in order",
          "[internals][server]") {
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

TEST_CASE("server: HTTP/1.0 without keep-alive is closed after the answer", "[internals][server]") {
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

TEST_CASE("server: Respond later, twice, and after the client left", "[internals][server]") {
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

TEST_CASE("server: refuses bad requests itself and closes", "[internals][server]") {
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

TEST_CASE("server: a throwing handler gives 500", "[internals][server]") {
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

TEST_CASE("server: the handler may close the server", "[internals][server]") {
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

TEST_CASE("server: at the connection bound the stalest idle connection makes room",
          "[internals][server]") {
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

TEST_CASE("server: a late answer never runs the handler inside Respond", "[internals][server]") {
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

TEST_CASE("server: a client that does not read holds back its pipelined requests",
          "[internals][server]") {
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
          "[internals][server]") {
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

TEST_CASE("server: a request trickling in is answered 408 at its deadline", "[internals][server]") {
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

TEST_CASE("server: an idle connection is closed after the timeout", "[internals][server]") {
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

TEST_CASE("server: an answer over the write bound closes the connection", "[internals][server]") {
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

TEST_CASE("server: Listen errors", "[internals][server]") {
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

TEST_CASE("server: destroying it with open connections frees everything", "[internals][server]") {
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

TEST_CASE("message: serialization and header safety", "[internals][server]") {
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
