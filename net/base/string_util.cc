#include "net/base/string_util.h"

#include <algorithm>

namespace netstack {

std::string ToLowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ToLowerAscii(c);
  return out;
}

bool EqualsCaseInsensitiveAscii(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (ToLowerAscii(a[i]) != ToLowerAscii(b[i])) return false;
  }
  return true;
}

bool StartsWithCaseInsensitiveAscii(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() &&
         EqualsCaseInsensitiveAscii(s.substr(0, prefix.size()), prefix);
}

bool ContainsCaseInsensitiveAscii(std::string_view haystack, std::string_view needle) {
  auto equal = [](char a, char b) { return ToLowerAscii(a) == ToLowerAscii(b); };
  return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(), equal) !=
         haystack.end();
}

std::string_view TrimWhitespaceAscii(std::string_view s) { return TrimAscii(s, " \t\n\v\f\r"); }

}  // namespace netstack
