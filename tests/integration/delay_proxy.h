// DelayProxy: a TCP forwarder on 127.0.0.1 that makes every new connection cost a chosen delay,
// so the page-load tests see connection setup as a visible amount of time on loopback (where a
// real connect and TLS handshake take a millisecond). Each accepted connection is forwarded to
// 127.0.0.1:target_port; the upstream's first bytes (for TLS, the ServerHello) are held for
// `delay` before they go on, which the client sees as a slow handshake. Later bytes, and
// requests on a kept-alive connection, flow without delay. Own threads, POSIX sockets.
#ifndef TESTS_INTEGRATION_DELAY_PROXY_H_
#define TESTS_INTEGRATION_DELAY_PROXY_H_

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace netstack::test {

class DelayProxy {
 public:
  DelayProxy() = default;
  // Stop()s.
  ~DelayProxy();
  DelayProxy(const DelayProxy&) = delete;
  DelayProxy& operator=(const DelayProxy&) = delete;

  // Listens on a free port of 127.0.0.1 and forwards to 127.0.0.1:`target_port`. False with
  // *error when the listening socket cannot be made.
  bool Start(int target_port, std::chrono::milliseconds delay, std::string* error);
  // Closes the listener and every connection, and joins the threads. Idempotent.
  void Stop();

  int port() const { return port_; }
  // Connections accepted so far.
  int connections() const { return connections_.load(); }

 private:
  void AcceptLoop();
  void Forward(int client_fd);

  int target_port_ = 0;
  std::chrono::milliseconds delay_{0};
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> connections_{0};
  std::thread acceptor_;
  std::mutex mutex_;
  std::vector<std::thread> workers_;  // guarded by mutex_
};

}  // namespace netstack::test

#endif  // TESTS_INTEGRATION_DELAY_PROXY_H_
