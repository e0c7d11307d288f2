// SimHttpServer: the server end of one modelled connection. It parses what the client writes
// with http-parser (HTTP_REQUEST mode, the library the client's HttpStreamParser uses for
// responses), notes where each request ends in the uplink byte stream, and when the uplink has
// delivered that far, asks the SimResponder for the response and hands it to the connection to
// send server_time later. Requests are answered in order; a response whose head says
// `Connection: close` (or whose body is delimited by the close, or a request that asked for it)
// is the last: the server closes after sending it. A request that does not parse, or that
// exceeds the bounds below, makes the server close the connection when its bytes arrive
// (the client then sees the end of the stream: ERR_EMPTY_RESPONSE). Internal to net/sim.
#ifndef NET_SIM_SIM_HTTP_SERVER_H_
#define NET_SIM_SIM_HTTP_SERVER_H_

#include <http_parser.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "net/base/time.h"
#include "net/sim/sim_flow.h"
#include "net/sim/sim_network.h"
#include "net/sim/sim_queue.h"

namespace netstack {

struct SimHost;
class SimWorld;

class SimHttpServer : public SimFlow::Receiver {
 public:
  // Bounds: a request head (request line and headers) and the requests parsed but not yet
  // arrived (pipelining depth). Past either, the server closes the connection.
  static constexpr size_t kMaxRequestHeadBytes = 256 * 1024;
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

  static const http_parser_settings& Settings();
  static int OnMessageBegin(http_parser* p);
  static int OnUrl(http_parser* p, const char* at, size_t len);
  static int OnHeaderField(http_parser* p, const char* at, size_t len);
  static int OnHeaderValue(http_parser* p, const char* at, size_t len);
  static int OnHeadersComplete(http_parser* p);
  static int OnBody(http_parser* p, const char* at, size_t len);
  static int OnMessageComplete(http_parser* p);

  // Counts head bytes against the bound; false (fail the parse) past it.
  bool CountHead(size_t len);
  void Fail(int64_t end);
  void Answer(Pending& pending);

  SimWorld& world_;
  const SimHost* const host_;
  Output* const output_;
  const char* scheme_ = "http";

  http_parser parser_;
  int64_t offset_ = 0;  // uplink bytes parsed so far
  bool failed_ = false;
  bool closed_ = false;  // the server has decided to close: later requests are ignored

  // The request being parsed.
  SimRequest current_;
  size_t head_bytes_ = 0;
  std::string field_;
  bool in_value_ = false;
  bool host_value_ = false;
  bool message_done_ = false;
  bool keep_alive_ = true;

  SimQueue<Pending> pending_;
  uint64_t answered_ = 0;
};

}  // namespace netstack

#endif  // NET_SIM_SIM_HTTP_SERVER_H_
