// SimSslSocket: the simulator's TLS socket over a SimStreamSocket. The handshake costs round
// trips (ALPN rides in it: the server picks from the client's offer, SimSelectAlpn):
// TLS 1.2 two, TLS 1.3 one, and one less when the stack's session cache (the same
// SslClientSessionCache the live world uses) offers a session for host:port (TLS 1.3 resumption
// then sends the request as 0-RTT early data; a TLS 1.3 ticket is taken by the lookup). The server
// issues a session valid for its host's tls_session_lifetime: TLS 1.2 at the end of a full
// handshake, TLS 1.3 a ticket a round trip after any handshake's end (two after a 0-RTT start), if
// the socket is still open. Afterwards reads and writes pass through to the transport, whose server
// now sees "https" requests, over HTTP/2 when ALPN chose "h2". Logs SSL_CONNECT (and
// SSL_SESSION_RESUMED) on the transport's source, as SslClientSocket does.
// With the host's tls_server_flight_bytes > 0 its flights also cross the connection's flows as
// data does (SimStreamSocket::SendTlsFlights), each leaving when the previous one arrived: a
// full handshake's ClientHello, the server's flight of that many bytes (TLS 1.2: then the
// client's key exchange and the server's Finished); a resumed one's server flight is short (no
// certificate), a TLS 1.3 resumption's ClientHello leaves with the request (0-RTT). The client's
// Finished leaves ahead of the request. Internal to net/sim.
#ifndef NET_SIM_SIM_SSL_SOCKET_H_
#define NET_SIM_SIM_SSL_SOCKET_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "net/base/clock.h"
#include "net/base/scheduler.h"
#include "net/sim/network_params.h"
#include "net/socket/ssl_client_session_cache.h"
#include "net/socket/stream_socket.h"

namespace netstack {

class SimStreamSocket;
class SimWorld;
struct SimHost;

// A session a modelled server issued: what the client's cache holds in the simulated world.
struct SimTlsSession {
  TlsVersion version = TlsVersion::kTls13;
  Time issued;
  TimeDelta lifetime;
};
using SimTlsSessionCache = SslClientSessionCache<SimTlsSession>;

// The protocol a modelled server picks from the client's ALPN offer (RFC 7301), as nginx's
// selection does: "h2" when offered and the server speaks it (`server_h2`: its host's http2,
// NetworkParams::ForHost), else "http/1.1" when offered, else none ("": the connection speaks
// HTTP/1.1 without ALPN, as when the client offers nothing).
std::string SimSelectAlpn(const std::vector<std::string>& offered, bool server_h2);

class SimSslSocket : public StreamSocket {
 public:
  // `sim_transport` is `transport` seen as the simulator's socket, or null if it is not one
  // (Connect then fails with ERR_SSL_PROTOCOL_ERROR). `world`, `sessions` (the stack's
  // session cache) and `alpn` (the protocols the stack offers, most preferred first) must
  // outlive the socket.
  SimSslSocket(SimWorld& world, SimTlsSessionCache& sessions,
               std::unique_ptr<StreamSocket> transport, SimStreamSocket* sim_transport,
               const std::string& host, uint16_t port, const std::vector<std::string>& alpn);
  // Destroys the transport; pending callbacks never run.
  ~SimSslSocket() override;
  SimSslSocket(const SimSslSocket&) = delete;
  SimSslSocket& operator=(const SimSslSocket&) = delete;

  // The handshake: OK at once when it costs no round trip (TLS 1.3 resumed), else
  // ERR_IO_PENDING and OK after its round trips; ERR_SOCKET_NOT_CONNECTED if the transport is
  // not connected.
  int Connect(CompletionCallback callback) override;
  // Pass through to the transport once the handshake is done (ERR_SOCKET_NOT_CONNECTED
  // before).
  int Read(char* buf, int len, CompletionCallback callback) override;
  int Write(const char* data, int len, CompletionCallback callback) override;
  void Disconnect() override;
  bool IsConnected() const override;
  bool IsConnectedAndIdle() const override;
  bool WasEverUsed() const override { return transport_->WasEverUsed(); }
  int GetPeerAddress(IPEndPoint* address) const override;
  const NetLogWithSource& NetLog() const override { return transport_->NetLog(); }
  bool WasSessionResumed() const override { return resumed_; }
  // "TLSv1.2" or "TLSv1.3" once connected.
  std::string TlsVersion() const override;
  // What ALPN chose ("h2", "http/1.1" or "" for none) once connected; "" before.
  std::string NegotiatedProtocol() const override;

 private:
  enum class State { kIdle, kHandshaking, kConnected, kClosed };

  // The handshake's flights over the transport's flows (tls_server_flight_bytes > 0).
  int ConnectWithFlights(CompletionCallback callback);
  void FinishHandshake();
  // `count` sessions the server just issued for this host:port, into the cache.
  void IssueSessions(const SimHost& host, int count);

  SimWorld& world_;
  SimTlsSessionCache& sessions_;
  std::unique_ptr<StreamSocket> transport_;
  SimStreamSocket* const sim_;
  const std::string host_;
  const uint16_t port_;
  const std::string session_key_;  // SslSessionCacheKey(host_, port_)
  const std::vector<std::string>& alpn_;
  std::string protocol_;  // ALPN's choice, decided with the ServerHello
  State state_ = State::kIdle;
  netstack::TlsVersion version_ = netstack::TlsVersion::kTls13;
  bool resumed_ = false;
  OneShotTimer handshake_timer_;  // the handshake's last round trip
  OneShotTimer ticket_timer_;     // a TLS 1.3 ticket's arrival
  CompletionCallback connect_callback_;
};

}  // namespace netstack

#endif  // NET_SIM_SIM_SSL_SOCKET_H_
