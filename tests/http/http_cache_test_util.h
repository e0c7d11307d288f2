// Helpers shared by the HTTP cache's pure-function tests (http_cache_policy_test.cc,
// http_cache_headers_test.cc): a fixed wall time, HTTP-dates relative to it, and response
// headers parsed from text. No clock: every date is kT0 plus an offset.
#ifndef TESTS_HTTP_HTTP_CACHE_TEST_UTIL_H_
#define TESTS_HTTP_HTTP_CACHE_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "net/base/clock.h"
#include "net/base/time.h"
#include "net/http/http_date.h"
#include "net/http/http_response_headers.h"

namespace netstack::test {

// Wall time of the tests: Tue, 14 Nov 2023 22:13:20 GMT.
inline const Time kT0 = TimeFromUnixSeconds(1'700'000'000);

// The IMF-fixdate `offset_s` seconds after kT0 (before it when negative).
inline std::string DateAt(int64_t offset_s) { return FormatHttpDate(kT0 + Seconds(offset_s)); }

// "HTTP/1.1 `status`" with `lines` (each "Name: value\r\n") parsed; the test fails (REQUIRE)
// with the parser's message if they do not parse.
inline std::shared_ptr<const HttpResponseHeaders> Headers(const std::string& status,
                                                          const std::string& lines) {
  std::string error;
  auto h = HttpResponseHeaders::Parse("HTTP/1.1 " + status + "\r\n" + lines + "\r\n", &error);
  INFO(error);
  REQUIRE(h);
  return h;
}

}  // namespace netstack::test

#endif  // TESTS_HTTP_HTTP_CACHE_TEST_UTIL_H_
