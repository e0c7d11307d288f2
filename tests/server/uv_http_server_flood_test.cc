// The internals page's HTTP server under local abuse, on real loopback sockets: hundreds of
// clients that trickle a request head and reconnect as soon as they are closed, and one client
// with real requests. The server's deadlines run on a VirtualScheduler that never moves, so what
// keeps the page usable here is the connection bound's eviction alone. Everything is counted
// (answers, closes, steps of the loop); nothing is timed. The clients are plain non-blocking
// POSIX sockets driven between non-blocking iterations of the server's loop, on one thread.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <map>
#include <string>
#include <vector>

#include "net/base/virtual_scheduler.h"
#include "tests/server/uv_http_server_test_util.h"

namespace netstack {
namespace {

using namespace server_test;

// Raises the soft descriptor limit towards `wanted` (up to the hard limit); returns the limit.
uint64_t RaiseFdLimit(uint64_t wanted) {
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
int Connect(int port) {
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
bool Drain(int fd, std::string* received) {
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
int StatusOf(const std::string& received) {
  if (received.size() < 12 || received.compare(0, 9, "HTTP/1.1 ") != 0) return 0;
  return std::stoi(received.substr(9, 3));
}

// A client that connects, sends a request head one byte at a time and never finishes it, and
// reconnects as soon as the server closes it.
struct Dripper {
  int fd = -1;
  size_t sent = 0;
  std::string received;
};

// What the drippers met.
struct DripCounts {
  uint64_t connections = 0;
  uint64_t closed_with_answer = 0;
  uint64_t closed_without_answer = 0;
  std::map<int, uint64_t> statuses;
};

const std::string kDrip =
    "GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Drip: " + std::string(2000, 'a');

void ServiceDripper(Dripper& d, int port, bool drip, DripCounts* counts) {
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
    d.fd = -1;  // reconnects at its next turn
    return;
  }
  if (drip && d.sent < kDrip.size()) {
    if (::send(d.fd, kDrip.data() + d.sent, 1, MSG_NOSIGNAL) == 1) ++d.sent;
  }
}

// The real client: one request per connection (as curl makes them), each read to the end.
struct Visitor {
  int fd = -1;
  bool sent = false;
  std::string received;
  int ok = 0;
  std::map<int, int> failures;  // status (0: closed with no answer) -> count
};

void ServiceVisitor(Visitor& v, int port) {
  static const std::string kRequest =
      "GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  if (v.fd < 0) {
    v.fd = Connect(port);
    REQUIRE(v.fd >= 0);
    v.sent = false;
    v.received.clear();
  }
  if (!v.sent) {
    ssize_t n = ::send(v.fd, kRequest.data(), kRequest.size(), MSG_NOSIGNAL);
    if (n == static_cast<ssize_t>(kRequest.size())) v.sent = true;
    REQUIRE((n < 0 || v.sent));  // all at once, or not yet connected
  }
  if (!Drain(v.fd, &v.received)) {
    const int status = StatusOf(v.received);
    if (status == 200 && v.received.find("\r\n\r\n{\"page\":true}") != std::string::npos) {
      ++v.ok;
    } else {
      ++v.failures[status];
    }
    ::close(v.fd);
    v.fd = -1;
  }
}

TEST_CASE("server flood: a client is served while 500 slow clients keep reconnecting",
          "[server][flood]") {
  const int kDrippers = 500;
  const size_t kMaxConnections = 100;  // well under the drippers
  const int kVisits = 30;
  REQUIRE(RaiseFdLimit(4096) >= 2 * kDrippers + 200);

  Loop loop;
  VirtualScheduler never_moves;
  UvHttpServer::Limits limits;
  limits.max_connections = kMaxConnections;
  auto server = StartServer(
      loop,
      [](const HttpServerRequest& request, UvHttpServer::Respond respond) {
        HttpServerResponse response;
        response.body = request.path == "/page" ? "{\"page\":true}" : "{}";
        respond(std::move(response));
      },
      limits, &never_moves);
  const int port = server->port();

  std::vector<Dripper> drippers(kDrippers);
  DripCounts drips;
  Visitor visitor;
  size_t peak = 0;
  int step = 0;
  const int kMaxSteps = 200'000;  // a bound, so a starved visitor fails instead of hanging
  for (; step < kMaxSteps && visitor.ok + static_cast<int>(visitor.failures.size()) < kVisits;
       ++step) {
    uv_run(loop.get(), UV_RUN_NOWAIT);
    for (Dripper& d : drippers) ServiceDripper(d, port, step % 3 == 0, &drips);
    // The visitor comes once the flood is on: every dripper connected and the bound reached.
    if (step > 20) ServiceVisitor(visitor, port);
    peak = std::max(peak, server->connection_count());
    int done = visitor.ok;
    for (const auto& [status, count] : visitor.failures) done += count;
    if (done >= kVisits) break;
  }
  INFO("steps " << step << ", dripper connections " << drips.connections);
  CHECK(visitor.ok == kVisits);
  CHECK(visitor.failures.empty());
  // The flood was real: the bound was reached and drippers were pushed out again and again...
  UvHttpServer::Stats stats = server->stats();
  CHECK(peak == kMaxConnections);
  CHECK(stats.peak_open == kMaxConnections);
  CHECK(stats.evicted_waiting >= static_cast<uint64_t>(kDrippers));
  CHECK(drips.connections >= static_cast<uint64_t>(2 * kDrippers));
  // ...and every connection the server closed had an answer first (503 for room; no deadline
  // ran, since virtual time never moved).
  CHECK(drips.closed_without_answer == 0);
  CHECK(drips.closed_with_answer > 0);
  CHECK(drips.statuses.size() == 1);
  CHECK(drips.statuses[503] == drips.closed_with_answer);
  CHECK(stats.head_timeouts == 0);
  CHECK(stats.requests_served == static_cast<uint64_t>(kVisits));

  for (Dripper& d : drippers) {
    if (d.fd >= 0) ::close(d.fd);
  }
  if (visitor.fd >= 0) ::close(visitor.fd);
  server.reset();
}

}  // namespace
}  // namespace netstack
