// Cache-Control (and Pragma) parsing for the HTTP cache: the directives a private cache acts on,
// read item by item with bounds (RFC 9111 section 5.2). Pure functions, no clock. The rules
// built on them are in http_cache_policy.h.
#ifndef NET_HTTP_HTTP_CACHE_CONTROL_H_
#define NET_HTTP_HTTP_CACHE_CONTROL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "net/base/clock.h"
#include "net/http/http_request_headers.h"
#include "net/http/http_response_headers.h"

namespace netstack {

// Delta-seconds past this are this (RFC 9111 section 1.2.2).
inline constexpr int64_t kMaxDeltaSeconds = int64_t{1} << 31;

// Bounds on the lists the cache reads from a response (or request). Each list is walked item by
// item and the walk stops at its bound, so no header costs more than its bound's worth of items
// however long it is; real responses use a handful. Hitting one:
// - Cache-Control (all lines together) over kMaxCacheControlDirectives: the message counts as
//   no-store and no-cache (not stored; a request bypasses the cache). Ignoring the rest instead
//   could miss a no-store among them.
// - Pragma over kMaxPragmaItems (read only without Cache-Control): counts as no-cache.
// - Vary over kMaxVaryItems (duplicates counted): the response is not stored, like Vary: *.
inline constexpr size_t kMaxCacheControlDirectives = 100;
inline constexpr size_t kMaxPragmaItems = 100;
inline constexpr size_t kMaxVaryItems = 128;

// The Cache-Control directives a private cache acts on (s-maxage, proxy-revalidate, public's
// shared-cache meaning and must-understand concern shared caches and are ignored).
struct CacheControl {
  bool no_store = false;
  // Response: store, but always validate before use. Request: validate before using a stored
  // response. A qualified no-cache="Field" is treated as unqualified (RFC 9111 5.2.2.4 allows).
  bool no_cache = false;
  bool must_revalidate = false;  // response: a stale response is never used without validation
  bool immutable = false;        // response: RFC 8246
  bool is_private = false;
  bool is_public = false;
  bool only_if_cached = false;  // request
  // Over kMaxCacheControlDirectives: the rest was not read, and no_store and no_cache are set.
  bool too_many_directives = false;
  // A max-age that is not delta-seconds (negative, a fraction, empty, "10s"; the quoted form
  // "10" is accepted, RFC 9111 5.2) or that is repeated (RFC 9111 4.2.1 allows treating the
  // response as stale; Chrome does) counts as 0: stale. For the other deltas the first
  // occurrence wins and an unparsable value is ignored. Values past kMaxDeltaSeconds are clamped.
  std::optional<TimeDelta> max_age;
  std::optional<TimeDelta> stale_while_revalidate;  // response: RFC 5861
  std::optional<TimeDelta> stale_if_error;          // response and request: RFC 5861
  std::optional<TimeDelta> min_fresh;               // request
  // Request: "max-stale" with no value accepts any staleness (TimeDelta::max()).
  std::optional<TimeDelta> max_stale;
};

// A response's Cache-Control (every line). Without any Cache-Control, "Pragma: no-cache" counts
// as no-cache (Chrome does the same for responses). Reads at most the bounds' worth of items
// (kMaxCacheControlDirectives, kMaxPragmaItems; see above for what hitting one means).
CacheControl ParseResponseCacheControl(const HttpResponseHeaders& headers);
// A request's Cache-Control; without one, "Pragma: no-cache" counts as no-cache (RFC 9111 5.4).
// The same bounds as responses.
CacheControl ParseRequestCacheControl(const HttpRequestHeaders& headers);

// Parses delta-seconds (1*DIGIT) into *out, clamping at kMaxDeltaSeconds. False (leaving *out
// alone) for anything else.
bool ParseDeltaSeconds(std::string_view s, TimeDelta* out);

// Calls f(item) for each list item of every `name` line, in order, for at most `max_items`
// items. Returns false if there were more (the rest is not scanned).
template <typename F>
bool ForEachListItem(const HttpResponseHeaders& headers, std::string_view name, size_t max_items,
                     F f) {
  size_t iter = 0;
  std::string item;
  for (size_t n = 0; headers.EnumerateHeader(&iter, name, &item); ++n) {
    if (n == max_items) return false;
    f(std::string_view(item));
  }
  return true;
}

}  // namespace netstack

#endif  // NET_HTTP_HTTP_CACHE_CONTROL_H_
