// HttpServerRequest and HttpServerResponse: what the internals page's HTTP/1.1 server
// (uv_http_server.h) hands to its handler and what the handler answers. Plain data: the
// parsing (http_request_reader.h, over http-parser) and the I/O live elsewhere, so the router
// and its tests never touch a socket.
#ifndef NET_SERVER_HTTP_SERVER_MESSAGE_H_
#define NET_SERVER_HTTP_SERVER_MESSAGE_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace netstack {

struct HttpServerRequest {
  std::string method;  // "GET", "POST", ... as sent
  // The request target exactly as sent ("/api/cache?q=a%20b"); never normalized, so the router
  // sees "/../../etc/passwd" as the client wrote it.
  std::string target;
  // The target's path before '?', percent-decoding NOT applied.
  std::string path;
  // The query's parameters, percent-decoded ('+' is a space); the last of a repeated name wins.
  std::map<std::string, std::string> query;
  // Header names lower-cased, values with surrounding whitespace trimmed, in arrival order.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // The body's length (chunked bodies decoded), also when the reader was told not to keep it
  // (HttpRequestReader::Limits::keep_body).
  uint64_t body_bytes = 0;

  // The first header called `lower_name`, or "" (absent and empty are the same to callers).
  const std::string& Header(const std::string& lower_name) const;
  bool HasHeader(const std::string& lower_name) const;
};

struct HttpServerResponse {
  int status = 200;
  std::string content_type = "application/json; charset=utf-8";
  // Extra headers (Content-Disposition, ...). The server adds Content-Length, Connection, and
  // the security headers every answer carries (http_server_message.cc, SecurityHeaders()).
  // A header that could split the answer (a name that is not a token, a value with CR, LF or
  // NUL) or that the server owns (Content-Type: use content_type; Content-Length, Connection,
  // Transfer-Encoding, Keep-Alive, the security headers) is dropped when serialized.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  // A JSON error answer: {"error": message}, with `status`.
  static HttpServerResponse Error(int status, const std::string& message);
};

// The standard reason phrase of `status` ("OK", "Not Found", ...; "Unknown" otherwise).
const char* HttpStatusReason(int status);

// The headers every answer carries, whatever the handler set: a Content-Security-Policy that
// allows only the page's own scripts and styles ("default-src 'self'", no inline script, no
// framing), X-Content-Type-Options: nosniff, Cache-Control: no-store, Referrer-Policy:
// no-referrer, X-Frame-Options: DENY.
const std::vector<std::pair<std::string, std::string>>& SecurityHeaders();

// The response's bytes on the wire: status line, Content-Type, the handler's headers,
// SecurityHeaders(), Content-Length, and "Connection: close" when `close` (else keep-alive);
// then the body (omitted for HEAD when `head`, with the Content-Length a GET would have; never
// sent for 1xx/204/304). A status outside 100-999 is sent as 500.
std::string SerializeResponse(const HttpServerResponse& response, bool close, bool head);

}  // namespace netstack

#endif  // NET_SERVER_HTTP_SERVER_MESSAGE_H_
