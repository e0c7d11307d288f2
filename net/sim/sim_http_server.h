// SimHttpServer: the server end of one modelled connection. It reads what the client writes
// with net/server's HttpRequestReader (the internals server's reader: http-parser in
// HTTP_REQUEST mode, here with the bounds below, keeping only Host and the body's size), notes
// where each request ends in the uplink byte stream, and when the uplink has delivered that far,
// asks the SimResponder for the response and hands it to the connection to send server_time
// later. Requests are answered in order. The server closes after a response when the request
// did not keep the connection alive (HttpRequestReader::keep_alive: HTTP/1.0 without
// keep-alive, Connection: close) or the response's head ends it by the rule the client reuses
// connections by (net/http/http_keep_alive.h: Connection: close, HTTP/1.0 without keep-alive, a
// body delimited by the close, 101, ambiguous framing). A request the reader refuses
// (malformed, no Host, not HTTP/1.x, over a bound), an upgrade, or more pipelined requests than
// the bound makes the server close the connection when those bytes arrive (the client then sees
// the end of the stream: ERR_EMPTY_RESPONSE). Internal to net/sim.
#ifndef NET_SIM_SIM_HTTP_SERVER_H_
#define NET_SIM_SIM_HTTP_SERVER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "net/base/time.h"
#include "net/server/http_request_reader.h"
#include "net/sim/sim_flow.h"
#include "net/sim/sim_network.h"
#include "net/sim/sim_queue.h"

namespace netstack {

struct SimHost;
class SimWorld;

class SimHttpServer : public SimFlow::Receiver {
 public:
  // Bounds: a request head (request line and headers; Chrome's response head bound), a
  // request body (counted, never kept: uploads in replay are at most 16 MiB), and the requests
  // read but not yet arrived (pipelining depth). Past any, the server closes the connection.
  static constexpr size_t kMaxRequestHeadBytes = 256 * 1024;
  static constexpr size_t kMaxRequestBodyBytes = size_t{1} << 30;
  static constexpr size_t kMaxPendingRequests = 64;

  // Where responses go (the connection's downlink).
  class Output {
   public:
    virtual ~Output() = default;
    // A response leaves the server at `depart`: `head` then `body_bytes` of filler.
    virtual void SendResponse(TimeTicks depart, std::string head, int64_t body_bytes) = 0;
    // The server closes the connection at `depart`, after what it has sent.
    virtual void CloseConnection(TimeTicks depart) = 0;
  };

  // The answer either protocol's server gives a request that arrived now (SimHttp2Server
  // shares it, so both answer the same): the responder's response (404 with an empty body
  // without a responder), counted in the world's stats; the body bytes that go on the wire (none
  // for HEAD); and when the response leaves (the response's server time, else the host's).
  struct Answered {
    SimResponse response;
    int64_t body_bytes = 0;
    TimeTicks depart{};
  };
  static Answered Respond(SimWorld& world, const SimHost* host, const SimRequest& request);
  // `host` ("host[:port]", a Host header or :authority) lowercased, without `scheme`'s default
  // port (as Url::HostHeader writes it).
  static void NormalizeHost(std::string* host, std::string_view scheme);

  // `world`, `host` (the server's; null for a connection that never connects) and `output`
  // must outlive the server.
  SimHttpServer(SimWorld& world, const SimHost* host, Output* output);
  SimHttpServer(const SimHttpServer&) = delete;
  SimHttpServer& operator=(const SimHttpServer&) = delete;

  // The connection now runs TLS: requests are "https".
  void set_https() { scheme_ = "https"; }

  // The client wrote `len` bytes (the next ones of the uplink stream). Parsed now; nothing is
  // answered before the bytes arrive.
  void OnClientBytes(const char* data, size_t len);
  // The next `len` bytes of the uplink stream are not HTTP (a TLS handshake's flights): the
  // requests after them end that much later in it.
  void SkipClientBytes(int64_t len) { offset_ += len; }

  // SimFlow::Receiver (the uplink): answers the requests that have fully arrived.
  void OnFlowDelivered(SimFlow* uplink) override;

  uint64_t requests_answered() const { return answered_; }

 private:
  struct Pending {
    int64_t end = 0;     // uplink offset after the request's last byte
    bool error = false;  // the server closes here instead
    bool keep_alive = true;
    SimRequest request;
  };

  void Fail(int64_t end);
  void Answer(Pending& pending);

  SimWorld& world_;
  const SimHost* const host_;
  Output* const output_;
  const char* scheme_ = "http";

  HttpRequestReader reader_;
  int64_t offset_ = 0;  // uplink bytes read so far
  bool failed_ = false;
  bool closed_ = false;  // the server has decided to close: later requests are ignored

  SimQueue<Pending> pending_;
  uint64_t answered_ = 0;
};

}  // namespace netstack

#endif  // NET_SIM_SIM_HTTP_SERVER_H_
