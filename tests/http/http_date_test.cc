// HTTP dates: the three RFC 9110 forms in, IMF-fixdate out.
#include "net/http/http_date.h"

#include <catch2/catch.hpp>
#include <string>

namespace netstack {
namespace {

// 1994-11-06 08:49:37 UTC, the RFC's example.
constexpr int64_t kRfcExample = 784111777;

TEST_CASE("ParseHttpDate accepts the three forms of RFC 9110 5.6.7", "[http_date]") {
  struct Case {
    const char* text;
    int64_t unix_seconds;
  };
  const Case cases[] = {
      {"Sun, 06 Nov 1994 08:49:37 GMT", kRfcExample},
      {"Sunday, 06-Nov-94 08:49:37 GMT", kRfcExample},
      {"Sun Nov  6 08:49:37 1994", kRfcExample},
      {"Sun Nov 06 08:49:37 1994", kRfcExample},
      {"  Sun, 06 Nov 1994 08:49:37 GMT \t", kRfcExample},  // surrounding whitespace
      {"Thu, 01 Jan 1970 00:00:00 GMT", 0},
      {"Thu, 01 Jan 1970 00:00:01 GMT", 1},
      {"Wed, 31 Dec 1969 23:59:59 GMT", -1},
      {"Tue, 29 Feb 2000 12:00:00 GMT", 951825600},   // 2000 is a leap year
      {"Thu, 29 Feb 2024 00:00:00 GMT", 1709164800},  // so is 2024
      {"Fri, 31 Dec 9999 23:59:59 GMT", 253402300799},
      {"Wednesday, 01-Jan-25 00:00:00 GMT", 1735689600},  // yy < 70: 20yy
      {"Thursday, 01-Jan-70 00:00:00 GMT", 0},            // yy >= 70: 19yy
      {"Mon, 06 Nov 1994 08:49:37 GMT", kRfcExample},     // a wrong day name is tolerated
      {"Sat, 31 Dec 2016 23:59:60 GMT", 1483228800},      // leap second
  };
  for (const Case& c : cases) {
    INFO(c.text);
    Time t;
    REQUIRE(ParseHttpDate(c.text, &t));
    CHECK(ToUnixSeconds(t) == c.unix_seconds);
  }
}

TEST_CASE("ParseHttpDate refuses malformed dates and leaves the output alone", "[http_date]") {
  const char* bad[] = {
      "",
      "0",
      "-1",
      "yesterday",
      "Sun, 06 Nov 1994 08:49:37",      // no zone
      "Sun, 06 Nov 1994 08:49:37 PST",  // not GMT
      "Sun, 06 Nov 1994 08:49:37 UTC",  // not GMT either: RFC 9111 5.3's invalid Expires
      "Sun, 06 Nov 1994 08:49:37 +0000",
      "sun, 06 nov 1994 08:49:37 gmt",  // HTTP-date is case-sensitive (RFC 9110 5.6.7)
      "Sun, 06 NOV 1994 08:49:37 GMT",
      "Sun, 06 Nov 1994 08:49:37 gmt",
      "SUNDAY, 06-Nov-94 08:49:37 GMT",
      "Sun nov  6 08:49:37 1994",
      "Sun, 06 Nov 1994 08:49:37 GMT x",  // trailing garbage
      "Sun, 6 Nov 1994 08:49:37 GMT",     // one-digit day in IMF-fixdate
      "Sun, 06 Nov 94 08:49:37 GMT",      // two-digit year in IMF-fixdate
      "Sun, 06 Foo 1994 08:49:37 GMT",    // bad month
      "Sun, 30 Feb 1994 08:49:37 GMT",    // no such day
      "Sun, 29 Feb 1900 08:49:37 GMT",    // 1900 is not a leap year
      "Sun, 00 Nov 1994 08:49:37 GMT",
      "Sun, 06 Nov 1994 24:00:00 GMT",     // hour out of range
      "Sun, 06 Nov 1994 08:60:00 GMT",     // minute out of range
      "Sun, 06 Nov 1994 08:49:61 GMT",     // second out of range
      "Sun, 06 Nov 1994 08:49 GMT",        // no seconds
      "Sun,06 Nov 1994 08:49:37 GMT",      // missing space
      "Funday, 06-Nov-94 08:49:37 GMT",    // bad day name
      "Sunday, 06-Nov-1994 08:49:37 GMT",  // four-digit year in RFC 850
      "Sun Nov 6 08:49:37 1994",           // asctime one-digit day needs two spaces
      "Sun Nov  6 08:49:37 94",            // asctime two-digit year
      "Sun Nov  6 08:49:37 1994 GMT",      // asctime has no zone
      "1994-11-06T08:49:37Z",              // ISO 8601 is not an HTTP date
  };
  for (const char* text : bad) {
    INFO(text);
    Time t = TimeFromUnixSeconds(42);
    CHECK_FALSE(ParseHttpDate(text, &t));
    CHECK(ToUnixSeconds(t) == 42);
  }
}

TEST_CASE("FormatHttpDate writes IMF-fixdate and round-trips", "[http_date]") {
  CHECK(FormatHttpDate(TimeFromUnixSeconds(kRfcExample)) == "Sun, 06 Nov 1994 08:49:37 GMT");
  CHECK(FormatHttpDate(TimeFromUnixSeconds(0)) == "Thu, 01 Jan 1970 00:00:00 GMT");
  CHECK(FormatHttpDate(TimeFromUnixSeconds(-1)) == "Wed, 31 Dec 1969 23:59:59 GMT");
  // Sub-second parts are dropped, rounding down (also before the epoch).
  CHECK(FormatHttpDate(TimeFromUnixMicros(1'999'999)) == "Thu, 01 Jan 1970 00:00:01 GMT");
  CHECK(FormatHttpDate(TimeFromUnixMicros(-1)) == "Wed, 31 Dec 1969 23:59:59 GMT");
  CHECK(FormatHttpDate(TimeFromUnixSeconds(951825600)) == "Tue, 29 Feb 2000 12:00:00 GMT");
  // Out of the four-digit range: clamped.
  CHECK(FormatHttpDate(TimeFromUnixSeconds(253402300800)) == "Fri, 31 Dec 9999 23:59:59 GMT");
  CHECK(FormatHttpDate(TimeFromUnixSeconds(-62167219201)) == "Sat, 01 Jan 0000 00:00:00 GMT");

  // A date every ~25 hours over 60 years survives the round trip.
  for (int64_t s = -86400 * 365 * 10 + 12345; s < int64_t{86400} * 365 * 50; s += 86400 + 3601) {
    std::string text = FormatHttpDate(TimeFromUnixSeconds(s));
    Time back;
    INFO(text);
    REQUIRE(ParseHttpDate(text, &back));
    REQUIRE(ToUnixSeconds(back) == s);
  }
}

}  // namespace
}  // namespace netstack
