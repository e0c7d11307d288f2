// `netstack cache`'s formats: durations, sizes, freshness labels, text-or-hex bodies, the `ls`
// line and object (docs/cache.md).
#include "tools/netstack/cache_display.h"

#include <catch2/catch.hpp>
#include <string>

using namespace netstack;

namespace {

HttpResponseInfo Response(const std::string& head) {
  HttpResponseInfo info;
  info.url = "http://a.test/x";
  info.headers = HttpResponseHeaders::Parse(head);
  info.request_time = TimeFromUnixSeconds(1'700'000'000);
  info.response_time = info.request_time;
  return info;
}

}  // namespace

TEST_CASE("cache display: durations keep the two largest units") {
  CHECK(FormatDuration(Seconds(0)) == "0s");
  CHECK(FormatDuration(Milliseconds(999)) == "0s");
  CHECK(FormatDuration(Seconds(45)) == "45s");
  CHECK(FormatDuration(Seconds(130)) == "2m10s");
  CHECK(FormatDuration(Seconds(3 * 3600)) == "3h");
  CHECK(FormatDuration(Seconds(3 * 3600 + 5 * 60 + 7)) == "3h5m");
  CHECK(FormatDuration(Seconds(3 * 3600 + 7)) == "3h");  // units stay adjacent
  CHECK(FormatDuration(Seconds(2 * 86400 + 4 * 3600 + 60)) == "2d4h");
  CHECK(FormatDuration(Seconds(-130)) == "2m10s");
}

TEST_CASE("cache display: sizes and times") {
  CHECK(FormatSize(612) == "612 B");
  CHECK(FormatSize(1536) == "1.5 KiB");
  CHECK(FormatSize(80 * 1024 * 1024) == "80.0 MiB");
  CHECK(FormatSize(int64_t{3} << 30) == "3.0 GiB");
  CHECK(FormatTime(TimeFromUnixSeconds(0)) == "-");
  CHECK(FormatTime(TimeFromUnixSeconds(1'700'000'000)) == "2023-11-14T22:13:20Z");
}

TEST_CASE("cache display: freshness labels") {
  Time t0 = TimeFromUnixSeconds(1'700'000'000);
  HttpResponseInfo fresh = Response("HTTP/1.1 200 OK\r\nCache-Control: max-age=3600\r\n\r\n");
  CHECK(FreshnessLabel(GetFreshnessInfo(fresh, t0 + Seconds(130))) == "fresh 57m50s");
  CHECK(FreshnessLabel(GetFreshnessInfo(fresh, t0 + Seconds(4 * 3600))) == "stale 3h");
  HttpResponseInfo no_cache =
      Response("HTTP/1.1 200 OK\r\nCache-Control: no-cache, max-age=60\r\n\r\n");
  CHECK(FreshnessLabel(GetFreshnessInfo(no_cache, t0)) == "no-cache");
}

TEST_CASE("cache display: text is printable UTF-8, anything else is hex") {
  CHECK(IsPrintableText(""));
  CHECK(IsPrintableText("hello\r\n\tworld"));
  CHECK(IsPrintableText("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
  CHECK_FALSE(IsPrintableText(std::string("a\0b", 3)));
  CHECK_FALSE(IsPrintableText("\x1b[31m"));
  CHECK_FALSE(IsPrintableText("\xc3"));              // cut sequence
  CHECK_FALSE(IsPrintableText("\xc0\xaf"));          // overlong
  CHECK_FALSE(IsPrintableText("\xed\xa0\x80"));      // surrogate
  CHECK_FALSE(IsPrintableText("\xf4\x90\x80\x80"));  // past U+10FFFF
  CHECK_FALSE(IsPrintableText("\xc2\x85"));          // C1 control
  CHECK_FALSE(IsPrintableText("\x89PNG\r\n"));
}

TEST_CASE("cache display: hex dump lines") {
  std::string dump = HexDump(std::string("0123456789abcdef\x00\xff", 18));
  CHECK(dump ==
        "00000000: 30 31 32 33 34 35 36 37  38 39 61 62 63 64 65 66  0123456789abcdef\n"
        "00000010: 00 ff" +
            std::string(45, ' ') + "..\n");
  CHECK(HexDump("").empty());
}

TEST_CASE("cache display: ls line and JSON object") {
  Time t0 = TimeFromUnixSeconds(1'700'000'000);
  CacheListing l;
  l.entry.key = "http://a.test/x";
  l.entry.headers_size = 100;
  l.entry.body_size = 512;
  l.entry.created = t0;
  l.entry.last_used = t0;
  l.entry.use_count = 2;
  l.parsed = true;
  l.response = Response("HTTP/1.1 200 OK\r\nCache-Control: max-age=3600\r\n\r\n");
  l.freshness = GetFreshnessInfo(l.response, t0 + Seconds(180));
  CHECK(ListingLine(l, t0 + Seconds(180)) ==
        "http://a.test/x  612 B  used 3m ago  2 uses  fresh 57m");
  nlohmann::json j = ListingJson(l, t0 + Seconds(180));
  CHECK(j["key"] == "http://a.test/x");
  CHECK(j["size"] == 612);
  CHECK(j["body_bytes"] == 512);
  CHECK(j["use_count"] == 2);
  CHECK(j["status"] == 200);
  CHECK(j["fresh"] == true);
  CHECK(j["freshness"] == "fresh 57m");
  CHECK(j["last_used"] == "2023-11-14T22:13:20Z");
  CHECK(j["error"].is_null());

  CacheListing bad;
  bad.entry.key = "http://a.test/bad";
  bad.entry.use_count = 1;
  bad.parse_error = "stream 0: not JSON";
  CHECK(ListingLine(bad, t0) ==
        "http://a.test/bad  0 B  never used  1 use  unreadable: stream 0: not JSON");
  CHECK(ListingJson(bad, t0)["error"] == "stream 0: not JSON");
  CHECK(ListingJson(bad, t0)["fresh"].is_null());
}

TEST_CASE("cache display: stats text shows what is stored") {
  CacheStats s;
  s.type = "disk";
  s.path = "/p/cache";
  s.entry_count = 3;
  s.total_bytes = 2048;
  s.max_bytes = 80 * 1024 * 1024;
  std::string text = StatsText(s);
  CHECK(text.find("type                disk\n") != std::string::npos);
  CHECK(text.find("entries             3\n") != std::string::npos);
  CHECK(text.find("size                2.0 KiB (2048 bytes) of 80.0 MiB\n") != std::string::npos);
  s.max_bytes = 0;
  CHECK(StatsText(s).find("size                2.0 KiB (2048 bytes)\n") != std::string::npos);
  CHECK(text.find("path                /p/cache\n") != std::string::npos);
  CHECK(text.find("evictions") == std::string::npos);
}
