// The live ClientSocketFactory: TCP sockets on a libuv loop and TLS sockets with one stack's
// SslClientContext. The simulator and tests provide other factories behind the same seam.
#ifndef NET_SOCKET_UV_CLIENT_SOCKET_FACTORY_H_
#define NET_SOCKET_UV_CLIENT_SOCKET_FACTORY_H_

#include <uv.h>

#include <cstdint>
#include <memory>
#include <string>

#include "net/socket/client_socket_factory.h"
#include "net/socket/ssl_client_context.h"

namespace netstack {

class UvClientSocketFactory : public ClientSocketFactory {
 public:
  // `loop` and `ssl_context` are not owned and must outlive the factory and every socket it
  // creates (the stack owns all three). Ignores SIGPIPE for the process if it is still at its
  // default action: libuv writes with write(2), and a peer's reset must be an error
  // (ERR_CONNECTION_RESET), not the end of the program.
  UvClientSocketFactory(uv_loop_t* loop, SslClientContext* ssl_context);
  ~UvClientSocketFactory() override;

  // A not yet connected UvTcpClientSocket for `endpoint`, logging to its own SOCKET source in
  // `net_log` (SOCKET_ALIVE references `creator`).
  std::unique_ptr<StreamSocket> CreateTransportClientSocket(const IPEndPoint& endpoint,
                                                            const std::string& host,
                                                            NetLog* net_log,
                                                            const NetLogSource& creator) override;

  // An SslClientSocket over `transport`; its events go to the transport's source (`net_log` is
  // used only if the transport has no NetLog). Connect() runs the handshake.
  std::unique_ptr<StreamSocket> CreateSslClientSocket(std::unique_ptr<StreamSocket> transport,
                                                      const std::string& host, uint16_t port,
                                                      const NetLogWithSource& net_log) override;

  uv_loop_t* loop() const { return loop_; }
  SslClientContext* ssl_context() const { return ssl_context_; }

 private:
  uv_loop_t* const loop_;
  SslClientContext* const ssl_context_;
};

}  // namespace netstack

#endif  // NET_SOCKET_UV_CLIENT_SOCKET_FACTORY_H_
