// HttpResponseInfo: what the HTTP cache keeps about a stored response besides its body, i.e.
// the content of a cache entry's stream 0 (like Chrome's HttpResponseInfo pickle): the response
// headers, when the request went out and when the response came back (wall time, for the age
// computation of RFC 9111 section 4.2.3), the URL, and the request's values of the headers the
// response's Vary names (to tell later whether a request matches).
//
// Stream 0 format: one JSON object, versioned, readable by `netstack cache show`:
//   {"format": "netstack-http-response-info", "version": 1,
//    "url": "http://a.test/x",
//    "request_time_us": <unix µs>, "response_time_us": <unix µs>,
//    "headers": ["HTTP/1.1 200 OK", "Content-Type: text/html", ...],
//    "vary": {"accept-language": "en", "cookie": null}}     (null: the request had none)
// Strings that are not valid UTF-8 (header bytes may be anything but CR/LF/NUL) are stored as
// {"base64": "..."} so the round trip is exact.
#ifndef NET_HTTP_HTTP_RESPONSE_INFO_H_
#define NET_HTTP_HTTP_RESPONSE_INFO_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "net/base/clock.h"
#include "net/http/http_request_headers.h"
#include "net/http/http_response_headers.h"

namespace netstack {

struct HttpResponseInfo {
  // The format version Serialize writes and Parse accepts. Bumped when the meaning of a field
  // changes; an entry of another version is a miss (and is doomed by the caller).
  static constexpr int kFormatVersion = 1;
  // Bound on the Vary-named request headers kept (more: the response is not stored; Parse
  // refuses more).
  static constexpr size_t kMaxVaryHeaders = 64;

  // One Vary-named request header: lowercased name and the request's value (values of a
  // repeated header joined with ", "), or nullopt when the request did not have it.
  struct VaryValue {
    std::string name;
    std::optional<std::string> value;
    bool operator==(const VaryValue&) const = default;
  };

  // The URL the response is for (the cache key: no fragment).
  std::string url;
  // Never null in a parsed info; shared read-only, like everywhere else.
  std::shared_ptr<const HttpResponseHeaders> headers;
  // Wall time the request was sent (or the validation request, after a 304) and the time its
  // response headers arrived (RFC 9111 section 4.2.3's request_time and response_time).
  Time request_time{};
  Time response_time{};
  // The request's values of the headers named by the response's Vary (order not significant;
  // Parse gives them sorted by name).
  std::vector<VaryValue> vary;

  // Fills `vary` from `headers`' Vary field and `request`: one VaryValue per distinct name.
  // Returns false (vary untouched) for "Vary: *", a name that is not a token, or more than
  // kMaxVaryHeaders names: such a response cannot be matched and must not be stored.
  bool SetVaryFromRequest(const HttpRequestHeaders& request);

  // The stream 0 blob (format above). Requires `headers`.
  std::string Serialize() const;

  // Reads a Serialize blob into *info. Returns false on anything malformed (not JSON, another
  // format or version, a field missing or of the wrong type, headers that do not parse, a bound
  // exceeded) with a one-line reason in *error ("stream 0: version 7 not supported"); *info is
  // then unspecified. Never throws.
  static bool Parse(std::string_view blob, HttpResponseInfo* info, std::string* error);

  // For display (`netstack cache show`): the same fields as the blob, with times also as
  // IMF-fixdates, UTF-8-safe (invalid bytes replaced).
  nlohmann::json ToJson() const;
};

}  // namespace netstack

#endif  // NET_HTTP_HTTP_RESPONSE_INFO_H_
