#include "tools/replay/trace/recorded_error.h"

#include <charconv>

#include "net/base/net_error.h"

namespace netstack {

namespace {

// The code of the list's error named `name` (without "ERR_"), or OK.
int NetErrorNamed(std::string_view name) {
#define NET_ERROR(label, value, message) \
  if (name == #label) return value;
#include "net/base/net_error_list.h"
#undef NET_ERROR
  return OK;
}

// True if `code` is in the list.
bool IsListedNetError(int code) {
  switch (code) {
#define NET_ERROR(label, value, message) case value:
#include "net/base/net_error_list.h"
#undef NET_ERROR
    return true;
  }
  return false;
}

bool IsNameChar(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

}  // namespace

int NetErrorFromText(std::string_view text) {
  for (size_t at = text.find("ERR_"); at != std::string_view::npos;
       at = text.find("ERR_", at + 1)) {
    if (at > 0 && IsNameChar(text[at - 1])) continue;  // "XERR_..." is another word
    size_t end = at + 4;
    while (end < text.size() && IsNameChar(text[end])) ++end;
    int code = NetErrorNamed(text.substr(at + 4, end - at - 4));
    if (code != OK && code != ERR_IO_PENDING) return code;
  }
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc() && end == text.data() + text.size() && value < 0 &&
      value != ERR_IO_PENDING && IsListedNetError(value)) {
    return value;
  }
  return ERR_FAILED;
}

}  // namespace netstack
