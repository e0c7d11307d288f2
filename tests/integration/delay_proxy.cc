#include "tests/integration/delay_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace netstack::test {
namespace {

// How often blocked threads look at the stop flag.
constexpr int kPollMs = 50;

bool SendAll(int fd, const char* data, size_t len) {
  while (len > 0) {
    ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    len -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

DelayProxy::~DelayProxy() { Stop(); }

bool DelayProxy::Start(int target_port, std::chrono::milliseconds delay, std::string* error) {
  target_port_ = target_port;
  delay_ = delay;
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (listen_fd_ < 0 || bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      listen(listen_fd_, 64) != 0 ||
      getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    *error = std::string("delay proxy: ") + std::strerror(errno);
    if (listen_fd_ >= 0) close(listen_fd_);
    listen_fd_ = -1;
    return false;
  }
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { AcceptLoop(); });
  return true;
}

int DelayProxy::handshakes() const {
  std::lock_guard<std::mutex> lock(handshake_mutex_);
  return handshakes_;
}

bool DelayProxy::WaitForHandshakes(int at_least, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(handshake_mutex_);
  return handshake_cv_.wait_for(lock, timeout, [&] {
    return handshakes_ >= at_least || stopping_.load();
  }) && handshakes_ >= at_least;
}

void DelayProxy::Stop() {
  if (stopping_.exchange(true)) return;
  { std::lock_guard<std::mutex> lock(handshake_mutex_); }
  handshake_cv_.notify_all();
  if (acceptor_.joinable()) acceptor_.join();
  if (listen_fd_ >= 0) close(listen_fd_);
  listen_fd_ = -1;
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    workers.swap(workers_);
  }
  for (std::thread& t : workers) t.join();
}

void DelayProxy::AcceptLoop() {
  while (!stopping_.load()) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, kPollMs) <= 0) continue;
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    ++connections_;
    std::lock_guard<std::mutex> lock(mutex_);
    workers_.emplace_back([this, fd] { Forward(fd); });
  }
}

void DelayProxy::Forward(int client_fd) {
  int upstream = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(target_port_));
  if (upstream < 0 || connect(upstream, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    if (upstream >= 0) close(upstream);
    close(client_fd);
    return;
  }
  int one = 1;
  setsockopt(client_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  setsockopt(upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  bool delayed = false;
  bool answered = false;  // the client sent bytes after the held ones were forwarded
  bool client_open = true, upstream_open = true;
  char buf[16384];
  while (!stopping_.load() && (client_open || upstream_open)) {
    // A closed direction's fd is left out (poll ignores negative fds), so its hang-up is not
    // reported over and over.
    pollfd p[2] = {{client_open ? client_fd : -1, POLLIN, 0},
                   {upstream_open ? upstream : -1, POLLIN, 0}};
    if (poll(p, 2, kPollMs) <= 0) continue;
    if (p[0].revents) {
      ssize_t n = recv(client_fd, buf, sizeof(buf), 0);
      if (n <= 0 || !SendAll(upstream, buf, static_cast<size_t>(n))) {
        client_open = false;
        shutdown(upstream, SHUT_WR);
      } else if (delayed && !answered) {
        answered = true;
        {
          std::lock_guard<std::mutex> lock(handshake_mutex_);
          ++handshakes_;
        }
        handshake_cv_.notify_all();
      }
    }
    if (p[1].revents) {
      ssize_t n = recv(upstream, buf, sizeof(buf), 0);
      if (n > 0 && !delayed) {
        delayed = true;
        // The connection's cost: the first answer waits (in slices, so Stop stays prompt).
        for (auto waited = std::chrono::milliseconds(0); waited < delay_ && !stopping_.load();
             waited += std::chrono::milliseconds(kPollMs)) {
          std::this_thread::sleep_for(
              std::min(std::chrono::milliseconds(kPollMs), delay_ - waited));
        }
      }
      if (n <= 0 || !SendAll(client_fd, buf, static_cast<size_t>(n))) {
        upstream_open = false;
        shutdown(client_fd, SHUT_WR);
      }
    }
    // Either side gone for good (reset, or both directions closed): done.
    if (!client_open && !upstream_open) break;
  }
  close(upstream);
  close(client_fd);
}

}  // namespace netstack::test
