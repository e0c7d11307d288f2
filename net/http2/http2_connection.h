// Http2Connection: the client side of one HTTP/2 connection, as protocol logic only (the
// nghttp2 pattern: bytes in, bytes out, no I/O). nghttp2 does the framing, HPACK, flow control
// and stream states; this class adds Chrome's rules on top of it (../shared/REFERENCE.md,
// "HTTP/2 in Chrome"):
//   - the client preface and Chrome's SETTINGS (kChromeSettings), then a connection
//     WINDOW_UPDATE to a 15 MiB session window;
//   - until the server's SETTINGS arrive, 100 concurrent streams; beyond the server's
//     MAX_CONCURRENT_STREAMS, requests wait here by priority (FIFO within one), not in nghttp2;
//   - request priorities as HTTP/2 stream priorities (weight by priority, as Chrome's
//     Spdy3PriorityToHttp2Weight), no dependency tree;
//   - receive windows reopen only as the owner of a stream consumes its body (ConsumeData), so
//     a stream's buffered body is bounded by the stream window and the session's by its window;
//   - server push refused (ENABLE_PUSH 0);
//   - a response header list over kMaxHeaderListBytes fails its stream
//     (ERR_RESPONSE_HEADERS_TOO_BIG); nghttp2's flood protections stay on.
//
// Whoever owns the transport (a StreamSocket in either world) feeds it what it read
// (OnBytesRead) and writes what it produces (TakeOutput, after every call that can produce
// some: WantsWrite says so). Stream events go to each request's Http2StreamDelegate,
// synchronously, from inside OnBytesRead, OnTransportClosed and the destructor (and from Submit
// in one case, below). A delegate must not destroy the connection from a callback; it may call
// CancelRequest, ConsumeData and Submit.
#ifndef NET_HTTP2_HTTP2_CONNECTION_H_
#define NET_HTTP2_HTTP2_CONNECTION_H_

#include <nghttp2/nghttp2.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "net/base/request_priority.h"

namespace netstack {

// One request as it goes on the wire. Header names are lowercased by Submit; connection-
// specific headers (Connection, Keep-Alive, Proxy-Connection, Transfer-Encoding, Upgrade, Host:
// RFC 9113 8.2.2) are dropped (Host becomes :authority).
struct Http2RequestHead {
  std::string method = "GET";
  std::string scheme = "https";
  std::string authority;  // host[:port]
  std::string path = "/";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // sent as DATA when not empty (bounded by the caller)
};

// What a request's owner hears. Every stream ends with exactly one OnStreamClosed.
class Http2StreamDelegate {
 public:
  virtual ~Http2StreamDelegate() = default;
  // The response's status and headers (names lowercase, as received, pseudo-headers left out).
  // Informational (1xx) heads are not reported.
  virtual void OnResponseHeaders(int status,
                                 std::vector<std::pair<std::string, std::string>> headers) = 0;
  // A piece of the body. The owner calls Http2Connection::ConsumeData for it once it has no
  // more need to buffer it; until then the stream's window stays that much smaller.
  virtual void OnData(std::string_view data) = 0;
  // The stream is over: OK after the whole response, else a net error; `retriable` when the
  // server did not process the request (REFUSED_STREAM, or above a GOAWAY's last stream id), so
  // it may go again on another connection. The delegate is not called again.
  virtual void OnStreamClosed(int error, bool retriable) = 0;
};

class Http2Connection {
 public:
  // Chrome's client SETTINGS (AddDefaultHttp2Settings) and session window.
  static constexpr uint32_t kHeaderTableSize = 65536;
  static constexpr uint32_t kInitialWindowSize = 6 * 1024 * 1024;  // per stream
  static constexpr uint32_t kMaxHeaderListBytes = 256 * 1024;
  static constexpr int32_t kSessionWindowSize = 15 * 1024 * 1024;
  // Streams allowed before the server's SETTINGS arrive (kInitialMaxConcurrentStreams).
  static constexpr uint32_t kInitialMaxConcurrentStreams = 100;
  // Requests waiting above the server's stream limit; Submit fails beyond it.
  static constexpr size_t kMaxQueuedRequests = 10000;
  // The most streams open at once whatever the server allows (Chrome's
  // kMaxConcurrentStreamLimit): a server saying "unlimited" gets 256.
  static constexpr uint32_t kMaxConcurrentStreamLimit = 256;

  // Starts the connection: the preface, SETTINGS and WINDOW_UPDATE are ready in TakeOutput.
  // `ok()` is false (and every Submit fails) only when nghttp2 could not be set up.
  Http2Connection();
  // Closes every open or queued stream with ERR_ABORTED (their delegates are called).
  ~Http2Connection();
  Http2Connection(const Http2Connection&) = delete;
  Http2Connection& operator=(const Http2Connection&) = delete;

  bool ok() const { return session_ != nullptr; }

  // Starts a request, or queues it if the server's stream limit is reached. Returns a request
  // id (> 0; not the stream id, which exists only once the request leaves the queue) or a net
  // error: ERR_CONNECTION_CLOSED once the connection is going away or failed,
  // ERR_INSUFFICIENT_RESOURCES with kMaxQueuedRequests waiting. `delegate` must stay valid
  // until its OnStreamClosed, which runs inside this call when nghttp2 refuses the stream at once
  // (stream ids exhausted: retriable).
  int Submit(const Http2RequestHead& head, RequestPriority priority, Http2StreamDelegate* delegate);
  // Forgets a request: a queued one leaves the queue, an open one is reset (RST_STREAM CANCEL).
  // Its delegate is not called again. Unknown ids are ignored.
  void CancelRequest(int request_id);
  // The owner of `request_id` no longer holds `bytes` of its body: the windows reopen by that
  // much (WINDOW_UPDATEs follow in TakeOutput, as nghttp2 batches them).
  void ConsumeData(int request_id, size_t bytes);

  // Feeds bytes read from the transport. Returns OK, or a net error when the connection failed
  // (a protocol error: every stream is closed with it, a GOAWAY may be waiting in TakeOutput).
  int OnBytesRead(std::string_view data);
  // The transport closed (`error`, or ERR_CONNECTION_CLOSED for an orderly close): every stream
  // still open or queued is closed with it (retriable for those the server never saw).
  void OnTransportClosed(int error);
  // Sends GOAWAY (NO_ERROR): open streams finish, nothing new starts.
  void Shutdown();

  // Bytes to write to the transport, in order; empty when there are none.
  bool WantsWrite() const;
  std::string TakeOutput();

  // No stream open or queued (an idle session, for the pool's idle timeout).
  bool IsIdle() const { return requests_.empty(); }
  // Whether Submit can still succeed.
  bool IsAvailable() const { return session_ && !going_away_ && error_ == 0; }
  int error() const { return error_; }

  // For the internals page and the NetLog.
  struct Stats {
    uint64_t streams_started = 0;
    uint64_t streams_queued = 0;  // requests that waited for a stream slot
    uint64_t frames_received = 0;
    uint64_t frames_sent = 0;
    uint32_t max_concurrent_streams = kInitialMaxConcurrentStreams;  // the server's, once known
    int32_t last_goaway_stream_id = -1;                              // -1: no GOAWAY received
    uint32_t goaway_error_code = 0;
    bool received_settings = false;  // the server's SETTINGS arrived
  };
  const Stats& stats() const { return stats_; }
  // Flow-control windows as nghttp2 keeps them (bytes; -1 before the session exists).
  int32_t send_window() const;
  int32_t recv_window() const;
  // The stream `request_id` runs on (0 while it is queued or once it closed).
  int32_t StreamIdOf(int request_id) const;
  // Called for every frame received (`sent` false) or sent (true), from inside nghttp2's
  // callbacks (for the NetLog); it must not call into the connection.
  using FrameObserver = std::function<void(bool sent, const nghttp2_frame& frame)>;
  void set_frame_observer(FrameObserver observer) { frame_observer_ = std::move(observer); }
  size_t active_streams() const { return by_stream_.size(); }
  size_t queued_requests() const;
  // The HTTP/2 weight a priority maps to (256 for HIGHEST down to 1 for THROTTLED).
  static int32_t WeightForPriority(RequestPriority priority);

 private:
  struct Request {
    Http2RequestHead head;
    RequestPriority priority = DEFAULT_PRIORITY;
    Http2StreamDelegate* delegate = nullptr;
    int32_t stream_id = 0;  // 0 while queued
    size_t header_bytes = 0;
    int status = 0;
    std::vector<std::pair<std::string, std::string>> headers;
    size_t body_sent = 0;
    size_t unconsumed = 0;  // body bytes delivered and not yet given back by ConsumeData
    int header_error = 0;   // the stream was reset for its header list
    bool headers_reported = false;
    bool end_stream = false;  // the server finished its response
  };

  // Moves queued requests into nghttp2 while the server allows more streams.
  void StartQueued();
  int StartRequest(int request_id);
  // Runs nghttp2_session_mem_send into output_; false (and Fail) on a fatal error.
  bool Flush();
  void Fail(int error);
  // Closes `request_id` with `error` and forgets it.
  void Close(int request_id, int error, bool retriable);
  Request* ByStream(int32_t stream_id);
  // The server's MAX_CONCURRENT_STREAMS (kInitialMaxConcurrentStreams until its SETTINGS).
  uint32_t StreamLimit() const;
  // Takes a request that has no stream yet out of its priority's queue.
  void Unqueue(int request_id, RequestPriority priority);

  static int OnBeginHeaders(nghttp2_session*, const nghttp2_frame* frame, void* user);
  static int OnHeader(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                      size_t namelen, const uint8_t* value, size_t valuelen, uint8_t flags,
                      void* user);
  static int OnFrameRecv(nghttp2_session*, const nghttp2_frame* frame, void* user);
  static int OnFrameSend(nghttp2_session*, const nghttp2_frame* frame, void* user);
  static int OnDataChunk(nghttp2_session*, uint8_t flags, int32_t stream_id, const uint8_t* data,
                         size_t len, void* user);
  static int OnStreamClose(nghttp2_session*, int32_t stream_id, uint32_t error_code, void* user);
  static ssize_t ReadBody(nghttp2_session*, int32_t stream_id, uint8_t* buf, size_t length,
                          uint32_t* data_flags, nghttp2_data_source* source, void* user);

  nghttp2_session* session_ = nullptr;
  std::string output_;
  int next_request_id_ = 1;
  std::map<int, Request> requests_;   // open and queued, by request id
  std::map<int32_t, int> by_stream_;  // stream id -> request id
  // Queued request ids per priority (highest first when starting).
  std::deque<int> queued_[MAXIMUM_PRIORITY + 1];
  bool going_away_ = false;
  bool sent_goaway_error_ = false;  // nghttp2 ended the connection for a protocol error
  int error_ = 0;
  bool in_callback_ = false;
  Stats stats_;
  FrameObserver frame_observer_;
};

}  // namespace netstack

#endif  // NET_HTTP2_HTTP2_CONNECTION_H_
