// SimHttp2Server: the server end of one modelled connection that speaks HTTP/2: over TLS when
// ALPN chose "h2", or in clear text when the client's first bytes are the HTTP/2 preface (prior
// knowledge, h2c). nghttp2's server session does the protocol (framing, HPACK, flow control,
// stream states, its flood checks); this class does no I/O: it feeds nghttp2 the client's bytes
// when the uplink has delivered them (bytes written are kept until they arrive) and hands what
// nghttp2 produces to the connection (Output), so frames and HPACK-compressed headers cost
// their real bytes on the link. DATA payloads are filler: nghttp2 writes no payload here
// (NGHTTP2_DATA_FLAG_NO_COPY); each DATA frame is its 9-byte header then a count of filler bytes.
//
// Like nginx with its defaults: SETTINGS MAX_CONCURRENT_STREAMS 128, INITIAL_WINDOW_SIZE 65536
// (http2_body_preread_size), MAX_FRAME_SIZE 2^24-1 and a connection window opened to 2^31-1,
// sent when the client's preface arrives. Streams are served concurrently: each request, once
// complete (END_STREAM), is answered as SimHttpServer answers (SimHttpServer::Respond: the
// responder, HEAD without body, the server time), and its response (status and headers from the
// responder's HTTP/1.1 head, connection-specific headers dropped; the body as DATA, any bytes the
// head carried after its blank line first) is submitted when it departs, so N requests that
// arrive together leave together and share the connection (nghttp2 interleaves their DATA).
// nghttp2 honours the client's flow-control windows.
//
// Bounds (Limits): streams beyond MAX_CONCURRENT_STREAMS are refused (RST_STREAM REFUSED_STREAM,
// nghttp2); a request header list over max_header_list_bytes or a body over max_body_bytes
// resets its stream (RST_STREAM ENHANCE_YOUR_CALM); DATA waits while more than
// max_pending_output_bytes sent are not yet delivered (a send buffer: the client's windows
// bind first); more than max_unread_input_bytes written by the client and not yet arrived, a
// malformed byte stream, a bad preface or a flood end the connection (GOAWAY if nghttp2 can
// still send one, then the close). The server closes once nghttp2 neither reads nor writes
// (after a GOAWAY and the last stream). Internal to net/sim.
#ifndef NET_SIM_SIM_HTTP2_SERVER_H_
#define NET_SIM_SIM_HTTP2_SERVER_H_

#include <nghttp2/nghttp2.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "net/base/scheduler.h"
#include "net/base/time.h"
#include "net/sim/sim_http_server.h"
#include "net/sim/sim_network.h"

namespace netstack {

struct SimHost;
class SimWorld;

// A piece of what goes on the wire: real bytes, then `filler` bytes whose content is not
// modelled (a DATA payload).
struct SimWireSegment {
  std::string bytes;
  int64_t filler = 0;
};

// The bounds of a SimHttp2Server (see its comment).
struct SimHttp2Limits {
  uint32_t max_concurrent_streams = 128;  // nginx's http2_max_concurrent_streams
  // Both as SimHttpServer bounds HTTP/1.1 requests (the header list counted as RFC 9113
  // section 6.5.2 does: name + value + 32 per field).
  size_t max_header_list_bytes = SimHttpServer::kMaxRequestHeadBytes;
  int64_t max_body_bytes = static_cast<int64_t>(SimHttpServer::kMaxRequestBodyBytes);
  // Sent and not yet delivered: DATA waits above it (a send buffer).
  int64_t max_pending_output_bytes = int64_t{32} << 20;
  // Written by the client and not yet arrived: the connection ends past it.
  int64_t max_unread_input_bytes = int64_t{32} << 20;
};

class SimHttp2Server {
 public:
  // The client preface that opens a prior-knowledge (h2c) connection (RFC 9113 section 3.4).
  static constexpr std::string_view kClientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  // nginx's SETTINGS and connection window.
  static constexpr uint32_t kInitialWindowSize = 65536;
  static constexpr uint32_t kMaxFrameSize = (1u << 24) - 1;
  static constexpr int32_t kConnectionWindow = 0x7fffffff;

  using Limits = SimHttp2Limits;

  // Where the server's bytes go (the connection's downlink).
  class Output {
   public:
    virtual ~Output() = default;
    // `frames` leave the server at `depart`, in order (the callee may move their strings out).
    // `head_bytes`, if > 0, is where the frames that lead them (control frames and response
    // heads, up to the first filler) end: readable before the rest on a slow link.
    virtual void SendFrames(TimeTicks depart, std::vector<SimWireSegment>& frames,
                            int64_t head_bytes) = 0;
    // The server closes the connection at `depart`, after what it has sent.
    virtual void CloseConnection(TimeTicks depart) = 0;
    // Bytes given to SendFrames and not yet delivered to the client.
    virtual int64_t PendingOutputBytes() const = 0;
  };

  // `world`, `host` (null: the defaults' server time) and `output` must outlive the server.
  // `scheme` ("https" or "http") is what its requests say. Nothing is sent before the client's
  // preface arrives.
  SimHttp2Server(SimWorld& world, const SimHost* host, Output* output, const char* scheme,
                 Limits limits = Limits());
  ~SimHttp2Server();
  SimHttp2Server(const SimHttp2Server&) = delete;
  SimHttp2Server& operator=(const SimHttp2Server&) = delete;

  // The client wrote `len` bytes, the next ones of the uplink stream (the preface first). Kept
  // until they arrive; nothing is read before.
  void OnClientBytes(const char* data, size_t len);
  // The uplink has delivered bytes [0, delivered): nghttp2 reads the new ones now, and what it
  // answers (SETTINGS, ACKs, WINDOW_UPDATEs, responses due now) leaves now.
  void OnUplinkDelivered(int64_t delivered);
  // Some of the output was delivered: DATA held by max_pending_output_bytes may go on.
  void OnDownlinkDelivered();

  // The server closed the connection (it reads and sends nothing more).
  bool closed() const { return closed_; }
  uint64_t requests_answered() const { return answered_; }
  // Streams open now (requests being received or answered).
  size_t open_streams() const { return streams_.size(); }

 private:
  struct Stream {
    SimRequest request;
    size_t header_bytes = 0;
    bool reset = false;      // the server reset it (a bound)
    bool deferred = false;   // its DATA waits for the output to drain
    bool departing = false;  // its response waits in departures_ under `departure`
    std::pair<TimeTicks, uint64_t> departure{};
    // The response, from its departure: real body bytes (the head's bytes after its blank
    // line), then filler.
    std::string body_prefix;
    size_t prefix_sent = 0;
    int64_t filler_left = 0;
  };
  struct Departure {
    int32_t stream_id = 0;
    SimResponse response;
    int64_t body_bytes = 0;
  };

  // A complete request on `stream_id`: asks the responder, submits the response now or at its
  // departure.
  void OnRequest(int32_t stream_id);
  // Submits the response for `stream_id` (status and headers from `response.head`).
  void Submit(int32_t stream_id, SimResponse response, int64_t body_bytes);
  void OnDepartureTimer();
  void ArmDepartureTimer();
  // Sends what nghttp2 has to say (one SendFrames), then closes if nghttp2 is done.
  void Drain();
  // Ends the connection: a GOAWAY with `error_code` if nghttp2 can still send one, then the
  // close.
  void Fail(uint32_t error_code);
  void Close();
  void ResetStream(int32_t stream_id, Stream& stream, uint32_t error_code);
  void AppendBytes(const uint8_t* data, size_t len);
  void AppendFiller(int64_t count);
  int64_t PendingOutput() const { return output_->PendingOutputBytes() + batch_bytes_; }

  static int OnBeginHeaders(nghttp2_session*, const nghttp2_frame* frame, void* user);
  static int OnHeader(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                      size_t namelen, const uint8_t* value, size_t valuelen, uint8_t flags,
                      void* user);
  static int OnFrameRecv(nghttp2_session*, const nghttp2_frame* frame, void* user);
  static int OnDataChunk(nghttp2_session*, uint8_t flags, int32_t stream_id, const uint8_t* data,
                         size_t len, void* user);
  static int OnStreamClose(nghttp2_session*, int32_t stream_id, uint32_t error_code, void* user);
  static ssize_t ReadBody(nghttp2_session*, int32_t stream_id, uint8_t* buf, size_t length,
                          uint32_t* data_flags, nghttp2_data_source* source, void* user);
  static int SendData(nghttp2_session*, nghttp2_frame* frame, const uint8_t* framehd, size_t length,
                      nghttp2_data_source* source, void* user);

  SimWorld& world_;
  const SimHost* const host_;
  Output* const output_;
  const char* const scheme_;
  const Limits limits_;
  nghttp2_session* session_ = nullptr;

  std::string unread_;        // bytes written by the client that have not arrived yet
  int64_t written_ = 0;       // uplink bytes written so far
  int64_t arrived_ = 0;       // uplink bytes handed to nghttp2
  int64_t overflow_at_ = -1;  // uplink offset past which input was over its bound

  std::map<int32_t, Stream> streams_;
  // Responses waiting for their departure, by (time, order of arrival).
  std::map<std::pair<TimeTicks, uint64_t>, Departure> departures_;
  uint64_t next_departure_ = 0;
  OneShotTimer departure_timer_;
  bool any_deferred_ = false;

  std::vector<SimWireSegment> batch_;  // output of the current Drain
  int64_t batch_bytes_ = 0;
  bool in_drain_ = false;
  bool closed_ = false;
  bool closed_sent_ = false;  // CloseConnection was called
  uint64_t answered_ = 0;
};

}  // namespace netstack

#endif  // NET_SIM_SIM_HTTP2_SERVER_H_
