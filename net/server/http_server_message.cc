#include "net/server/http_server_message.h"

#include <http_parser.h>

#include <cctype>
#include <cstring>
#include <nlohmann/json.hpp>

#include "net/base/string_util.h"

namespace netstack {

namespace {

// RFC 9110 token characters: what a header name may hold.
bool IsTokenChar(unsigned char c) {
  if (std::isalnum(c)) return true;
  switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~':
      return true;
    default:
      return false;
  }
}

// A handler's header is written only when it cannot split the answer (no CR, LF or NUL: a
// file name from the network in Content-Disposition must not inject headers) and does not
// collide with what the server itself owns.
bool IsWritableHeader(const std::string& name, const std::string& value) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!IsTokenChar(static_cast<unsigned char>(c))) return false;
  }
  for (char c : value) {
    if (c == '\r' || c == '\n' || c == '\0') return false;
  }
  static const char* const kServerOwned[] = {"content-length", "connection", "transfer-encoding",
                                             "content-type", "keep-alive"};
  for (const char* owned : kServerOwned) {
    if (EqualsCaseInsensitiveAscii(name, owned)) return false;
  }
  for (const auto& [security_name, unused] : SecurityHeaders()) {
    if (EqualsCaseInsensitiveAscii(name, security_name)) return false;
  }
  return true;
}

// 1xx, 204 and 304 answers never carry a body nor (for 1xx/204) a Content-Length.
bool StatusHasNoBody(int status) { return status / 100 == 1 || status == 204 || status == 304; }

}  // namespace

const std::string& HttpServerRequest::Header(const std::string& lower_name) const {
  static const std::string kEmpty;
  for (const auto& [name, value] : headers) {
    if (name == lower_name) return value;
  }
  return kEmpty;
}

bool HttpServerRequest::HasHeader(const std::string& lower_name) const {
  for (const auto& header : headers) {
    if (header.first == lower_name) return true;
  }
  return false;
}

// static
HttpServerResponse HttpServerResponse::Error(int status, const std::string& message) {
  HttpServerResponse response;
  response.status = status;
  nlohmann::json body = {{"error", message}};
  // The message may quote bytes from the network: invalid UTF-8 is replaced, never thrown.
  response.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return response;
}

const char* HttpStatusReason(int status) {
  // http-parser keeps the IANA table; it says "<unknown>" for codes outside it.
  const char* reason = http_status_str(static_cast<enum http_status>(status));
  return std::strcmp(reason, "<unknown>") == 0 ? "Unknown" : reason;
}

const std::vector<std::pair<std::string, std::string>>& SecurityHeaders() {
  // The page is one HTML file with external app.js and style.css: nothing inline is needed,
  // so a missed escaping cannot run injected script. frame-ancestors and X-Frame-Options both
  // forbid framing (clickjacking of the Close/Flush buttons).
  static const std::vector<std::pair<std::string, std::string>> kHeaders = {
      {"Content-Security-Policy",
       "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'"},
      {"X-Content-Type-Options", "nosniff"},
      {"Cache-Control", "no-store"},
      {"Referrer-Policy", "no-referrer"},
      {"X-Frame-Options", "DENY"},
  };
  return kHeaders;
}

std::string SerializeResponse(const HttpServerResponse& response, bool close, bool head) {
  int status = response.status;
  if (status < 100 || status > 999) status = 500;  // a handler bug must not break the framing
  const bool no_body = StatusHasNoBody(status);
  std::string wire;
  wire.reserve(512 + (head || no_body ? 0 : response.body.size()));
  wire.append("HTTP/1.1 ").append(std::to_string(status)).append(" ");
  wire.append(HttpStatusReason(status)).append("\r\n");
  if (!response.content_type.empty() && IsWritableHeader("x", response.content_type)) {
    wire.append("Content-Type: ").append(response.content_type).append("\r\n");
  }
  for (const auto& [name, value] : response.headers) {
    if (!IsWritableHeader(name, value)) continue;
    wire.append(name).append(": ").append(value).append("\r\n");
  }
  for (const auto& [name, value] : SecurityHeaders()) {
    wire.append(name).append(": ").append(value).append("\r\n");
  }
  if (status / 100 != 1 && status != 204) {
    // For HEAD, the length the GET would have had (RFC 9110 section 9.3.2).
    wire.append("Content-Length: ")
        .append(std::to_string(status == 304 ? 0 : response.body.size()))
        .append("\r\n");
  }
  wire.append(close ? "Connection: close\r\n" : "Connection: keep-alive\r\n");
  wire.append("\r\n");
  if (!head && !no_body) wire.append(response.body);
  return wire;
}

}  // namespace netstack
