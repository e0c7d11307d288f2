#include "net/http/http_util.h"

#include <algorithm>
#include <cstdint>

#include "net/base/utf8.h"

namespace netstack {

namespace {

bool IsTokenChar(unsigned char c) {
  if (c <= 0x20 || c >= 0x7f) return false;
  switch (c) {
    case '(':
    case ')':
    case '<':
    case '>':
    case '@':
    case ',':
    case ';':
    case ':':
    case '\\':
    case '"':
    case '/':
    case '[':
    case ']':
    case '?':
    case '=':
    case '{':
    case '}':
      return false;
    default:
      return true;
  }
}

}  // namespace

bool IsHttpToken(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsTokenChar(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool IsValidHeaderValue(std::string_view s) {
  for (char c : s) {
    if (c == '\0' || c == '\r' || c == '\n') return false;
  }
  return true;
}

std::string_view TrimHttpWhitespace(std::string_view s) { return TrimAscii(s, " \t"); }

namespace {

// HttpListIterator's step counter (see HttpListBytesScannedForTesting).
thread_local uint64_t g_list_bytes_scanned = 0;

}  // namespace

HttpListIterator::HttpListIterator(std::string_view value, size_t offset)
    : value_(value), offset_(std::min(offset, value.size())) {}

bool HttpListIterator::GetNext(std::string_view* item) {
  while (offset_ < value_.size()) {
    const size_t start = offset_;
    bool in_quotes = false;
    size_t i = start;
    for (; i < value_.size(); ++i) {
      const char c = value_[i];
      if (in_quotes && c == '\\' && i + 1 < value_.size()) {
        ++i;  // A quoted-pair: the next character is literal.
        continue;
      }
      if (c == '"') in_quotes = !in_quotes;
      if (c == ',' && !in_quotes) break;
    }
    g_list_bytes_scanned += i - start + (i < value_.size() ? 1 : 0);
    offset_ = i < value_.size() ? i + 1 : i;
    std::string_view found = TrimHttpWhitespace(value_.substr(start, i - start));
    if (!found.empty()) {
      *item = found;
      return true;
    }
  }
  return false;
}

std::vector<std::string_view> SplitHttpList(std::string_view value) {
  std::vector<std::string_view> items;
  HttpListIterator it(value);
  std::string_view item;
  while (it.GetNext(&item)) items.push_back(item);
  return items;
}

uint64_t HttpListBytesScannedForTesting() { return g_list_bytes_scanned; }

std::string SanitizeUtf8(std::string_view s) {
  // Nearly every header name and value is ASCII: find the first non-ASCII byte with a plain
  // scan and copy the ASCII prefix in one go, so the common case is one scan and one copy.
  size_t i = 0;
  while (i < s.size() && static_cast<unsigned char>(s[i]) < 0x80) ++i;
  if (i == s.size()) return std::string(s);
  std::string out;
  out.reserve(s.size() + 2);
  out.append(s.substr(0, i));
  while (i < s.size()) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      out.push_back(s[i]);
      ++i;
      continue;
    }
    size_t len = Utf8SequenceLength(s, i);
    if (len == 0) {
      out.append("\xEF\xBF\xBD");
      ++i;
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  return out;
}

// Chrome's default NetLog capture mode strips the values of these headers: credentials and
// cookies must not reach a log file that users attach to bug reports.
namespace {

bool IsSensitiveHeader(std::string_view name) {
  for (std::string_view sensitive :
       {"authorization", "proxy-authorization", "cookie", "set-cookie", "set-cookie2"}) {
    if (EqualsCaseInsensitiveAscii(name, sensitive)) return true;
  }
  return false;
}

}  // namespace

std::string NetLogHeaderLine(std::string_view name, std::string_view value) {
  std::string line = SanitizeUtf8(name) + ": ";
  if (IsSensitiveHeader(name)) {
    return line + "[" + std::to_string(value.size()) + " bytes were stripped]";
  }
  return line + SanitizeUtf8(value);
}

}  // namespace netstack
