// Helpers for tests on a real libuv loop over loopback (the loop is tests/support's LiveLoop): a
// NetLog capture, and a TCP server on 127.0.0.1 on the loop that the test drives by hand (write,
// close with FIN, reset with RST, read or not).
#ifndef TESTS_SOCKET_TRANSPORT_TEST_UTIL_H_
#define TESTS_SOCKET_TRANSPORT_TEST_UTIL_H_

#include <uv.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "net/base/net_log.h"
#include "net/base/virtual_scheduler.h"
#include "tests/support/live_loop.h"

namespace netstack::test {

// Records every NetLog entry.
class CapturingNetLog : public NetLog::Observer {
 public:
  CapturingNetLog() : net_log_(clock_) { net_log_.AddObserver(this); }
  ~CapturingNetLog() override { net_log_.RemoveObserver(this); }
  NetLog* net_log() { return &net_log_; }
  void OnAddEntry(const NetLogEntry& entry) override { entries_.push_back(entry); }
  const std::vector<NetLogEntry>& entries() const { return entries_; }
  // Entries of `type` (any phase), in order.
  std::vector<NetLogEntry> Find(NetLogEventType type) const;

 private:
  VirtualScheduler clock_;
  NetLog net_log_;
  std::vector<NetLogEntry> entries_;
};

// A TCP server on 127.0.0.1:<ephemeral> on the test's loop.
class LoopbackTcpServer {
 public:
  struct Options {
    bool read = true;   // Read (and record) what clients send; false leaves it in the kernel.
    bool echo = false;  // Write back what was read.
  };
  LoopbackTcpServer(uv_loop_t* loop, Options options);
  // Closes the listener and every connection (the loop must run afterwards).
  ~LoopbackTcpServer();

  uint16_t port() const { return port_; }
  size_t connection_count() const { return connections_.size(); }
  const std::string& received(size_t i) const;
  bool peer_closed(size_t i) const;  // The client's FIN or error was seen.
  void Write(size_t i, const std::string& data);
  void StartReading(size_t i);
  void CloseWithFin(size_t i);
  void CloseWithReset(size_t i);

 private:
  struct Connection;
  static void OnConnection(uv_stream_t* server, int status);

  uv_loop_t* loop_;
  Options options_;
  uv_tcp_t* listener_;
  uint16_t port_ = 0;
  std::vector<Connection*> connections_;  // Null once closed (memory freed in close callbacks).
  std::vector<std::string> received_;
  std::vector<bool> peer_closed_;
};

// An endpoint on 127.0.0.1 where nothing listens: a socket is bound there (not listening) for
// this object's life, so nobody else takes the port and a connect is refused.
class RefusingPort {
 public:
  RefusingPort();
  ~RefusingPort();
  uint16_t port() const { return port_; }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

}  // namespace netstack::test

#endif  // TESTS_SOCKET_TRANSPORT_TEST_UTIL_H_
