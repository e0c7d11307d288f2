// HttpStream: one request/response exchange as the network transaction drives it, whatever the
// protocol under it (Chrome's net::HttpStream): HttpBasicStream for HTTP/1.1 on a socket of its
// own, Http2HttpStream for a stream on an HTTP/2 session.
//
// Asynchronous contract (stream_socket.h's): each operation returns its result synchronously or
// ERR_IO_PENDING; only after ERR_IO_PENDING does its callback run, later, from the loop, never
// inside the call. One operation at a time, in order: SendRequest, ReadResponseHeaders, then
// ReadResponseBody until it returns 0 or an error. The stream may be destroyed at any time,
// including from inside its callback; no callback runs afterwards.
#ifndef NET_HTTP_HTTP_STREAM_H_
#define NET_HTTP_HTTP_STREAM_H_

#include <cstdint>
#include <memory>
#include <string>

#include "net/base/load_timing_info.h"
#include "net/base/net_error.h"
#include "net/http/http_response_headers.h"
#include "net/http/http_stream_parser.h"

namespace netstack {

class HttpStream {
 public:
  virtual ~HttpStream() = default;

  // Sends `request`. OK, ERR_IO_PENDING (then `callback` gets OK or the error), or an error.
  virtual int SendRequest(const HttpRequestMessage& request, CompletionCallback callback) = 0;
  // Waits for the final response's headers (1xx skipped). OK, ERR_IO_PENDING or an error.
  virtual int ReadResponseHeaders(CompletionCallback callback) = 0;
  // The final response's headers once ReadResponseHeaders succeeded, else null.
  virtual std::shared_ptr<const HttpResponseHeaders> response_headers() const = 0;
  // Up to `len` body bytes into `buf` (decoded unless the stream was made not to): bytes, 0 at
  // the end, ERR_IO_PENDING (`buf` must stay valid until the callback) or an error; after 0 or
  // an error, further calls return the same.
  virtual int ReadResponseBody(char* buf, int len, CompletionCallback callback) = 0;
  // The connection under the stream may carry another request once this one is done (for
  // HTTP/1.1, the socket goes back to the pool idle). An HTTP/2 stream says false: it holds no
  // socket; the session stays whatever this says.
  virtual bool CanReuseConnection() const = 0;
  // Fills the points the stream measures: send_start/send_end, receive_headers_start,
  // receive_headers_end and receive_end. Others are untouched.
  virtual void GetLoadTimingInfo(LoadTimingInfo* info) const = 0;
  // What went wrong, in a sentence, after an error; empty when the error says it all.
  virtual const std::string& error_message() const = 0;
  // Response bytes received for this exchange (for HTTP/2: the stream's header block and DATA
  // payload; frame overhead belongs to the session).
  virtual int64_t bytes_received() const = 0;
  // Body bytes as received (after chunked framing, before content decoding).
  virtual int64_t raw_body_bytes() const = 0;
};

}  // namespace netstack

#endif  // NET_HTTP_HTTP_STREAM_H_
