#include "tools/replay/report/report_waterfall.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "tools/replay/report/report_svg.h"
#include "tools/replay/report/report_text.h"

namespace netstack {

namespace {

// Layout (px). The label column is as wide as WebPageTest's; bars use the rest.
constexpr double kWidth = 1000;
constexpr double kLabelWidth = 300;
constexpr double kDataLeft = kLabelWidth + 4;
constexpr double kDataWidth = kWidth - kDataLeft - 24;  // room for the last tick's label
constexpr double kCharWidth = 6.2;                      // an 11 px sans-serif character, on average
constexpr double kHeaderHeight = 22;
constexpr double kRowHeight = 16;
constexpr double kBarInset = 3;
constexpr size_t kLabelChars = 46;

// "https://host/path?q" -> "host/path?q": the row label WebPageTest shows.
std::string_view WithoutScheme(std::string_view url) {
  size_t p = url.find("://");
  return p == std::string_view::npos ? url : url.substr(p + 3);
}

std::string TickLabel(double value, double step) {
  if (step >= 1000) return FormatFixed(value / 1000, step >= 10000 ? 0 : 1) + " s";
  return FormatFixed(value, step < 1 ? 1 : 0) + " ms";
}

std::string Tooltip(const RequestRecord& r) {
  const LoadTimingPhases& p = r.phases;
  const std::string type = r.placement ? r.placement->type : std::string();
  std::string t = r.url + "\n";
  t += (r.method.empty() ? "GET" : r.method) + " " + std::to_string(r.status);
  if (!type.empty()) t += " \xC2\xB7 " + type;
  t += " \xC2\xB7 " + FormatBytes(r.transfer_bytes) + " \xC2\xB7 cache " + r.cache_name();
  if (r.error != OK) t += " \xC2\xB7 error " + ErrorToString(r.error) + ": " + r.error_message;
  t += "\nstart " + FormatMs(r.start_ms()) + ", end " + FormatMs(r.end_ms()) + " (" +
       FormatMs(r.end_ms() - r.start_ms()) + ")";
  t += "\nqueued " + FormatMs(p.queued_ms) + ", DNS " + FormatMs(p.dns_ms) + ", connect " +
       FormatMs(p.connect_ms) + ", TLS " + FormatMs(p.tls_ms) + ", send " + FormatMs(p.send_ms) +
       ", wait (TTFB) " + FormatMs(p.ttfb_ms) + ", receive " + FormatMs(p.receive_ms);
  if (r.model && r.model->server_ms > 0) t += " (server " + FormatMs(r.model->server_ms) + ")";
  if (r.connection.socket_id != 0) {
    t += "\nsocket " + std::to_string(r.connection.socket_id) + " (" +
         SocketSourceName(r.connection.socket_source) + ")";
  }
  if (r.model && r.model->recorded_start_ms >= 0 && r.model->recorded_end_ms >= 0) {
    t += "\nrecorded: start " + FormatMs(r.model->recorded_start_ms) + ", end " +
         FormatMs(r.model->recorded_end_ms);
  }
  return t;
}

void AppendRect(double x0, double x1, double y, double h, const std::string& fill,
                const char* extra, std::string* out) {
  if (x1 - x0 < 0.05) return;
  *out += "<rect x=\"" + Coord(x0) + "\" y=\"" + Coord(y) + "\" width=\"" + Coord(x1 - x0) +
          "\" height=\"" + Coord(h) + "\" fill=\"" + fill + "\"" + extra + "/>";
}

}  // namespace

void AppendWaterfallSvg(const WaterfallPage& wf, std::string* out) {
  std::vector<const RequestRecord*> rows;
  rows.reserve(wf.requests.size());
  double max_ms = std::max({1.0, wf.page.load_ms, wf.page.onload_ms});
  for (const RequestRecord& r : wf.requests) {
    rows.push_back(&r);
    if (std::isfinite(r.end_ms())) max_ms = std::max(max_ms, r.end_ms());
  }
  std::sort(rows.begin(), rows.end(), [](const RequestRecord* a, const RequestRecord* b) {
    if (a->start_ms() != b->start_ms()) return a->start_ms() < b->start_ms();
    return (a->entry ? a->entry->entry : 0) < (b->entry ? b->entry->entry : 0);
  });
  double step = NiceStep(max_ms, 10);
  double scale_ms = std::max(max_ms, step * std::ceil(max_ms / step));
  auto x_of = [&](double ms) {
    ms = std::clamp(std::isfinite(ms) ? ms : 0.0, 0.0, scale_ms);
    return kDataLeft + ms / scale_ms * kDataWidth;
  };
  double height = kHeaderHeight + rows.size() * kRowHeight + 6;
  *out += "<svg class=\"wf\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Coord(kWidth) +
          "\" height=\"" + Coord(height) + "\" role=\"img\">\n";

  // Row backgrounds first, so grid lines and bars draw over them.
  for (size_t i = 0; i < rows.size(); ++i) {
    const RequestRecord& r = *rows[i];
    const char* fill = nullptr;
    if (r.error != OK || r.status == 0 || r.status >= 400) {
      fill = "#ffdddd";
    } else if (r.status >= 300 && r.status < 400) {
      fill = "#ffffc8";
    } else if (i % 2 == 1) {
      fill = "#f4f6f8";
    }
    if (fill) {
      AppendRect(0, kWidth, kHeaderHeight + i * kRowHeight, kRowHeight, fill, "", out);
    }
  }
  *out += "\n";

  // Time axis: grid lines and labels.
  for (int k = 0; k * step <= scale_ms + 1e-9; ++k) {
    double x = x_of(k * step);
    *out += "<line class=\"grid\" x1=\"" + Coord(x) + "\" y1=\"" + Coord(kHeaderHeight - 4) +
            "\" x2=\"" + Coord(x) + "\" y2=\"" + Coord(height - 4) + "\"/>";
    *out += "<text class=\"tick\" x=\"" + Coord(x) + "\" y=\"12\">" + TickLabel(k * step, step) +
            "</text>\n";
  }

  for (size_t i = 0; i < rows.size(); ++i) {
    const RequestRecord& r = *rows[i];
    double y = kHeaderHeight + i * kRowHeight;
    std::string group(ContentGroup(r.placement ? r.placement->type : std::string(), r.url));
    *out += "<g><title>" + HtmlEscape(Tooltip(r)) + "</title>";
    std::string label =
        std::to_string(i + 1) + ". " + TruncateText(WithoutScheme(r.url), kLabelChars);
    *out += "<text class=\"label\" x=\"4\" y=\"" + Coord(y + kRowHeight - 4) + "\">" +
            HtmlEscape(label) + "</text>";

    // Phases in order from the request's start; receive is anchored at the end so the bar
    // always spans start..end even when the phases do not add up exactly.
    const LoadTimingPhases& p = r.phases;
    double start = r.start_ms();
    double end = std::max(r.end_ms(), start);
    double cursor = start;
    double bar_y = y + kBarInset, bar_h = kRowHeight - 2 * kBarInset;
    bool hit =
        r.recorded_hit || r.cache == CacheDisposition::kHit || r.cache == CacheDisposition::kStale;
    const char* extra = hit ? " opacity=\".45\"" : "";
    auto phase = [&](double ms, const std::string& color, const char* more) {
      if (!(ms > 0)) return;
      double next = std::min(cursor + ms, end);
      AppendRect(x_of(cursor), x_of(next), bar_y, bar_h, color, more, out);
      cursor = next;
    };
    phase(p.queued_ms, kQueuedColor, " stroke=\"#c8c090\" stroke-width=\".5\"");
    phase(p.dns_ms, kDnsColor, extra);
    phase(p.connect_ms, kConnectColor, extra);
    phase(p.tls_ms, kTlsColor, extra);
    double receive_start = std::max(cursor, end - std::max(0.0, p.receive_ms));
    AppendRect(x_of(cursor), x_of(receive_start), bar_y, bar_h, ContentTtfbColor(group), extra,
               out);
    AppendRect(x_of(receive_start), x_of(end), bar_y, bar_h, ContentColor(group), extra, out);
    double x_start = x_of(start), x_end = std::max(x_of(end), x_of(start) + 1);
    if (hit) {
      *out += "<rect x=\"" + Coord(x_start) + "\" y=\"" + Coord(bar_y) + "\" width=\"" +
              Coord(x_end - x_start) + "\" height=\"" + Coord(bar_h) +
              "\" fill=\"none\" stroke=\"#555\" stroke-dasharray=\"2,1\"/>";
    }

    // The text after the bar (before it when the bar ends near the right edge).
    std::string note = FormatMs(end - start);
    const uint32_t socket_id = r.connection.socket_id;
    const bool reused = r.connection.reused();
    if (hit) {
      note += std::string(" \xC2\xB7 cache ") + r.cache_name();
    } else if (socket_id != 0) {
      note += reused ? " \xC2\xB7 s" + std::to_string(socket_id) + " reused"
                     : " \xC2\xB7 s" + std::to_string(socket_id) + " new";
    }
    if (r.error != OK) note += " \xC2\xB7 " + ErrorToString(r.error) + ": " + r.error_message;
    // After the bar if it fits, else before it, else right-aligned at the edge (over the bar).
    double text_width = kCharWidth * static_cast<double>(note.size());
    bool after = x_end + 3 + text_width <= kWidth;
    bool before = !after && x_start - 3 - text_width >= kDataLeft;
    double text_x = after ? x_end + 3 : before ? x_start - 3 : kWidth - 2;
    *out += "<text class=\"" + std::string(after ? "note" : "note end") + "\" x=\"" +
            Coord(text_x) + "\" y=\"" + Coord(y + kRowHeight - 4) + "\">";
    if (!hit && socket_id != 0 && !reused) {
      // The new-socket marker in bold: where connections were opened is what a waterfall
      // reader looks for first.
      size_t dot = note.find(" s" + std::to_string(socket_id));
      *out += HtmlEscape(note.substr(0, dot)) + "<tspan class=\"new\">" +
              HtmlEscape(note.substr(dot)) + "</tspan>";
    } else {
      *out += HtmlEscape(note);
    }
    *out += "</text></g>\n";
  }

  // The page load line over everything.
  double load_x = x_of(wf.page.load_ms);
  *out += "<line x1=\"" + Coord(load_x) + "\" y1=\"" + Coord(kHeaderHeight - 4) + "\" x2=\"" +
          Coord(load_x) + "\" y2=\"" + Coord(height - 2) + "\" stroke=\"" + kLoadLineColor +
          "\" stroke-width=\"1.5\"><title>last request's end " + FormatMs(wf.page.load_ms) +
          "</title></line>\n";
  if (wf.page.has_onload()) {
    // The replayed onLoad (the page-load figure when the trace has one), dashed.
    double onload_x = x_of(wf.page.onload_ms);
    *out += "<line x1=\"" + Coord(onload_x) + "\" y1=\"" + Coord(kHeaderHeight - 4) + "\" x2=\"" +
            Coord(onload_x) + "\" y2=\"" + Coord(height - 2) + "\" stroke=\"" + kLoadLineColor +
            "\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"><title>onLoad " +
            FormatMs(wf.page.onload_ms) + " (recorded " + FormatMs(wf.page.recorded_onload_ms) +
            ")</title></line>\n";
  }
  *out += "</svg>\n";
}

}  // namespace netstack
