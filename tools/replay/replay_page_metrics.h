// The page's figures derived from its requests' replayed ends: the replayed onLoad and
// DOMContentLoaded (docs/replay.md, "Page metrics"), and which figure a page's "page load" is.
#ifndef TOOLS_REPLAY_REPLAY_PAGE_METRICS_H_
#define TOOLS_REPLAY_REPLAY_PAGE_METRICS_H_

#include <vector>

namespace netstack {

// One entry of a page as a page event's load set sees it: its recorded end and its replayed end
// (ms after the page's start); replayed_end_ms < 0 when it was not replayed (skipped).
struct PageEventEntry {
  double recorded_end_ms = 0;
  double replayed_end_ms = -1;
};

// The replayed time (ms after the page's start) of a page event the recording placed at
// `recorded_event_ms` (onLoad, DOMContentLoaded); -1 when that is < 0 (the trace has none).
// The load set is the replayed entries whose recorded end is <= the recorded event; the result
// is the set's last replayed end plus the recorded tail (the recorded event minus the set's
// last recorded end: script and rendering after the last response the event waited for). An
// empty set gives the recorded event. Non-finite values count as absent.
double ReplayedPageEventMs(double recorded_event_ms, const std::vector<PageEventEntry>& entries);

// The entry whose replayed end is the page-load figure's end (the critical path's last request,
// replay_oracle.h): with a recorded onLoad (`recorded_onload_ms` >= 0), the load set's entry with
// the latest replayed end; without one, the replayed entry with the latest replayed end. The
// first such entry on ties; -1 when there is none (an empty load set: the page load is the
// recorded event, which no request ends).
int PageLoadLastEntry(double recorded_onload_ms, const std::vector<PageEventEntry>& entries);

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPLAY_PAGE_METRICS_H_
