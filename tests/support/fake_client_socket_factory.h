// FakeClientSocketFactory: the ClientSocketFactory of unit tests on virtual time (pool, connect
// job and request-layer tests). No network, no TLS; the simulator has its own modelled factory.
//
// Every transport socket it creates is a FakeStreamSocket over a FakeConnection record that the
// factory owns and keeps after the socket is gone (so a test can check what was written and
// whether the code under test closed the socket). The record's server side is a
// ScriptedStreamSocket:
//   - a script queued with AddSocket(): the next transport socket created serves it (in queueing
//     order), and connects as the AddSocket() rule says;
//   - otherwise an empty script (a connect-only socket: reads wait forever, writes are accepted
//     at once), connecting as the first of: a QueueRule() rule, the rule for its address, the
//     default rule.
// TLS sockets are FakeStreamSockets over the transport: the handshake follows set_ssl_rule(),
// then reads and writes pass through to the transport as plaintext.
//
// Sockets keep the StreamSocket contract: a callback only after ERR_IO_PENDING, never inside
// the call, never after the socket was destroyed or disconnected.
#ifndef TESTS_SUPPORT_FAKE_CLIENT_SOCKET_FACTORY_H_
#define TESTS_SUPPORT_FAKE_CLIENT_SOCKET_FACTORY_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "net/base/ip_address.h"
#include "net/base/net_log.h"
#include "net/base/scheduler.h"
#include "net/base/time.h"
#include "net/base/weak_ptr.h"
#include "net/socket/client_socket_factory.h"
#include "net/socket/stream_socket.h"
#include "tests/support/scripted_stream_socket.h"

namespace netstack::test {

// How Connect() (the TCP connect, or the TLS handshake) ends for one socket.
struct FakeConnectRule {
  // Completes inside Connect() with `result`.
  static FakeConnectRule Sync(int result = OK);
  // Completes `delay` after Connect() with `result`.
  static FakeConnectRule After(TimeDelta delay, int result = OK);
  // Never completes (a lost SYN); the socket stays pending until destroyed or disconnected.
  static FakeConnectRule Hang();

  int result = OK;
  bool sync = false;  // complete inside Connect()
  TimeDelta delay{};  // when !sync: complete this long after Connect()
  bool hang = false;  // when !sync: never complete
};

// What the factory knows of one transport socket, queued or created. Owned by the factory and
// alive as long as it is, whatever happened to the socket.
struct FakeConnection {
  // The server side. Its disconnect_calls() also counts the socket's destruction (which
  // disconnects it to cancel pending completions).
  std::unique_ptr<ScriptedStreamSocket> script;
  FakeConnectRule connect;
  bool scripted = false;    // queued by AddSocket() (not a connect-only socket)
  IPEndPoint endpoint;      // where it was asked to connect (set when created)
  TimeTicks created_at;     // when the connect job asked for it
  uint32_t net_log_id = 0;  // the socket's NetLog source id (connection_info().socket_id)
  bool connected = false;   // Connect() succeeded
  bool destroyed = false;   // the StreamSocket was destroyed (closed)
};

class FakeClientSocketFactory;

// A transport socket over a FakeConnection, or (with a transport) a TLS socket over it.
// Must not outlive its factory.
class FakeStreamSocket : public StreamSocket {
 public:
  // A transport socket serving `connection` (owned by `factory`).
  FakeStreamSocket(FakeClientSocketFactory* factory, FakeConnection* connection,
                   netstack::NetLog* net_log, const NetLogSource& creator);
  // A TLS socket over `transport` whose handshake follows `handshake`: connected only while
  // the transport is; reads and writes go to the transport.
  FakeStreamSocket(FakeClientSocketFactory* factory, std::unique_ptr<StreamSocket> transport,
                   FakeConnectRule handshake, netstack::NetLog* net_log,
                   const NetLogSource& creator);
  // Cancels a pending connect and the server side's pending completions.
  ~FakeStreamSocket() override;

  // Ends as the rule says: OK at once when already connected; a sync result; or ERR_IO_PENDING
  // and the callback after the rule's delay (never, for Hang). The callback may destroy this.
  int Connect(CompletionCallback callback) override;
  // Reads and writes go to the server side's script (to the transport, for TLS), so they
  // complete as it says. ERR_SOCKET_NOT_CONNECTED before a successful connect or after
  // Disconnect(); a read returns 0 after SimulateRemoteClose().
  int Read(char* buf, int len, CompletionCallback callback) override;
  int Write(const char* data, int len, CompletionCallback callback) override;
  // Cancels a pending connect and disconnects the server side (its pending completions never
  // run); for TLS, disconnects the transport.
  void Disconnect() override;
  // Connected, not closed by SimulateRemoteClose(), and the server side (transport) is too.
  bool IsConnected() const override;
  // Also: no SetUnreadData(true), and the server side has returned no EOF or error.
  bool IsConnectedAndIdle() const override;
  // MarkUsed() was called, or a byte was read or written.
  bool WasEverUsed() const override;
  // The endpoint it connected to (for TLS, the transport's); an error when not connected.
  int GetPeerAddress(IPEndPoint* address) const override;
  // A SOCKET source of its own, whose SOCKET_ALIVE references the creator.
  const NetLogWithSource& NetLog() const override { return net_log_; }
  // "TLSv1.3" for a TLS socket; empty for a transport socket.
  std::string TlsVersion() const override { return transport_ ? "TLSv1.3" : ""; }

  // Test controls: mark as used (as if a request ran on it), pretend the server sent bytes
  // nobody read (not idle), or that it closed the connection (not connected; reads return 0).
  void MarkUsed() { was_used_ = true; }
  void SetUnreadData(bool unread) { unread_data_ = unread; }
  void SimulateRemoteClose() { remote_closed_ = true; }
  bool is_tls() const { return transport_ != nullptr; }
  StreamSocket* transport() const { return transport_.get(); }

 private:
  // Where reads and writes go: the transport for TLS, else the server side's script.
  StreamSocket& data_path() const;
  void FinishConnect();

  FakeClientSocketFactory* const factory_;
  FakeConnection* const connection_;  // null for TLS
  std::unique_ptr<StreamSocket> transport_;
  const FakeConnectRule rule_;
  IPEndPoint peer_;
  NetLogWithSource net_log_;
  bool connected_ = false;
  bool was_used_ = false;
  bool unread_data_ = false;
  bool remote_closed_ = false;
  bool in_callback_ = false;
  OneShotTimer connect_timer_;                           // an async connect's completion
  WeakPtrFactory<FakeStreamSocket> weak_factory_{this};  // last: invalidated first
};

class FakeClientSocketFactory : public ClientSocketFactory {
 public:
  struct Attempt {
    IPEndPoint endpoint;
    TimeTicks time;
  };

  // `scheduler` runs connect completions and the scripts; it must outlive the factory, and
  // the factory must outlive its sockets.
  explicit FakeClientSocketFactory(Scheduler& scheduler) : scheduler_(scheduler) {}
  ~FakeClientSocketFactory() override;

  // Queues the script of the next transport socket, which connects as `connect` says (by
  // default 20 ms after Connect(), a LAN round trip). Returns its record, owned by the factory.
  FakeConnection* AddSocket(std::vector<ScriptedRead> reads, std::vector<ScriptedWrite> writes = {},
                            FakeConnectRule connect = FakeConnectRule::After(Milliseconds(20)));

  // Connect rules of the sockets no script was queued for.
  void set_default_rule(FakeConnectRule rule) { default_rule_ = rule; }
  void SetRuleForAddress(const IPAddress& address, FakeConnectRule rule) {
    address_rules_[address] = rule;
  }
  // The next unscripted transport socket uses this rule (queued rules go first, in order).
  void QueueRule(FakeConnectRule rule) { queued_rules_.push_back(rule); }
  // The TLS handshake of every TLS socket.
  void set_ssl_rule(FakeConnectRule rule) { ssl_rule_ = rule; }

  // ClientSocketFactory. A transport socket serves the next queued script, or is a
  // connect-only socket with a record of its own (see the file comment).
  std::unique_ptr<StreamSocket> CreateTransportClientSocket(const IPEndPoint& endpoint,
                                                            const std::string& host,
                                                            NetLog* net_log,
                                                            const NetLogSource& creator) override;
  // A TLS socket over `transport` whose handshake follows set_ssl_rule(); "host:port" is
  // recorded in ssl_hosts(). No certificate is checked: there is no TLS here.
  std::unique_ptr<StreamSocket> CreateSslClientSocket(std::unique_ptr<StreamSocket> transport,
                                                      const std::string& host, uint16_t port,
                                                      const NetLogWithSource& net_log) override;

  // Record `i`: queued scripts in queueing order (which is also the order they are handed out),
  // then unscripted sockets in creation order, as they come.
  FakeConnection& connection(size_t i) { return *connections_.at(i); }
  size_t connections_queued() const { return connections_.size(); }
  // Transport sockets created so far, and where and when each was asked for.
  size_t transport_sockets_created() const { return created_; }
  std::vector<Attempt> attempts() const;
  // Transport sockets created with no queued script left for them.
  size_t unscripted_sockets() const { return unscripted_; }
  // "host:port" of every TLS socket created.
  const std::vector<std::string>& ssl_hosts() const { return ssl_hosts_; }
  // Sockets (transport and TLS) alive now.
  int live_sockets() const { return live_sockets_; }
  // Sockets destroyed from inside their own connect callback, which the pool promises not to
  // do (should stay 0).
  int destroyed_in_callback() const { return destroyed_in_callback_; }

 private:
  friend class FakeStreamSocket;

  FakeConnectRule NextUnscriptedRule(const IPAddress& address);

  Scheduler& scheduler_;
  FakeConnectRule default_rule_;
  std::map<IPAddress, FakeConnectRule> address_rules_;
  std::deque<FakeConnectRule> queued_rules_;
  FakeConnectRule ssl_rule_;
  // Records; [0, created_) were handed out.
  std::deque<std::unique_ptr<FakeConnection>> connections_;
  size_t created_ = 0;
  size_t unscripted_ = 0;
  std::vector<std::string> ssl_hosts_;
  int live_sockets_ = 0;
  int destroyed_in_callback_ = 0;
};

}  // namespace netstack::test

#endif  // TESTS_SUPPORT_FAKE_CLIENT_SOCKET_FACTORY_H_
