#include "tools/replay/trace/har_date.h"

#include <catch2/catch.hpp>

namespace netstack {
namespace {

double Parse(const char* text) {
  double ms = -1;
  REQUIRE(ParseIso8601(text, &ms));
  return ms;
}

TEST_CASE("ISO 8601 dates as HAR writers write them", "[trace][har_date]") {
  // 2017-02-12T02:24:13.651Z is 1486866253651 ms after the epoch.
  CHECK(Parse("2017-02-12T02:24:13.651Z") == 1486866253651.0);
  CHECK(Parse("1970-01-01T00:00:00Z") == 0);
  CHECK(Parse("1970-01-01T00:00:00.5Z") == 500);
  // Zones: the same instant three ways.
  double utc = Parse("2017-06-26T12:45:04.598Z");
  CHECK(Parse("2017-06-26T21:45:04.598+09:00") == utc);
  CHECK(Parse("2017-06-26T21:45:04.598+0900") == utc);
  CHECK(Parse("2017-06-26T07:45:04.598-05") == utc);
  // No zone: UTC. No seconds. A comma as the decimal mark. Microseconds kept.
  CHECK(Parse("2017-06-26T12:45:04.598") == utc);
  CHECK(Parse("2017-06-26T12:45Z") == Parse("2017-06-26T12:45:00Z"));
  CHECK(Parse("2017-06-26T12:45:04,598Z") == utc);
  CHECK(Parse("2017-06-26T12:45:04.598250Z") == Approx(utc + 0.25).margin(1e-6));
  // Leap years and a leap second.
  CHECK(Parse("2016-02-29T00:00:00Z") - Parse("2016-02-28T00:00:00Z") == 86400000.0);
  CHECK(Parse("2000-03-01T00:00:00Z") - Parse("2000-02-28T00:00:00Z") == 2 * 86400000.0);
  CHECK(Parse("2016-12-31T23:59:60Z") == Approx(Parse("2017-01-01T00:00:00Z") - 1));
}

TEST_CASE("ISO 8601: what is not a date is refused", "[trace][har_date]") {
  double ms = 0;
  for (const char* bad :
       {"", "yesterday", "2017-02-12", "2017-02-12T", "2017-2-12T02:24:13Z", "2017-13-01T00:00:00Z",
        "2017-02-29T00:00:00Z", "2017-02-12T24:00:00Z", "2017-02-12T02:60:00Z",
        "2017-02-12T02:24:13.Z", "2017-02-12T02:24:13Zjunk", "2017-02-12T02:24:13+25:00",
        "1969-12-31T23:59:59Z", "2017-02-12T02:24:13.651 Z"}) {
    INFO(bad);
    CHECK_FALSE(ParseIso8601(bad, &ms));
  }
}

}  // namespace
}  // namespace netstack
