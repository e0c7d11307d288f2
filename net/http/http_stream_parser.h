// HTTP/1.1 wire protocol with no I/O (nghttp2 style): a request goes out as bytes
// (SerializeRequest) and the response comes in as bytes (Consume, ConsumeEof) in any split,
// down to one byte at a time. The response side runs Debian's http-parser 2.9 in
// HTTP_RESPONSE mode. HttpBasicStream moves the bytes between this and a socket; tests feed it
// directly.
//
// Response handling:
// - 1xx informational responses are consumed and dropped. A 101 is an error
//   (ERR_INVALID_HTTP_RESPONSE): nothing here asks to upgrade, so it cannot be an answer.
// - As Chrome (against response splitting): a final response whose Content-Length lines differ
//   (unless chunked) -> ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_LENGTH, whose Content-Disposition
//   lines differ -> ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_DISPOSITION, whose Location lines
//   differ -> ERR_RESPONSE_HEADERS_MULTIPLE_LOCATION. Identical repeats are accepted.
// - HEAD responses, 1xx, 204 and 304 have no body whatever their framing headers say.
// - Bodies framed by Content-Length, chunked (the framing is removed here; the
//   Content-Encoding is not), or by the end of the connection (ConsumeEof ends them).
// - Chunked trailers are consumed and dropped.
// - Bounds: all header bytes of a response (1xx included, the whole trailer section included)
//   at most Options::max_header_bytes -> ERR_RESPONSE_HEADERS_TOO_BIG.
// - Chunked framing (size lines with their extensions and leading zeros, the CRLF after each
//   chunk's data) is neither header nor body, and http-parser bounds none of it. Without a
//   bound a server could keep a response alive forever with zero body bytes, every read
//   restarting the caller's idle timer. So, -> ERR_INVALID_CHUNKED_ENCODING when:
//   - one framing line is over kMaxChunkLineBytes (Chrome's HttpChunkedDecoder line limit), or
//   - all framing so far is over kMaxChunkLineBytes + kMaxFramingBytesPerBodyByte * body bytes,
//   - a chunk size is not hexadecimal or does not fit in 64 bits.
//     Every chunk but the last carries at least one body byte, and plain framing costs at
//     most 20 bytes per chunk (16 hex digits and two CRLFs), so 32 per body byte admits any
//     chunking without extensions (1-byte chunks included) and modest extensions, while the
//     bytes a response may waste stay proportional to its body, itself bounded by the caller.
// - Callbacks from http-parser (C code) never throw: an allocation failure inside one fails
//   the parser with ERR_OUT_OF_MEMORY.
// - Bytes after the end of the response are not consumed (leftover_bytes()); they make the
//   connection unusable for another request.
#ifndef NET_HTTP_HTTP_STREAM_PARSER_H_
#define NET_HTTP_HTTP_STREAM_PARSER_H_

#include <http_parser.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "net/base/net_error.h"
#include "net/http/http_request_headers.h"
#include "net/http/http_response_headers.h"

namespace netstack {

// One request as it goes on the wire. The transaction builds it from the URL and options.
struct HttpRequestMessage {
  std::string method = "GET";
  std::string target = "/";  // origin-form: path and query
  // The Host header value. Sent first; ignored if `headers` already has a Host header.
  std::string host;
  HttpRequestHeaders headers;
  std::string body;  // sent as is after the headers
};

class HttpStreamParser {
 public:
  // Chrome's limit on the response header block (kMaxHeaderBufSize).
  static constexpr size_t kDefaultMaxHeaderBytes = 256 * 1024;
  // The largest max_header_bytes accepted; larger values are clamped.
  static constexpr size_t kMaxMaxHeaderBytes = 16 * 1024 * 1024;
  // Chrome's limit on one chunk-size line (HttpChunkedDecoder::kMaxLineBufLen).
  static constexpr int64_t kMaxChunkLineBytes = 16 * 1024;
  // Chunked framing allowed per body byte, on top of kMaxChunkLineBytes (see above).
  static constexpr int64_t kMaxFramingBytesPerBodyByte = 32;

  struct Options {
    // The request was HEAD: the response has no body whatever its headers say.
    bool head_request = false;
    size_t max_header_bytes = kDefaultMaxHeaderBytes;
  };

  explicit HttpStreamParser(const Options& options);
  ~HttpStreamParser();
  HttpStreamParser(const HttpStreamParser&) = delete;
  HttpStreamParser& operator=(const HttpStreamParser&) = delete;

  // The request line "METHOD target HTTP/1.1\r\n" of `request`.
  static std::string RequestLine(const HttpRequestMessage& request);

  // Serializes `request` into *out: the request line, Host (from request.host unless the
  // headers have one), the headers in order, Content-Length when there is a body or the method
  // is POST, PUT or PATCH (unless the headers have one), the empty line, the body. Returns OK,
  // or ERR_INVALID_ARGUMENT (with *out untouched) if the method is not a token, the target is
  // empty or contains whitespace or control characters, or the host is not a valid value.
  static int SerializeRequest(const HttpRequestMessage& request, std::string* out);

  // Feeds response bytes. Returns OK or a net error; after an error the parser is dead and
  // every later call returns the same error (error_message() says what was wrong). Once the
  // response is complete, remaining bytes are not consumed but counted in leftover_bytes().
  // Decoded body bytes accumulate until taken with ReadBody; the caller bounds them by how
  // much it feeds before reading.
  int Consume(const char* data, size_t len);

  // Consume for bytes the caller read straight into the buffer it will hand out as body
  // (HttpBasicStream's direct read). When nothing is buffered before the call and all `len`
  // bytes turn out to be body (an identity body, no headers, framing or bytes after the
  // response among them), they are counted but not copied: *all_body is true,
  // buffered_body_bytes() stays 0, and `data` holds the body bytes in order. Otherwise it is
  // exactly Consume (the body bytes among `data` are buffered) and *all_body is false. The
  // result, the counters and every later call behave as Consume's would.
  int ConsumeInPlace(const char* data, size_t len, bool* all_body);

  // The connection reached end of stream. Returns OK if that ends the response (a body
  // delimited by the close) or it was already complete; otherwise ERR_EMPTY_RESPONSE (nothing
  // at all was received), ERR_INVALID_HTTP_RESPONSE (the headers were cut),
  // ERR_INCOMPLETE_CHUNKED_ENCODING or ERR_CONTENT_LENGTH_MISMATCH (the body was cut).
  int ConsumeEof();

  // Copies up to `len` buffered body bytes into `buf` and returns how many (0 if none are
  // buffered; check message_complete() to tell the end of the body from "feed more").
  size_t ReadBody(char* buf, size_t len);
  size_t buffered_body_bytes() const { return body_.size() - body_offset_; }
  // The buffered body bytes without copying, valid until the next call on this parser; then
  // ConsumeBody(n) drops the first n (n <= buffered_body_bytes()).
  std::string_view PeekBody() const { return std::string_view(body_).substr(body_offset_); }
  void ConsumeBody(size_t n);

  // The final response's headers are complete (informational responses never set this).
  bool headers_complete() const { return state_ == State::kBody || state_ == State::kDone; }
  // The whole response (headers and body) has been parsed. Buffered body bytes may remain.
  bool message_complete() const { return state_ == State::kDone; }
  bool has_error() const { return state_ == State::kError; }
  int error() const { return error_; }
  // What was wrong and where, without the error's own name (ErrorToMessage(error()) says
  // that; UrlRequest joins the two): e.g. "invalid HTTP status code 42", "a chunk size too
  // large for 64 bits (after 80 bytes)".
  const std::string& error_message() const { return error_message_; }

  // The final response's headers once headers_complete(), else null.
  std::shared_ptr<const HttpResponseHeaders> response_headers() const { return headers_; }

  // Whether the connection may carry another request: the response is complete, its head keeps
  // the connection alive (http_keep_alive.h: version, Connection tokens, a framed body, not 101,
  // unambiguous framing; the rule the simulated servers close by), the stream did not end, and
  // no bytes followed the response.
  bool CanReuseConnection() const;

  // Response bytes consumed so far (headers + framed body; leftovers excluded).
  int64_t bytes_received() const { return bytes_received_; }
  // Header bytes of all responses so far (1xx and trailers included), as counted against the
  // bound.
  size_t header_bytes() const { return header_bytes_; }
  // Body bytes after chunked decoding.
  int64_t body_bytes_received() const { return body_bytes_received_; }
  // Chunked framing bytes so far (size lines, extensions, CRLFs after the data; the final LF
  // of the header block is counted here too). Until an error, bytes_received() ==
  // header_bytes() + body_bytes_received() + framing_bytes(); after one, bytes_received() also
  // counts the slice that failed (it was consumed, but is none of the three).
  int64_t framing_bytes() const { return framing_bytes_; }
  size_t leftover_bytes() const { return leftover_bytes_; }
  // Informational (1xx) responses skipped.
  int informational_responses() const { return informational_responses_; }
  // The body was delimited by the end of the connection (no Content-Length, not chunked).
  bool ended_by_close() const { return ended_by_close_; }

 private:
  enum class State { kHeaders, kBody, kDone, kError };

  static const http_parser_settings& Settings();
  static int OnStatus(http_parser* p, const char* at, size_t len);
  static int OnHeaderField(http_parser* p, const char* at, size_t len);
  static int OnHeaderValue(http_parser* p, const char* at, size_t len);
  static int OnHeadersComplete(http_parser* p);
  static int OnBody(http_parser* p, const char* at, size_t len);
  static int OnMessageComplete(http_parser* p);
  static int OnChunkHeader(http_parser* p);
  static int OnChunkComplete(http_parser* p);
  // Runs a callback's body (a member function) with no exception escaping into http-parser:
  // one fails the parser (ERR_OUT_OF_MEMORY for std::bad_alloc) and returns -1, which makes
  // http-parser stop with HPE_CB_*.
  template <typename... Args>
  static int Guarded(http_parser* p, int (HttpStreamParser::*method)(Args...),
                     Args... args) noexcept;

  int HandleStatus(const char* at, size_t len);
  int HandleHeaderField(const char* at, size_t len);
  int HandleHeaderValue(const char* at, size_t len);
  int HandleHeadersComplete();
  int HandleBody(const char* at, size_t len);
  int HandleMessageComplete();
  int HandleChunkHeader();
  int HandleChunkComplete();

  void ResetForNextMessage();
  void FinishPendingHeader();
  int Fail(int error, std::string message);
  // Fail for the exception paths: allocates nothing that could throw.
  void FailNoThrow(int error, const char* message) noexcept;
  int FailFromParser();
  // Counts `framing` more framing bytes (for the line being parsed) and checks both bounds.
  int CountFraming(int64_t framing);

  const Options options_;
  http_parser parser_;
  State state_ = State::kHeaders;
  int error_ = OK;
  std::string error_message_;

  // The message being parsed (may be an informational one).
  std::vector<HttpResponseHeaders::Header> pending_headers_;
  std::string reason_;
  std::string field_;
  std::string value_;
  bool last_was_value_ = false;
  // HandleHeaderField cleared http-parser's F_CONTENTLENGTH for the field being read (a second
  // Content-Length); set back if the rest of the name turns out to be another name.
  bool content_length_flag_lent_ = false;
  bool paused_for_message_ = false;
  // A chunk-size line, or the CRLF after a chunk's data, just ended (execute paused there so
  // that Consume can count each framing line on its own).
  bool paused_for_chunk_line_ = false;
  bool last_chunk_seen_ = false;  // the size-0 chunk: the trailer section follows
  bool in_trailers_ = false;      // bytes now count as header bytes
  bool interim_ = false;          // the message being parsed is an informational response

  std::shared_ptr<const HttpResponseHeaders> headers_;
  std::string body_;
  size_t body_offset_ = 0;
  // ConsumeInPlace: while in_place_, the body bytes of the current call that start at
  // in_place_base_ and are contiguous from there (in_place_body_ of them) are counted, not
  // copied. The first body byte anywhere else ends it (what was deferred is buffered first).
  bool in_place_ = false;
  const char* in_place_base_ = nullptr;
  size_t in_place_body_ = 0;

  int64_t bytes_received_ = 0;
  size_t header_bytes_ = 0;
  int64_t body_bytes_received_ = 0;
  int64_t framing_bytes_ = 0;
  int64_t line_framing_bytes_ = 0;  // framing bytes of the current framing line
  size_t leftover_bytes_ = 0;
  int informational_responses_ = 0;
  bool keep_alive_ = false;  // ResponseKeepsConnectionAlive (http_keep_alive.h)
  bool ended_by_close_ = false;
  bool eof_seen_ = false;
};

}  // namespace netstack

#endif  // NET_HTTP_HTTP_STREAM_PARSER_H_
