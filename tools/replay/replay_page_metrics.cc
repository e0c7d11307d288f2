#include "tools/replay/replay_page_metrics.h"

#include <algorithm>
#include <cmath>

namespace netstack {

double ReplayedPageEventMs(double recorded_event_ms, const std::vector<PageEventEntry>& entries) {
  if (!std::isfinite(recorded_event_ms) || recorded_event_ms < 0) return -1;
  bool any = false;
  double last_recorded = 0, last_replayed = 0;
  for (const PageEventEntry& e : entries) {
    if (!std::isfinite(e.recorded_end_ms) || !std::isfinite(e.replayed_end_ms)) continue;
    if (e.replayed_end_ms < 0 || e.recorded_end_ms > recorded_event_ms) continue;
    last_recorded = any ? std::max(last_recorded, e.recorded_end_ms) : e.recorded_end_ms;
    last_replayed = any ? std::max(last_replayed, e.replayed_end_ms) : e.replayed_end_ms;
    any = true;
  }
  if (!any) return recorded_event_ms;
  return last_replayed + (recorded_event_ms - std::max(0.0, last_recorded));
}

int PageLoadLastEntry(double recorded_onload_ms, const std::vector<PageEventEntry>& entries) {
  const bool with_onload = std::isfinite(recorded_onload_ms) && recorded_onload_ms >= 0;
  int last = -1;
  for (size_t i = 0; i < entries.size(); ++i) {
    const PageEventEntry& e = entries[i];
    if (!std::isfinite(e.replayed_end_ms) || e.replayed_end_ms < 0) continue;
    if (with_onload &&
        (!std::isfinite(e.recorded_end_ms) || e.recorded_end_ms > recorded_onload_ms))
      continue;
    if (last < 0 || e.replayed_end_ms > entries[last].replayed_end_ms) last = static_cast<int>(i);
  }
  return last;
}

}  // namespace netstack
