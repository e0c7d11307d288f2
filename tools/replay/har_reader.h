// Reads HAR 1.2 files (Chrome DevTools, Firefox, WebPageTest, browsertime, capture-har) into
// TracePages. Tolerates what real files contain: a UTF-8 byte order mark, several pages per
// file, entries without a pageref (one page is made for them), -1 for absent timings, HTTP/2
// pseudo-headers, non-http entries (skipped and counted). Infers each entry's parent (see
// trace.h InitiatorKind) so dependency-driven placement can run.
//
// Errors are one line naming the file and where: "a.har:3:17: JSON syntax error: ...",
// "a.har: log.entries[12].request.url: missing", "a.har: log.entries[4].startedDateTime:
// 'yesterday' is not an ISO 8601 date". Limits (each an error when exceeded): file size 512 MiB,
// 100,000 entries, 10,000 pages, 1,000 headers per message.
#ifndef TOOLS_REPLAY_HAR_READER_H_
#define TOOLS_REPLAY_HAR_READER_H_

#include <string>
#include <string_view>
#include <vector>

#include "tools/replay/trace.h"

namespace netstack {

struct HarFile {
  std::string creator;  // log.creator.name, for the report ("WebInspector", "Firefox", ...)
  std::vector<TracePage> pages;  // in page start order
};

// Parses HAR text; `name` labels messages (the file's path). Returns false with `error` set.
bool ParseHar(std::string_view text, const std::string& name, HarFile* out, std::string* error);

// Reads and parses a file (errors name the path; an unreadable file says why).
bool ReadHarFile(const std::string& path, HarFile* out, std::string* error);

// True if `text` looks like a HAR (a JSON object with "log"), not a session (JSON Lines); used
// to tell trace kinds apart without relying on the file's extension. Looks at the start only.
bool LooksLikeHar(std::string_view text_start);

}  // namespace netstack

#endif  // TOOLS_REPLAY_HAR_READER_H_
