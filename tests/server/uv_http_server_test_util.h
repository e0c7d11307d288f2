// Test helpers for the internals page's HTTP server (uv_http_server_test.cc and
// uv_http_server_limits_test.cc): the loop (tests/support's LiveLoop, checked for leaks), a plain
// POSIX client on loopback driven by that loop, and an echoing handler.
#ifndef TESTS_SERVER_UV_HTTP_SERVER_TEST_UTIL_H_
#define TESTS_SERVER_UV_HTTP_SERVER_TEST_UTIL_H_

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

#include "net/server/uv_http_server.h"
#include "tests/support/live_loop.h"

namespace netstack::server_test {

// The test's loop (tests/support's LiveLoop); going away, it checks every handle was closed.
class Loop : public test::LiveLoop {
 public:
  ~Loop() { CHECK(Shutdown() == 0); }
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
  // A response complete among the bytes received so far, without reading or running the loop.
  std::optional<Response> TakeReceivedResponse() { return TakeResponse(false); }
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

// `scheduler`: the server's deadlines run on it (a VirtualScheduler the test advances); null: on
// the server's own UvScheduler (real time).
inline std::unique_ptr<UvHttpServer> StartServer(Loop& loop, UvHttpServer::Handler handler,
                                                 UvHttpServer::Limits limits = {},
                                                 Scheduler* scheduler = nullptr) {
  auto server = std::make_unique<UvHttpServer>(loop.get(), std::move(handler), limits, scheduler);
  std::string error;
  REQUIRE(server->Listen("127.0.0.1", 0, &error) == 0);
  CHECK(error.empty());
  REQUIRE(server->port() > 0);
  return server;
}

}  // namespace netstack::server_test

#endif  // TESTS_SERVER_UV_HTTP_SERVER_TEST_UTIL_H_
