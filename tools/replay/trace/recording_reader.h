// Reads a recording of page loads whatever its kind, told by content rather than by the file's
// extension: a HAR (a JSON object with "log", har_reader.h) or a Chrome DevTools protocol log
// (a JSON array of messages, devtools_log.h). Both become the same HarFile, so every consumer
// (replay, --estimate, gen-session --har, a session's "har" pages) takes either.
#ifndef TOOLS_REPLAY_TRACE_RECORDING_READER_H_
#define TOOLS_REPLAY_TRACE_RECORDING_READER_H_

#include <string>
#include <string_view>

#include "tools/replay/trace/har_reader.h"

namespace netstack {

enum class RecordingKind {
  kNone,         // neither: a session (JSON Lines), or not JSON
  kHar,          // LooksLikeHar
  kDevtoolsLog,  // LooksLikeDevtoolsLog
};

// What the start of a file (a few KiB suffice) says it is.
RecordingKind SniffRecording(std::string_view text_start);

// Parses a HAR or a DevTools log from its text; `name` labels messages. Text that is neither is
// read as a HAR, whose error then says what was expected. False with a one-line `error`.
bool ParseRecording(std::string_view text, const std::string& name, HarFile* out,
                    std::string* error);

// Reads the file at `path` as ParseRecording does, within each reader's bounds (512 MiB). An
// unreadable file says why ("a.json: cannot open: No such file or directory").
bool ReadRecordingFile(const std::string& path, HarFile* out, std::string* error);

}  // namespace netstack

#endif  // TOOLS_REPLAY_TRACE_RECORDING_READER_H_
