// The state of the browser when each page of a HAR started, as far as the recording shows it:
// which pages began a new run of the recording (a fresh browser: TracePage::new_run), and
// which entries found their connection already open (TraceEntry::recorded_warm_connection).
// Part of the HAR reader (har_reader.h); internal. The rules are documented in
// docs/trace-format.md ("Runs and warm connections").
#ifndef TOOLS_REPLAY_TRACE_HAR_BROWSER_STATE_H_
#define TOOLS_REPLAY_TRACE_HAR_BROWSER_STATE_H_

#include <cstdint>
#include <vector>

#include "tools/replay/trace/trace.h"

namespace netstack {

// What a HAR says about one page beyond its TracePage.
struct HarPageState {
  int64_t run = -1;  // WebPageTest's page "_run" (1, 2, ...); -1 when absent
  // Per entry, aligned with TracePage::entries: the writer's "_connectionReused" (Browsertime
  // copies Chrome's connectionReused there): -1 when absent, else 0 or 1.
  std::vector<int8_t> connection_reused;
};

// Sets new_run on each of `pages` (a file's pages in start order; `states` aligned with them):
// the first page; a page whose "_run" differs from the previous page's when both have one
// (WebPageTest: a run's repeat view and its later steps are not new runs); otherwise a page
// whose navigation (its first entry's URL, without fragment) is the previous page's
// (Browsertime's iterations, a recording of reloads).
void MarkNewRuns(std::vector<TracePage>* pages, const std::vector<HarPageState>& states);

// Sets recorded_warm_connection on the entries of `pages` (new_run already set) that found
// their connection open. Only a network entry (not from the browser's cache, not a recorded
// failure, status > 0) with no recorded DNS and connect (-1 or 0) qualifies, and it must be
// the first entry of its connection id in the page (or, without an id, its origin's first).
// Then it is warm when its "_connectionReused" says so (that member decides when present);
// else when an earlier page of the same run used its connection id; else, without an id used
// earlier in the page, when it is its origin's (scheme, host, port) first network entry in the
// page, it timed its wait or receive, and the file records connection setup elsewhere (an
// entry with connect > 0: writers that never time setup, like Firefox's zeros or capture-har,
// say nothing by its absence).
void MarkWarmConnections(std::vector<TracePage>* pages, const std::vector<HarPageState>& states);

}  // namespace netstack

#endif  // TOOLS_REPLAY_TRACE_HAR_BROWSER_STATE_H_
