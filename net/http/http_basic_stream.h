// One HTTP/1.1 request/response exchange over a connected StreamSocket: HttpStreamParser's
// bytes in and out, moved to and from the socket, with the timing points, the idle timeout,
// the body bound and the NetLog events of Chrome's HttpBasicStream/HttpStreamParser.
//
// The socket is not owned: it belongs to the pool handle the caller holds, and must outlive
// this stream. Afterwards CanReuseConnection() says whether the handle may return the socket
// to the pool as idle.
//
// Asynchronous contract (Chrome's, as in stream_socket.h): each operation returns its result
// synchronously or ERR_IO_PENDING; only after ERR_IO_PENDING does its callback run, later,
// from the loop, never inside the call. One operation at a time, in order: SendRequest, then
// ReadResponseHeaders, then ReadResponseBody until it returns 0 or an error. The stream may
// be destroyed at any time, including from inside a callback; destroying it with I/O pending
// disconnects the socket (it is unusable then anyway) so no callback runs afterwards.
//
// Content decoding: by default ReadResponseBody returns the body decoded of its
// Content-Encoding (ContentDecoder). With Params::decode_content = false it returns the bytes
// as framed on the wire (chunked framing removed), for a caller such as the HTTP cache that
// stores encoded bodies and decodes with a ContentDecoder of its own.
//
// NetLog: the request and response headers are logged (HTTP_TRANSACTION_SEND_REQUEST_HEADERS,
// HTTP_TRANSACTION_READ_RESPONSE_HEADERS) with the values of Authorization,
// Proxy-Authorization, Cookie, Set-Cookie and Set-Cookie2 replaced by "[N bytes were
// stripped]", as in Chrome's default capture mode.
#ifndef NET_HTTP_HTTP_BASIC_STREAM_H_
#define NET_HTTP_HTTP_BASIC_STREAM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "net/base/load_timing_info.h"
#include "net/base/net_error.h"
#include "net/base/net_log.h"
#include "net/base/scheduler.h"
#include "net/base/time.h"
#include "net/base/weak_ptr.h"
#include "net/http/content_decoder.h"
#include "net/http/http_response_headers.h"
#include "net/http/http_stream.h"
#include "net/http/http_stream_parser.h"
#include "net/socket/stream_socket.h"

namespace netstack {

class HttpBasicStream : public HttpStream {
 public:
  struct Params {
    // No byte received (or accepted by the socket, while sending) for this long fails the
    // operation with ERR_TIMED_OUT. nginx's proxy_read_timeout default.
    TimeDelta idle_timeout = Seconds(60);
    // Bound on the body, both as received (after chunked framing) and as decoded:
    // ERR_RESPONSE_BODY_TOO_BIG past it. Large (bodies stream to disk), but finite.
    int64_t max_body_bytes = int64_t{1} << 30;
    size_t max_header_bytes = HttpStreamParser::kDefaultMaxHeaderBytes;
    bool decode_content = true;
    // Bytes asked of the socket per read; also the most raw body held in memory at once.
    size_t read_buffer_bytes = 32 * 1024;
  };

  // `socket` must be connected and outlive this stream. `scheduler` gives the timing points
  // and runs the idle timer. Events go to `net_log` (the caller's request source).
  HttpBasicStream(StreamSocket* socket, Scheduler& scheduler, const NetLogWithSource& net_log,
                  const Params& params);
  HttpBasicStream(StreamSocket* socket, Scheduler& scheduler, const NetLogWithSource& net_log);
  ~HttpBasicStream() override;
  HttpBasicStream(const HttpBasicStream&) = delete;
  HttpBasicStream& operator=(const HttpBasicStream&) = delete;

  // Serializes `request` and writes all of it (partial writes are continued). Returns OK when
  // everything was written, ERR_IO_PENDING (then `callback` gets OK or the error), or an
  // error: ERR_INVALID_ARGUMENT (request not serializable), the socket's write error, or
  // ERR_TIMED_OUT. Call once per stream. A HEAD method makes the response bodiless.
  int SendRequest(const HttpRequestMessage& request, CompletionCallback callback) override;

  // Reads until the final response's headers are complete (1xx responses are skipped).
  // Returns OK, ERR_IO_PENDING (then `callback` gets the result), or an error:
  // ERR_EMPTY_RESPONSE (closed before any byte), ERR_INVALID_HTTP_RESPONSE,
  // ERR_RESPONSE_HEADERS_TOO_BIG, ERR_TIMED_OUT, or the socket's read error.
  int ReadResponseHeaders(CompletionCallback callback) override;

  // The final response's headers once ReadResponseHeaders succeeded, else null.
  std::shared_ptr<const HttpResponseHeaders> response_headers() const override;

  // Reads up to `len` (> 0) body bytes into `buf` (decoded unless decode_content is false).
  // Returns the bytes read (> 0), 0 at the end of the body, ERR_IO_PENDING (then `callback`
  // gets one of the others; `buf` must stay valid until then), or an error:
  // ERR_CONTENT_LENGTH_MISMATCH, ERR_INCOMPLETE_CHUNKED_ENCODING, ERR_INVALID_HTTP_RESPONSE,
  // ERR_CONTENT_DECODING_FAILED, ERR_RESPONSE_BODY_TOO_BIG, ERR_TIMED_OUT, or the socket's
  // error. After 0 or an error, further calls return the same.
  int ReadResponseBody(char* buf, int len, CompletionCallback callback) override;

  // ReadResponseBody has returned 0 (every body byte was handed out).
  bool IsResponseBodyComplete() const { return body_result_ == 0; }

  // The socket may carry another request: the response was read to its end with no error,
  // and the parser allows reuse (keep-alive, framed body, no extra bytes;
  // HttpStreamParser::CanReuseConnection). The decoded body need not have been read out.
  bool CanReuseConnection() const override;

  // Fills the points this stream measures: send_start/send_end, receive_headers_start (first
  // response byte), receive_headers_end and receive_end (body complete). Others are untouched.
  void GetLoadTimingInfo(LoadTimingInfo* info) const override;

  // What went wrong, in a sentence, after an error (the parser's, the decoder's or the
  // timeout's message); empty when the error came from the socket.
  const std::string& error_message() const override { return error_message_; }

  int64_t bytes_sent() const { return bytes_sent_; }
  // Response bytes received (headers + framed body).
  int64_t bytes_received() const override { return parser_ ? parser_->bytes_received() : 0; }
  // Body bytes after chunked framing, before content decoding.
  int64_t raw_body_bytes() const override { return parser_ ? parser_->body_bytes_received() : 0; }
  // Body bytes returned by ReadResponseBody.
  int64_t body_bytes_read() const { return body_bytes_read_; }
  // The body decoder, once the first ReadResponseBody created it (null before).
  const ContentDecoder* content_decoder() const { return decoder_.get(); }

 private:
  enum class Op { kNone, kSend, kReadHeaders, kReadBody };

  int DoSendLoop();
  int DoReadHeadersLoop();
  int DoReadBodyLoop();
  // Starts a socket read; returns bytes, 0, an error or ERR_IO_PENDING.
  int ReadSocket();
  // URL_REQUEST_JOB_FILTERED_BYTES_READ, only while capturing.
  void LogFilteredBytes(int count) const;
  // Feeds a completed socket read (bytes or 0 for EOF) to the parser.
  int HandleReadResult(int rv);
  int RunLoop();
  void OnIoComplete(int rv);
  void OnIdleTimeout();
  void StartIdleTimer();
  void FinishHeaders();
  int FinishOp(int rv);
  int SetError(int rv, std::string message);

  StreamSocket* const socket_;
  Scheduler& scheduler_;
  const NetLogWithSource net_log_;
  const Params params_;

  std::unique_ptr<HttpStreamParser> parser_;
  std::unique_ptr<ContentDecoder> decoder_;
  // Shared with pending socket callbacks so the socket never writes into freed memory.
  std::shared_ptr<std::string> request_bytes_;
  std::shared_ptr<char[]> read_buf_;  // params_.read_buffer_bytes (at least 1)
  size_t request_offset_ = 0;

  Op op_ = Op::kNone;
  bool io_pending_ = false;
  CompletionCallback callback_;
  char* user_buf_ = nullptr;
  int user_len_ = 0;
  // Identity body, nothing buffered, caller's buffer at least a read buffer: the socket reads
  // straight into the caller's buffer (one copy fewer per body byte). direct_ready_: bytes
  // there that the parser took as body, in order, so they are the answer as they stand.
  bool direct_read_ = false;
  int direct_ready_ = 0;

  OneShotTimer idle_timer_;
  int error_ = OK;
  std::string error_message_;
  int body_result_ = 1;  // 0 or an error once the body read ended
  bool read_body_started_ = false;
  int64_t bytes_sent_ = 0;
  int64_t body_bytes_read_ = 0;

  TimeTicks send_start_{}, send_end_{};
  TimeTicks first_byte_{}, headers_end_{}, body_end_{};

  WeakPtrFactory<HttpBasicStream> weak_factory_{this};
};

}  // namespace netstack

#endif  // NET_HTTP_HTTP_BASIC_STREAM_H_
