// SimSocketFactory: the simulator's ClientSocketFactory: SimStreamSockets for addresses (the
// host each stands for is looked up in the world), SimSslSockets over them, and what they share:
// the TLS session cache (one per factory, so one per stack, as the live stack's SslClientContext
// holds its own) and the ALPN protocols the stack offers (SslConfig::alpn). Internal to net/sim
// (SimNetwork::CreateSocketFactory).
#ifndef NET_SIM_SIM_SOCKET_FACTORY_H_
#define NET_SIM_SIM_SOCKET_FACTORY_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "net/base/clock.h"
#include "net/sim/sim_ssl_socket.h"
#include "net/socket/client_socket_factory.h"

namespace netstack {

class SimWorld;

class SimSocketFactory : public ClientSocketFactory {
 public:
  // `world` must outlive the factory; the factory must outlive its sockets. TLS sessions are
  // kept up to `max_tls_sessions` (least recently used first out) on virtual wall time. `alpn`:
  // the protocols its TLS sockets offer, most preferred first (SslConfig::alpn).
  SimSocketFactory(SimWorld& world, size_t max_tls_sessions, std::vector<std::string> alpn);

  // A SimStreamSocket to the host SimWorld::HostForConnect names (an IP literal or `localhost`
  // is a host of its own, reached without DNS); one no host can be given refuses to connect.
  std::unique_ptr<StreamSocket> CreateTransportClientSocket(const IPEndPoint& endpoint,
                                                            const std::string& host,
                                                            NetLog* net_log,
                                                            const NetLogSource& creator) override;
  // A SimSslSocket over `transport` (a socket of this factory; any other fails its handshake),
  // resuming from and adding to this factory's session cache, offering this factory's ALPN.
  std::unique_ptr<StreamSocket> CreateSslClientSocket(std::unique_ptr<StreamSocket> transport,
                                                      const std::string& host, uint16_t port,
                                                      const NetLogWithSource& net_log) override;

 private:
  SimWorld& world_;
  // The scheduler's time read as wall time from the Unix epoch: only differences matter.
  SchedulerClock clock_;
  SimTlsSessionCache tls_sessions_;
  const std::vector<std::string> alpn_;
};

}  // namespace netstack

#endif  // NET_SIM_SIM_SOCKET_FACTORY_H_
