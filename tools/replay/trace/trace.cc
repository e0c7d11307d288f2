#include "tools/replay/trace/trace.h"

#include <algorithm>

namespace netstack {

double TraceEntry::RecordedEndMs() const { return start_ms + std::max(0.0, recorded_total_ms); }

double TraceEntry::RecordedFirstByteMs() const {
  // HAR's connect already includes ssl, so ssl is not added again.
  double before_first_byte = 0;
  for (double phase : {timings.blocked, timings.dns, timings.connect, timings.send, timings.wait}) {
    if (phase > 0) before_first_byte += phase;
  }
  return std::min(start_ms + before_first_byte, RecordedEndMs());
}

double TracePage::RecordedLastEndMs() const {
  double last = 0;
  for (const TraceEntry& entry : entries) last = std::max(last, entry.RecordedEndMs());
  return last;
}

const char* SessionEventTypeName(SessionEvent::Type type) {
  switch (type) {
    case SessionEvent::Type::kStartup:
      return "startup";
    case SessionEvent::Type::kNavigate:
      return "navigate";
    case SessionEvent::Type::kHover:
      return "hover";
    case SessionEvent::Type::kOmnibox:
      return "omnibox";
    case SessionEvent::Type::kHint:
      return "hint";
    case SessionEvent::Type::kWait:
      return "wait";
  }
  return "unknown";
}

}  // namespace netstack
