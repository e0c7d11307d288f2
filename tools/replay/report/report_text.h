// Text helpers for the HTML report (report_html.h): escaping every string that came from a
// trace (URLs, hosts, ids, titles) and formatting numbers the same way on every platform, so
// the same results always give the same bytes.
#ifndef TOOLS_REPLAY_REPORT_REPORT_TEXT_H_
#define TOOLS_REPLAY_REPORT_REPORT_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace netstack {

// Appends `text` to `out` escaped for HTML text and for attribute values in double or single
// quotes: & < > " ' become entities; C0 controls other than tab and newline, DEL, and bytes
// that are not valid UTF-8 become U+FFFD, so the page stays valid UTF-8 whatever a trace holds.
void AppendHtmlEscaped(std::string_view text, std::string* out);
std::string HtmlEscape(std::string_view text);

// At most `max_chars` code points of `text` (invalid bytes count as one each), with "…" as
// the last one when it was cut. Never splits a UTF-8 sequence. Not escaped.
std::string TruncateText(std::string_view text, size_t max_chars);

// Fixed-point decimal ("12.3"); NaN and infinities as "n/a". Locale-independent.
std::string FormatFixed(double value, int decimals);
// A duration for labels: "0.4 ms", "12 ms", "1,234 ms", "12.3 s" (at or above 10 s).
std::string FormatMs(double ms);
// An integer with thousands separators: "1,234,567".
std::string FormatCount(uint64_t value);
// A byte count: "512 B", "12.3 KB", "4.5 MB" (decimal units, as WebPageTest shows them).
std::string FormatBytes(int64_t bytes);

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPORT_REPORT_TEXT_H_
