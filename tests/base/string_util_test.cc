// net/base/string_util.h: ASCII-only case folding (never the locale's), the case-insensitive
// comparisons, and trimming at both ends (empty input, nothing to trim, everything trimmed).
#include "net/base/string_util.h"

#include <catch2/catch.hpp>
#include <string>

namespace netstack {
namespace {

TEST_CASE("string util: ToLowerAscii folds A-Z only") {
  CHECK(ToLowerAscii("Content-TYPE: X/Y") == "content-type: x/y");
  // Bytes above 0x7f are left alone (no locale: Latin-1 'Ä' is not 'ä').
  CHECK(ToLowerAscii(std::string("\xC4Z", 2)) == std::string("\xC4z", 2));
  CHECK(ToLowerAscii('@') == '@');
  CHECK(ToLowerAscii('[') == '[');
}

TEST_CASE("string util: case-insensitive equality, prefix and substring") {
  CHECK(EqualsCaseInsensitiveAscii("Keep-Alive", "keep-alive"));
  CHECK_FALSE(EqualsCaseInsensitiveAscii("keep-alive", "keep-alive "));
  CHECK(EqualsCaseInsensitiveAscii("", ""));
  CHECK(StartsWithCaseInsensitiveAscii("HTTPS://a.test", "https:"));
  CHECK_FALSE(StartsWithCaseInsensitiveAscii("http", "https"));
  CHECK(ContainsCaseInsensitiveAscii("max-age=0, NO-CACHE", "no-cache"));
  CHECK(ContainsCaseInsensitiveAscii("abc", ""));
  CHECK_FALSE(ContainsCaseInsensitiveAscii("no-cach", "no-cache"));
}

TEST_CASE("string util: TrimAscii trims both ends, only the given bytes") {
  CHECK(TrimAscii("  \tgzip \t", " \t") == "gzip");
  CHECK(TrimAscii("gzip", " \t") == "gzip");
  CHECK(TrimAscii("", " \t").empty());
  CHECK(TrimAscii(" \t \t", " \t").empty());
  CHECK(TrimAscii(" a b ", " ") == "a b");              // inner bytes stay
  CHECK(TrimAscii("\r\nx\r\n", " \t") == "\r\nx\r\n");  // not in the set: kept
  CHECK(TrimAscii("xxaxx", "x") == "a");
  CHECK(TrimWhitespaceAscii("\v\f\r\n a \n") == "a");
}

}  // namespace
}  // namespace netstack
