// SimSocketFactory: the simulator's ClientSocketFactory: SimStreamSockets for addresses (the
// host each stands for is looked up in the world), SimSslSockets over them. Internal to
// net/sim (SimNetwork::CreateSocketFactory).
#ifndef NET_SIM_SIM_SOCKET_FACTORY_H_
#define NET_SIM_SIM_SOCKET_FACTORY_H_

#include <memory>
#include <string>

#include "net/socket/client_socket_factory.h"

namespace netstack {

class SimWorld;

class SimSocketFactory : public ClientSocketFactory {
 public:
  // `world` must outlive the factory and its sockets.
  explicit SimSocketFactory(SimWorld& world) : world_(world) {}

  // A SimStreamSocket; one for an address the network did not hand out refuses to connect.
  std::unique_ptr<StreamSocket> CreateTransportClientSocket(const IPEndPoint& endpoint,
                                                            NetLog* net_log,
                                                            const NetLogSource& creator) override;
  // A SimSslSocket over `transport` (a socket of this factory; any other fails its handshake).
  std::unique_ptr<StreamSocket> CreateSslClientSocket(std::unique_ptr<StreamSocket> transport,
                                                      const std::string& host, uint16_t port,
                                                      const NetLogWithSource& net_log) override;

 private:
  SimWorld& world_;
};

}  // namespace netstack

#endif  // NET_SIM_SIM_SOCKET_FACTORY_H_
