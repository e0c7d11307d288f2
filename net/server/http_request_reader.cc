#include "net/server/http_request_reader.h"

#include <algorithm>
#include <cctype>
#include <new>
#include <utility>

#include "net/base/string_util.h"

namespace netstack {

namespace {

// Chunk-size lines, chunk CRLFs and trailers may add this much to a chunked body's bytes on
// top of 2 * max_body_bytes before the request is refused.
constexpr size_t kFramingAllowance = 4096;

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

HttpRequestReader::Limits ClampedLimits(HttpRequestReader::Limits limits) {
  limits.max_body_bytes = std::min<size_t>(limits.max_body_bytes, size_t{1} << 60);
  return limits;
}

}  // namespace

HttpRequestReader::HttpRequestReader(Limits limits) : limits_(ClampedLimits(limits)) { Reset(); }

void HttpRequestReader::Reset() {
  http_parser_init(&parser_, HTTP_REQUEST);
  parser_.data = this;
  state_ = State::kReading;
  request_ = HttpServerRequest();
  field_.clear();
  value_.clear();
  last_was_value_ = false;
  headers_complete_ = false;
  message_complete_ = false;
  keep_alive_ = false;
  upgrade_ = false;
  hosts_ = 0;
  head_bytes_ = 0;
  body_phase_bytes_ = 0;
  message_bytes_ = 0;
}

size_t HttpRequestReader::Feed(const char* data, size_t len) {
  size_t offset = 0;
  while (offset < len && state_ == State::kReading) {
    size_t chunk = len - offset;
    // Each slice is all head or all body: execute pauses where the head ends.
    const bool head_slice = !headers_complete_;
    if (head_slice) {
      size_t budget = limits_.max_head_bytes - std::min(head_bytes_, limits_.max_head_bytes);
      if (budget == 0) {
        Fail(431, "request head larger than " + std::to_string(limits_.max_head_bytes) + " bytes");
        break;
      }
      chunk = std::min(chunk, budget);
    }
    size_t n = http_parser_execute(&parser_, &Settings(), data + offset, chunk);
    offset += n;
    message_bytes_ += n;
    if (state_ == State::kError) break;  // a callback refused the request
    if (head_slice) {
      head_bytes_ += n;
    } else {
      body_phase_bytes_ += n;
      if (body_phase_bytes_ > 2 * limits_.max_body_bytes + kFramingAllowance) {
        Fail(413, "request body framing larger than allowed for a body of at most " +
                      std::to_string(limits_.max_body_bytes) + " bytes");
        break;
      }
    }
    auto err = HTTP_PARSER_ERRNO(&parser_);
    if (err == HPE_PAUSED) {
      http_parser_pause(&parser_, 0);
      if (message_complete_) {
        state_ = State::kRequest;
        offset = SkipEmptyLines(data, offset, len);
      }
      continue;
    }
    if (err != HPE_OK) {
      FailFromParser();
      break;
    }
    if (n < chunk) {
      // Without an error or a pause, http-parser stops early only after an upgrade request,
      // whose end it reported (message_complete_); anything else is a parser surprise.
      if (message_complete_) {
        state_ = State::kRequest;
        offset = SkipEmptyLines(data, offset, len);
      } else {
        Fail(400, "malformed request: parser stopped at byte " + std::to_string(message_bytes_));
      }
    }
  }
  return offset;
}

// static
size_t HttpRequestReader::SkipEmptyLines(const char* data, size_t offset, size_t len) {
  while (offset < len && (data[offset] == '\r' || data[offset] == '\n')) ++offset;
  return offset;
}

HttpServerRequest HttpRequestReader::TakeRequest() {
  if (state_ != State::kRequest) return HttpServerRequest();
  HttpServerRequest request = std::move(request_);
  Reset();
  return request;
}

void HttpRequestReader::Fail(int status, std::string message) {
  state_ = State::kError;
  error_status_ = status;
  error_message_ = std::move(message);
}

void HttpRequestReader::FailNoThrow(int status, const char* message) noexcept {
  state_ = State::kError;
  error_status_ = status;
  try {
    error_message_ = message;
  } catch (...) {
    error_message_.clear();  // no memory for the message: the status says enough
  }
}

void HttpRequestReader::FailFromParser() {
  auto err = HTTP_PARSER_ERRNO(&parser_);
  std::string what = http_errno_description(err);
  if (err == HPE_HEADER_OVERFLOW) {
    Fail(431, "request head too large: " + what);
    return;
  }
  Fail(400, "malformed request: " + what + " (at byte " + std::to_string(message_bytes_) + ")");
}

void HttpRequestReader::FinishPendingHeader() {
  if (!field_.empty() || last_was_value_) {
    const bool host = EqualsCaseInsensitiveAscii(field_, "host");
    hosts_ += host ? 1 : 0;
    if (host || limits_.keep_headers) {
      std::string name = std::move(field_);
      for (char& c : name) c = ToLowerAscii(c);
      request_.headers.emplace_back(std::move(name), std::string(TrimAscii(value_, " \t")));
    }
  }
  field_.clear();
  value_.clear();
  last_was_value_ = false;
}

// static
template <typename... Args>
int HttpRequestReader::Guarded(http_parser* p, int (HttpRequestReader::*method)(Args...),
                               Args... args) noexcept {
  auto* self = static_cast<HttpRequestReader*>(p->data);
  // http-parser is C: an exception must not unwind through its frames.
  try {
    return (self->*method)(args...);
  } catch (const std::bad_alloc&) {
    self->FailNoThrow(500, "out of memory while reading the request");
  } catch (...) {
    self->FailNoThrow(500, "internal error while reading the request");
  }
  return -1;
}

// static
int HttpRequestReader::OnMessageBegin(http_parser*) { return 0; }

// static
int HttpRequestReader::OnUrl(http_parser* p, const char* at, size_t len) {
  return Guarded(p, &HttpRequestReader::HandleUrl, at, len);
}

// static
int HttpRequestReader::OnHeaderField(http_parser* p, const char* at, size_t len) {
  return Guarded(p, &HttpRequestReader::HandleHeaderField, at, len);
}

// static
int HttpRequestReader::OnHeaderValue(http_parser* p, const char* at, size_t len) {
  return Guarded(p, &HttpRequestReader::HandleHeaderValue, at, len);
}

// static
int HttpRequestReader::OnHeadersComplete(http_parser* p) {
  return Guarded(p, &HttpRequestReader::HandleHeadersComplete);
}

// static
int HttpRequestReader::OnBody(http_parser* p, const char* at, size_t len) {
  return Guarded(p, &HttpRequestReader::HandleBody, at, len);
}

// static
int HttpRequestReader::OnMessageComplete(http_parser* p) {
  return Guarded(p, &HttpRequestReader::HandleMessageComplete);
}

int HttpRequestReader::HandleUrl(const char* at, size_t len) {
  request_.target.append(at, len);
  return 0;
}

int HttpRequestReader::HandleHeaderField(const char* at, size_t len) {
  if (headers_complete_) return 0;  // a chunked trailer: bounded by Feed, dropped
  if (last_was_value_) FinishPendingHeader();
  field_.append(at, len);
  return 0;
}

int HttpRequestReader::HandleHeaderValue(const char* at, size_t len) {
  if (headers_complete_) return 0;  // a chunked trailer
  value_.append(at, len);
  last_was_value_ = true;
  return 0;
}

int HttpRequestReader::HandleHeadersComplete() {
  FinishPendingHeader();
  if (parser_.http_major != 1) {
    Fail(505, "HTTP version " + std::to_string(parser_.http_major) + "." +
                  std::to_string(parser_.http_minor) + " is not supported");
    return -1;
  }
  if (hosts_ > 1 || (hosts_ == 0 && parser_.http_minor >= 1)) {
    // RFC 9112 section 3.2: exactly one Host in HTTP/1.1; two could disagree.
    Fail(400, hosts_ == 0 ? "malformed request: HTTP/1.1 request without a Host header"
                          : "malformed request: more than one Host header");
    return -1;
  }
  if ((parser_.flags & F_CONTENTLENGTH) && parser_.content_length > limits_.max_body_bytes) {
    Fail(413, "request body of " + std::to_string(parser_.content_length) +
                  " bytes is larger than " + std::to_string(limits_.max_body_bytes) + " bytes");
    return -1;
  }
  request_.method = http_method_str(static_cast<http_method>(parser_.method));
  const std::string& target = request_.target;
  request_.path = target.substr(0, target.find_first_of("?#"));
  request_.query = ParseQuery(target);
  headers_complete_ = true;
  // Stop here so that Feed sees where the head ends.
  http_parser_pause(&parser_, 1);
  return 0;
}

int HttpRequestReader::HandleBody(const char* at, size_t len) {
  if (request_.body_bytes + len > limits_.max_body_bytes) {
    Fail(413, "request body larger than " + std::to_string(limits_.max_body_bytes) + " bytes");
    return -1;
  }
  request_.body_bytes += len;
  if (limits_.keep_body) request_.body.append(at, len);
  return 0;
}

int HttpRequestReader::HandleMessageComplete() {
  keep_alive_ = http_should_keep_alive(&parser_) != 0;
  upgrade_ = parser_.upgrade != 0;
  message_complete_ = true;
  // Stop right after this request: what follows is the next one, read after the answer.
  http_parser_pause(&parser_, 1);
  return 0;
}

// static
const http_parser_settings& HttpRequestReader::Settings() {
  static const http_parser_settings settings = [] {
    http_parser_settings s;
    http_parser_settings_init(&s);
    s.on_message_begin = &OnMessageBegin;
    s.on_url = &OnUrl;
    s.on_header_field = &OnHeaderField;
    s.on_header_value = &OnHeaderValue;
    s.on_headers_complete = &OnHeadersComplete;
    s.on_body = &OnBody;
    s.on_message_complete = &OnMessageComplete;
    return s;
  }();
  return settings;
}

// static
std::string HttpRequestReader::DecodeQueryComponent(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '+') {
      out.push_back(' ');
    } else if (c == '%' && i + 2 < text.size() && HexValue(text[i + 1]) >= 0 &&
               HexValue(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2])));
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// static
std::map<std::string, std::string> HttpRequestReader::ParseQuery(std::string_view target) {
  std::map<std::string, std::string> query;
  size_t question = target.find('?');
  if (question == std::string_view::npos) return query;
  std::string_view rest = target.substr(question + 1);
  rest = rest.substr(0, rest.find('#'));
  while (!rest.empty()) {
    size_t amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    std::string name = DecodeQueryComponent(pair.substr(0, eq));
    if (name.empty()) continue;
    std::string value =
        eq == std::string_view::npos ? std::string() : DecodeQueryComponent(pair.substr(eq + 1));
    query[std::move(name)] = std::move(value);
  }
  return query;
}

}  // namespace netstack
