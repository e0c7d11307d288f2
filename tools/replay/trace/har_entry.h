// Reads one HAR entry (log.entries[i]) into a TraceEntry: headers without HTTP/2
// pseudo-headers, body bytes as transferred, whether the browser's cache served it, its
// resource type, and the hints dependency inference needs (its redirect target, its recorded
// initiator). Part of the HAR reader (har_reader.h).
#ifndef TOOLS_REPLAY_TRACE_HAR_ENTRY_H_
#define TOOLS_REPLAY_TRACE_HAR_ENTRY_H_

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "net/base/url.h"
#include "tools/replay/trace/dependency_inference.h"
#include "tools/replay/trace/trace.h"

namespace netstack {

inline constexpr size_t kMaxHarHeaders = 1000;  // per request or response

// Why an entry is not replayed (HarEntryStatus::kSkipped).
enum class HarSkipReason {
  kNone,
  kNotHttp,     // not http(s): data:, blob:, ws:, chrome-extension:
  kInvalidUrl,  // http(s), but not a URL a browser could request (over 2 MiB, bad host, ...)
  kNoResponse,  // never answered: status 0, no body and no failure recorded
  kUnfinished,  // answered (status > 0) but never finished: time and phases all -1
};

struct HarEntryExtras {
  double start_epoch_ms = 0;  // startedDateTime
  std::string pageref;        // empty when the entry has none
  DependencyHints hints;
  HarSkipReason skip_reason = HarSkipReason::kNone;  // with kSkipped
  // With kInvalidUrl: "<path>.request.url: <what is wrong>", bounded (the URL is not copied).
  std::string skip_detail;
  // The entry's TraceEntry::connection_id came from HAR's "connection" (connection_named),
  // and equals its URL's port (connection_is_port; Firefox writes the port there): the reader
  // drops a file's ids when all of those are ports.
  bool connection_named = false;
  bool connection_is_port = false;
  // The writer's "_connectionReused" (Browsertime): -1 when absent or not a boolean, else 0 or
  // 1 (har_browser_state.h).
  int8_t connection_reused = -1;
};

enum class HarEntryStatus {
  kRead,
  kSkipped,  // extras->skip_reason says why; counted in TracePage::skipped_entries
  kError,
};

// Reads `entry`, whose JSON path is `path` ("log.entries[12]"). A failure the recording shows
// (a negative status, or an "_error" in the entry or its response) is read, not skipped:
// TraceEntry::recorded_error and recorded_error_code are set, and status is the recorded one
// when > 0, else 0. On kError, `error` is
// "<json path>: <problem>" (the caller adds the file name). start_ms is left for the caller
// (it needs the page's start).
HarEntryStatus ReadHarEntry(const nlohmann::json& entry, const std::string& path, TraceEntry* out,
                            HarEntryExtras* extras, std::string* error);

// `reference` escaped (EscapeRecordedUrl) and resolved against `base`, normalized (Url::spec()) so
// that equal URLs compare equal in DependencyHints; empty when it is empty or does not resolve.
std::string NormalizedRecordedUrl(const Url& base, const std::string& reference);

// The URL a Chrome-style initiator object names (DevTools' Network.Initiator, Chrome HAR's
// `_initiator`): its own "url", else the first call frame with one in "stack", walking the
// async "parent" stacks (at most 64). Empty when it names none or is not an object.
std::string InitiatorObjectUrl(const nlohmann::json& initiator);

// The resource type a MIME type suggests ("text/css; charset=utf-8" -> "stylesheet"); "other"
// when nothing fits.
std::string ResourceTypeForMimeType(const std::string& mime_type);

}  // namespace netstack

#endif  // TOOLS_REPLAY_TRACE_HAR_ENTRY_H_
