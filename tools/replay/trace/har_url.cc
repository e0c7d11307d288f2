#include "tools/replay/trace/har_url.h"

#include <algorithm>
#include <string_view>

namespace netstack {

std::string EscapeRecordedUrl(const std::string& url) {
  static const char kHex[] = "0123456789ABCDEF";
  auto c0_or_space = [](char c) { return static_cast<unsigned char>(c) <= 0x20; };
  size_t begin = 0, end = url.size();
  while (begin < end && c0_or_space(url[begin])) ++begin;
  while (end > begin && c0_or_space(url[end - 1])) --end;
  // The host and port: a control character or space there is not encoded (no browser could
  // look the host up), so that the URL fails to parse with that reason.
  size_t authority_begin = url.find("://", begin), authority_end = end;
  if (authority_begin != std::string::npos && authority_begin < end) {
    authority_begin += 3;
    authority_end = std::min(end, url.find_first_of("/?#", authority_begin));
  } else {
    authority_begin = authority_end = end;
  }
  std::string out;
  out.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) {
    char c = url[i];
    if (c == '\t' || c == '\n' || c == '\r') continue;
    if (i >= authority_begin && i < authority_end && c0_or_space(c)) {
      out += c;
      continue;
    }
    unsigned char byte = static_cast<unsigned char>(c);
    // '[' and ']' are the host's (IPv6 literals); Chrome sends them raw in a path or query
    // ("?dimensions[page]=..."), which RFC 3986 (our parser) does not allow: encoded there.
    bool bracket_after_host = (c == '[' || c == ']') && i >= authority_end;
    if (byte <= 0x20 || byte >= 0x7f || bracket_after_host ||
        std::string_view("\"<>\\^`{|}").find(c) != std::string_view::npos) {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace netstack
