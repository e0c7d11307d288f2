// H2SocketFactory: a ClientSocketFactory whose connections each end at an H2TestServer, on
// virtual time, for tests of the stack above HTTP/2 (session pool rules, coalescing, queueing,
// retries) without a network. A connection connects after `connect_delay`; its "TLS" layer
// completes at once and reports `alpn` as the negotiated protocol; bytes written go into the
// server, which answers each finished request through `handler` (default: 200, body = path),
// and the server's bytes come back through Read from a posted task.
#ifndef TESTS_HTTP2_H2_SOCKET_FACTORY_H_
#define TESTS_HTTP2_H2_SOCKET_FACTORY_H_

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "net/base/net_log.h"
#include "net/base/scheduler.h"
#include "net/socket/client_socket_factory.h"
#include "tests/http2/h2_test_server.h"

namespace netstack::test {

// One connection's server side and what the test can see of it.
struct H2ServerConnection {
  explicit H2ServerConnection(std::vector<nghttp2_settings_entry> settings)
      : server(std::move(settings)) {}
  H2TestServer server;
  IPEndPoint endpoint;
  bool tls = false;
  bool closed = false;
  // Streams seen, and the most open at once.
  int requests = 0;
  size_t max_open = 0;
  std::set<int32_t> answered;
  // Sends what the server has written since (a response made outside a handler call) to the
  // client; a no-op once the client's socket is gone.
  std::function<void()> flush = [] {};
};

class H2SocketFactory : public ClientSocketFactory {
 public:
  // Answers stream `stream_id` of `conn` (its request complete); may leave it unanswered.
  using Handler = std::function<void(H2ServerConnection& conn, int32_t stream_id)>;

  struct Options {
    std::string alpn = "h2";  // what TLS "negotiates" ("" or "http/1.1": no h2)
    TimeDelta connect_delay = Milliseconds(10);
    std::vector<nghttp2_settings_entry> settings;
    // Names the certificate covers (for coalescing); empty: only the name connected to.
    std::set<std::string> certificate_names;
  };

  H2SocketFactory(Scheduler& scheduler, Options options);
  ~H2SocketFactory() override;

  std::unique_ptr<StreamSocket> CreateTransportClientSocket(const IPEndPoint& endpoint,
                                                            const std::string& host,
                                                            NetLog* net_log,
                                                            const NetLogSource& creator) override;
  std::unique_ptr<StreamSocket> CreateSslClientSocket(std::unique_ptr<StreamSocket> transport,
                                                      const std::string& host, uint16_t port,
                                                      const NetLogWithSource& net_log) override;

  void set_handler(Handler handler) { handler_ = std::move(handler); }
  // Every connection made, in order (owned by the factory, alive after their sockets).
  const std::vector<std::unique_ptr<H2ServerConnection>>& connections() const {
    return connections_;
  }
  Options& options() { return options_; }
  Scheduler& scheduler() { return scheduler_; }
  const Handler& handler() const { return handler_; }

  // The default handler: 200 with the request's :path as the body.
  static void AnswerWithPath(H2ServerConnection& conn, int32_t stream_id);

 private:
  Scheduler& scheduler_;
  Options options_;
  Handler handler_ = &AnswerWithPath;
  std::vector<std::unique_ptr<H2ServerConnection>> connections_;
};

}  // namespace netstack::test

#endif  // TESTS_HTTP2_H2_SOCKET_FACTORY_H_
