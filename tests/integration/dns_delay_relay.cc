#include "tests/integration/dns_delay_relay.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace netstack::test {
namespace {

// How often blocked threads look at the stop flag.
constexpr int kPollMs = 50;

sockaddr_in Loopback(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  return addr;
}

}  // namespace

DnsDelayRelay::~DnsDelayRelay() { Stop(); }

bool DnsDelayRelay::Start(int upstream_port, std::chrono::milliseconds delay, std::string* error) {
  upstream_port_ = upstream_port;
  delay_ = delay;
  fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr = Loopback(0);
  socklen_t len = sizeof(addr);
  if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    *error = std::string("dns delay relay: ") + std::strerror(errno);
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    return false;
  }
  port_ = ntohs(addr.sin_port);
  receiver_ = std::thread([this] { ReceiveLoop(); });
  return true;
}

void DnsDelayRelay::Stop() {
  if (stopping_.exchange(true)) return;
  if (receiver_.joinable()) receiver_.join();
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    workers.swap(workers_);
  }
  for (std::thread& t : workers) t.join();
  if (fd_ >= 0) close(fd_);  // after the workers: they answer through it
  fd_ = -1;
}

void DnsDelayRelay::ReceiveLoop() {
  char buf[4096];
  while (!stopping_.load()) {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, kPollMs) <= 0) continue;
    sockaddr_storage from{};
    socklen_t from_len = sizeof(from);
    ssize_t n = recvfrom(fd_, buf, sizeof(buf), 0, reinterpret_cast<sockaddr*>(&from), &from_len);
    if (n <= 0) continue;
    ++queries_;
    if (in_flight_.load() >= kMaxInFlight) continue;  // dropped: the client retries
    ++in_flight_;
    std::string query(buf, static_cast<size_t>(n));
    std::vector<char> addr(reinterpret_cast<char*>(&from),
                           reinterpret_cast<char*>(&from) + from_len);
    std::lock_guard<std::mutex> lock(mutex_);
    workers_.emplace_back([this, q = std::move(query), a = std::move(addr)]() mutable {
      Relay(std::move(q), std::move(a));
    });
  }
}

void DnsDelayRelay::Relay(std::string query, std::vector<char> client_addr) {
  // The lookup's cost, in slices so Stop stays prompt.
  for (auto waited = std::chrono::milliseconds(0); waited < delay_ && !stopping_.load();
       waited += std::chrono::milliseconds(kPollMs)) {
    std::this_thread::sleep_for(std::min(std::chrono::milliseconds(kPollMs), delay_ - waited));
  }
  int up = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in upstream = Loopback(upstream_port_);
  if (!stopping_.load() && up >= 0 &&
      connect(up, reinterpret_cast<sockaddr*>(&upstream), sizeof(upstream)) == 0 &&
      send(up, query.data(), query.size(), 0) == static_cast<ssize_t>(query.size())) {
    char buf[4096];
    for (auto waited = std::chrono::milliseconds(0); waited < kUpstreamTimeout && !stopping_.load();
         waited += std::chrono::milliseconds(kPollMs)) {
      pollfd p{up, POLLIN, 0};
      if (poll(&p, 1, kPollMs) <= 0) continue;
      ssize_t n = recv(up, buf, sizeof(buf), 0);
      if (n <= 0) break;
      if (sendto(fd_, buf, static_cast<size_t>(n), 0,
                 reinterpret_cast<const sockaddr*>(client_addr.data()),
                 static_cast<socklen_t>(client_addr.size())) == n) {
        ++answers_;
      }
      break;
    }
  }
  if (up >= 0) close(up);
  --in_flight_;
}

}  // namespace netstack::test
