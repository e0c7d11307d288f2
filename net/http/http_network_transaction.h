// HttpNetworkTransaction: one HTTP request/response over the network (one hop of a redirect
// chain): a socket from the pool, an HttpBasicStream over it, and the socket's return to the
// pool when the body has been read. Like Chrome's class of the same name, it retries a request
// once on a fresh socket when a reused keep-alive socket turns out to have been closed by the
// server before any response byte (the idle-close race every HTTP/1.1 client meets).
//
// Asynchronous contract as in stream_socket.h: results are synchronous or ERR_IO_PENDING, and
// callbacks never run inside a call. Destroying the transaction cancels everything.
#ifndef NET_HTTP_HTTP_NETWORK_TRANSACTION_H_
#define NET_HTTP_HTTP_NETWORK_TRANSACTION_H_

#include <memory>
#include <string>

#include "net/base/load_timing_info.h"
#include "net/base/net_log.h"
#include "net/base/request_priority.h"
#include "net/base/url.h"
#include "net/base/weak_ptr.h"
#include "net/http/http_basic_stream.h"
#include "net/http/http_request_headers.h"
#include "net/http/http_response_headers.h"
#include "net/http/http_transaction.h"
#include "net/socket/client_socket_handle.h"

namespace netstack {

class UrlRequestContext;

// Sets the headers every request carries unless the caller set them (Accept, Accept-Encoding,
// User-Agent), as the network transaction sends them. The cache uses it to see a request's
// headers as sent (for Vary).
void AddDefaultRequestHeaders(HttpRequestHeaders* headers);

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
    kInitStreamComplete,
    kSendRequest,
    kSendRequestComplete,
    kReadHeaders,
    kReadHeadersComplete
  };

  int DoLoop(int rv);
  int DoInitStream();
  int DoInitStreamComplete(int rv);
  int DoSendRequest();
  int DoSendRequestComplete(int rv);
  int DoReadHeaders();
  int DoReadHeadersComplete(int rv);
  void OnIoComplete(int rv);
  void OnReadComplete(int rv);
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
  ClientSocketHandle handle_;
  std::unique_ptr<HttpBasicStream> stream_;
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
