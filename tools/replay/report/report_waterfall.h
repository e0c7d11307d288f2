// One page's waterfall for the HTML report, drawn as WebPageTest draws them: one row per request
// in start order, the URL as the row's label, the bar split into queued / DNS / connect / TLS /
// send + wait (TTFB) / receive, a time axis with grid lines, and a vertical line at the page's
// load. Each row's tooltip (SVG <title>) carries the full URL and every phase. Rows of failed
// requests are tinted red and redirects yellow (as WebPageTest does); cache hits are drawn
// faded with a dashed outline; the text after each bar says whether its socket was new or
// reused.
#ifndef TOOLS_REPLAY_REPORT_REPORT_WATERFALL_H_
#define TOOLS_REPLAY_REPORT_REPORT_WATERFALL_H_

#include <string>
#include <vector>

#include "tools/replay/replay_result.h"

namespace netstack {

struct WaterfallPage {
  PageResult page;
  std::vector<RequestRecord> requests;  // in any order; drawn by start time
  int requests_not_kept = 0;            // past the row limit: counted, not drawn
};

// Appends `page`'s waterfall as an inline <svg>. Every trace string is escaped.
void AppendWaterfallSvg(const WaterfallPage& page, std::string* out);

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPORT_REPORT_WATERFALL_H_
