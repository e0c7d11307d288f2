// Reads Chrome DevTools protocol logs ("devtoolslog": the JSON array of {"method", "params"}
// messages that Lighthouse, its simulator Lantern and Puppeteer save, or Chrome's performance
// log, whose elements wrap each message as {"message": {...}, "webview": ...} or as JSON text
// of one) into the model the HAR reader produces (HarFile: pages of TraceEntry), so that
// replay, --estimate and gen-session --har take it like a HAR. docs/trace-format.md ("DevTools
// protocol logs") lists every event and field read and how it maps.
//
// Errors are one line naming the file and the message: "a.json:3:17: JSON syntax error: ...",
// "a.json: message 12 (Network.responseReceived): params.response.status: expected a number,
// got string". Limits (each an error when exceeded): file size 512 MiB, 1,000,000 messages,
// 100,000 requests, 10,000 pages, 1,000 headers per message, JSON nesting of 256 levels. The
// file's text is held while it is parsed, but not its JSON: each message is handled as soon as
// it is parsed and dropped.
#ifndef TOOLS_REPLAY_TRACE_DEVTOOLS_LOG_H_
#define TOOLS_REPLAY_TRACE_DEVTOOLS_LOG_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "tools/replay/trace/har_reader.h"

namespace netstack {

// Bounds of one log, each an error naming it when exceeded (with the file size, 512 MiB, and
// JSON nesting, 256 levels).
inline constexpr size_t kMaxDevtoolsMessages = 1'000'000;
inline constexpr size_t kMaxDevtoolsRequests = 100'000;  // requests and redirect hops
inline constexpr size_t kMaxDevtoolsPages = 10'000;      // main-frame navigations
inline constexpr size_t kMaxDevtoolsHeaders = 1'000;     // per request or response

// The count bounds a parse applies: the constants above unless a caller (a test reaching each
// bound with a small input) passes smaller ones.
struct DevtoolsLogLimits {
  size_t messages = kMaxDevtoolsMessages;
  size_t requests = kMaxDevtoolsRequests;
  size_t pages = kMaxDevtoolsPages;
};

// Parses a DevTools log's text; `name` labels messages (the file's path). Returns false with a
// one-line `error` (and `out` empty). Pages come in log order, each with its entries in start
// order.
bool ParseDevtoolsLog(std::string_view text, const std::string& name, HarFile* out,
                      std::string* error, const DevtoolsLogLimits& limits = {});

// Reads and parses a file (errors name the path; an unreadable file says why).
bool ReadDevtoolsLogFile(const std::string& path, HarFile* out, std::string* error);

// True if `text_start` looks like a DevTools log: a JSON array (after a byte order mark and
// white space). HARs are objects and sessions are lines of objects. Looks at the start only.
bool LooksLikeDevtoolsLog(std::string_view text_start);

}  // namespace netstack

#endif  // TOOLS_REPLAY_TRACE_DEVTOOLS_LOG_H_
