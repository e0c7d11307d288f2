#include "tools/replay/report/report_text.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

using namespace netstack;

TEST_CASE("report text: HTML escaping of markup and quotes") {
  CHECK(HtmlEscape("<script>alert('x')</script>") ==
        "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
  CHECK(HtmlEscape("a&b \"c\"") == "a&amp;b &quot;c&quot;");
  CHECK(HtmlEscape("plain/path?q=1") == "plain/path?q=1");
}

TEST_CASE("report text: invalid UTF-8 and controls become U+FFFD, valid UTF-8 is kept") {
  CHECK(HtmlEscape("caf\xC3\xA9") == "caf\xC3\xA9");            // é
  CHECK(HtmlEscape("\xF0\x9F\x98\x80") == "\xF0\x9F\x98\x80");  // an emoji
  CHECK(HtmlEscape("a\xFF"
                   "b") ==
        "a\xEF\xBF\xBD"
        "b");
  CHECK(HtmlEscape("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong '/'
  CHECK(HtmlEscape("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  CHECK(HtmlEscape("\xE2\x82") == "\xEF\xBF\xBD\xEF\xBF\xBD");                  // cut short
  CHECK(HtmlEscape(std::string("a\0b\x01", 4)) ==
        "a\xEF\xBF\xBD"
        "b\xEF\xBF\xBD");
  CHECK(HtmlEscape("tab\tnl\n") == "tab\tnl\n");
}

TEST_CASE("report text: truncation counts code points and never splits one") {
  CHECK(TruncateText("abcdef", 10) == "abcdef");
  CHECK(TruncateText("abcdef", 6) == "abcdef");
  CHECK(TruncateText("abcdef", 4) == "abc\xE2\x80\xA6");
  CHECK(TruncateText("\xC3\xA9\xC3\xA9\xC3\xA9", 2) == "\xC3\xA9\xE2\x80\xA6");
  CHECK(TruncateText("abc", 0).empty());
}

TEST_CASE("report text: number formats") {
  CHECK(FormatFixed(1.25, 1) == "1.2");  // round-half-even on the binary value, as printf
  CHECK(FormatFixed(-0.01, 1) == "0.0");
  CHECK(FormatFixed(std::numeric_limits<double>::quiet_NaN(), 1) == "n/a");
  CHECK(FormatCount(0) == "0");
  CHECK(FormatCount(1234567) == "1,234,567");
  CHECK(FormatMs(0.44) == "0.4 ms");
  CHECK(FormatMs(12.4) == "12 ms");
  CHECK(FormatMs(1234.4) == "1,234 ms");
  CHECK(FormatMs(12345) == "12.3 s");
  CHECK(FormatBytes(512) == "512 B");
  CHECK(FormatBytes(12345) == "12.3 KB");
  CHECK(FormatBytes(4500000) == "4.5 MB");
}
