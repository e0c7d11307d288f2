#include "net/socket/uv_client_socket_factory.h"

#include <signal.h>

#include "net/socket/ssl_client_socket.h"
#include "net/socket/uv_tcp_client_socket.h"

namespace netstack {

UvClientSocketFactory::UvClientSocketFactory(uv_loop_t* loop, SslClientContext* ssl_context)
    : loop_(loop), ssl_context_(ssl_context) {
  struct sigaction current = {};
  if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
    signal(SIGPIPE, SIG_IGN);
  }
}

UvClientSocketFactory::~UvClientSocketFactory() = default;

std::unique_ptr<StreamSocket> UvClientSocketFactory::CreateTransportClientSocket(
    const IPEndPoint& endpoint, const std::string& /*host*/, NetLog* net_log,
    const NetLogSource& creator) {
  return std::make_unique<UvTcpClientSocket>(loop_, endpoint, net_log, creator);
}

std::unique_ptr<StreamSocket> UvClientSocketFactory::CreateSslClientSocket(
    std::unique_ptr<StreamSocket> transport, const std::string& host, uint16_t port,
    const NetLogWithSource& net_log) {
  return std::make_unique<SslClientSocket>(std::move(transport), ssl_context_, host, port, net_log);
}

}  // namespace netstack
