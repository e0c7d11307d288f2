// Pages written inline in a session (docs/trace-format.md): {"entries": [{"url": ...}, ...]}
// with each entry's response size, status, headers, server time, start and parent. Part of the
// session reader (session_reader.h).
#ifndef TOOLS_REPLAY_TRACE_SESSION_PAGE_H_
#define TOOLS_REPLAY_TRACE_SESSION_PAGE_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "tools/replay/trace/trace.h"

namespace netstack {

inline constexpr size_t kMaxSessionPageEntries = 100'000;
inline constexpr size_t kMaxSessionHeaders = 1000;

// Checks URLs with Url::Parse, remembering the good ones (up to 10,000, then it starts over) so
// a session naming the same URLs again and again does not parse them again.
class SessionUrlCheck {
 public:
  // True if `url` is an absolute http(s) URL; else false with Url::Parse's message.
  bool Check(const std::string& url, std::string* problem);

 private:
  std::unordered_set<std::string> good_;
};

// Parses the "entries" (and "title") members of `object`, whose JSON path is `path` ("" for the
// line itself, "page" for a navigate's inline page). Sets out->entries (sorted by start_ms, the
// first entry first, parents remapped), out->title (given, or the first URL). On failure
// returns false with "<json path>: <problem>" in `error`; the caller adds "file:line: ".
bool ParseInlinePage(const nlohmann::json& object, const std::string& path, SessionUrlCheck* urls,
                     TracePage* out, std::string* error);

// Checks that `object` has only the `allowed` members (and any starting with '_', which are
// comments or extensions). On failure returns false with the first other member's name in
// `unknown`.
bool CheckSessionFields(const nlohmann::json& object, const std::vector<std::string_view>& allowed,
                        std::string* unknown);

// "unknown field 'urll' in <what> (fields starting with '_' are ignored)".
std::string UnknownFieldMessage(const std::string& key, const std::string& what);

}  // namespace netstack

#endif  // TOOLS_REPLAY_TRACE_SESSION_PAGE_H_
