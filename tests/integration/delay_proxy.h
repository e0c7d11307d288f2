// DelayProxy: a TCP forwarder on 127.0.0.1 that makes every new connection cost a chosen delay,
// so the page-load tests see connection setup as a visible amount of time on loopback (where a
// real connect and TLS handshake take a millisecond). Each accepted connection is forwarded to
// 127.0.0.1:target_port; the upstream's first bytes (for TLS, the ServerHello) are held for
// `delay` before they go on, which the client sees as a slow handshake. Later bytes, and
// requests on a kept-alive connection, flow without delay. Own threads, POSIX sockets.
//
// handshakes() counts connections whose client answered after the held bytes went on: for TLS
// 1.3, the client's Finished, sent once it has taken the handshake as complete. A test waits
// on it (WaitForHandshakes) rather than sleeping for "long enough".
#ifndef TESTS_INTEGRATION_DELAY_PROXY_H_
#define TESTS_INTEGRATION_DELAY_PROXY_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
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
  // Connections whose client sent bytes after the held upstream bytes were forwarded (see
  // above): set-ups the client has finished.
  int handshakes() const;
  // Blocks until handshakes() >= at_least, or `timeout` passed, or Stop(). True if reached.
  // Safe from any thread.
  bool WaitForHandshakes(int at_least, std::chrono::milliseconds timeout) const;

 private:
  void AcceptLoop();
  void Forward(int client_fd);

  int target_port_ = 0;
  std::chrono::milliseconds delay_{0};
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> connections_{0};
  mutable std::mutex handshake_mutex_;
  mutable std::condition_variable handshake_cv_;
  int handshakes_ = 0;  // guarded by handshake_mutex_
  std::thread acceptor_;
  std::mutex mutex_;
  std::vector<std::thread> workers_;  // guarded by mutex_
};

}  // namespace netstack::test

#endif  // TESTS_INTEGRATION_DELAY_PROXY_H_
