#include "net/sim/sim_ssl_socket.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

#include "net/sim/sim_stream_socket.h"
#include "net/sim/sim_world.h"
#include "net/socket/socket_callback_util.h"

namespace netstack {

namespace {

// The handshake's other flights, when the server's first one is modelled
// (tls_server_flight_bytes > 0), roughly as OpenSSL sends them (records and the TLS 1.3
// compatibility ChangeCipherSpec included): the ClientHello, larger with a session to offer;
// a resumption's server flight (no certificate); TLS 1.2's ClientKeyExchange, ChangeCipherSpec
// and Finished, and the server's NewSessionTicket, ChangeCipherSpec and Finished; the client's
// ChangeCipherSpec and Finished.
constexpr int64_t kClientHelloBytes = 320;
constexpr int64_t kResumingClientHelloBytes = 550;
constexpr int64_t kResumedServerFlightBytes = 160;
constexpr int64_t kTls12ClientKeyExchangeBytes = 130;
constexpr int64_t kTls12ServerFinishedBytes = 250;
constexpr int64_t kClientFinishedBytes = 64;

}  // namespace

std::string SimSelectAlpn(const std::vector<std::string>& offered, bool server_h2) {
  auto offers = [&offered](std::string_view protocol) {
    return std::find(offered.begin(), offered.end(), protocol) != offered.end();
  };
  if (server_h2 && offers("h2")) return "h2";
  if (offers("http/1.1")) return "http/1.1";
  return {};
}

SimSslSocket::SimSslSocket(SimWorld& world, SimTlsSessionCache& sessions,
                           std::unique_ptr<StreamSocket> transport, SimStreamSocket* sim_transport,
                           const std::string& host, uint16_t port,
                           const std::vector<std::string>& alpn)
    : world_(world),
      sessions_(sessions),
      transport_(std::move(transport)),
      sim_(sim_transport),
      host_(host),
      port_(port),
      session_key_(SslSessionCacheKey(host, port)),
      alpn_(alpn),
      handshake_timer_(world.scheduler),
      ticket_timer_(world.scheduler) {}

SimSslSocket::~SimSslSocket() {
  if (state_ == State::kHandshaking) {
    transport_->NetLog().EndEventWithNetErrorCode(NetLogEventType::SSL_CONNECT, ERR_ABORTED);
  }
  transport_.reset();
}

int SimSslSocket::Connect(CompletionCallback callback) {
  if (state_ == State::kConnected) return OK;
  if (state_ != State::kIdle) return ERR_INVALID_ARGUMENT;
  if (!transport_->IsConnected()) return ERR_SOCKET_NOT_CONNECTED;
  const NetLogWithSource& log = transport_->NetLog();
  log.BeginEvent(NetLogEventType::SSL_CONNECT, [this] {
    return nlohmann::json{{"host", host_}, {"port", port_}};
  });
  if (!sim_ || !sim_->host()) {
    state_ = State::kClosed;
    log.EndEventWithNetErrorCode(NetLogEventType::SSL_CONNECT, ERR_SSL_PROTOCOL_ERROR);
    return ERR_SSL_PROTOCOL_ERROR;
  }
  SimHost* host = sim_->host();
  version_ = host->params.tls;
  protocol_ = SimSelectAlpn(alpn_, host->params.http2);
  // As the live engine does when it makes its SSL: a TLS 1.3 ticket is taken here, so a second
  // connection starting before this one's handshake brings a new ticket makes a full handshake.
  // A session of another version than the server speaks now is not resumed.
  std::optional<SimTlsSession> session = sessions_.Lookup(session_key_);
  resumed_ = session && session->version == version_;
  state_ = State::kHandshaking;
  if (host->params.tls_server_flight_bytes > 0) return ConnectWithFlights(std::move(callback));
  const int round_trips = (version_ == netstack::TlsVersion::kTls12 ? 2 : 1) - (resumed_ ? 1 : 0);
  const TimeTicks now = world_.scheduler.Now();
  const TimeTicks done = world_.radio.Acquire(now) + round_trips * host->params.rtt;
  if (done == now) {
    FinishHandshake();
    return OK;
  }
  connect_callback_ = std::move(callback);
  handshake_timer_.Start(done - now, [this] {
    FinishHandshake();
    RunCallback(connect_callback_, OK);  // may destroy this socket
  });
  return ERR_IO_PENDING;
}

int SimSslSocket::ConnectWithFlights(CompletionCallback callback) {
  using Flight = SimStreamSocket::TlsFlight;
  const int64_t server_flight = sim_->host()->params.tls_server_flight_bytes;
  std::vector<Flight> flights;
  if (version_ == netstack::TlsVersion::kTls13) {
    if (resumed_) {
      // 0-RTT: the ClientHello and the request leave together; the server's short flight is
      // not modelled (it carries no certificate).
      sim_->SendTlsClientBytes(kResumingClientHelloBytes);
      FinishHandshake();
      return OK;
    }
    flights = {{false, kClientHelloBytes}, {true, server_flight}};
    // The client's Finished leaves with the request (FinishHandshake).
  } else if (resumed_) {
    flights = {{false, kResumingClientHelloBytes}, {true, kResumedServerFlightBytes}};
  } else {
    flights = {{false, kClientHelloBytes},
               {true, server_flight},
               {false, kTls12ClientKeyExchangeBytes},
               {true, kTls12ServerFinishedBytes}};
  }
  connect_callback_ = std::move(callback);
  sim_->SendTlsFlights(std::move(flights), [this] {
    FinishHandshake();
    RunCallback(connect_callback_, OK);  // may destroy this socket
  });
  return ERR_IO_PENDING;
}

void SimSslSocket::FinishHandshake() {
  state_ = State::kConnected;
  const SimHost& host = *sim_->host();
  if (host.params.tls_server_flight_bytes > 0 &&
      (version_ == netstack::TlsVersion::kTls13 ? !resumed_ : resumed_)) {
    // The client's last flight (its Finished) leaves ahead of the request.
    sim_->SendTlsClientBytes(kClientFinishedBytes);
  }
  if (version_ == netstack::TlsVersion::kTls12) {
    // The session is established with the server's Finished. An abbreviated handshake reuses the
    // session it resumed, which stays cached with its first lifetime (OpenSSL's client stores
    // no new session then).
    if (!resumed_) IssueSessions(host, 1);
  } else {
    // A TLS 1.3 server sends fresh tickets after every handshake (RFC 8446 §4.6.1) once the
    // client's Finished reaches it (OpenSSL's server does): they arrive one round trip after the
    // client's side of a full handshake ends, two after a 0-RTT one started. Until then a new
    // connection to the server has no ticket; a socket closed before gets none. OpenSSL's
    // server sends two after a full handshake (SSL_CTX_set_num_tickets' default) and one after
    // a resumption; the session cache keeps two per server, as Chrome's does.
    const int tickets = resumed_ ? 1 : 2;
    const TimeDelta wait = (resumed_ ? 2 : 1) * host.params.rtt;
    if (wait == TimeDelta::zero()) {
      IssueSessions(host, tickets);
    } else {
      ticket_timer_.Start(wait, [this, tickets] { IssueSessions(*sim_->host(), tickets); });
    }
  }
  ++(resumed_ ? world_.stats.tls_resumed : world_.stats.tls_handshakes);
  world_.radio.Touch(world_.scheduler.Now());
  sim_->SetTls(protocol_ == "h2");
  const NetLogWithSource& log = transport_->NetLog();
  log.EndEvent(NetLogEventType::SSL_CONNECT, [this] {
    return nlohmann::json{{"version", TlsVersion()},
                          {"cipher_suite", "TLS_AES_128_GCM_SHA256 (simulated)"},
                          {"is_resumed", resumed_},
                          {"next_proto", protocol_.empty() ? "http/1.1" : protocol_}};
  });
  if (resumed_) log.AddEvent(NetLogEventType::SSL_SESSION_RESUMED);
}

void SimSslSocket::IssueSessions(const SimHost& host, int count) {
  const Time now = sessions_.clock().Now();
  const TimeDelta lifetime = host.params.tls_session_lifetime;
  for (int i = 0; i < count; ++i) {
    sessions_.Insert(session_key_, SimTlsSession{version_, now, lifetime},
                     SslSessionValidity{now, now + lifetime,
                                        /*single_use=*/version_ == netstack::TlsVersion::kTls13});
  }
}

int SimSslSocket::Read(char* buf, int len, CompletionCallback callback) {
  if (state_ != State::kConnected) return ERR_SOCKET_NOT_CONNECTED;
  return transport_->Read(buf, len, std::move(callback));
}

int SimSslSocket::Write(const char* data, int len, CompletionCallback callback) {
  if (state_ != State::kConnected) return ERR_SOCKET_NOT_CONNECTED;
  return transport_->Write(data, len, std::move(callback));
}

void SimSslSocket::Disconnect() {
  ticket_timer_.Stop();
  if (state_ == State::kHandshaking) {
    handshake_timer_.Stop();
    transport_->NetLog().EndEventWithNetErrorCode(NetLogEventType::SSL_CONNECT, ERR_ABORTED);
  }
  connect_callback_ = nullptr;
  state_ = State::kClosed;
  transport_->Disconnect();
}

bool SimSslSocket::IsConnected() const {
  return state_ == State::kConnected && transport_->IsConnected();
}

bool SimSslSocket::IsConnectedAndIdle() const {
  return state_ == State::kConnected && transport_->IsConnectedAndIdle();
}

int SimSslSocket::GetPeerAddress(IPEndPoint* address) const {
  return transport_->GetPeerAddress(address);
}

std::string SimSslSocket::NegotiatedProtocol() const {
  return state_ == State::kConnected ? protocol_ : std::string();
}

std::string SimSslSocket::TlsVersion() const {
  if (state_ != State::kConnected) return {};
  return version_ == netstack::TlsVersion::kTls12 ? "TLSv1.2" : "TLSv1.3";
}

}  // namespace netstack
