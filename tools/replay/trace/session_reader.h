// Reads session traces (docs/trace-format.md): JSON Lines, one event per line, read one line at
// a time (each parsed once) so a session of any length replays in bounded memory. "host" lines
// (each host's protocol) come first, before any event or page line. Blank lines
// and lines starting with '#' are skipped; members starting with '_' are ignored, any other
// unknown member is an error. Pages are inline in navigate events (owned by the event, freed
// when the engine drops it), defined once with a "page" line and referred to by id (kept for
// the whole session), or taken from HAR files by a path relative to the session file (each
// file read once and cached: at most 64 files and 256 MiB, least recently used dropped; at most
// 10,000 defined pages).
//
// Errors are one line naming the file and line: "s.jsonl:12: unknown event type 'hoover'",
// "s.jsonl:3: navigate: page 'home' is not defined", "s.jsonl:7: pages/a.har: cannot open: No
// such file or directory", "s.jsonl:9: 't' goes backwards (1200 after 1500)". Lines are at most
// 16 MiB.
#ifndef TOOLS_REPLAY_TRACE_SESSION_READER_H_
#define TOOLS_REPLAY_TRACE_SESSION_READER_H_

#include <istream>
#include <map>
#include <memory>
#include <string>

#include "tools/replay/trace/har_reader.h"
#include "tools/replay/trace/host_protocol.h"
#include "tools/replay/trace/trace.h"

namespace netstack {

// A stream of session events: from a session file, or made from a HAR file's pages.
class TraceSource {
 public:
  virtual ~TraceSource() = default;
  // The next event: true with `event` set; false at the end (error empty) or on an error (one
  // line in `error`). After false, Next is not called again.
  virtual bool Next(SessionEvent* event, std::string* error) = 0;
  // What the trace is called in output ("trace.har", "session.jsonl").
  virtual const std::string& name() const = 0;
  // The protocol each host speaks as the trace records it (host_protocol.h): a HAR's entries
  // by majority; a session's "host" lines, which come before its first event or page line
  // (read here; the line after them is kept for Next). Call once, before the first Next: the
  // replay's network is built before its first event. False with a one-line `error` for a
  // malformed host line ("s.jsonl:2: protocol: expected a string, got a number"); the source is
  // ended then. The default: no host known (every host http/1.1).
  virtual bool ReadHostProtocols(HostProtocols* out, std::string* error) {
    out->clear();
    return true;
  }
};

// Opens a trace file of either kind (told apart by content; "-" reads a session from stdin).
// Returns null with `error` set when the file cannot be opened or its first problem is found
// before any event (a HAR is parsed whole here, so its errors come from Open).
std::unique_ptr<TraceSource> OpenTrace(const std::string& path, std::string* error);

// A session read from `in` (owned); `name` labels messages; relative HAR paths resolve against
// `base_dir`.
std::unique_ptr<TraceSource> OpenSessionStream(std::unique_ptr<std::istream> in,
                                               const std::string& name,
                                               const std::string& base_dir);

// A HAR file's pages as a session: one navigate event per page, t = 0 each, each followed by a
// wait (so a page starts when the previous one has loaded, with the stack's state kept).
std::unique_ptr<TraceSource> MakeHarSource(HarFile har, const std::string& name);

}  // namespace netstack

#endif  // TOOLS_REPLAY_TRACE_SESSION_READER_H_
