// Reads HAR 1.2 files (Chrome DevTools, Firefox, WebPageTest, browsertime, capture-har) into
// TracePages. Tolerates what real files contain: a UTF-8 byte order mark, several pages per
// file, entries without a pageref (they join the latest page started before them; a file
// without pages becomes one page), -1 or null for absent timings, HTTP/2
// pseudo-headers, raw '|', brackets and spaces in URLs (percent-encoded), any integer status,
// recorded failures (negative statuses, "_error": TraceEntry::recorded_error), non-http entries
// and requests never answered or never finished (skipped and counted by reason), entries the
// browser's cache served (recorded_from_cache), "_" extensions of any type. Fills connection
// ids, each page's new_run and warm connections (har_browser_state.h), and infers each entry's
// parent (dependency_inference.h) so dependency-driven placement can run.
// docs/trace-format.md lists every field used.
//
// Errors are one line naming the file and where: "a.har:3:17: JSON syntax error: ...",
// "a.har: log.entries[12].request.url: missing", "a.har: log.entries[4].startedDateTime:
// 'yesterday' is not an ISO 8601 date". Limits (each an error when exceeded): file size 512 MiB,
// 100,000 entries, 10,000 pages, 1,000 headers per message, JSON nesting of 256 levels.
#ifndef TOOLS_REPLAY_TRACE_HAR_READER_H_
#define TOOLS_REPLAY_TRACE_HAR_READER_H_

#include <string>
#include <string_view>
#include <vector>

#include "tools/replay/trace/trace.h"

namespace netstack {

struct HarFile {
  std::string creator;  // log.creator.name, for the report ("WebInspector", "Firefox", ...)
  std::vector<TracePage> pages;  // in page start order
};

// Parses HAR text; `name` labels messages (the file's path). Returns false with `error` set
// (one line). Pages come in start order, each with its entries in start order.
bool ParseHar(std::string_view text, const std::string& name, HarFile* out, std::string* error);

// Reads and parses a file (errors name the path; an unreadable file says why).
bool ReadHarFile(const std::string& path, HarFile* out, std::string* error);

// True if `text` looks like a HAR (a JSON object with "log"), not a session (JSON Lines); used
// to tell trace kinds apart without relying on the file's extension. Looks at the start only.
bool LooksLikeHar(std::string_view text_start);

}  // namespace netstack

#endif  // TOOLS_REPLAY_TRACE_HAR_READER_H_
