// SanitizeUtf8: ASCII passes through untouched (the fast path), and every invalid byte is
// replaced by U+FFFD exactly as the byte-by-byte decoder did, whether the bad bytes come first,
// after an ASCII prefix or between valid multi-byte sequences.

#include <catch2/catch.hpp>
#include <string>

#include "net/http/http_util.h"

namespace netstack {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";

TEST_CASE("SanitizeUtf8 returns ASCII unchanged", "[http_util]") {
  CHECK(SanitizeUtf8("") == "");
  CHECK(SanitizeUtf8("content-type") == "content-type");
  std::string all_ascii;
  for (int c = 0; c < 0x80; ++c) all_ascii.push_back(static_cast<char>(c));
  CHECK(SanitizeUtf8(all_ascii) == all_ascii);
}

TEST_CASE("SanitizeUtf8 keeps valid multi-byte sequences", "[http_util]") {
  const std::string text = "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 end";
  CHECK(SanitizeUtf8(text) == text);
  CHECK(SanitizeUtf8("\xC3\xA9") == "\xC3\xA9");
}

TEST_CASE("SanitizeUtf8 replaces each invalid byte", "[http_util]") {
  // A lone continuation byte first, then after an ASCII prefix, then between valid sequences.
  CHECK(SanitizeUtf8("\x80") == kReplacement);
  CHECK(SanitizeUtf8("abc\xFF"
                     "def") == "abc" + kReplacement + "def");
  CHECK(SanitizeUtf8("\xC3\xA9\xFEx\xC3\xA9") == "\xC3\xA9" + kReplacement + "x\xC3\xA9");
  // A truncated sequence: the lead byte is replaced and the following ASCII byte is kept.
  CHECK(SanitizeUtf8("a\xE2\x82z") == "a" + kReplacement + kReplacement + "z");
  // Truncated at the end of the input.
  CHECK(SanitizeUtf8("ab\xF0\x9F") == "ab" + kReplacement + kReplacement);
  // Overlong encodings and UTF-16 surrogates are invalid: every byte becomes U+FFFD.
  CHECK(SanitizeUtf8("\xC0\xAF") == kReplacement + kReplacement);
  CHECK(SanitizeUtf8("\xED\xA0\x80") == kReplacement + kReplacement + kReplacement);
  // Past U+10FFFF.
  CHECK(SanitizeUtf8("\xF4\x90\x80\x80") ==
        kReplacement + kReplacement + kReplacement + kReplacement);
}

}  // namespace
}  // namespace netstack
