// DnsDelayRelay: a UDP DNS relay on 127.0.0.1 that makes every lookup cost a chosen delay, so
// the page-load tests see name resolution as a visible amount of time on loopback (dnsmasq
// itself cannot delay). Each datagram from a client is forwarded, `delay` after it arrived, to
// 127.0.0.1:upstream_port (the fixture's dnsmasq) from a socket of its own, and the first answer
// (within kUpstreamTimeout) is sent back to the client as is. Queries are relayed concurrently
// (one short-lived thread each, at most kMaxInFlight; more are dropped, as a lossy network
// would: the client retries). Own threads, POSIX sockets. UDP only: an answer too large for UDP
// (never for the names these tests serve) would make the client retry over TCP and fail.
#ifndef TESTS_INTEGRATION_DNS_DELAY_RELAY_H_
#define TESTS_INTEGRATION_DNS_DELAY_RELAY_H_

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace netstack::test {

class DnsDelayRelay {
 public:
  static constexpr std::chrono::milliseconds kUpstreamTimeout{2000};
  static constexpr int kMaxInFlight = 64;

  DnsDelayRelay() = default;
  // Stop()s.
  ~DnsDelayRelay();
  DnsDelayRelay(const DnsDelayRelay&) = delete;
  DnsDelayRelay& operator=(const DnsDelayRelay&) = delete;

  // Listens on a free UDP port of 127.0.0.1 and relays to 127.0.0.1:`upstream_port`. False
  // with *error when the socket cannot be made.
  bool Start(int upstream_port, std::chrono::milliseconds delay, std::string* error);
  // Closes the socket and joins every thread (a query in flight is abandoned). Idempotent.
  void Stop();

  int port() const { return port_; }
  // "127.0.0.1:<port>", the value for --dns-server.
  std::string server() const { return "127.0.0.1:" + std::to_string(port_); }
  // Queries received / answers relayed back so far.
  int queries() const { return queries_.load(); }
  int answers() const { return answers_.load(); }

 private:
  void ReceiveLoop();
  void Relay(std::string query, std::vector<char> client_addr);

  int upstream_port_ = 0;
  std::chrono::milliseconds delay_{0};
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> queries_{0};
  std::atomic<int> answers_{0};
  std::atomic<int> in_flight_{0};
  std::thread receiver_;
  std::mutex mutex_;
  std::vector<std::thread> workers_;  // guarded by mutex_
};

}  // namespace netstack::test

#endif  // TESTS_INTEGRATION_DNS_DELAY_RELAY_H_
