// Http2HttpStream: one request as a stream on an HTTP/2 session (Chrome's SpdyHttpStream). The
// network transaction drives it like an HttpBasicStream (http_stream.h's contract); under it,
// the request becomes HEADERS (+ DATA) on the session and the response arrives through the
// session's Http2StreamDelegate calls.
//
// The body: DATA is buffered as it arrives and handed out (decoded of its Content-Encoding
// unless decode_content is false) as the caller reads; the stream's receive window reopens only
// as the caller consumes, so what is buffered is bounded by the window (Chrome's 6 MiB).
// max_body_bytes bounds the body as received and as decoded. idle_timeout bounds the wait for
// headers and for each part of the body (a server that never opens its window, or goes silent,
// ends the request with ERR_TIMED_OUT), as on HTTP/1.1.
//
// When the session refuses the stream before it did anything (REFUSED_STREAM, or a GOAWAY that
// left it unprocessed, or the session closing before the stream started), the error comes with
// retriable() true: the transaction retries the request on another connection.
//
// The session is not owned: the stream holds a WeakPtr and fails with ERR_CONNECTION_CLOSED if
// the session is gone when it is needed. Destroying the stream cancels it on the session
// (RST_STREAM CANCEL).
#ifndef NET_HTTP_HTTP2_HTTP_STREAM_H_
#define NET_HTTP_HTTP2_HTTP_STREAM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "net/base/net_log.h"
#include "net/base/request_priority.h"
#include "net/base/scheduler.h"
#include "net/base/weak_ptr.h"
#include "net/http/content_decoder.h"
#include "net/http/http_basic_stream.h"
#include "net/http/http_stream.h"
#include "net/http2/http2_session.h"

namespace netstack {

class Http2HttpStream : public HttpStream, private Http2StreamDelegate {
 public:
  // `scheme` is the request URL's ("https", or "http" for prior knowledge). `params` are the
  // HTTP/1.1 stream's (idle timeout, body bound, decode_content); read_buffer_bytes and
  // max_header_bytes do not apply (the session has its own bounds).
  Http2HttpStream(WeakPtr<Http2Session> session, RequestPriority priority, std::string scheme,
                  Scheduler& scheduler, const NetLogWithSource& net_log,
                  const HttpBasicStream::Params& params);
  ~Http2HttpStream() override;
  Http2HttpStream(const Http2HttpStream&) = delete;
  Http2HttpStream& operator=(const Http2HttpStream&) = delete;

  // Submits the request on the session: OK once it is queued or sent (the session writes it),
  // or ERR_CONNECTION_CLOSED (session gone or going away: retriable), ERR_INSUFFICIENT_RESOURCES
  // (the session's queue is full) or ERR_INVALID_ARGUMENT.
  int SendRequest(const HttpRequestMessage& request, CompletionCallback callback) override;
  int ReadResponseHeaders(CompletionCallback callback) override;
  std::shared_ptr<const HttpResponseHeaders> response_headers() const override {
    return response_headers_;
  }
  int ReadResponseBody(char* buf, int len, CompletionCallback callback) override;
  bool CanReuseConnection() const override { return false; }
  void GetLoadTimingInfo(LoadTimingInfo* info) const override;
  const std::string& error_message() const override { return error_message_; }
  int64_t bytes_received() const override { return bytes_received_; }
  int64_t raw_body_bytes() const override { return raw_body_bytes_; }

  // The last error may be retried on another connection (see the file comment).
  bool retriable() const { return retriable_; }
  // The stream's id on the session (0 until it got one) and the session's NetLog source id.
  int32_t stream_id() const { return stream_id_; }
  uint32_t session_id() const { return session_id_; }

 private:
  enum class Op { kNone, kReadHeaders, kReadBody };

  // Http2StreamDelegate.
  void OnResponseHeaders(int status,
                         std::vector<std::pair<std::string, std::string>> headers) override;
  void OnData(std::string_view data) override;
  void OnStreamClosed(int error, bool retriable) override;

  // Tries to finish the pending operation from what has arrived; runs its callback in a posted
  // task if it can.
  void MaybeCompletePending();
  // The body read step: bytes, 0, an error, or ERR_IO_PENDING when nothing is there yet.
  int DoReadBody();
  int SetError(int rv, std::string message);
  void StartIdleTimer();
  void OnIdleTimeout();
  void NoteStreamId();

  WeakPtr<Http2Session> session_;
  const RequestPriority priority_;
  const std::string scheme_;
  Scheduler& scheduler_;
  const NetLogWithSource net_log_;
  const HttpBasicStream::Params params_;

  int request_id_ = 0;  // the session's id for the request; 0 when not submitted
  int32_t stream_id_ = 0;
  uint32_t session_id_ = 0;
  bool head_request_ = false;

  std::shared_ptr<HttpResponseHeaders> response_headers_;
  std::string body_;            // received, not yet handed out
  size_t body_offset_ = 0;      // consumed from body_
  bool stream_closed_ = false;  // OnStreamClosed came
  int stream_error_ = OK;
  bool retriable_ = false;
  std::unique_ptr<ContentDecoder> decoder_;
  int body_result_ = 1;  // 0 or an error once the body read ended

  Op op_ = Op::kNone;
  CompletionCallback callback_;
  char* user_buf_ = nullptr;
  int user_len_ = 0;
  int filled_ = 0;  // bytes OnData put into user_buf_ for the pending read
  bool completion_posted_ = false;
  OneShotTimer idle_timer_;
  int error_ = OK;
  std::string error_message_;

  int64_t bytes_received_ = 0;
  int64_t raw_body_bytes_ = 0;
  TimeTicks send_start_{}, send_end_{}, headers_end_{}, body_end_{}, first_byte_{};

  WeakPtrFactory<Http2HttpStream> weak_factory_{this};
};

}  // namespace netstack

#endif  // NET_HTTP_HTTP2_HTTP_STREAM_H_
