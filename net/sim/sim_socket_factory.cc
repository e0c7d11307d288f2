#include "net/sim/sim_socket_factory.h"

#include <utility>

#include "net/sim/sim_ssl_socket.h"
#include "net/sim/sim_stream_socket.h"
#include "net/sim/sim_world.h"

namespace netstack {

SimSocketFactory::SimSocketFactory(SimWorld& world, size_t max_tls_sessions,
                                   std::vector<std::string> alpn)
    : world_(world),
      clock_(world.scheduler, Time{}),
      tls_sessions_(clock_, max_tls_sessions),
      alpn_(std::move(alpn)) {}

std::unique_ptr<StreamSocket> SimSocketFactory::CreateTransportClientSocket(
    const IPEndPoint& endpoint, const std::string& host, NetLog* net_log,
    const NetLogSource& creator) {
  return std::make_unique<SimStreamSocket>(world_, world_.HostForConnect(endpoint.address(), host),
                                           endpoint, net_log, creator);
}

std::unique_ptr<StreamSocket> SimSocketFactory::CreateSslClientSocket(
    std::unique_ptr<StreamSocket> transport, const std::string& host, uint16_t port,
    const NetLogWithSource& net_log) {
  (void)net_log;  // The TLS socket logs on its transport's source, as the live one does.
  auto* sim = dynamic_cast<SimStreamSocket*>(transport.get());
  return std::make_unique<SimSslSocket>(world_, tls_sessions_, std::move(transport), sim, host,
                                        port, alpn_);
}

}  // namespace netstack
