// A scripted ClientSocketFactory and its sockets for pool and connect job tests on virtual time.
// Connect results and delays come from rules: queued one-shot rules first (in creation order),
// then a per-address rule, then the default. Sockets keep the StreamSocket contract (callbacks
// only after ERR_IO_PENDING, never inside the call, never after destruction). No network.
#ifndef TESTS_SOCKET_FAKE_CLIENT_SOCKET_FACTORY_H_
#define TESTS_SOCKET_FAKE_CLIENT_SOCKET_FACTORY_H_

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "net/base/ip_address.h"
#include "net/base/net_log.h"
#include "net/base/scheduler.h"
#include "net/base/time.h"
#include "net/socket/client_socket_factory.h"
#include "net/socket/stream_socket.h"

namespace netstack::test {

struct FakeConnectRule {
  int result = OK;
  bool sync = false;  // complete inside Connect()
  TimeDelta delay{};  // when !sync: complete after this
  bool hang = false;  // when !sync: never complete
};

// A TCP socket (or, with a transport, a TLS one) whose connect follows a rule.
class FakeStreamSocket : public StreamSocket {
 public:
  // `live_count` (may be null) counts sockets alive; `destroyed_in_callback` (may be null)
  // counts sockets destroyed from inside their own connect callback, which the pool promises
  // not to do. With `transport`, this is a TLS socket over it: connected only while the
  // transport is.
  FakeStreamSocket(Scheduler& scheduler, IPEndPoint peer, FakeConnectRule rule,
                   netstack::NetLog* net_log, const NetLogSource& creator, int* live_count,
                   int* destroyed_in_callback, std::unique_ptr<StreamSocket> transport = nullptr);
  ~FakeStreamSocket() override;

  int Connect(CompletionCallback callback) override;
  // Never completes (tests do not read); 0 after a remote close.
  int Read(char* buf, int len, CompletionCallback callback) override;
  // Completes synchronously and marks the socket used.
  int Write(const char* data, int len, CompletionCallback callback) override;
  void Disconnect() override;
  bool IsConnected() const override;
  bool IsConnectedAndIdle() const override { return IsConnected() && !unread_data_; }
  bool WasEverUsed() const override { return was_used_; }
  int GetPeerAddress(IPEndPoint* address) const override;
  const NetLogWithSource& NetLog() const override { return net_log_; }
  std::string TlsVersion() const override { return transport_ ? "TLSv1.3" : ""; }

  // Test controls.
  void MarkUsed() { was_used_ = true; }
  void SetUnreadData(bool unread) { unread_data_ = unread; }
  void SimulateRemoteClose() { connected_ = false; }
  bool is_tls() const { return transport_ != nullptr; }
  StreamSocket* transport() const { return transport_.get(); }

 private:
  Scheduler& scheduler_;
  IPEndPoint peer_;
  FakeConnectRule rule_;
  NetLogWithSource net_log_;
  int* live_count_;
  int* destroyed_in_callback_;
  std::unique_ptr<StreamSocket> transport_;
  bool in_callback_ = false;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  bool connected_ = false;
  bool was_used_ = false;
  bool unread_data_ = false;
  TaskId task_ = kNoTask;
};

class FakeClientSocketFactory : public ClientSocketFactory {
 public:
  struct Attempt {
    IPEndPoint endpoint;
    TimeTicks time;
  };

  explicit FakeClientSocketFactory(Scheduler& scheduler) : scheduler_(scheduler) {}

  void set_default_rule(FakeConnectRule rule) { default_rule_ = rule; }
  void SetRuleForAddress(const IPAddress& address, FakeConnectRule rule) {
    address_rules_[address] = rule;
  }
  // The next transport socket created uses this rule (queued rules go first, in order).
  void QueueRule(FakeConnectRule rule) { queued_rules_.push_back(rule); }
  // The TLS handshake of every TLS socket.
  void set_ssl_rule(FakeConnectRule rule) { ssl_rule_ = rule; }

  std::unique_ptr<StreamSocket> CreateTransportClientSocket(const IPEndPoint& endpoint,
                                                            NetLog* net_log,
                                                            const NetLogSource& creator) override;
  std::unique_ptr<StreamSocket> CreateSslClientSocket(std::unique_ptr<StreamSocket> transport,
                                                      const std::string& host, uint16_t port,
                                                      const NetLogWithSource& net_log) override;

  // Every transport socket created, in order, with when.
  const std::vector<Attempt>& attempts() const { return attempts_; }
  size_t transport_sockets_created() const { return attempts_.size(); }
  // "host:port" of every TLS socket created.
  const std::vector<std::string>& ssl_hosts() const { return ssl_hosts_; }
  // Sockets (TCP and TLS) alive now.
  int live_sockets() const { return live_sockets_; }
  // Sockets destroyed from inside their own connect callback (should stay 0).
  int destroyed_in_callback() const { return destroyed_in_callback_; }

 private:
  Scheduler& scheduler_;
  FakeConnectRule default_rule_;
  std::map<IPAddress, FakeConnectRule> address_rules_;
  std::deque<FakeConnectRule> queued_rules_;
  FakeConnectRule ssl_rule_;
  std::vector<Attempt> attempts_;
  std::vector<std::string> ssl_hosts_;
  int live_sockets_ = 0;
  int destroyed_in_callback_ = 0;
};

}  // namespace netstack::test

#endif  // TESTS_SOCKET_FAKE_CLIENT_SOCKET_FACTORY_H_
