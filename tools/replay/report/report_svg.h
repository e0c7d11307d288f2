// SVG pieces of the HTML report: the colours (WebPageTest's), the legend, the time axis and the
// histogram chart. Everything is appended to a string as inline SVG/HTML with no external
// references; coordinates are printed with one decimal so output is byte-stable.
#ifndef TOOLS_REPLAY_REPORT_REPORT_SVG_H_
#define TOOLS_REPLAY_REPORT_REPORT_SVG_H_

#include <string>
#include <string_view>

#include "tools/replay/report/report_histogram.h"

namespace netstack {

// WebPageTest's classic connection colours, used for the phases before the request is sent.
inline constexpr char kQueuedColor[] = "#fffed6";  // "wait": waiting for a socket
inline constexpr char kDnsColor[] = "#007b84";
inline constexpr char kConnectColor[] = "#ff7b00";
inline constexpr char kTlsColor[] = "#cf25df";
inline constexpr char kLoadLineColor[] = "#0000ff";  // WebPageTest's document-complete line

// WebPageTest's content-type groups: "html", "js", "css", "image", "font", "video", "other".
// Maps a trace's resource type ("document", "script", "stylesheet", "image", "font", "media",
// ...), falling back to the URL path's extension when the type says nothing.
std::string_view ContentGroup(std::string_view resource_type, std::string_view url);
// The group's colour ("#82b5fc" for html): the download (receive) part of a bar.
std::string ContentColor(std::string_view group);
// The same colour lightened (65 % towards white): the send + wait (TTFB) part of a bar.
std::string ContentTtfbColor(std::string_view group);

// The waterfall legend (HTML, one line of swatches).
void AppendLegendHtml(std::string* out);

// A "nice" axis step (1, 2 or 5 × 10^k) giving at most `max_ticks` ticks up to `max_value`.
double NiceStep(double max_value, int max_ticks);

// Coordinates and lengths: one decimal ("12.5"), never "-0.0".
std::string Coord(double value);

// A bar chart of `histogram` (non-empty buckets from the first to the last, plus the zero
// bucket when it has values), each bar with its count above it and its range in a tooltip.
// `bytes` formats bounds as sizes instead of durations. An empty histogram gives a "no data"
// note instead of a chart.
void AppendHistogramSvg(const ReportHistogram& histogram, bool bytes, std::string* out);

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPORT_REPORT_SVG_H_
