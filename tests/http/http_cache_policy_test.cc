// RFC 9111 for a private cache, as pure functions: table-driven.
#include "net/http/http_cache_policy.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "net/base/net_error.h"
#include "tests/http/http_cache_test_util.h"

namespace netstack {
namespace {

using test::DateAt;
using test::Headers;
using test::kT0;

HttpRequestHeaders Request(const std::vector<std::pair<std::string, std::string>>& headers) {
  HttpRequestHeaders r;
  for (const auto& [name, value] : headers) REQUIRE(r.SetHeader(name, value));
  return r;
}

// A response received at kT0 (requested 0 s before) with `lines` (CRLF-terminated).
HttpResponseInfo Stored(const std::string& lines, const std::string& status = "200 OK") {
  HttpResponseInfo info;
  info.url = "http://a.test/";
  info.headers = Headers(status, lines);
  info.request_time = kT0;
  info.response_time = kT0;
  REQUIRE(info.SetVaryFromRequest(HttpRequestHeaders()));
  return info;
}

TEST_CASE("Cache-Control parsing", "[cache_policy]") {
  auto cc = [](const std::string& value) {
    return ParseResponseCacheControl(*Headers("200 OK", "Cache-Control: " + value + "\r\n"));
  };
  CHECK(cc("max-age=60").max_age == Seconds(60));
  CHECK(cc("MAX-AGE=60").max_age == Seconds(60));
  CHECK(cc("max-age=\"60\"").max_age == Seconds(60));  // quoted form accepted
  CHECK(cc("max-age = 60").max_age == Seconds(60));
  // Repeated (even with one value): stale, as RFC 9111 4.2.1 allows and Chrome does.
  CHECK(cc("max-age=60, max-age=10").max_age == Seconds(0));
  CHECK(cc("max-age=60, max-age=60").max_age == Seconds(0));
  CHECK(ParseResponseCacheControl(
            *Headers("200 OK", "Cache-Control: max-age=60\r\nCache-Control: max-age=60\r\n"))
            .max_age == Seconds(0));
  CHECK(cc("max-age").max_age == Seconds(0));
  CHECK(cc("max-age=").max_age == Seconds(0));
  CHECK(cc("max-age=1.5").max_age == Seconds(0));
  CHECK(cc("max-age=\"-1\"").max_age == Seconds(0));
  CHECK(cc("max-age=abc").max_age == Seconds(0));  // invalid: stale
  CHECK(cc("max-age=-5").max_age == Seconds(0));
  CHECK(cc("max-age=99999999999999999999").max_age == Seconds(kMaxDeltaSeconds));  // clamped
  CHECK_FALSE(cc("public").max_age);
  CHECK(cc("s-maxage=60").max_age == std::nullopt);  // shared caches only
  CHECK(cc("no-cache").no_cache);
  CHECK(cc("no-cache=\"Set-Cookie, X-Foo\"").no_cache);  // qualified: treated as unqualified
  CHECK(cc("no-store").no_store);
  CHECK(cc("private, must-revalidate").is_private);
  CHECK(cc("private, must-revalidate").must_revalidate);
  CHECK(cc("max-age=3600, immutable").immutable);
  CHECK(cc("stale-while-revalidate=30").stale_while_revalidate == Seconds(30));
  CHECK_FALSE(cc("stale-while-revalidate=x").stale_while_revalidate);  // invalid: ignored
  CHECK(cc("max-age=1, stale-if-error=600").stale_if_error == Seconds(600));
  CHECK(cc("stale-if-error=\"60\"").stale_if_error == Seconds(60));
  CHECK_FALSE(cc("stale-if-error=-1").stale_if_error);
  // Several lines combine.
  auto two = ParseResponseCacheControl(
      *Headers("200 OK", "Cache-Control: public\r\nCache-Control: max-age=5, no-cache\r\n"));
  CHECK(two.is_public);
  CHECK(two.max_age == Seconds(5));
  CHECK(two.no_cache);
  // Pragma: no-cache counts only without Cache-Control.
  CHECK(ParseResponseCacheControl(*Headers("200 OK", "Pragma: no-cache\r\n")).no_cache);
  CHECK_FALSE(ParseResponseCacheControl(
                  *Headers("200 OK", "Pragma: no-cache\r\nCache-Control: max-age=5\r\n"))
                  .no_cache);

  auto req = [](std::vector<std::pair<std::string, std::string>> h) {
    return ParseRequestCacheControl(Request(h));
  };
  CHECK(req({{"Cache-Control", "no-cache"}}).no_cache);
  CHECK(req({{"Pragma", "no-cache"}}).no_cache);
  CHECK_FALSE(req({{"Pragma", "no-cache"}, {"Cache-Control", "max-age=5"}}).no_cache);
  CHECK(req({{"Cache-Control", "max-age=0"}}).max_age == Seconds(0));
  CHECK(req({{"Cache-Control", "max-stale"}}).max_stale == TimeDelta::max());
  CHECK(req({{"Cache-Control", "max-stale=30"}}).max_stale == Seconds(30));
  CHECK(req({{"Cache-Control", "min-fresh=30"}}).min_fresh == Seconds(30));
  CHECK(req({{"Cache-Control", "only-if-cached"}}).only_if_cached);
  CHECK(req({{"Cache-Control", "no-store"}}).no_store);
}

TEST_CASE("request classification: what the cache touches", "[cache_policy]") {
  using Mode = RequestCachePolicy::Mode;
  struct Case {
    const char* method;
    std::vector<std::pair<std::string, std::string>> headers;
    Mode mode;
  };
  const Case cases[] = {
      {"GET", {}, Mode::kNormal},
      {"GET", {{"Authorization", "Basic eDp5"}}, Mode::kNormal},  // private cache: fine
      {"GET", {{"Cache-Control", "no-cache"}}, Mode::kNormal},    // validates, still stores
      {"GET", {{"Cache-Control", "no-store"}}, Mode::kBypass},
      {"GET", {{"Range", "bytes=0-10"}}, Mode::kRange},      // HttpCacheRangeTransaction
      {"GET", {{"Range", "bytes=0-1,5-6"}}, Mode::kBypass},  // several ranges
      {"GET", {{"Range", "items=0-10"}}, Mode::kBypass},
      {"GET", {{"Range", "bytes=0-10"}, {"If-Range", "\"x\""}}, Mode::kBypass},
      {"HEAD", {{"Range", "bytes=0-10"}}, Mode::kBypass},
      {"GET", {{"If-None-Match", "\"x\""}}, Mode::kBypass},
      {"GET", {{"If-Modified-Since", DateAt(0)}}, Mode::kBypass},
      {"HEAD", {}, Mode::kHead},  // network, then freshens the stored GET
      {"HEAD", {{"Cache-Control", "no-store"}}, Mode::kBypass},
      {"OPTIONS", {}, Mode::kBypass},
      {"TRACE", {}, Mode::kBypass},
      {"POST", {}, Mode::kInvalidate},
      {"PUT", {}, Mode::kInvalidate},
      {"DELETE", {}, Mode::kInvalidate},
      {"PATCH", {}, Mode::kInvalidate},
      {"PURGE", {}, Mode::kInvalidate},  // anything unknown is unsafe
  };
  for (const Case& c : cases) {
    INFO(c.method);
    RequestCachePolicy p = GetRequestCachePolicy(c.method, Request(c.headers));
    CHECK(p.mode == c.mode);
    CHECK((p.mode == Mode::kNormal) == p.reason.empty());
  }
  CHECK(
      GetRequestCachePolicy("GET", Request({{"Cache-Control", "only-if-cached"}})).only_if_cached);
  // Cache modes.
  auto mode = [](const char* method, RequestCacheMode m) {
    return GetRequestCachePolicy(method, Request({}), m).mode;
  };
  CHECK(mode("GET", RequestCacheMode::kNoStore) == Mode::kBypass);
  CHECK(mode("GET", RequestCacheMode::kReload) == Mode::kReload);
  CHECK(mode("GET", RequestCacheMode::kNoCache) == Mode::kNormal);
  CHECK(mode("GET", RequestCacheMode::kForceCache) == Mode::kNormal);
  CHECK(mode("POST", RequestCacheMode::kNoStore) == Mode::kInvalidate);
  CHECK(GetRequestCachePolicy("GET", Request({}), RequestCacheMode::kOnlyIfCached).only_if_cached);
  CHECK(IsSafeMethod("GET"));
  CHECK_FALSE(IsSafeMethod("get"));  // methods are case-sensitive
}

TEST_CASE("storability for a private cache", "[cache_policy]") {
  struct Case {
    const char* method;
    const char* status;
    std::string response;
    std::vector<std::pair<std::string, std::string>> request;
    bool storable;
  };
  const Case cases[] = {
      {"GET", "200 OK", "", {}, true},  // heuristically cacheable status
      {"GET", "200 OK", "Cache-Control: private, max-age=60\r\n", {}, true},
      {"GET", "200 OK", "Cache-Control: no-cache\r\n", {}, true},  // stored, always validated
      {"GET", "200 OK", "Cache-Control: no-store\r\n", {}, false},
      {"GET", "200 OK", "Cache-Control: max-age=60, no-store\r\n", {}, false},
      {"GET", "200 OK", "", {{"Cache-Control", "no-store"}}, false},
      {"GET", "200 OK", "", {{"Authorization", "Bearer x"}}, true},
      {"GET", "200 OK", "Vary: *\r\n", {}, false},
      {"GET", "200 OK", "Vary: Accept-Encoding\r\n", {}, true},
      {"GET", "206 Partial Content", "Cache-Control: max-age=60\r\n", {}, false},
      // A piece, to a Range request: storable (http_cache_range decides whether it combines).
      {"GET",
       "206 Partial Content",
       "Cache-Control: max-age=60\r\n",
       {{"Range", "bytes=0-1"}},
       true},
      {"GET", "304 Not Modified", "Cache-Control: max-age=60\r\n", {}, false},
      {"GET", "404 Not Found", "", {}, true},
      {"GET", "301 Moved", "Location: /x\r\n", {}, true},
      {"GET", "302 Found", "Location: /x\r\n", {}, false},  // not heuristically cacheable
      {"GET", "302 Found", "Location: /x\r\nCache-Control: max-age=60\r\n", {}, true},
      {"GET", "500 Oops", "", {}, false},
      {"GET", "500 Oops", "Expires: " + DateAt(60) + "\r\n", {}, true},
      {"GET", "503 Busy", "Cache-Control: public\r\n", {}, true},
      {"GET", "307 Temp", "Cache-Control: private\r\n", {}, true},
      {"HEAD", "200 OK", "Cache-Control: max-age=60\r\n", {}, false},
      {"POST", "200 OK", "Cache-Control: max-age=60\r\n", {}, false},
  };
  for (const Case& c : cases) {
    INFO(c.method << " " << c.status << " " << c.response);
    std::string reason;
    CHECK(IsStorable(c.method, Request(c.request), *Headers(c.status, c.response), &reason) ==
          c.storable);
    if (!c.storable) CHECK_FALSE(reason.empty());
  }
}

TEST_CASE("freshness lifetime: max-age, Expires, heuristic", "[cache_policy]") {
  struct Case {
    const char* status;
    std::string lines;
    int64_t lifetime_s;
    FreshnessSource source;
  };
  const Case cases[] = {
      {"200 OK", "Cache-Control: max-age=60\r\n", 60, FreshnessSource::kMaxAge},
      // max-age beats Expires.
      {"200 OK",
       "Date: " + DateAt(0) + "\r\nExpires: " + DateAt(3600) + "\r\nCache-Control: max-age=5\r\n",
       5, FreshnessSource::kMaxAge},
      {"200 OK", "Date: " + DateAt(0) + "\r\nExpires: " + DateAt(3600) + "\r\n", 3600,
       FreshnessSource::kExpires},
      // Expires is relative to Date, not to the receiving clock.
      {"200 OK", "Date: " + DateAt(-100) + "\r\nExpires: " + DateAt(0) + "\r\n", 100,
       FreshnessSource::kExpires},
      // No Date: the response time stands in.
      {"200 OK", "Expires: " + DateAt(30) + "\r\n", 30, FreshnessSource::kExpires},
      {"200 OK", "Expires: 0\r\n", 0, FreshnessSource::kExpires},  // invalid: expired
      {"200 OK", "Expires: soon\r\n", 0, FreshnessSource::kExpires},
      {"200 OK", "Date: " + DateAt(0) + "\r\nExpires: " + DateAt(-10) + "\r\n", 0,
       FreshnessSource::kExpires},
      // Two Expires: stale (RFC 9111 4.2.1).
      {"200 OK",
       "Date: " + DateAt(0) + "\r\nExpires: " + DateAt(10) + "\r\nExpires: " + DateAt(99) + "\r\n",
       0, FreshnessSource::kExpires},
      // Not an HTTP-date: "UTC" for "GMT", lower case names.
      {"200 OK",
       "Date: " + DateAt(0) + "\r\nExpires: " + DateAt(3600).replace(26, 3, "UTC") + "\r\n", 0,
       FreshnessSource::kExpires},
      {"200 OK", "Expires: tue, 14 nov 2023 23:13:20 gmt\r\n", 0, FreshnessSource::kExpires},
      // Heuristic: 10% of Date - Last-Modified.
      {"200 OK", "Date: " + DateAt(0) + "\r\nLast-Modified: " + DateAt(-10000) + "\r\n", 1000,
       FreshnessSource::kHeuristic},
      {"404 Not Found", "Date: " + DateAt(0) + "\r\nLast-Modified: " + DateAt(-500) + "\r\n", 50,
       FreshnessSource::kHeuristic},
      {"200 OK", "Last-Modified: " + DateAt(-200) + "\r\n", 20, FreshnessSource::kHeuristic},
      // Last-Modified in the future of Date: no heuristic freshness.
      {"200 OK", "Date: " + DateAt(0) + "\r\nLast-Modified: " + DateAt(50) + "\r\n", 0,
       FreshnessSource::kHeuristic},
      // Not heuristically cacheable, unless public.
      {"302 Found", "Date: " + DateAt(0) + "\r\nLast-Modified: " + DateAt(-10000) + "\r\n", 0,
       FreshnessSource::kNone},
      {"302 Found",
       "Date: " + DateAt(0) + "\r\nLast-Modified: " + DateAt(-10000) +
           "\r\nCache-Control: public\r\n",
       1000, FreshnessSource::kHeuristic},
      {"200 OK", "", 0, FreshnessSource::kNone},
      {"200 OK", "Last-Modified: garbage\r\n", 0, FreshnessSource::kNone},
  };
  for (const Case& c : cases) {
    INFO(c.status << "\n" << c.lines);
    FreshnessSource source;
    TimeDelta lifetime = GetFreshnessLifetime(*Headers(c.status, c.lines), kT0, &source);
    CHECK(lifetime == Seconds(c.lifetime_s));
    CHECK(source == c.source);
  }
}

TEST_CASE("current age per RFC 9111 4.2.3", "[cache_policy]") {
  struct Case {
    std::string lines;
    int64_t request_s, response_s, now_s;  // offsets from kT0
    int64_t age_s;
  };
  const Case cases[] = {
      {"", 0, 0, 0, 0},
      {"", 0, 0, 25, 25},                                         // resident time
      {"", -2, 0, 0, 2},                                          // response delay counts
      {"Age: 100\r\n", -2, 0, 10, 112},                           // Age + delay + resident
      {"Date: " + DateAt(-30) + "\r\n", 0, 0, 0, 30},             // apparent age from Date
      {"Date: " + DateAt(-30) + "\r\nAge: 50\r\n", 0, 0, 0, 50},  // the larger wins
      {"Date: " + DateAt(-30) + "\r\nAge: 10\r\n", 0, 0, 5, 35},
      {"Date: " + DateAt(60) + "\r\n", 0, 0, 0, 0},  // Date in the future: no negative age
      {"Age: junk\r\n", 0, 0, 7, 7},                 // invalid Age ignored
      {"Age: 5, 9\r\n", 0, 0, 0, 5},                 // first value
  };
  for (const Case& c : cases) {
    INFO(c.lines << " request " << c.request_s << " response " << c.response_s << " now "
                 << c.now_s);
    TimeDelta age = GetCurrentAge(*Headers("200 OK", c.lines), kT0 + Seconds(c.request_s),
                                  kT0 + Seconds(c.response_s), kT0 + Seconds(c.now_s));
    CHECK(age == Seconds(c.age_s));
  }
}

TEST_CASE("the decision for a stored response and a request", "[cache_policy]") {
  using A = CacheAction;
  struct Case {
    std::string response;  // stored header lines
    std::vector<std::pair<std::string, std::string>> request;
    int64_t now_s;  // seconds after the response arrived
    CacheAction action;
  };
  const Case cases[] = {
      {"Cache-Control: max-age=60\r\n", {}, 10, A::kUse},
      {"Cache-Control: max-age=60\r\n", {}, 59, A::kUse},
      {"Cache-Control: max-age=60\r\n", {}, 60, A::kValidate},  // age == lifetime: stale
      {"Cache-Control: max-age=60\r\n", {}, 61, A::kValidate},
      {"", {}, 0, A::kValidate},  // no freshness at all
      {"Expires: " + DateAt(30) + "\r\n", {}, 29, A::kUse},
      {"Expires: " + DateAt(30) + "\r\n", {}, 31, A::kValidate},
      // Response no-cache: always validated, even fresh.
      {"Cache-Control: max-age=600, no-cache\r\n", {}, 1, A::kValidate},
      {"Pragma: no-cache\r\n", {}, 1, A::kValidate},
      // must-revalidate: fresh is used; stale is never served (not even within SWR/max-stale).
      {"Cache-Control: max-age=60, must-revalidate\r\n", {}, 10, A::kUse},
      {"Cache-Control: max-age=60, must-revalidate, stale-while-revalidate=600\r\n",
       {},
       70,
       A::kValidate},
      {"Cache-Control: max-age=60, must-revalidate\r\n",
       {{"Cache-Control", "max-stale"}},
       70,
       A::kValidate},
      // Request directives.
      {"Cache-Control: max-age=600\r\n", {{"Cache-Control", "no-cache"}}, 1, A::kValidate},
      {"Cache-Control: max-age=600\r\n", {{"Pragma", "no-cache"}}, 1, A::kValidate},
      {"Cache-Control: max-age=600\r\n", {{"Cache-Control", "max-age=0"}}, 0, A::kValidate},
      {"Cache-Control: max-age=600\r\n", {{"Cache-Control", "max-age=30"}}, 20, A::kUse},
      {"Cache-Control: max-age=600\r\n", {{"Cache-Control", "max-age=30"}}, 40, A::kValidate},
      {"Cache-Control: max-age=600\r\n", {{"Cache-Control", "min-fresh=100"}}, 400, A::kUse},
      {"Cache-Control: max-age=600\r\n", {{"Cache-Control", "min-fresh=100"}}, 550, A::kValidate},
      // immutable: a reload's max-age=0 does not revalidate a fresh response...
      {"Cache-Control: max-age=600, immutable\r\n", {{"Cache-Control", "max-age=0"}}, 5, A::kUse},
      // ...but a hard reload's no-cache does, and a stale immutable response is validated.
      {"Cache-Control: max-age=600, immutable\r\n",
       {{"Cache-Control", "no-cache"}},
       5,
       A::kValidate},
      {"Cache-Control: max-age=600, immutable\r\n",
       {{"Cache-Control", "max-age=0"}},
       700,
       A::kValidate},
      // stale-while-revalidate.
      {"Cache-Control: max-age=60, stale-while-revalidate=30\r\n",
       {},
       70,
       A::kUseStaleAndRevalidate},
      {"Cache-Control: max-age=60, stale-while-revalidate=30\r\n",
       {},
       89,
       A::kUseStaleAndRevalidate},
      {"Cache-Control: max-age=60, stale-while-revalidate=30\r\n", {}, 90, A::kValidate},
      {"Cache-Control: max-age=60, stale-while-revalidate=30\r\n",
       {{"Cache-Control", "max-age=0"}},
       70,
       A::kValidate},
      // Request max-stale.
      {"Cache-Control: max-age=60\r\n", {{"Cache-Control", "max-stale=20"}}, 75, A::kUseStale},
      {"Cache-Control: max-age=60\r\n", {{"Cache-Control", "max-stale=20"}}, 85, A::kValidate},
      {"Cache-Control: max-age=60\r\n", {{"Cache-Control", "max-stale"}}, 100000, A::kUseStale},
      // only-if-cached: anything servable without validation is served; the rest misses.
      {"Cache-Control: max-age=60\r\n", {{"Cache-Control", "only-if-cached"}}, 10, A::kUse},
      {"Cache-Control: max-age=60\r\n", {{"Cache-Control", "only-if-cached"}}, 100, A::kUseStale},
      {"Cache-Control: max-age=60, must-revalidate\r\n",
       {{"Cache-Control", "only-if-cached"}},
       100,
       A::kMiss},
      {"Cache-Control: no-cache\r\n", {{"Cache-Control", "only-if-cached"}}, 0, A::kMiss},
  };
  for (const Case& c : cases) {
    INFO(c.response << "request:" << (c.request.empty() ? "" : c.request[0].second) << " at +"
                    << c.now_s << "s");
    CacheDecision d =
        DecideCacheUse(Stored(c.response), Request(c.request), kT0 + Seconds(c.now_s));
    INFO("got " << CacheActionName(d.action) << " (" << d.reason << ")");
    CHECK(d.action == c.action);
    CHECK_FALSE(d.reason.empty());
  }
}

TEST_CASE("Vary: matching later requests", "[cache_policy]") {
  HttpResponseInfo stored;
  stored.headers =
      Headers("200 OK", "Cache-Control: max-age=60\r\nVary: Accept-Language, X-Absent\r\n");
  stored.request_time = stored.response_time = kT0;
  REQUIRE(stored.SetVaryFromRequest(Request({{"Accept-Language", "en"}})));

  CHECK(VaryMatches(stored, Request({{"Accept-Language", "en"}})));
  CHECK(VaryMatches(stored, Request({{"accept-language", "en"}, {"Other", "x"}})));
  std::string mismatch;
  CHECK_FALSE(VaryMatches(stored, Request({{"Accept-Language", "fr"}}), &mismatch));
  CHECK(mismatch == "accept-language");
  CHECK_FALSE(VaryMatches(stored, Request({}), &mismatch));  // absent now, present then
  CHECK_FALSE(
      VaryMatches(stored, Request({{"Accept-Language", "en"}, {"X-Absent", "1"}}), &mismatch));
  CHECK(mismatch == "x-absent");

  CacheDecision d = DecideCacheUse(stored, Request({{"Accept-Language", "fr"}}), kT0);
  CHECK(d.action == CacheAction::kNetwork);
  CHECK(d.reason == "vary mismatch: accept-language");
  d = DecideCacheUse(
      stored, Request({{"Accept-Language", "fr"}, {"Cache-Control", "only-if-cached"}}), kT0);
  CHECK(d.action == CacheAction::kMiss);
  CHECK(DecideCacheUse(stored, Request({{"Accept-Language", "en"}}), kT0).action ==
        CacheAction::kUse);
}

TEST_CASE("validation headers from the stored validators", "[cache_policy]") {
  HttpRequestHeaders r;
  CHECK_FALSE(AddValidationHeaders(*Headers("200 OK", ""), &r));
  CHECK(r.IsEmpty());

  r = HttpRequestHeaders();
  REQUIRE(AddValidationHeaders(*Headers("200 OK", "ETag: \"v1,2\"\r\n"), &r));
  CHECK(r.GetHeader("If-None-Match") == "\"v1,2\"");
  CHECK_FALSE(r.HasHeader("If-Modified-Since"));

  r = HttpRequestHeaders();
  REQUIRE(AddValidationHeaders(*Headers("200 OK", "Last-Modified: " + DateAt(-5) + "\r\n"), &r));
  CHECK(r.GetHeader("If-Modified-Since") == DateAt(-5));
  CHECK_FALSE(r.HasHeader("If-None-Match"));

  r = HttpRequestHeaders();
  REQUIRE(AddValidationHeaders(
      *Headers("200 OK", "ETag: W/\"weak\"\r\nLast-Modified: " + DateAt(-5) + "\r\n"), &r));
  CHECK(r.GetHeader("If-None-Match") == "W/\"weak\"");
  CHECK(r.GetHeader("If-Modified-Since") == DateAt(-5));

  // An unparsable Last-Modified is not sent.
  r = HttpRequestHeaders();
  CHECK_FALSE(AddValidationHeaders(*Headers("200 OK", "Last-Modified: yesterday\r\n"), &r));
}

TEST_CASE("stale-if-error: the window, and what forbids it", "[cache_policy]") {
  auto info = [](const std::string& cc, int64_t age_s) {
    FreshnessInfo f =
        GetFreshnessInfo(Stored("Cache-Control: " + cc + "\r\n"), kT0 + Seconds(age_s));
    return f;
  };
  CHECK(MayServeStaleOnError(info("max-age=10, stale-if-error=60", 70), Request({})));
  CHECK_FALSE(MayServeStaleOnError(info("max-age=10, stale-if-error=60", 71), Request({})));
  CHECK_FALSE(MayServeStaleOnError(info("max-age=10", 20), Request({})));
  // The request may offer a window of its own.
  CHECK(MayServeStaleOnError(info("max-age=10", 20),
                             Request({{"Cache-Control", "stale-if-error=30"}})));
  std::string reason;
  CHECK_FALSE(MayServeStaleOnError(info("max-age=10, stale-if-error=60, must-revalidate", 20),
                                   Request({}), &reason));
  CHECK(reason == "must-revalidate");
  CHECK_FALSE(MayServeStaleOnError(info("no-cache, stale-if-error=60", 20), Request({})));
  for (int code : {500, 502, 503, 504}) CHECK(IsStaleIfErrorStatus(code));
  for (int code : {200, 404, 501, 505}) CHECK_FALSE(IsStaleIfErrorStatus(code));
}

TEST_CASE("cache modes in DecideCacheUse", "[cache_policy]") {
  HttpResponseInfo stale = Stored("Cache-Control: max-age=10, must-revalidate\r\nETag: \"e\"\r\n");
  const Time later = kT0 + Seconds(100);
  CHECK(DecideCacheUse(stale, Request({}), later).action == CacheAction::kValidate);
  CHECK(DecideCacheUse(stale, Request({}), later, RequestCacheMode::kForceCache).action ==
        CacheAction::kUseStale);
  CHECK(DecideCacheUse(stale, Request({}), later, RequestCacheMode::kOnlyIfCached).action ==
        CacheAction::kUseStale);
  CHECK(DecideCacheUse(stale, Request({}), kT0, RequestCacheMode::kForceCache).action ==
        CacheAction::kUse);
  CHECK(DecideCacheUse(stale, Request({}), kT0, RequestCacheMode::kNoCache).action ==
        CacheAction::kValidate);
  HttpRequestHeaders h;
  AddCacheModeRequestHeaders(RequestCacheMode::kReload, &h);
  CHECK(h.GetHeader("cache-control") == "no-cache");
  CHECK(h.GetHeader("pragma") == "no-cache");
  HttpRequestHeaders given = Request({{"Cache-Control", "max-age=5"}});
  AddCacheModeRequestHeaders(RequestCacheMode::kNoCache, &given);
  CHECK(given.GetHeader("cache-control") == "max-age=5");  // the caller's own is kept
}

TEST_CASE("unsafe methods invalidate the target and same-origin locations", "[cache_policy]") {
  Url url;
  std::string message;
  REQUIRE(Url::Parse("http://a.test/items/1?x=y", &url, &message) == OK);
  auto keys = [&](const char* method, const std::string& status, const std::string& lines) {
    return GetInvalidatedKeys(method, url, *Headers(status, lines));
  };
  using V = std::vector<std::string>;
  CHECK(keys("POST", "200 OK", "") == V{"http://a.test/items/1?x=y"});
  CHECK(keys("PUT", "204 No Content", "") == V{"http://a.test/items/1?x=y"});
  CHECK(keys("DELETE", "303 See Other", "Location: /items\r\n") ==
        V{"http://a.test/items/1?x=y", "http://a.test/items"});
  CHECK(keys("POST", "201 Created", "Location: 2\r\nContent-Location: http://a.test/c\r\n") ==
        V{"http://a.test/items/1?x=y", "http://a.test/items/2", "http://a.test/c"});
  // Other origins are not invalidated (RFC 9111 4.4: a request must not deny service elsewhere).
  CHECK(keys("POST", "200 OK",
             "Location: http://b.test/x\r\nContent-Location: https://a.test/x\r\n") ==
        V{"http://a.test/items/1?x=y"});
  // A location equal to the target appears once.
  CHECK(keys("PATCH", "200 OK", "Content-Location: /items/1?x=y\r\n") ==
        V{"http://a.test/items/1?x=y"});
  // Errors and safe methods invalidate nothing.
  CHECK(keys("POST", "500 Oops", "").empty());
  CHECK(keys("POST", "404 Not Found", "").empty());
  CHECK(keys("GET", "200 OK", "").empty());
  CHECK(keys("HEAD", "200 OK", "").empty());
}

TEST_CASE("FreshnessInfo for cache ls", "[cache_policy]") {
  HttpResponseInfo info = Stored("Date: " + DateAt(0) + "\r\nLast-Modified: " + DateAt(-1000) +
                                 "\r\nCache-Control: stale-while-revalidate=5\r\nETag: \"e\"\r\n");
  FreshnessInfo f = GetFreshnessInfo(info, kT0 + Seconds(40));
  CHECK(f.lifetime == Seconds(100));
  CHECK(f.age == Seconds(40));
  CHECK(f.heuristic);
  CHECK(f.source == FreshnessSource::kHeuristic);
  CHECK(f.is_fresh());
  CHECK(f.remaining() == Seconds(60));
  CHECK(f.stale_while_revalidate == Seconds(5));
  CHECK(f.has_validator);
  CHECK_FALSE(f.no_cache);
  nlohmann::json j = f.ToJson();
  CHECK(j["fresh"] == true);
  CHECK(j["lifetime_s"] == 100.0);
  CHECK(j["remaining_s"] == 60.0);
  CHECK(j["source"] == "heuristic");

  FreshnessInfo stale = GetFreshnessInfo(info, kT0 + Seconds(150));
  CHECK_FALSE(stale.is_fresh());
  CHECK(stale.remaining() == Seconds(-50));
  CHECK(stale.ToJson()["remaining_s"] == -50.0);
}

}  // namespace
}  // namespace netstack
