// ASCII string helpers every room uses: case-insensitive comparison and search, lower-casing and
// trimming. Protocol text (header names, tokens, schemes, host names) is ASCII, so these never
// consult the locale (std::tolower does). Pure functions, no state. Protocol-specific rules
// stay with their protocol (net/http/http_util.h: tokens, HTTP whitespace, lists).
#ifndef NET_BASE_STRING_UTIL_H_
#define NET_BASE_STRING_UTIL_H_

#include <string>
#include <string_view>

namespace netstack {

// 'A'..'Z' to 'a'..'z'; every other byte unchanged.
constexpr char ToLowerAscii(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
}
std::string ToLowerAscii(std::string_view s);

// Equality, prefix and substring tests ignoring ASCII case.
bool EqualsCaseInsensitiveAscii(std::string_view a, std::string_view b);
bool StartsWithCaseInsensitiveAscii(std::string_view s, std::string_view prefix);
bool ContainsCaseInsensitiveAscii(std::string_view haystack, std::string_view needle);

// `s` without the leading and trailing bytes found in `chars`. Inline, with a plain loop over
// `chars` (a handful of bytes): header parsing trims every list item and value, and
// find_first_not_of would call memchr once per byte examined.
inline std::string_view TrimAscii(std::string_view s, std::string_view chars) {
  auto trimmed = [chars](char c) {
    for (char t : chars) {
      if (c == t) return true;
    }
    return false;
  };
  size_t begin = 0;
  size_t end = s.size();
  while (begin < end && trimmed(s[begin])) ++begin;
  while (end > begin && trimmed(s[end - 1])) --end;
  return s.substr(begin, end - begin);
}
// TrimAscii with ASCII whitespace: space, \t, \n, \v, \f, \r.
std::string_view TrimWhitespaceAscii(std::string_view s);

}  // namespace netstack

#endif  // NET_BASE_STRING_UTIL_H_
