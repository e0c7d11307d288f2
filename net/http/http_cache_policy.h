// The caching rules of RFC 9111 for a private (single-user) cache, as pure functions: no I/O,
// no clock (times are passed in). HttpCacheTransaction asks these; `netstack cache ls` shows
// GetFreshnessInfo. The decisions this file makes (and where it follows Chrome rather than the
// letter of the RFC) are listed in net/http/README.md ("HTTP cache").
#ifndef NET_HTTP_HTTP_CACHE_POLICY_H_
#define NET_HTTP_HTTP_CACHE_POLICY_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "net/base/clock.h"
#include "net/base/net_log_params.h"
#include "net/base/url.h"
#include "net/http/http_cache_control.h"
#include "net/http/http_cache_headers.h"
#include "net/http/http_request_headers.h"
#include "net/http/http_response_headers.h"
#include "net/http/http_response_info.h"
#include "net/http/http_transaction.h"

namespace netstack {

// GET, HEAD, OPTIONS, TRACE (RFC 9110 9.2.1). Everything else invalidates (RFC 9111 4.4).
bool IsSafeMethod(std::string_view method);

// How the cache treats a request before looking anything up.
struct RequestCachePolicy {
  enum class Mode {
    kNormal,      // GET: look up, use or validate, store the response
    kBypass,      // neither read nor written (OPTIONS, request no-store, Range, If-*)
    kInvalidate,  // an unsafe method: bypass, then invalidate (GetInvalidatedKeys)
    kReload,      // cache mode reload: not read, the network, the response stored
    kHead,        // HEAD: the network, then a 200 freshens or invalidates the stored GET
    kRange,       // GET with one byte Range: HttpCacheRangeTransaction (http_cache_range.h)
  };
  Mode mode = Mode::kNormal;
  bool only_if_cached = false;
  std::string reason;  // why not kNormal ("method HEAD", "request no-store", ...)
};
// In order: an unsafe method -> kInvalidate (in every cache mode); request no-store, an If-*
// header, an OPTIONS/TRACE, or cache mode no-store -> kBypass; a GET in the default cache mode
// with one byte Range (ParseRangeHeader) -> kRange, any other Range -> kBypass; HEAD -> kHead;
// cache mode reload -> kReload; else kNormal. only_if_cached is the request's directive or the
// mode's.
RequestCachePolicy GetRequestCachePolicy(std::string_view method, const HttpRequestHeaders& headers,
                                         RequestCacheMode cache_mode = RequestCacheMode::kDefault);

// The request headers the Fetch standard's cache modes add to what is sent (HTTP-network-or-cache
// fetch, step 8.22-8.23), each only when the request has none of that name: no-store and reload
// add "Pragma: no-cache" and "Cache-Control: no-cache" (caches further along must not answer
// either); no-cache adds "Cache-Control: max-age=0". Other modes add nothing.
void AddCacheModeRequestHeaders(RequestCacheMode mode, HttpRequestHeaders* headers);

// Whether the response to a GET may be stored (RFC 9111 section 3 for a private cache): a
// final status other than 304, and 206 only to a request with Range (http_cache_range.h), no
// no-store in request or response (a Cache-Control over kMaxCacheControlDirectives counts as
// no-store), not "Vary: *" nor a Vary over kMaxVaryItems, and one of: max-age, Expires, private,
// public, or a heuristically cacheable status. *reason (if given) says why not.
bool IsStorable(std::string_view method, const HttpRequestHeaders& request,
                const HttpResponseHeaders& response, std::string* reason = nullptr);

// 200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501 (RFC 9110 15.1).
bool IsHeuristicallyCacheableStatus(int code);

enum class FreshnessSource { kNone, kMaxAge, kExpires, kHeuristic };
// "none" | "max-age" | "expires" | "heuristic".
const char* FreshnessSourceName(FreshnessSource source);

// How fresh a stored response is at a given time: what `netstack cache ls` shows.
struct FreshnessInfo {
  TimeDelta lifetime{};  // RFC 9111 4.2.1 (0 when none)
  TimeDelta age{};       // RFC 9111 4.2.3, at the time asked
  FreshnessSource source = FreshnessSource::kNone;
  bool heuristic = false;  // source == kHeuristic
  TimeDelta stale_while_revalidate{};
  TimeDelta stale_if_error{};  // RFC 5861, the response's directive (0 when none)
  bool no_cache = false;       // always validated
  bool must_revalidate = false;
  bool immutable = false;
  bool has_validator = false;  // ETag or Last-Modified: a stale response can be revalidated

  bool is_fresh() const { return lifetime > age; }
  // Time left before it turns stale; negative: stale for that long.
  TimeDelta remaining() const { return lifetime - age; }
  // {"fresh": bool, "lifetime_s", "age_s", "remaining_s" (may be negative), "source",
  //  "heuristic", "stale_while_revalidate_s", "stale_if_error_s", "no_cache", "must_revalidate",
  //  "immutable", "has_validator"}, seconds as numbers with a fraction.
  nlohmann::json ToJson() const;
  // The same fields into `params`'s innermost open object (a NetLog event's "freshness").
  void WriteNetLogParams(NetLogParams& params) const;
};

// The freshness lifetime of `headers`, received at `response_time`: max-age (repeated or
// malformed: 0), else Expires - Date (an Expires that is not a valid HTTP-date, "0" or a "UTC"
// zone included, or more than one Expires line, means already expired: RFC 9111 4.2.1, 5.3), else
// for heuristically cacheable statuses (or public) 10% of Date - Last-Modified, else 0. Date
// defaults to response_time.
TimeDelta GetFreshnessLifetime(const HttpResponseHeaders& headers, Time response_time,
                               FreshnessSource* source = nullptr);

// RFC 9111 4.2.3: corrected initial age (the larger of the apparent age from Date and Age plus
// the response delay) plus the time resident in the cache. Never negative.
TimeDelta GetCurrentAge(const HttpResponseHeaders& headers, Time request_time, Time response_time,
                        Time now);

// Everything above for a stored response at `now`.
FreshnessInfo GetFreshnessInfo(const HttpResponseInfo& info, Time now);

// Whether `request` (the headers as they would be sent) matches what `stored` was selected by
// (RFC 9111 4.1): every Vary-named header absent in both or equal after normalization
// (NormalizeVaryValue: whitespace, case and list order where the field allows).
// *mismatch (if given) names the first header that differs.
bool VaryMatches(const HttpResponseInfo& stored, const HttpRequestHeaders& request,
                 std::string* mismatch = nullptr);

enum class CacheAction {
  kUse,                    // fresh enough: serve the stored response, no network
  kUseStale,               // stale, but the request allows it (max-stale, only-if-cached)
  kUseStaleAndRevalidate,  // stale within stale-while-revalidate: serve, revalidate behind
  kValidate,               // ask the server (conditional when the stored response has validators)
  kNetwork,                // the stored response does not apply (Vary): plain request
  kMiss,                   // only-if-cached and nothing usable: ERR_CACHE_MISS
};
// "use" | "use-stale" | "use-stale-and-revalidate" | "validate" | "network" | "miss".
const char* CacheActionName(CacheAction action);

struct CacheDecision {
  CacheAction action = CacheAction::kNetwork;
  std::string reason;  // one line: "fresh", "stale", "response no-cache", "vary mismatch: ..."
  FreshnessInfo freshness;
};

// What to do with `stored` for a GET whose headers (as sent) are `request`, at `now`. In order:
// Vary mismatch -> kNetwork; response no-cache -> kValidate; request no-cache (or Pragma) ->
// kValidate; request max-age=0, or an age above request max-age, or less than min-fresh left
// -> kValidate, except that a fresh `immutable` response is used (Chrome's and Firefox's
// reload behaviour); fresh -> kUse; stale: must-revalidate -> kValidate, within request
// max-stale -> kUseStale, within stale-while-revalidate -> kUseStaleAndRevalidate, else
// kValidate. With only-if-cached, anything that may be served without validation is (kUse or
// kUseStale) and the rest is kMiss. Cache modes (after the Vary check): no-cache -> kValidate;
// force-cache and only-if-cached -> kUse or kUseStale whatever the directives (the Fetch
// standard's "not paying attention to staleness").
CacheDecision DecideCacheUse(const HttpResponseInfo& stored, const HttpRequestHeaders& request,
                             Time now, RequestCacheMode cache_mode = RequestCacheMode::kDefault);

// 500, 502, 503, 504: the statuses RFC 5861 (section 4) lets stale-if-error answer.
bool IsStaleIfErrorStatus(int code);

// Whether a stale stored response (freshness `f`, now) may answer in place of an error (a status
// above, or a network error) under stale-if-error (RFC 5861): its staleness is within the larger
// of the response's and the request's stale-if-error windows, and neither no-cache nor
// must-revalidate forbids serving it unvalidated (RFC 9111 4.2.4). *reason says why not.
bool MayServeStaleOnError(const FreshnessInfo& f, const HttpRequestHeaders& request,
                          std::string* reason = nullptr);

// Adds If-None-Match (the stored ETag) and If-Modified-Since (the stored Last-Modified, when it
// is a valid date) to *request. Returns false, changing nothing, when there is neither.
bool AddValidationHeaders(const HttpResponseHeaders& stored, HttpRequestHeaders* request);

// The cache keys an unsafe request's response invalidates (RFC 9111 4.4): none for safe
// methods or a status outside 200-399; else the target URL, then the Location and
// Content-Location URLs (resolved against the target) that have the target's origin.
std::vector<std::string> GetInvalidatedKeys(std::string_view method, const Url& url,
                                            const HttpResponseHeaders& response);

}  // namespace netstack

#endif  // NET_HTTP_HTTP_CACHE_POLICY_H_
