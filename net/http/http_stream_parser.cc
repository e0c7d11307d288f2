#include "net/http/http_stream_parser.h"

#include <algorithm>
#include <climits>
#include <mutex>
#include <new>

#include "net/http/http_keep_alive.h"
#include "net/http/http_util.h"

namespace netstack {

namespace {

// http-parser's own header limit is process-wide (80 KiB by default, below Chrome's 256 KiB).
// This class enforces its per-response bound itself, so the library's is raised once above
// the largest bound an Options may ask for.
void RaiseLibraryHeaderLimitOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    http_parser_set_max_header_size(
        static_cast<uint32_t>(HttpStreamParser::kMaxMaxHeaderBytes + 1024));
  });
}

bool IsValidTarget(std::string_view target) {
  if (target.empty()) return false;
  for (char c : target) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return false;
  }
  return true;
}

}  // namespace

HttpStreamParser::HttpStreamParser(const Options& options)
    : options_{options.head_request, std::min(options.max_header_bytes, kMaxMaxHeaderBytes)} {
  RaiseLibraryHeaderLimitOnce();
  ResetForNextMessage();
}

HttpStreamParser::~HttpStreamParser() = default;

std::string HttpStreamParser::RequestLine(const HttpRequestMessage& request) {
  return request.method + " " + request.target + " HTTP/1.1\r\n";
}

int HttpStreamParser::SerializeRequest(const HttpRequestMessage& request, std::string* out) {
  if (!IsHttpToken(request.method) || !IsValidTarget(request.target) ||
      !IsValidHeaderValue(request.host)) {
    return ERR_INVALID_ARGUMENT;
  }
  const HttpRequestHeaders& headers = request.headers;
  std::string wire = RequestLine(request);
  if (!request.host.empty() && !headers.HasHeader(HttpRequestHeaders::kHost)) {
    wire.append("Host: ").append(request.host).append("\r\n");
  }
  std::string headers_text = headers.ToString();  // ends with the empty line
  wire.append(headers_text, 0, headers_text.size() - 2);
  bool body_method =
      request.method == "POST" || request.method == "PUT" || request.method == "PATCH";
  if ((!request.body.empty() || body_method) &&
      !headers.HasHeader(HttpRequestHeaders::kContentLength)) {
    wire.append("Content-Length: ").append(std::to_string(request.body.size())).append("\r\n");
  }
  wire.append("\r\n");
  wire.append(request.body);
  *out = std::move(wire);
  return OK;
}

void HttpStreamParser::ResetForNextMessage() {
  http_parser_init(&parser_, HTTP_RESPONSE);
  parser_.data = this;
  // A response with both Transfer-Encoding: chunked and Content-Length is read as chunked
  // (RFC 9112 section 6.3), like browsers do, but the connection is not reused after it.
  parser_.allow_chunked_length = 1;
  pending_headers_.clear();
  reason_.clear();
  field_.clear();
  value_.clear();
  last_was_value_ = false;
  content_length_flag_lent_ = false;
  interim_ = false;
}

int HttpStreamParser::Fail(int error, std::string message) {
  state_ = State::kError;
  error_ = error;
  error_message_ = std::move(message);
  return error_;
}

void HttpStreamParser::FailNoThrow(int error, const char* message) noexcept {
  state_ = State::kError;
  error_ = error;
  try {
    error_message_ = message;
  } catch (...) {
    error_message_.clear();  // no memory for the message: the error code says enough
  }
}

int HttpStreamParser::FailFromParser() {
  auto err = HTTP_PARSER_ERRNO(&parser_);
  const std::string where = " (after " + std::to_string(bytes_received_) + " bytes)";
  if (err == HPE_HEADER_OVERFLOW)
    return Fail(ERR_RESPONSE_HEADERS_TOO_BIG, http_errno_description(err) + where);
  // In a chunked body (not its trailers) the library reports a chunk size that overflows as a
  // bad content-length: it is the chunked framing that is wrong (Chrome's
  // ERR_INVALID_CHUNKED_ENCODING).
  const bool in_chunk_framing =
      state_ == State::kBody && !in_trailers_ && (parser_.flags & F_CHUNKED);
  if (in_chunk_framing && err == HPE_INVALID_CONTENT_LENGTH)
    return Fail(ERR_INVALID_CHUNKED_ENCODING, "a chunk size too large for 64 bits" + where);
  if (in_chunk_framing && err == HPE_INVALID_CHUNK_SIZE)
    return Fail(ERR_INVALID_CHUNKED_ENCODING, "a chunk size line that is not hexadecimal" + where);
  return Fail(ERR_INVALID_HTTP_RESPONSE, http_errno_description(err) + where);
}

int HttpStreamParser::Consume(const char* data, size_t len) {
  if (state_ == State::kError) return error_;
  size_t offset = 0;
  while (offset < len) {
    if (state_ == State::kDone || eof_seen_) {
      leftover_bytes_ += len - offset;
      return OK;
    }
    size_t chunk = len - offset;
    // The header block and the trailer section share the header bound. Each slice ends where
    // the kind of bytes changes (execute pauses there), so a slice is all of one kind.
    const bool header_slice = state_ == State::kHeaders || in_trailers_;
    if (header_slice) {
      size_t budget =
          options_.max_header_bytes - std::min(header_bytes_, options_.max_header_bytes);
      if (budget == 0) {
        return Fail(ERR_RESPONSE_HEADERS_TOO_BIG,
                    (in_trailers_ ? "chunked trailers over the response header limit of "
                                  : "over the limit of ") +
                        std::to_string(options_.max_header_bytes) + " bytes");
      }
      chunk = std::min(chunk, budget);
    }
    const int64_t body_before = body_bytes_received_;
    size_t n = http_parser_execute(&parser_, &Settings(), data + offset, chunk);
    offset += n;
    bytes_received_ += static_cast<int64_t>(n);
    if (state_ == State::kError) return error_;  // a callback failed
    // A pause at the end of the headers stops before their final LF, which is then counted
    // as framing: the header bound is exact to within that byte.
    if (header_slice) {
      header_bytes_ += n;
    } else {
      // Body bytes are what OnBody delivered; the rest of a body slice is framing.
      int64_t framing = static_cast<int64_t>(n) - (body_bytes_received_ - body_before);
      if (int rv = CountFraming(framing); rv != OK) return rv;
    }
    auto err = HTTP_PARSER_ERRNO(&parser_);
    if (err == HPE_PAUSED) {
      http_parser_pause(&parser_, 0);
      if (paused_for_chunk_line_) {
        paused_for_chunk_line_ = false;
        line_framing_bytes_ = 0;
        if (last_chunk_seen_) in_trailers_ = true;
      }
      if (paused_for_message_) {
        paused_for_message_ = false;
        if (interim_) {
          ResetForNextMessage();
        } else {
          state_ = State::kDone;
        }
      }
      continue;
    }
    if (err != HPE_OK) return FailFromParser();
    if (n < chunk) {
      // The library stops early without an error only for protocol upgrades, which end the
      // message first (handled above); anything else is a surprise.
      return Fail(ERR_INVALID_HTTP_RESPONSE,
                  "the parser stopped early after " + std::to_string(bytes_received_) + " bytes");
    }
  }
  return OK;
}

int HttpStreamParser::CountFraming(int64_t framing) {
  framing_bytes_ += framing;
  line_framing_bytes_ += framing;
  if (line_framing_bytes_ > kMaxChunkLineBytes) {
    return Fail(ERR_INVALID_CHUNKED_ENCODING,
                "a chunk framing line over " + std::to_string(kMaxChunkLineBytes) + " bytes");
  }
  if (framing_bytes_ > kMaxChunkLineBytes + kMaxFramingBytesPerBodyByte * body_bytes_received_) {
    return Fail(ERR_INVALID_CHUNKED_ENCODING,
                std::to_string(framing_bytes_) + " framing bytes for " +
                    std::to_string(body_bytes_received_) + " body bytes");
  }
  return OK;
}

int HttpStreamParser::ConsumeInPlace(const char* data, size_t len, bool* all_body) {
  *all_body = false;
  if (buffered_body_bytes() != 0 || len == 0 || state_ == State::kError) {
    return Consume(data, len);
  }
  body_.clear();
  body_offset_ = 0;
  in_place_ = true;
  in_place_base_ = data;
  in_place_body_ = 0;
  const int rv = Consume(data, len);
  const bool deferred = in_place_;
  in_place_ = false;
  if (!deferred) return rv;  // HandleBody met a gap and buffered everything itself.
  if (rv == OK && in_place_body_ == len) {
    *all_body = true;
    return OK;
  }
  // Part of `data` was not body: buffer the body bytes deferred so far, as Consume would have.
  if (in_place_body_ > 0) {
    try {
      body_.append(data, in_place_body_);
    } catch (const std::bad_alloc&) {
      return Fail(ERR_OUT_OF_MEMORY, "out of memory while parsing the response");
    }
  }
  return rv;
}

int HttpStreamParser::ConsumeEof() {
  if (state_ == State::kError) return error_;
  if (eof_seen_) return state_ == State::kDone ? OK : error_;
  eof_seen_ = true;
  switch (state_) {
    case State::kDone:
      return OK;
    case State::kHeaders:
      if (bytes_received_ == 0) {
        return Fail(ERR_EMPTY_RESPONSE, "the server closed the connection without a response");
      }
      return Fail(ERR_INVALID_HTTP_RESPONSE, "connection closed inside the response headers");
    case State::kBody:
      break;
    case State::kError:
      return error_;
  }
  http_parser_execute(&parser_, &Settings(), nullptr, 0);
  if (state_ == State::kError) return error_;
  if (paused_for_message_) {
    http_parser_pause(&parser_, 0);
    paused_for_message_ = false;
    state_ = State::kDone;
    ended_by_close_ = true;
    return OK;
  }
  if (parser_.flags & F_CHUNKED) {
    return Fail(ERR_INCOMPLETE_CHUNKED_ENCODING, "connection closed inside a chunked body after " +
                                                     std::to_string(body_bytes_received_) +
                                                     " body bytes");
  }
  int64_t expected = headers_ ? headers_->GetContentLength() : -1;
  return Fail(ERR_CONTENT_LENGTH_MISMATCH,
              "connection closed after " + std::to_string(body_bytes_received_) + " of " +
                  (expected >= 0 ? std::to_string(expected) : std::string("?")) +
                  " body bytes (Content-Length)");
}

size_t HttpStreamParser::ReadBody(char* buf, size_t len) {
  size_t n = std::min(len, buffered_body_bytes());
  std::copy_n(body_.data() + body_offset_, n, buf);
  ConsumeBody(n);
  return n;
}

void HttpStreamParser::ConsumeBody(size_t n) {
  body_offset_ += std::min(n, buffered_body_bytes());
  if (body_offset_ == body_.size()) {
    body_.clear();
    body_offset_ = 0;
  }
}

bool HttpStreamParser::CanReuseConnection() const {
  return state_ == State::kDone && keep_alive_ && !ended_by_close_ && !eof_seen_ &&
         leftover_bytes_ == 0;
}

namespace {

// A field name as http-parser (not strict) matches it: whitespace may end it, before the colon.
std::string_view WithoutTrailingWhitespace(std::string_view name) {
  while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.remove_suffix(1);
  return name;
}

}  // namespace

void HttpStreamParser::FinishPendingHeader() {
  // http-parser (not strict) lets whitespace end a field name ("Content-Length :2") and reads
  // such a field as the name without it; so does the header list. A name of whitespace only
  // (" :v" after a folded status line) names nothing and is dropped, as Chromium's header
  // parsing skips a line with an empty name.
  std::string_view name = WithoutTrailingWhitespace(field_);
  if (!name.empty())
    pending_headers_.push_back({std::string(name), std::string(TrimHttpWhitespace(value_))});
  field_.clear();
  value_.clear();
  last_was_value_ = false;
}

// static
template <typename... Args>
int HttpStreamParser::Guarded(http_parser* p, int (HttpStreamParser::*method)(Args...),
                              Args... args) noexcept {
  auto* self = static_cast<HttpStreamParser*>(p->data);
  // http-parser is C: an exception must not unwind through its frames.
  try {
    return (self->*method)(args...);
  } catch (const std::bad_alloc&) {
    self->FailNoThrow(ERR_OUT_OF_MEMORY, "out of memory while parsing the response");
  } catch (...) {
    self->FailNoThrow(ERR_FAILED, "internal error while parsing the response");
  }
  return -1;
}

// static
int HttpStreamParser::OnStatus(http_parser* p, const char* at, size_t len) {
  return Guarded(p, &HttpStreamParser::HandleStatus, at, len);
}

// static
int HttpStreamParser::OnHeaderField(http_parser* p, const char* at, size_t len) {
  return Guarded(p, &HttpStreamParser::HandleHeaderField, at, len);
}

// static
int HttpStreamParser::OnHeaderValue(http_parser* p, const char* at, size_t len) {
  return Guarded(p, &HttpStreamParser::HandleHeaderValue, at, len);
}

// static
int HttpStreamParser::OnHeadersComplete(http_parser* p) {
  return Guarded(p, &HttpStreamParser::HandleHeadersComplete);
}

// static
int HttpStreamParser::OnBody(http_parser* p, const char* at, size_t len) {
  return Guarded(p, &HttpStreamParser::HandleBody, at, len);
}

// static
int HttpStreamParser::OnMessageComplete(http_parser* p) {
  return Guarded(p, &HttpStreamParser::HandleMessageComplete);
}

// static
int HttpStreamParser::OnChunkHeader(http_parser* p) {
  return Guarded(p, &HttpStreamParser::HandleChunkHeader);
}

// static
int HttpStreamParser::OnChunkComplete(http_parser* p) {
  return Guarded(p, &HttpStreamParser::HandleChunkComplete);
}

int HttpStreamParser::HandleStatus(const char* at, size_t len) {
  reason_.append(at, len);
  return 0;
}

int HttpStreamParser::HandleHeaderField(const char* at, size_t len) {
  if (state_ == State::kBody) return 0;  // a trailer: counted by Consume, dropped
  if (last_was_value_) FinishPendingHeader();
  field_.append(at, len);
  // http-parser refuses any second Content-Length, even one with the same value, which Chrome
  // accepts. Forgetting the first one when the name of a second is complete (the library checks
  // at its value) lets it through; HandleHeadersComplete then fails differing values.
  // The name as http-parser matches it: whitespace before the colon does not count. A name
  // split across reads is compared as far as it has come, and the flag is given back when more
  // of the name ("Content-Lengthg") stops it matching, so every split decides as one read does.
  const bool names_content_length =
      EqualsCaseInsensitiveAscii(WithoutTrailingWhitespace(field_), "content-length");
  if (names_content_length && (parser_.flags & F_CONTENTLENGTH)) {
    parser_.flags &= ~F_CONTENTLENGTH;
    content_length_flag_lent_ = true;
  } else if (!names_content_length && content_length_flag_lent_) {
    parser_.flags |= F_CONTENTLENGTH;
    content_length_flag_lent_ = false;
  }
  return 0;
}

int HttpStreamParser::HandleHeaderValue(const char* at, size_t len) {
  if (state_ == State::kBody) return 0;  // a trailer: counted by Consume, dropped
  content_length_flag_lent_ = false;     // the name is complete
  // An obsolete line folding arrives as more value text; its line break is replaced by the
  // whitespace that follows it.
  value_.append(at, len);
  last_was_value_ = true;
  return 0;
}

int HttpStreamParser::HandleHeadersComplete() {
  FinishPendingHeader();
  int code = static_cast<int>(parser_.status_code);
  if (code < 100) {
    Fail(ERR_INVALID_HTTP_RESPONSE, "invalid HTTP status code " + std::to_string(code));
    return -1;
  }
  if (code == 101) {
    // netstack never asks to upgrade (no Upgrade header goes out), so a switch of protocols
    // is not an answer to the request: the connection would carry something other than HTTP.
    Fail(ERR_INVALID_HTTP_RESPONSE,
         "101 Switching Protocols to a request that did not ask to upgrade");
    return -1;
  }
  auto headers = std::make_shared<HttpResponseHeaders>(
      HttpVersion{parser_.http_major, parser_.http_minor}, code, std::move(reason_));
  for (auto& h : pending_headers_) headers->AddHeader(std::move(h.name), std::move(h.value));
  pending_headers_.clear();

  interim_ = code / 100 == 1;
  if (interim_) {
    ++informational_responses_;
  } else {
    // Headers that must be single (Chrome's response-splitting checks).
    std::string message;
    if (int rv = CheckSingleValuedHeaders(*headers, !(parser_.flags & F_CHUNKED), &message);
        rv != OK) {
      Fail(rv, std::move(message));
      return -1;
    }
    headers_ = std::move(headers);
    state_ = State::kBody;
  }
  // Stop here so that Consume sees where the header bytes end.
  http_parser_pause(&parser_, 1);
  return ResponseHasNoBody(code, options_.head_request) ? 1 : 0;  // 1: the library skips it
}

int HttpStreamParser::HandleBody(const char* at, size_t len) {
  if (in_place_) {
    if (at == in_place_base_ + in_place_body_) {
      in_place_body_ += len;
      body_bytes_received_ += static_cast<int64_t>(len);
      return 0;
    }
    // Body bytes after a gap (framing, headers): from here on the bytes are buffered, the
    // deferred ones first so the order holds. body_ is empty (ConsumeInPlace's precondition).
    in_place_ = false;
    body_.append(in_place_base_, in_place_body_);
  }
  if (body_offset_ == body_.size()) {
    body_.clear();
    body_offset_ = 0;
  }
  body_.append(at, len);
  body_bytes_received_ += static_cast<int64_t>(len);
  return 0;
}

int HttpStreamParser::HandleMessageComplete() {
  if (!interim_) keep_alive_ = ResponseKeepsConnectionAlive(parser_);
  paused_for_message_ = true;
  http_parser_pause(&parser_, 1);
  return 0;
}

int HttpStreamParser::HandleChunkHeader() {
  // The size line just ended; parser_.content_length is the chunk's size.
  if (parser_.content_length == 0) last_chunk_seen_ = true;
  paused_for_chunk_line_ = true;
  http_parser_pause(&parser_, 1);
  return 0;
}

int HttpStreamParser::HandleChunkComplete() {
  // The CRLF after the chunk's data just ended.
  paused_for_chunk_line_ = true;
  http_parser_pause(&parser_, 1);
  return 0;
}

// static
const http_parser_settings& HttpStreamParser::Settings() {
  static const http_parser_settings settings = [] {
    http_parser_settings s;
    http_parser_settings_init(&s);
    s.on_status = &OnStatus;
    s.on_header_field = &OnHeaderField;
    s.on_header_value = &OnHeaderValue;
    s.on_headers_complete = &OnHeadersComplete;
    s.on_body = &OnBody;
    s.on_message_complete = &OnMessageComplete;
    s.on_chunk_header = &OnChunkHeader;
    s.on_chunk_complete = &OnChunkComplete;
    return s;
  }();
  return settings;
}

}  // namespace netstack
