// SimNetwork: the simulated world's edges. It hands the stack a DnsTransport and a
// ClientSocketFactory whose sockets are modelled connections over NetworkParams, and plays the
// servers' side by asking a SimResponder what to answer. Everything above the edges (host
// cache, resolver jobs, socket pools, HTTP transactions, the HTTP cache) is the live stack's
// code, run on the same Scheduler (a VirtualScheduler in replay and tests).
//
// The model, per connection (the why of each rule is in net/sim/README.md):
//   - DNS: a lookup of a name takes dns (per host) and answers one IPv4 address per host
//     (deterministic: 10.x.y.z from the order hosts are first seen) with TTL dns_ttl.
//   - TCP connect: one round trip. TLS: 2 round trips for 1.2, 1 for 1.3; a resumed session one
//     less (TLS 1.3 resumed: the request goes as 0-RTT early data). Resumption is decided by
//     the stack's session cache (SslClientSessionCache, the live world's: host:port, 1000
//     servers LRU, up to two TLS 1.3 tickets or one TLS 1.2 session per server): a server
//     issues sessions valid for tls_session_lifetime (TLS 1.2: one at the end of a full
//     handshake, resumed any number of times until it expires; TLS 1.3: two tickets after a
//     full handshake and one after a resumption, as OpenSSL's server sends them, arriving one
//     round trip after the handshake ends, two after a 0-RTT one began, each used by one
//     connection only). So of six connections started together after a full handshake's
//     tickets two resume, and a session older than its lifetime does not.
//   - Each direction of a connection sends in slow-start rounds: round k carries up to
//     cwnd_k segments, cwnd_0 = init_cwnd, growing by the segments each round carried
//     (doubling when full) up to the receive window (and 2 x BDP on a limited link); the next
//     round enters the link one RTT after the previous one started crossing it (ACK clock);
//     the window is kept across keep-alive requests and restarts after idle_restart without
//     traffic.
//   - The access link is at the client: uplink bytes cross it and then the one-way delay
//     (rtt / 2), downlink bytes the one-way delay and then the link. Each direction is shared
//     fairly (processor sharing) by the connections with bytes on it at that moment.
//     Downlink bytes are readable when they have crossed it, per round (the head of a
//     response first).
//   - A server answers a request `server_time` after its last byte arrived (SimResponse may
//     override per response); the response's bytes follow the rules above. Requests are
//     read with net/server's HttpRequestReader; the server closes after a response by the
//     client's keep-alive rule (net/http/http_keep_alive.h: `Connection: close`, HTTP/1.0, a
//     body delimited by the close, ...) or when the request asked to; a request the reader
//     refuses closes the connection when it arrives.
//   - A host whose `http2` is on (NetworkParams::ForHost) speaks HTTP/2: chosen by ALPN in the
//     TLS handshake when the client offers h2 (no extra round trip), or by the preface on a
//     clear-text connection (prior knowledge). Its server (nghttp2's server session) sends real
//     frames and HPACK bytes (DATA payloads filler), answers streams concurrently, each after
//     its server time, and all of them share the connection's window and the link.
//   - With radio.enabled, traffic at the client while the radio is idle first waits the
//     promotion delay; the radio goes idle after `tail` without traffic.
//
// With zero bandwidth limits (unlimited), one HTTPS request costs exactly
//   dns + rtt (TCP) + 2 rtt (TLS 1.2) + rtt/2 (request) + server + rtt/2 (response)
// when the response fits in the initial window: 50 + 80 + 160 + 40 + 100 + 40 = 470 ms for
// Chrome's worked example.
#ifndef NET_SIM_SIM_NETWORK_H_
#define NET_SIM_SIM_NETWORK_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "net/base/scheduler.h"
#include "net/base/time.h"
#include "net/dns/dns_transport.h"
#include "net/sim/network_params.h"
#include "net/socket/client_socket_factory.h"
#include "net/socket/ssl_client_session_cache.h"
#include "net/socket/ssl_config.h"

namespace netstack {

// A request as the modelled server read it off the wire (HttpRequestReader).
struct SimRequest {
  std::string method;
  std::string scheme;  // "http" or "https" (from the connection)
  std::string host;    // the Host header, lowercase, without a default port
  std::string target;  // the request target, "/path?query"
  int64_t body_bytes = 0;
  TimeTicks arrived_at{};  // when its last byte reached the server
};

// What the modelled server sends back.
struct SimResponse {
  // The status line and header lines, each ending in CRLF, with the blank line: the complete
  // response head as it goes on the wire. It must frame the body (Content-Length: body_bytes,
  // or no body for 204/304/HEAD).
  std::string head;
  // Body bytes that follow the head (filler; their content is not modelled).
  int64_t body_bytes = 0;
  // Overrides the host's server_time for this response.
  std::optional<TimeDelta> server_time;
};

class SimWorld;

// The servers' side, supplied by the user of SimNetwork (the replay engine, a test).
class SimResponder {
 public:
  virtual ~SimResponder() = default;
  // Called on the scheduler when a complete request has arrived at the modelled server.
  // Returns the response. Must not destroy the SimNetwork.
  virtual SimResponse Respond(const SimRequest& request) = 0;
};

class SimNetwork {
 public:
  // Counters over the network's life, for the summary and tests.
  struct Stats {
    uint64_t dns_lookups = 0;
    uint64_t tcp_connects = 0;    // connects that completed
    uint64_t tls_handshakes = 0;  // full handshakes
    uint64_t tls_resumed = 0;     // resumed handshakes
    uint64_t requests = 0;        // requests that reached a server
    int64_t bytes_down = 0;       // response bytes delivered to the client
    int64_t bytes_up = 0;         // request bytes delivered to servers
    uint64_t radio_promotions = 0;
  };

  // `scheduler` and `responder` must outlive the network and everything it created. A null
  // responder answers every request 404 with an empty body.
  SimNetwork(Scheduler& scheduler, const NetworkParams& params, SimResponder* responder);
  ~SimNetwork();
  SimNetwork(const SimNetwork&) = delete;
  SimNetwork& operator=(const SimNetwork&) = delete;

  // The edges to give a UrlRequestContext (which then owns them). They reference the network,
  // which must outlive them and every socket they made. Each socket factory holds the TLS
  // session cache of its stack, bounded by `max_tls_sessions` (the live default), and offers
  // `alpn` in its TLS handshakes (the stack's SslConfig::alpn; Chrome's h2 and http/1.1 by
  // default): a server whose host speaks HTTP/2 picks h2 when offered (SimSelectAlpn).
  std::unique_ptr<DnsTransport> CreateDnsTransport();
  std::unique_ptr<ClientSocketFactory> CreateSocketFactory(
      size_t max_tls_sessions = kDefaultSslSessionCacheSize,
      std::vector<std::string> alpn = SslConfig().alpn);

  const NetworkParams& params() const;
  const Stats& stats() const;
  // The host a modelled address stands for ("" if the network did not hand it out).
  std::string HostForAddress(const IPAddress& address) const;

 private:
  std::unique_ptr<SimWorld> world_;  // net/sim/sim_world.h
};

}  // namespace netstack

#endif  // NET_SIM_SIM_NETWORK_H_
