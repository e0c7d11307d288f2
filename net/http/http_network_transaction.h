// HttpNetworkTransaction: one HTTP request/response over the network (one hop of a redirect
// chain). Like Chrome's class of the same name (with the part of HttpStreamFactory that picks the
// connection), it finds the request a stream:
//   1. an HTTP/2 session for the origin, or one it can be coalesced onto (Http2SessionPool);
//   2. else a socket from the pool; a known-h2 origin with a connect already under way waits
//      for that connect's session first (at most the pool's throttle delay);
//   3. with the socket: an h2 ALPN (or prior knowledge on http://) makes it the origin's session
//      and the request its first stream (while waiting, a session another request made is taken
//      instead); anything else is HTTP/1.1 on the socket (HttpBasicStream), returned to the pool
//      when the body has been read.
// It retries a request on a fresh connection when a reused keep-alive socket turns out to have
// been closed by the server before any response byte (the idle-close race every HTTP/1.1 client
// meets), and when an HTTP/2 server refused the stream or went away before processing it
// (REFUSED_STREAM, GOAWAY): at most kMaxRetries times.
//
// Once the request is written, the response headers must be complete within the context's
// TransferLimits::headers_timeout (ERR_TIMED_OUT, the connection closed or the HTTP/2 stream
// cancelled): a server that sends its headers a byte at a time, never silent long enough for the
// stream's idle timeout, still cannot hold the request. Each attempt has its own deadline.
//
// Asynchronous contract as in stream_socket.h: results are synchronous or ERR_IO_PENDING, and
// callbacks never run inside a call. Destroying the transaction cancels everything.
#ifndef NET_HTTP_HTTP_NETWORK_TRANSACTION_H_
#define NET_HTTP_HTTP_NETWORK_TRANSACTION_H_

#include <memory>
#include <string>
#include <vector>

#include "net/base/load_timing_info.h"
#include "net/base/net_log.h"
#include "net/base/request_priority.h"
#include "net/base/url.h"
#include "net/base/weak_ptr.h"
#include "net/dns/host_resolver.h"
#include "net/http/http_basic_stream.h"
#include "net/http/http_request_headers.h"
#include "net/http/http_response_headers.h"
#include "net/http/http_stream.h"
#include "net/http/http_transaction.h"
#include "net/socket/client_socket_handle.h"

namespace netstack {

class Http2HttpStream;
class Http2Session;
class UrlRequestContext;

// Sets the headers every request carries unless the caller set them (Accept, Accept-Encoding,
// User-Agent), as the network transaction sends them. The cache uses it to see a request's
// headers as sent (for Vary). A name in `omitted` (any case) is left out.
void AddDefaultRequestHeaders(HttpRequestHeaders* headers,
                              const std::vector<std::string>& omitted = {});

class HttpNetworkTransaction : public HttpTransaction {
 public:
  // `context` must outlive the transaction. Events go to `net_log` (the request's source).
  // With `decode_content` false, Read returns the body as received (Content-Encoding kept,
  // chunked framing removed; HttpBasicStream::Params::decode_content) for the HTTP cache, which
  // stores encoded bodies and decodes them itself.
  HttpNetworkTransaction(UrlRequestContext* context, RequestPriority priority,
                         const NetLogWithSource& net_log, bool decode_content = true);
  ~HttpNetworkTransaction() override;
  HttpNetworkTransaction(const HttpNetworkTransaction&) = delete;
  HttpNetworkTransaction& operator=(const HttpNetworkTransaction&) = delete;

  // Gets a socket, sends the request and reads the response headers. Returns OK, an error, or
  // ERR_IO_PENDING (then `callback` gets OK or the error). `info` is copied.
  int Start(HttpRequestInfo info, CompletionCallback callback) override;

  // Reads body bytes (decoded of Content-Encoding unless constructed otherwise) after Start
  // succeeded: bytes, 0 at the end (the socket then goes back to the pool), an error, or
  // ERR_IO_PENDING.
  int Read(char* buf, int len, CompletionCallback callback) override;

  // Headers of the response once Start succeeded.
  std::shared_ptr<const HttpResponseHeaders> response_headers() const override;

  // Timing of this hop: pool wait, connect (zero on a reused socket), send, wait, receive.
  LoadTimingInfo GetLoadTimingInfo() const override;
  const ConnectionInfo& connection_info() const override { return connection_info_; }
  // Body bytes as received (chunking removed, before content decoding).
  int64_t encoded_body_bytes() const override;
  // A sentence about the last error when a layer had one ("malformed status line ..."), else
  // empty.
  const std::string& error_detail() const override { return error_detail_; }
  // Always kBypass: the network transaction knows nothing of a cache.
  CacheDisposition cache_disposition() const override { return CacheDisposition::kBypass; }

 private:
  enum class State {
    kNone,
    kInitStream,
    kResolveForPooling,
    kResolveForPoolingComplete,
    kInitStreamComplete,
    kSendRequest,
    kSendRequestComplete,
    kReadHeaders,
    kReadHeadersComplete
  };

  int DoLoop(int rv);
  int DoInitStream();
  int DoResolveForPooling();
  int DoResolveForPoolingComplete(int rv);
  int DoInitStreamComplete(int rv);
  // Whether this request may go over HTTP/2: an https origin while the stack offers h2, or an
  // http one with prior knowledge.
  bool CanUseHttp2() const;
  // Binds the request to a stream on `session`; `source` is what the record says of it.
  void UseSession(Http2Session* session, SocketSource source, NetLogEventType event);
  // A session for the origin appeared while this request waited (AddWaiter's callback).
  void OnSessionAvailable();
  void OnThrottleExpired();
  // Stops waiting for a session and for the throttle, and uncounts this request's connect.
  void StopWaitingForSession();
  // A retriable HTTP/2 failure: sets the state machine to start over; returns whether it did.
  bool MaybeRetryHttp2(int error);
  int DoSendRequest();
  int DoSendRequestComplete(int rv);
  int DoReadHeaders();
  int DoReadHeadersComplete(int rv);
  void OnIoComplete(int rv);
  void OnReadComplete(int rv);
  // The response headers did not complete within the headers timeout: fails Start.
  void OnHeadersTimeout();
  // If a reused socket failed before any response byte, closes it and sets the state machine
  // to start over on another socket; returns whether it did.
  bool MaybeRestartOnFreshSocket(int error);
  void RecordConnectionInfo();
  void ReleaseSocket();

  UrlRequestContext* const context_;
  RequestPriority priority_;
  const NetLogWithSource net_log_;
  const bool decode_content_;
  HttpRequestInfo info_;
  HttpRequestMessage message_;

  State next_state_ = State::kNone;
  CompletionCallback callback_;
  CompletionCallback read_callback_;
  // Replaced when its socket becomes an HTTP/2 session (the session keeps the handle).
  std::unique_ptr<ClientSocketHandle> handle_;
  std::unique_ptr<HttpStream> stream_;
  Http2HttpStream* h2_stream_ = nullptr;  // stream_, when it is HTTP/2
  // Waiting for an HTTP/2 session of the origin (Http2SessionPool::AddWaiter id; 0: not).
  uint64_t session_waiter_ = 0;
  bool counted_connect_ = false;  // Http2SessionPool::OnConnectStarted was called
  bool throttle_expired_ = false;
  bool tried_ip_pooling_ = false;
  OneShotTimer throttle_timer_;
  OneShotTimer headers_timer_;  // from the request written to the end of the headers
  std::unique_ptr<HostResolver::Request> pooling_resolve_;
  std::shared_ptr<const HttpResponseHeaders> response_headers_;
  ConnectionInfo connection_info_;
  LoadTimingInfo timing_;
  std::string error_detail_;
  int retries_ = 0;
  int64_t encoded_body_bytes_ = 0;
  bool body_done_ = false;

  WeakPtrFactory<HttpNetworkTransaction> weak_factory_{this};
};

}  // namespace netstack

#endif  // NET_HTTP_HTTP_NETWORK_TRANSACTION_H_
