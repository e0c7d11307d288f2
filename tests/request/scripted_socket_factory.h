// ScriptedSocketFactory: a ClientSocketFactory for request-layer tests on virtual time. The test
// queues one script per connection it expects (the server's side: what the socket will read,
// how writes go, how the connect ends); each socket a connect job asks for takes the next
// script, in order. The sockets are ScriptedStreamSockets behind a thin proxy that adds the
// connect step (delay, result, hang), a SOCKET NetLog source (so connection ids are real) and a
// record that outlives the socket, so a test can check what was written on a connection and
// whether the pool closed it after the pool destroyed it.
//
// A connect job asking for a socket no script was queued for gets one that fails its connect
// with ERR_CONNECTION_REFUSED; unscripted_sockets() counts them (tests check it stays 0).
// Only plain TCP: CreateSslClientSocket returns the transport as is (no TLS in these tests).
#ifndef TESTS_REQUEST_SCRIPTED_SOCKET_FACTORY_H_
#define TESTS_REQUEST_SCRIPTED_SOCKET_FACTORY_H_

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "net/base/ip_address.h"
#include "net/base/net_log.h"
#include "net/base/scheduler.h"
#include "net/base/time.h"
#include "net/socket/client_socket_factory.h"
#include "tests/fakes/scripted_stream_socket.h"

namespace netstack::test {

// How Connect() ends for one socket.
struct ConnectRule {
  int result = OK;
  bool sync = false;                   // complete inside Connect()
  TimeDelta delay = Milliseconds(20);  // when !sync: complete this long after Connect()
  bool hang = false;                   // when !sync: never complete
};

// What the factory knows of one scripted connection. Owned by the factory, alive as long as
// it is, whatever happened to the socket.
struct ScriptedConnection {
  // The server side. Its disconnect_calls() also counts the proxy's destruction (which
  // disconnects it to cancel pending completions); `disconnects` counts only the code under
  // test's Disconnect() calls.
  std::unique_ptr<ScriptedStreamSocket> script;
  ConnectRule connect;
  bool handed_out = false;  // a connect job took it
  IPEndPoint endpoint;      // where it was asked to connect
  uint32_t net_log_id = 0;  // the socket's NetLog source id (connection_info().socket_id)
  bool connected = false;   // Connect() succeeded
  bool destroyed = false;   // the StreamSocket was destroyed (closed)
  int disconnects = 0;
};

class ScriptedSocketFactory : public ClientSocketFactory {
 public:
  // `scheduler` runs connect completions and the scripts; it must outlive the factory.
  explicit ScriptedSocketFactory(Scheduler& scheduler) : scheduler_(scheduler) {}
  ~ScriptedSocketFactory() override;

  // Queues the next connection's script. Returns the record (owned by the factory).
  ScriptedConnection* AddSocket(std::vector<ScriptedRead> reads,
                                std::vector<ScriptedWrite> writes = {}, ConnectRule connect = {});

  // ClientSocketFactory:
  std::unique_ptr<StreamSocket> CreateTransportClientSocket(const IPEndPoint& endpoint,
                                                            NetLog* net_log,
                                                            const NetLogSource& creator) override;
  std::unique_ptr<StreamSocket> CreateSslClientSocket(std::unique_ptr<StreamSocket> transport,
                                                      const std::string& host, uint16_t port,
                                                      const NetLogWithSource& net_log) override;

  // Scripted sockets handed out so far.
  size_t sockets_created() const { return created_; }
  // Scripted connection `i` (in queueing order; also hand-out order).
  ScriptedConnection& connection(size_t i) { return *connections_.at(i); }
  size_t connections_queued() const { return connections_.size(); }
  // Sockets asked for beyond the queued scripts (they refused to connect).
  size_t unscripted_sockets() const { return unscripted_; }
  // Scripted sockets alive now.
  int live_sockets() const { return live_; }

 private:
  class Socket;

  Scheduler& scheduler_;
  std::deque<std::unique_ptr<ScriptedConnection>> connections_;
  size_t created_ = 0;
  size_t unscripted_ = 0;
  int live_ = 0;
};

}  // namespace netstack::test

#endif  // TESTS_REQUEST_SCRIPTED_SOCKET_FACTORY_H_
