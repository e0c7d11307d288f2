// Small HTTP text helpers shared by the header classes and the stream parser: token and value
// validation (RFC 9110 section 5), whitespace trimming and list splitting. Pure functions, no
// state. Case-insensitive ASCII comparison is net/base/string_util.h's (included here for the
// header classes that use both).
#ifndef NET_HTTP_HTTP_UTIL_H_
#define NET_HTTP_HTTP_UTIL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "net/base/string_util.h"

namespace netstack {

// True for a non-empty RFC 9110 token (header names, methods, content codings).
bool IsHttpToken(std::string_view s);

// True if `s` may be sent as a header value: no NUL, CR or LF (the characters that would let a
// value smuggle another header or request).
bool IsValidHeaderValue(std::string_view s);

// Strips leading and trailing optional whitespace (SP and HTAB).
std::string_view TrimHttpWhitespace(std::string_view s);

// Walks a comma-separated header value one item at a time: trimmed, non-empty items; commas
// inside a quoted-string ("a, b", with backslash quoted-pairs) do not split. Each byte of the
// value is looked at once over the whole walk, so reading n items costs O(bytes up to the nth
// item), never a re-split of the whole value: callers that stop at a bound stop the cost there.
class HttpListIterator {
 public:
  // Starts at byte `offset` of `value` (0, or an offset() saved from an earlier walk).
  explicit HttpListIterator(std::string_view value, size_t offset = 0);

  // Sets *item to the next item and returns true; false once the value is exhausted.
  bool GetNext(std::string_view* item);

  // Where the next GetNext starts scanning, to resume a walk later.
  size_t offset() const { return offset_; }

 private:
  std::string_view value_;
  size_t offset_;
};

// Every item of `value` (HttpListIterator's), in order. Used by Content-Encoding parsing and
// request headers.
std::vector<std::string_view> SplitHttpList(std::string_view value);

// The number of value bytes HttpListIterator has scanned on this thread since it started: the
// step counter tests use to show that list parsing is linear in its input (no clock involved).
uint64_t HttpListBytesScannedForTesting();

// `s` if it is valid UTF-8, else a copy with each invalid byte replaced by U+FFFD. Header text
// is bytes, but nlohmann::json refuses to dump invalid UTF-8, so everything that goes into JSON
// (NetLog params, --json records) passes through here.
std::string SanitizeUtf8(std::string_view s);

// "Name: value" for the NetLog, UTF-8-safe, with the value of a credential or cookie header
// (Authorization, Proxy-Authorization, Cookie, Set-Cookie, Set-Cookie2) replaced by
// "[N bytes were stripped]" as Chrome's default capture mode does: NetLog files get attached to
// bug reports.
std::string NetLogHeaderLine(std::string_view name, std::string_view value);

}  // namespace netstack

#endif  // NET_HTTP_HTTP_UTIL_H_
