// HttpRequestReader: HTTP/1.x request parsing with no I/O (like nghttp2's session: bytes in,
// complete requests out), for both worlds' servers: the internals server (UvHttpConnection)
// and the simulated world's modelled servers (net/sim's SimHttpServer). It runs http-parser in
// HTTP_REQUEST mode, one request at a time, and enforces the caller's bounds (Limits) itself:
//   - head (request line + headers) over max_head_bytes: 431;
//   - body over max_body_bytes (a Content-Length announcing it, or chunked data reaching it): 413;
//   - anything http-parser refuses (bad method, bad target characters, Content-Length together
//     with chunked, bad chunk sizes...), an HTTP/1.1 request without exactly one Host header:
//     400; an HTTP major version other than 1: 505.
// After an error the reader stays failed: the server answers the status and closes.
//
// A head bound above http-parser's own process-wide header limit (80 KiB unless
// HttpStreamParser raised it, which it does once in any process that fetches) is met there
// first, also as 431.
//
// Chunked request bodies are supported (http-parser decodes them); trailers are dropped, and
// the framing of a chunked body is bounded too (body-phase bytes over 2 * max_body_bytes + 4096
// give 413), so 1-byte chunks cannot grow the work without limit.
//
// The target is kept exactly as sent (never normalized, never decoded); `path` is the target
// before '?' (or '#'); the query is split on '&' and percent-decoded ('+' is a space, an
// invalid escape is kept as written). Header names are lower-cased, values trimmed.
#ifndef NET_SERVER_HTTP_REQUEST_READER_H_
#define NET_SERVER_HTTP_REQUEST_READER_H_

#include <http_parser.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "net/server/http_server_message.h"

namespace netstack {

class HttpRequestReader {
 public:
  // The bounds, and what a request keeps (a simulated server needs only its Host and its
  // body's size; the checks above hold either way).
  struct Limits {
    size_t max_head_bytes = 16 * 1024;
    // Clamped to 2^60 (the chunk framing bound is computed from it).
    size_t max_body_bytes = 256 * 1024;
    // false: body bytes are counted (HttpServerRequest::body_bytes) and dropped, not kept in
    // HttpServerRequest::body.
    bool keep_body = true;
    // false: HttpServerRequest::headers holds the Host header only.
    bool keep_headers = true;
  };

  enum class State {
    kReading,  // needs more bytes
    kRequest,  // a complete request is ready: TakeRequest()
    kError,    // the input is refused: error_status() / error_message(); final
  };

  explicit HttpRequestReader(Limits limits);
  HttpRequestReader() : HttpRequestReader(Limits{}) {}
  HttpRequestReader(const HttpRequestReader&) = delete;
  HttpRequestReader& operator=(const HttpRequestReader&) = delete;

  // Parses up to `len` bytes and returns how many it consumed. It stops right after the end of
  // a complete request and the empty lines (CR, LF) that directly follow it in `data`, which a
  // server ignores before a request line (RFC 9112 section 2.2): state() becomes kRequest, and
  // the rest belongs to the next, pipelined, request (feed it again after TakeRequest()). So
  // the bytes consumed up to a kRequest are where that request ends in the stream. It also
  // stops at an error (kError). In kRequest or kError it consumes nothing and returns 0. Never
  // throws.
  size_t Feed(const char* data, size_t len);

  State state() const { return state_; }

  // In kRequest: hands over the request and starts reading the next one (state() is kReading
  // again). The request's keep_alive answer is keep_alive() until then.
  HttpServerRequest TakeRequest();
  // For the request ready in kRequest: whether the connection may carry another request after
  // the answer (HTTP/1.1 without "Connection: close", or HTTP/1.0 with "Connection:
  // keep-alive").
  bool keep_alive() const { return keep_alive_; }
  // For the request ready in kRequest: it asks to switch protocols (Upgrade with "Connection:
  // upgrade", or CONNECT), so what follows it on the connection may not be HTTP/1.x. A server
  // that does not switch answers it as a plain request (RFC 9110 section 7.8) or closes.
  bool upgrade() const { return upgrade_; }
  // True once some bytes of a request that is not complete yet have been consumed (an EOF now
  // cuts a request short).
  bool in_request() const { return state_ == State::kReading && message_bytes_ > 0; }
  // True once the head (request line and headers) of the request being read is complete and
  // its body, if any, is still arriving (the server's body deadline runs from here).
  bool head_complete() const { return state_ == State::kReading && headers_complete_; }

  // In kError: the HTTP status to answer (400, 413, 431, 505) and a one-line reason
  // ("malformed request: invalid HTTP method (at byte 0)").
  int error_status() const { return error_status_; }
  const std::string& error_message() const { return error_message_; }

  // The query part of `target` (after the first '?', up to '#') as decoded parameters; the
  // last of a repeated name wins. Exposed for tests and the router.
  static std::map<std::string, std::string> ParseQuery(std::string_view target);
  // Percent-decodes `text`, '+' as a space; an invalid escape is kept as written.
  static std::string DecodeQueryComponent(std::string_view text);

 private:
  void Reset();
  // The offset of the first byte at or after `offset` in data[0, len) that is not CR or LF.
  static size_t SkipEmptyLines(const char* data, size_t offset, size_t len);
  void Fail(int status, std::string message);
  void FailNoThrow(int status, const char* message) noexcept;
  void FailFromParser();
  void FinishPendingHeader();

  // http-parser callbacks: they forward to the Handle* methods below, never letting an
  // exception unwind through the C library.
  template <typename... Args>
  static int Guarded(http_parser* p, int (HttpRequestReader::*method)(Args...),
                     Args... args) noexcept;
  static int OnMessageBegin(http_parser* p);
  static int OnUrl(http_parser* p, const char* at, size_t len);
  static int OnHeaderField(http_parser* p, const char* at, size_t len);
  static int OnHeaderValue(http_parser* p, const char* at, size_t len);
  static int OnHeadersComplete(http_parser* p);
  static int OnBody(http_parser* p, const char* at, size_t len);
  static int OnMessageComplete(http_parser* p);
  static const http_parser_settings& Settings();

  int HandleUrl(const char* at, size_t len);
  int HandleHeaderField(const char* at, size_t len);
  int HandleHeaderValue(const char* at, size_t len);
  int HandleHeadersComplete();
  int HandleBody(const char* at, size_t len);
  int HandleMessageComplete();

  const Limits limits_;
  http_parser parser_;
  State state_ = State::kReading;
  HttpServerRequest request_;
  std::string field_;
  std::string value_;
  bool last_was_value_ = false;
  bool headers_complete_ = false;
  bool message_complete_ = false;
  bool keep_alive_ = false;
  bool upgrade_ = false;
  size_t hosts_ = 0;             // Host headers in the request so far
  size_t head_bytes_ = 0;        // bytes consumed before the end of the head
  size_t body_phase_bytes_ = 0;  // bytes consumed after it (body and chunk framing)
  uint64_t message_bytes_ = 0;   // bytes of the current request consumed so far
  int error_status_ = 0;
  std::string error_message_;
};

}  // namespace netstack

#endif  // NET_SERVER_HTTP_REQUEST_READER_H_
