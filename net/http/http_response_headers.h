// The status line and headers of a received response (like Chrome's HttpResponseHeaders).
// Headers keep their received order and the case of their names; lookups are
// case-insensitive. Built by HttpStreamParser (or Parse) and then shared read-only, hence
// std::shared_ptr<const HttpResponseHeaders> in the stream API.
#ifndef NET_HTTP_HTTP_RESPONSE_HEADERS_H_
#define NET_HTTP_HTTP_RESPONSE_HEADERS_H_

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "net/base/net_log_params.h"

namespace netstack {

struct HttpVersion {
  int major = 1;
  int minor = 1;
  bool operator==(const HttpVersion&) const = default;
  auto operator<=>(const HttpVersion&) const = default;
};

class HttpResponseHeaders {
 public:
  struct Header {
    std::string name;
    std::string value;
  };

  HttpResponseHeaders() = default;
  HttpResponseHeaders(HttpVersion version, int response_code, std::string reason);

  // Parses a complete header block ("HTTP/1.1 200 OK\r\nName: value\r\n\r\n"; the final empty
  // line may be omitted) with the same parser as responses (HttpStreamParser). Returns null if
  // the block is malformed; `error`, if given, then says why. For tests and for headers
  // persisted with ToHttpString (the HTTP cache).
  static std::shared_ptr<HttpResponseHeaders> Parse(std::string_view block,
                                                    std::string* error = nullptr);

  // Building (the parser's side). AddHeader appends; repeated names are kept as repeats.
  void AddHeader(std::string name, std::string value);
  // Removes every header named `name`; returns how many.
  size_t RemoveHeader(std::string_view name);

  HttpVersion version() const { return version_; }
  int response_code() const { return response_code_; }
  const std::string& reason() const { return reason_; }
  // "HTTP/1.1 200 OK" (no reason: "HTTP/1.1 200").
  std::string GetStatusLine() const;

  const std::vector<Header>& headers() const { return headers_; }
  bool HasHeader(std::string_view name) const;

  // The values of every `name` header joined with ", " in order (RFC 9110 section 5.3).
  // Returns false, leaving *value alone, when there is none.
  bool GetNormalizedHeader(std::string_view name, std::string* value) const;

  // Iterates over the values of `name`: start with *iter = 0 and call until it returns false.
  // Each header line is split at commas (outside quoted strings) into trimmed items, except
  // for headers whose values may themselves contain commas (Date, Expires, Last-Modified,
  // Location, Retry-After, Set-Cookie, WWW-Authenticate, Proxy-Authenticate,
  // Strict-Transport-Security), where each line is one value, as in Chrome.
  // Each call costs O(the bytes up to the next item), so walking all n items of a value is
  // linear in its size, and a caller that stops after k items pays for those k only.
  bool EnumerateHeader(size_t* iter, std::string_view name, std::string* value) const;

  // Whether one of EnumerateHeader's values of `name` equals `value`, case-insensitively.
  bool HasHeaderValue(std::string_view name, std::string_view value) const;

  // Whether the lines named `name` do not all have the same value (compared as received,
  // case-sensitively): two different Location lines, say. Chrome's
  // HttpUtil::HeadersContainMultipleCopiesOfField, its test for a response-splitting attempt.
  // When true, *first and *other (if given) get the first value and the first that differs.
  bool HasDifferingValues(std::string_view name, std::string* first = nullptr,
                          std::string* other = nullptr) const;

  // True for 301, 302, 303, 307 and 308 with a non-empty Location; *location (if given) gets
  // the first Location value, unresolved.
  bool IsRedirect(std::string* location) const;
  static bool IsRedirectResponseCode(int code);

  // The Content-Length value, or -1 when absent or not a plain non-negative decimal (repeated
  // headers with different values count as invalid).
  int64_t GetContentLength() const;

  // {"content-type": "text/html", "set-cookie": ["a=1", "b=2"]}: names lowercased, one string
  // per name or an array when repeated, values as received (invalid UTF-8 replaced). The
  // `headers` member of `fetch --json` records.
  nlohmann::json ToJson() const;

  // Chrome's HTTP_TRANSACTION_READ_RESPONSE_HEADERS params: {"headers": [status line,
  // "Name: value", ...]}, cookie values stripped (NetLogHeaderLine).
  nlohmann::json NetLogParams() const;
  // The same, written into `params` (the cheap way: no json built).
  void WriteNetLogParams(netstack::NetLogParams& params) const;

  // "HTTP/1.1 200 OK\r\nName: value\r\n...\r\n\r\n", which Parse reads back.
  std::string ToHttpString() const;

 private:
  HttpVersion version_;
  int response_code_ = 0;
  std::string reason_;
  std::vector<Header> headers_;
};

// Chrome's checks against response splitting (HttpStreamParser::ParseResponseHeaders), for
// HTTP/1.1 and HTTP/2 alike: Content-Length (only when `check_content_length`: it does not
// matter with chunked framing), Content-Disposition and Location may repeat only with one value.
// Returns OK, or ERR_RESPONSE_HEADERS_MULTIPLE_* with *message naming the start (64 bytes) of the
// two values: `"3" and "4"`.
int CheckSingleValuedHeaders(const HttpResponseHeaders& headers, bool check_content_length,
                             std::string* message);

}  // namespace netstack

#endif  // NET_HTTP_HTTP_RESPONSE_HEADERS_H_
