// Clients for flooding an HTTP server on loopback (tests/server/uv_http_server_flood_test.cc
// against the in-process server, tests/integration/internals_cli_test.cc against `netstack
// internals`): plain non-blocking POSIX sockets, serviced one step at a time by the test's own
// loop, so hundreds run on one thread. What they meet is counted, never timed.
#ifndef TESTS_SERVER_FLOOD_CLIENTS_H_
#define TESTS_SERVER_FLOOD_CLIENTS_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdint>
#include <map>
#include <string>

namespace netstack::flood {

// Raises the soft descriptor limit towards `wanted` (up to the hard limit); returns the limit.
inline uint64_t RaiseFdLimit(uint64_t wanted) {
  rlimit limit{};
  REQUIRE(getrlimit(RLIMIT_NOFILE, &limit) == 0);
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < wanted) {
    limit.rlim_cur =
        limit.rlim_max == RLIM_INFINITY ? wanted : std::min<rlim_t>(wanted, limit.rlim_max);
    setrlimit(RLIMIT_NOFILE, &limit);
    REQUIRE(getrlimit(RLIMIT_NOFILE, &limit) == 0);
  }
  return limit.rlim_cur == RLIM_INFINITY ? wanted : limit.rlim_cur;
}

// A non-blocking socket connecting to 127.0.0.1:port; -1 on failure.
inline int Connect(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 &&
      errno != EINPROGRESS) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Reads what is available into `received`; false once the peer closed (EOF or reset).
inline bool Drain(int fd, std::string* received) {
  char buf[4096];
  for (;;) {
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n > 0) {
      received->append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOTCONN)) return true;
    return false;
  }
}

// The status of the first response in `received`, 0 if none began.
inline int StatusOf(const std::string& received) {
  if (received.size() < 12 || received.compare(0, 9, "HTTP/1.1 ") != 0) return 0;
  return std::stoi(received.substr(9, 3));
}

// A client that connects, sends a request head one byte at a time and never finishes it, and
// reconnects as soon as the server closes it.
struct Dripper {
  int fd = -1;
  size_t sent = 0;
  std::string received;
  Dripper() = default;
  Dripper(const Dripper&) = delete;
  Dripper& operator=(const Dripper&) = delete;
  ~Dripper() {
    if (fd >= 0) ::close(fd);
  }
};

// What the drippers met.
struct DripCounts {
  uint64_t connections = 0;
  uint64_t closed_with_answer = 0;
  uint64_t closed_without_answer = 0;
  std::map<int, uint64_t> statuses;
};

inline const std::string& DripHead() {
  static const std::string head =
      "GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Drip: " + std::string(2000, 'a');
  return head;
}

// One step of a dripper: (re)connect, read, note a close, and send one byte when `drip`.
inline void ServiceDripper(Dripper& d, int port, bool drip, DripCounts* counts) {
  if (d.fd < 0) {
    d.fd = Connect(port);
    REQUIRE(d.fd >= 0);
    d.sent = 0;
    d.received.clear();
    ++counts->connections;
    return;
  }
  if (!Drain(d.fd, &d.received)) {
    const int status = StatusOf(d.received);
    if (status != 0) {
      ++counts->closed_with_answer;
      ++counts->statuses[status];
    } else {
      ++counts->closed_without_answer;
    }
    ::close(d.fd);
    d.fd = -1;  // reconnects at its next step
    return;
  }
  const std::string& head = DripHead();
  if (drip && d.sent < head.size()) {
    if (::send(d.fd, head.data() + d.sent, 1, MSG_NOSIGNAL) == 1) ++d.sent;
  }
}

// The real client: one request per connection (as curl makes them, "Connection: close"), each
// read to the server's close.
struct Visitor {
  std::string request;  // the whole request
  std::string expect;   // what a good answer's body contains
  int fd = -1;
  bool sent = false;
  std::string received;
  int ok = 0;
  std::map<int, int> failures;  // status (0: closed with no answer) -> count
  int done() const {
    int n = ok;
    for (const auto& [status, count] : failures) n += count;
    return n;
  }
  Visitor() = default;
  Visitor(const Visitor&) = delete;
  Visitor& operator=(const Visitor&) = delete;
  ~Visitor() {
    if (fd >= 0) ::close(fd);
  }
};

// One step of the visitor: connect, send the request once connected, read, count the answer.
inline void ServiceVisitor(Visitor& v, int port) {
  if (v.fd < 0) {
    v.fd = Connect(port);
    REQUIRE(v.fd >= 0);
    v.sent = false;
    v.received.clear();
  }
  if (!v.sent) {
    ssize_t n = ::send(v.fd, v.request.data(), v.request.size(), MSG_NOSIGNAL);
    if (n == static_cast<ssize_t>(v.request.size())) v.sent = true;
    REQUIRE((n < 0 || v.sent));  // all at once, or not connected yet
  }
  if (!Drain(v.fd, &v.received)) {
    const int status = StatusOf(v.received);
    const size_t body = v.received.find("\r\n\r\n");
    if (status == 200 && body != std::string::npos &&
        v.received.find(v.expect, body) != std::string::npos) {
      ++v.ok;
    } else {
      ++v.failures[status];
    }
    ::close(v.fd);
    v.fd = -1;
  }
}

}  // namespace netstack::flood

#endif  // TESTS_SERVER_FLOOD_CLIENTS_H_
