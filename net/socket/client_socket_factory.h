// Creates the sockets connect jobs use: the seam between the pool (same in both worlds) and the
// transports (libuv + OpenSSL live, modelled in the simulator, scripted in tests).
#ifndef NET_SOCKET_CLIENT_SOCKET_FACTORY_H_
#define NET_SOCKET_CLIENT_SOCKET_FACTORY_H_

#include <cstdint>
#include <memory>
#include <string>

#include "net/base/ip_address.h"
#include "net/base/net_log.h"
#include "net/socket/stream_socket.h"

namespace netstack {

class ClientSocketFactory {
 public:
  virtual ~ClientSocketFactory() = default;

  // A TCP socket for one endpoint, not yet connected (the caller calls Connect). Address
  // fallback and the IPv6/IPv4 race are the connect job's business. `host` is the name the
  // endpoint was resolved from (the URL's host: lowercase, an IPv6 literal without brackets; ""
  // when unknown): a real socket ignores it, a modelled network names the server by it.
  // `net_log` is the NetLog the socket creates its own SOCKET source in; `creator` is referenced
  // from SOCKET_ALIVE.
  virtual std::unique_ptr<StreamSocket> CreateTransportClientSocket(
      const IPEndPoint& endpoint, const std::string& host, NetLog* net_log,
      const NetLogSource& creator) = 0;

  // A TLS socket over a connected `transport` (ownership passes), for `host` (SNI and
  // verification) and `port` (with host, the session cache key). Connect() runs the handshake.
  virtual std::unique_ptr<StreamSocket> CreateSslClientSocket(
      std::unique_ptr<StreamSocket> transport, const std::string& host, uint16_t port,
      const NetLogWithSource& net_log) = 0;
};

}  // namespace netstack

#endif  // NET_SOCKET_CLIENT_SOCKET_FACTORY_H_
