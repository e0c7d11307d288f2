// libFuzzer target for the header values the HTTP cache reads (net/http/http_cache_policy.h,
// http_date.h, http_response_headers.h): Cache-Control, Pragma, Vary, Date, Expires,
// Last-Modified, Age, ETag. Input: "Name: value" lines of a response, then a line "--", then
// the request's lines. Promises checked:
//   - durations are never negative and max-age stays within kMaxDeltaSeconds;
//   - a response stored for a request (Vary values taken from it) matches that same request;
//   - a date that parses formats back to the same instant (to the second);
//   - EnumerateHeader's items are trimmed and comma splitting agrees with HasHeaderValue.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "net/base/clock.h"
#include "net/http/http_cache_policy.h"
#include "net/http/http_date.h"
#include "net/http/http_request_headers.h"
#include "net/http/http_response_headers.h"
#include "net/http/http_response_info.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using netstack::Time;
using netstack::TimeDelta;

void CheckDate(std::string_view text) {
  Time parsed;
  if (!netstack::ParseHttpDate(text, &parsed)) return;
  const std::string formatted = netstack::FormatHttpDate(parsed);
  Time again;
  FUZZ_CHECK(netstack::ParseHttpDate(formatted, &again));
  FUZZ_CHECK(netstack::FormatHttpDate(again) == formatted);
  FUZZ_CHECK(again.time_since_epoch().count() % 1000000 == 0);
}

void CheckCacheControl(const netstack::CacheControl& cc) {
  const TimeDelta max = std::chrono::seconds(netstack::kMaxDeltaSeconds);
  for (const auto& d : {cc.max_age, cc.stale_while_revalidate, cc.min_fresh}) {
    if (d) FUZZ_CHECK(*d >= TimeDelta::zero() && *d <= max);
  }
  if (cc.max_stale) FUZZ_CHECK(*cc.max_stale >= TimeDelta::zero());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16 * 1024) return 0;  // each line is parsed in full: keep inputs small
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto response =
      std::make_shared<netstack::HttpResponseHeaders>(netstack::HttpVersion{1, 1}, 200, "OK");
  netstack::HttpRequestHeaders request;
  bool in_request = false;
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    if (line == "--") {
      in_request = true;
      continue;
    }
    if (in_request) {
      request.AddHeaderFromString(line);
      continue;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    // Values as the response parser gives them: without surrounding whitespace.
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    response->AddHeader(std::string(line.substr(0, colon)), std::string(value));
    CheckDate(value);
  }

  for (const auto& header : response->headers()) {
    size_t iter = 0;
    std::string item;
    int items = 0;
    while (response->EnumerateHeader(&iter, header.name, &item)) {
      FUZZ_CHECK(++items <= 1 << 20);
      if (!item.empty()) {
        FUZZ_CHECK(item.front() != ' ' && item.back() != ' ');
        FUZZ_CHECK(response->HasHeaderValue(header.name, item));
      }
    }
  }

  const Time response_time{std::chrono::seconds(1'700'000'000)};
  const Time request_time = response_time - std::chrono::seconds(1);
  CheckCacheControl(netstack::ParseResponseCacheControl(*response));
  CheckCacheControl(netstack::ParseRequestCacheControl(request));
  netstack::GetRequestCachePolicy("GET", request);
  std::string reason;
  netstack::IsStorable("GET", request, *response, &reason);
  netstack::FreshnessSource source;
  FUZZ_CHECK(netstack::GetFreshnessLifetime(*response, response_time, &source) >=
             TimeDelta::zero());
  const Time later = response_time + std::chrono::hours(1);
  FUZZ_CHECK(netstack::GetCurrentAge(*response, request_time, response_time, later) >=
             TimeDelta::zero());

  netstack::HttpResponseInfo info;
  info.url = "http://a.test/";
  info.headers = response;
  info.request_time = request_time;
  info.response_time = response_time;
  if (info.SetVaryFromRequest(request)) {
    std::string mismatch;
    FUZZ_CHECK(netstack::VaryMatches(info, request, &mismatch));
    FUZZ_CHECK(info.vary.size() <= netstack::HttpResponseInfo::kMaxVaryHeaders);
  }
  netstack::FreshnessInfo freshness = netstack::GetFreshnessInfo(info, later);
  FUZZ_CHECK(freshness.lifetime >= TimeDelta::zero() && freshness.age >= TimeDelta::zero());
  freshness.ToJson().dump();
  netstack::CacheDecision decision = netstack::DecideCacheUse(info, request, later);
  FUZZ_CHECK(decision.reason.find('\n') == std::string::npos);
  netstack::HttpRequestHeaders validation = request;
  netstack::AddValidationHeaders(*response, &validation);
  return 0;
}
