#include "tools/replay/trace/recording_reader.h"

#include "tools/replay/trace/devtools_log.h"
#include "tools/replay/trace/trace_file.h"
#include "tools/replay/trace/trace_json.h"

namespace netstack {

namespace {
constexpr uint64_t kSniffBytes = 4096;
}  // namespace

RecordingKind SniffRecording(std::string_view text_start) {
  if (LooksLikeDevtoolsLog(text_start)) return RecordingKind::kDevtoolsLog;
  if (LooksLikeHar(text_start)) return RecordingKind::kHar;
  return RecordingKind::kNone;
}

bool ParseRecording(std::string_view text, const std::string& name, HarFile* out,
                    std::string* error) {
  if (SniffRecording(text.substr(0, kSniffBytes)) == RecordingKind::kDevtoolsLog) {
    return ParseDevtoolsLog(text, name, out, error);
  }
  return ParseHar(text, name, out, error);
}

bool ReadRecordingFile(const std::string& path, HarFile* out, std::string* error) {
  std::string prefix, problem;
  if (!ReadTraceFilePrefix(path, kSniffBytes, &prefix, &problem)) {
    *out = HarFile();
    *error = path + ": " + problem;
    MakeOneLine(error);
    return false;
  }
  if (SniffRecording(prefix) == RecordingKind::kDevtoolsLog) {
    return ReadDevtoolsLogFile(path, out, error);
  }
  return ReadHarFile(path, out, error);
}

}  // namespace netstack
