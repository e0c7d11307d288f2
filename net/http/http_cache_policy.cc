#include "net/http/http_cache_policy.h"

#include <algorithm>
#include <cctype>

#include "net/base/net_error.h"
#include "net/http/http_cache_range.h"
#include "net/http/http_cache_vary.h"
#include "net/http/http_date.h"
#include "net/http/http_util.h"

namespace netstack {
namespace {

constexpr TimeDelta kMaxDelta = std::chrono::seconds(kMaxDeltaSeconds);

std::string TooManyDirectivesReason(const char* side) {
  return std::string(side) + " Cache-Control over " + std::to_string(kMaxCacheControlDirectives) +
         " directives";
}

// The first value of a non-coalescing header (Date, Expires, Last-Modified), as a time.
bool GetDateHeader(const HttpResponseHeaders& headers, std::string_view name, Time* out) {
  size_t iter = 0;
  std::string value;
  if (!headers.EnumerateHeader(&iter, name, &value)) return false;
  return ParseHttpDate(value, out);
}

// The first line of `name`, unsplit (an ETag or a URL may contain commas).
bool HasFirstHeader(const HttpResponseHeaders& headers, std::string_view name, std::string* value) {
  for (const HttpResponseHeaders::Header& h : headers.headers()) {
    if (EqualsCaseInsensitiveAscii(h.name, name)) {
      *value = h.value;
      return true;
    }
  }
  return false;
}

size_t CountHeaderLines(const HttpResponseHeaders& headers, std::string_view name) {
  return std::count_if(headers.headers().begin(), headers.headers().end(),
                       [name](const HttpResponseHeaders::Header& h) {
                         return EqualsCaseInsensitiveAscii(h.name, name);
                       });
}

// The Age header in seconds (first value); 0 when absent or invalid.
TimeDelta GetAgeValue(const HttpResponseHeaders& headers) {
  size_t iter = 0;
  std::string value;
  TimeDelta age{};
  if (!headers.EnumerateHeader(&iter, "age", &value) || !ParseDeltaSeconds(value, &age))
    return TimeDelta::zero();
  return age;
}

bool IsSameOrigin(const Url& a, const Url& b) {
  return a.scheme_host_port() == b.scheme_host_port();
}

double ToSecondsDouble(TimeDelta d) { return static_cast<double>(d.count()) / 1e6; }

}  // namespace

bool IsSafeMethod(std::string_view method) {
  return method == "GET" || method == "HEAD" || method == "OPTIONS" || method == "TRACE";
}

RequestCachePolicy GetRequestCachePolicy(std::string_view method, const HttpRequestHeaders& headers,
                                         RequestCacheMode cache_mode) {
  RequestCachePolicy policy;
  CacheControl cc = ParseRequestCacheControl(headers);
  policy.only_if_cached = cc.only_if_cached || cache_mode == RequestCacheMode::kOnlyIfCached;
  auto bypass = [&policy](std::string why) {
    policy.mode = RequestCachePolicy::Mode::kBypass;
    policy.reason = std::move(why);
    return policy;
  };
  if (!IsSafeMethod(method)) {
    // Whatever the cache mode: what an unsafe request changed must not be served stale after.
    policy.mode = RequestCachePolicy::Mode::kInvalidate;
    policy.reason = "unsafe method " + std::string(method);
    return policy;
  }
  // OPTIONS/TRACE responses are not cacheable.
  if (method != "GET" && method != "HEAD") return bypass("method " + std::string(method));
  if (cache_mode == RequestCacheMode::kNoStore) return bypass("cache mode no-store");
  if (cc.no_store) {
    return bypass(cc.too_many_directives ? TooManyDirectivesReason("request") : "request no-store");
  }
  // The caller's own conditional request: the cache does not combine it with its stored
  // response (Chrome's "external validation" is not implemented).
  for (const char* name :
       {"if-none-match", "if-modified-since", "if-match", "if-unmodified-since", "if-range"}) {
    if (headers.HasHeader(name)) return bypass(std::string("request has ") + name);
  }
  if (std::optional<std::string> range = headers.GetHeader("range")) {
    ByteRangeSpec spec;
    if (method != "GET" || cache_mode != RequestCacheMode::kDefault ||
        !ParseRangeHeader(*range, &spec))
      return bypass("request has range");
    policy.mode = RequestCachePolicy::Mode::kRange;
    policy.reason = "request has range";
    return policy;
  }
  if (method == "HEAD") {
    // A HEAD is never answered from the GET entry (its headers would be a GET's, its age
    // unchecked), but its 200 may freshen that entry (RFC 9111 4.3.5).
    policy.mode = RequestCachePolicy::Mode::kHead;
    policy.reason = "method HEAD";
    return policy;
  }
  if (cache_mode == RequestCacheMode::kReload) {
    policy.mode = RequestCachePolicy::Mode::kReload;
    policy.reason = "cache mode reload";
  }
  return policy;
}

void AddCacheModeRequestHeaders(RequestCacheMode mode, HttpRequestHeaders* headers) {
  auto add = [headers](const char* name, const char* value) {
    if (!headers->HasHeader(name)) headers->SetHeader(name, value);
  };
  switch (mode) {
    case RequestCacheMode::kNoStore:
    case RequestCacheMode::kReload:
      add("Pragma", "no-cache");
      add("Cache-Control", "no-cache");
      break;
    case RequestCacheMode::kNoCache:
      add("Cache-Control", "max-age=0");
      break;
    default:
      break;
  }
}

bool IsHeuristicallyCacheableStatus(int code) {
  switch (code) {
    case 200:
    case 203:
    case 204:
    case 206:
    case 300:
    case 301:
    case 308:
    case 404:
    case 405:
    case 410:
    case 414:
    case 501:
      return true;
    default:
      return false;
  }
}

bool IsStorable(std::string_view method, const HttpRequestHeaders& request,
                const HttpResponseHeaders& response, std::string* reason) {
  auto no = [reason](std::string why) {
    if (reason) *reason = std::move(why);
    return false;
  };
  if (method != "GET") return no("method " + std::string(method));
  const int code = response.response_code();
  if (code < 200) return no("status " + std::to_string(code) + " is not final");
  if (code == 206 && !request.HasHeader("range")) return no("206 to a request without Range");
  if (code == 304) return no("304 is not stored by itself");
  const CacheControl request_cc = ParseRequestCacheControl(request);
  if (request_cc.too_many_directives) return no(TooManyDirectivesReason("request"));
  if (request_cc.no_store) return no("request no-store");
  const CacheControl cc = ParseResponseCacheControl(response);
  if (cc.too_many_directives) return no(TooManyDirectivesReason("response"));
  if (cc.no_store) return no("response no-store");
  bool vary_star = false;
  if (!ForEachListItem(response, "vary", kMaxVaryItems,
                       [&vary_star](std::string_view item) { vary_star |= item == "*"; })) {
    return no("Vary over " + std::to_string(kMaxVaryItems) + " items");
  }
  if (vary_star) return no("Vary: *");
  if (cc.max_age || cc.is_private || cc.is_public || response.HasHeader("expires") ||
      IsHeuristicallyCacheableStatus(code)) {
    return true;
  }
  return no("status " + std::to_string(code) + " without explicit freshness");
}

const char* FreshnessSourceName(FreshnessSource source) {
  switch (source) {
    case FreshnessSource::kNone:
      return "none";
    case FreshnessSource::kMaxAge:
      return "max-age";
    case FreshnessSource::kExpires:
      return "expires";
    case FreshnessSource::kHeuristic:
      return "heuristic";
  }
  return "none";
}

namespace {

// GetFreshnessLifetime with the response's Cache-Control already parsed.
TimeDelta FreshnessLifetime(const HttpResponseHeaders& headers, const CacheControl& cc,
                            Time response_time, FreshnessSource* source) {
  if (cc.max_age) {
    *source = FreshnessSource::kMaxAge;
    return *cc.max_age;
  }
  Time date;
  if (!GetDateHeader(headers, "date", &date)) date = response_time;
  std::string expires_value;
  if (HasFirstHeader(headers, "expires", &expires_value)) {
    *source = FreshnessSource::kExpires;
    Time expires;
    // An invalid Expires (including "0") means already expired (RFC 9111 5.3); so do two
    // Expires lines (4.2.1 allows treating them as stale: which one is right is unknowable).
    if (CountHeaderLines(headers, "expires") > 1 || !ParseHttpDate(expires_value, &expires) ||
        expires <= date) {
      return TimeDelta::zero();
    }
    return std::min(expires - date, kMaxDelta);
  }
  Time last_modified;
  if ((IsHeuristicallyCacheableStatus(headers.response_code()) || cc.is_public) &&
      GetDateHeader(headers, "last-modified", &last_modified)) {
    *source = FreshnessSource::kHeuristic;
    if (last_modified >= date) return TimeDelta::zero();
    return std::min((date - last_modified) / 10, kMaxDelta);
  }
  *source = FreshnessSource::kNone;
  return TimeDelta::zero();
}

}  // namespace

TimeDelta GetFreshnessLifetime(const HttpResponseHeaders& headers, Time response_time,
                               FreshnessSource* source) {
  FreshnessSource unused;
  return FreshnessLifetime(headers, ParseResponseCacheControl(headers), response_time,
                           source ? source : &unused);
}

TimeDelta GetCurrentAge(const HttpResponseHeaders& headers, Time request_time, Time response_time,
                        Time now) {
  Time date;
  TimeDelta apparent_age{};
  if (GetDateHeader(headers, "date", &date))
    apparent_age = std::max(TimeDelta::zero(), response_time - date);
  const TimeDelta response_delay = std::max(TimeDelta::zero(), response_time - request_time);
  const TimeDelta corrected_age_value = GetAgeValue(headers) + response_delay;
  const TimeDelta corrected_initial_age = std::max(apparent_age, corrected_age_value);
  const TimeDelta resident_time = std::max(TimeDelta::zero(), now - response_time);
  return corrected_initial_age + resident_time;
}

FreshnessInfo GetFreshnessInfo(const HttpResponseInfo& info, Time now) {
  FreshnessInfo out;
  if (!info.headers) return out;
  const HttpResponseHeaders& headers = *info.headers;
  // Cache-Control is parsed once here, for the lifetime and the flags below.
  const CacheControl cc = ParseResponseCacheControl(headers);
  out.lifetime = FreshnessLifetime(headers, cc, info.response_time, &out.source);
  out.heuristic = out.source == FreshnessSource::kHeuristic;
  out.age = GetCurrentAge(headers, info.request_time, info.response_time, now);
  out.stale_while_revalidate = cc.stale_while_revalidate.value_or(TimeDelta::zero());
  out.stale_if_error = cc.stale_if_error.value_or(TimeDelta::zero());
  out.no_cache = cc.no_cache;
  out.must_revalidate = cc.must_revalidate;
  out.immutable = cc.immutable;
  out.has_validator = headers.HasHeader("etag") || headers.HasHeader("last-modified");
  return out;
}

nlohmann::json FreshnessInfo::ToJson() const {
  return {{"fresh", is_fresh()},
          {"lifetime_s", ToSecondsDouble(lifetime)},
          {"age_s", ToSecondsDouble(age)},
          {"remaining_s", ToSecondsDouble(remaining())},
          {"source", FreshnessSourceName(source)},
          {"heuristic", heuristic},
          {"stale_if_error_s", ToSecondsDouble(stale_if_error)},
          {"stale_while_revalidate_s", ToSecondsDouble(stale_while_revalidate)},
          {"no_cache", no_cache},
          {"must_revalidate", must_revalidate},
          {"immutable", immutable},
          {"has_validator", has_validator}};
}

void FreshnessInfo::WriteNetLogParams(NetLogParams& params) const {
  // ToJson's keys, in sorted order.
  params.Add("age_s", ToSecondsDouble(age))
      .Add("fresh", is_fresh())
      .Add("has_validator", has_validator)
      .Add("heuristic", heuristic)
      .Add("immutable", immutable)
      .Add("lifetime_s", ToSecondsDouble(lifetime))
      .Add("must_revalidate", must_revalidate)
      .Add("no_cache", no_cache)
      .Add("remaining_s", ToSecondsDouble(remaining()))
      .Add("source", FreshnessSourceName(source))
      .Add("stale_if_error_s", ToSecondsDouble(stale_if_error))
      .Add("stale_while_revalidate_s", ToSecondsDouble(stale_while_revalidate));
}

bool VaryMatches(const HttpResponseInfo& stored, const HttpRequestHeaders& request,
                 std::string* mismatch) {
  for (const HttpResponseInfo::VaryValue& v : stored.vary) {
    // Compared after normalization (whitespace, case, list order: http_cache_vary.h).
    if (!VaryValuesMatch(v.name, request.GetHeader(v.name), v.value)) {
      if (mismatch) *mismatch = v.name;
      return false;
    }
  }
  return true;
}

const char* CacheActionName(CacheAction action) {
  switch (action) {
    case CacheAction::kUse:
      return "use";
    case CacheAction::kUseStale:
      return "use-stale";
    case CacheAction::kUseStaleAndRevalidate:
      return "use-stale-and-revalidate";
    case CacheAction::kValidate:
      return "validate";
    case CacheAction::kNetwork:
      return "network";
    case CacheAction::kMiss:
      return "miss";
  }
  return "network";
}

CacheDecision DecideCacheUse(const HttpResponseInfo& stored, const HttpRequestHeaders& request,
                             Time now, RequestCacheMode cache_mode) {
  CacheDecision d;
  const CacheControl req = ParseRequestCacheControl(request);
  std::string mismatch;
  if (!stored.headers || !VaryMatches(stored, request, &mismatch)) {
    const bool only_if_cached = req.only_if_cached || cache_mode == RequestCacheMode::kOnlyIfCached;
    d.action = only_if_cached ? CacheAction::kMiss : CacheAction::kNetwork;
    d.reason = stored.headers ? "vary mismatch: " + mismatch : "no stored headers";
    return d;
  }
  d.freshness = GetFreshnessInfo(stored, now);
  const FreshnessInfo& f = d.freshness;
  const bool fresh = f.is_fresh();

  // The Fetch standard's modes that ignore staleness, and the one that always validates.
  if (cache_mode == RequestCacheMode::kForceCache ||
      cache_mode == RequestCacheMode::kOnlyIfCached) {
    d.action = fresh ? CacheAction::kUse : CacheAction::kUseStale;
    d.reason =
        std::string(fresh ? "fresh" : "stale") + ", cache mode " + RequestCacheModeName(cache_mode);
    return d;
  }
  if (cache_mode == RequestCacheMode::kNoCache) {
    d.action = CacheAction::kValidate;
    d.reason = "cache mode no-cache";
    return d;
  }

  // Whether the stored response may be served at all without asking the server: never for a
  // no-cache response, never stale under must-revalidate.
  const bool never_unvalidated = f.no_cache || (!fresh && f.must_revalidate);
  if (req.only_if_cached) {
    if (never_unvalidated) {
      d.action = CacheAction::kMiss;
      d.reason = f.no_cache ? "only-if-cached, response no-cache"
                            : "only-if-cached, stale and must-revalidate";
    } else {
      d.action = fresh ? CacheAction::kUse : CacheAction::kUseStale;
      d.reason = fresh ? "fresh" : "only-if-cached, stale";
    }
    return d;
  }

  auto validate = [&d](std::string why) {
    d.action = CacheAction::kValidate;
    d.reason = std::move(why);
    return d;
  };
  if (f.no_cache) return validate("response no-cache");
  if (req.no_cache) return validate("request no-cache");
  // A fresh immutable response is not revalidated by a reload's max-age=0 (Chrome, Firefox).
  const bool immutable_fresh = f.immutable && fresh;
  if (req.max_age && !immutable_fresh) {
    if (*req.max_age == TimeDelta::zero()) return validate("request max-age=0");
    if (f.age > *req.max_age) return validate("age above request max-age");
  }
  if (req.min_fresh && !immutable_fresh && f.remaining() < *req.min_fresh)
    return validate("less than request min-fresh left");
  if (fresh) {
    d.action = CacheAction::kUse;
    d.reason = "fresh";
    return d;
  }
  if (f.must_revalidate) return validate("stale, must-revalidate");
  const TimeDelta staleness = f.age - f.lifetime;
  if (req.max_stale && staleness <= *req.max_stale) {
    d.action = CacheAction::kUseStale;
    d.reason = "stale within request max-stale";
    return d;
  }
  if (staleness < f.stale_while_revalidate) {
    d.action = CacheAction::kUseStaleAndRevalidate;
    d.reason = "stale within stale-while-revalidate";
    return d;
  }
  return validate("stale");
}

bool IsStaleIfErrorStatus(int code) {
  return code == 500 || code == 502 || code == 503 || code == 504;
}

bool MayServeStaleOnError(const FreshnessInfo& f, const HttpRequestHeaders& request,
                          std::string* reason) {
  auto no = [reason](const char* why) {
    if (reason) *reason = why;
    return false;
  };
  if (f.no_cache) return no("response no-cache");
  if (f.must_revalidate) return no("must-revalidate");
  const TimeDelta window =
      std::max(f.stale_if_error,
               ParseRequestCacheControl(request).stale_if_error.value_or(TimeDelta::zero()));
  if (window <= TimeDelta::zero()) return no("no stale-if-error");
  if (f.age - f.lifetime > window) return no("stale beyond stale-if-error");
  if (reason) *reason = "within stale-if-error";
  return true;
}

bool AddValidationHeaders(const HttpResponseHeaders& stored, HttpRequestHeaders* request) {
  std::string etag, last_modified;
  bool added = false;
  if (HasFirstHeader(stored, "etag", &etag) && !TrimHttpWhitespace(etag).empty())
    added |= request->SetHeader("If-None-Match", TrimHttpWhitespace(etag));
  Time unused;
  if (HasFirstHeader(stored, "last-modified", &last_modified) &&
      ParseHttpDate(last_modified, &unused)) {
    added |= request->SetHeader("If-Modified-Since", TrimHttpWhitespace(last_modified));
  }
  return added;
}

std::vector<std::string> GetInvalidatedKeys(std::string_view method, const Url& url,
                                            const HttpResponseHeaders& response) {
  std::vector<std::string> keys;
  const int code = response.response_code();
  if (IsSafeMethod(method) || code < 200 || code >= 400) return keys;
  keys.push_back(url.spec());
  for (const char* name : {"location", "content-location"}) {
    std::string value;
    Url target;
    std::string message;
    if (!HasFirstHeader(response, name, &value)) continue;
    value = std::string(TrimHttpWhitespace(value));
    if (value.empty() || url.Resolve(value, &target, &message) != OK) continue;
    if (!IsSameOrigin(url, target)) continue;  // a request must not evict another origin's
    if (std::find(keys.begin(), keys.end(), target.spec()) == keys.end())
      keys.push_back(target.spec());
  }
  return keys;
}

}  // namespace netstack
