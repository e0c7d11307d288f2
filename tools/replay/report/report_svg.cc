#include "tools/replay/report/report_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "net/base/string_util.h"
#include "tools/replay/report/report_text.h"

namespace netstack {

namespace {

struct Rgb {
  int r, g, b;
};

// WebPageTest's content-type colours (the "by MIME type" waterfall).
Rgb GroupRgb(std::string_view group) {
  if (group == "html") return {130, 181, 252};
  if (group == "js") return {254, 197, 132};
  if (group == "css") return {178, 234, 148};
  if (group == "image") return {196, 154, 232};
  if (group == "font") return {255, 82, 62};
  if (group == "video") return {33, 194, 162};
  return {196, 196, 196};
}

std::string Hex(Rgb c) {
  char buffer[8];
  std::snprintf(buffer, sizeof(buffer), "#%02x%02x%02x", c.r, c.g, c.b);
  return buffer;
}

std::string_view GroupFromExtension(std::string_view url) {
  size_t end = url.find_first_of("?#");
  std::string_view path = url.substr(0, end);
  std::string ext;
  size_t dot = path.rfind('.');
  size_t slash = path.rfind('/');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) {
    return "other";
  }
  for (char c : path.substr(dot)) ext.push_back(ToLowerAscii(c));
  if (ext == ".js" || ext == ".mjs") return "js";
  if (ext == ".css") return "css";
  if (ext == ".html" || ext == ".htm") return "html";
  if (ext == ".png" || ext == ".gif" || ext == ".jpg" || ext == ".jpeg" || ext == ".webp" ||
      ext == ".avif" || ext == ".svg" || ext == ".ico") {
    return "image";
  }
  if (ext == ".woff" || ext == ".woff2" || ext == ".ttf" || ext == ".otf" || ext == ".eot") {
    return "font";
  }
  if (ext == ".mp4" || ext == ".webm") return "video";
  return "other";
}

// A bucket bound as a short axis label: "0.5", "20", "5k", "1M".
std::string ShortBound(double value) {
  auto trim = [](std::string s) {
    if (s.find('.') != std::string::npos) {
      while (!s.empty() && s.back() == '0') s.pop_back();
      if (!s.empty() && s.back() == '.') s.pop_back();
    }
    return s;
  };
  if (value >= 1e9) return trim(FormatFixed(value / 1e9, 1)) + "G";
  if (value >= 1e6) return trim(FormatFixed(value / 1e6, 1)) + "M";
  if (value >= 1e3) return trim(FormatFixed(value / 1e3, 1)) + "k";
  return trim(FormatFixed(value, 1));
}

std::string RangeText(const ReportHistogram& h, int bucket, bool bytes) {
  auto fmt = [&](double v) { return bytes ? FormatBytes(static_cast<int64_t>(v)) : FormatMs(v); };
  if (bucket == 0) return bytes ? "0 B" : "0 (did not happen)";
  if (bucket == 1) return "under " + fmt(h.high(bucket));
  if (!std::isfinite(h.high(bucket))) return fmt(h.low(bucket)) + " or more";
  return fmt(h.low(bucket)) + " to under " + fmt(h.high(bucket));
}

}  // namespace

std::string_view ContentGroup(std::string_view type, std::string_view url) {
  if (type == "document" || type == "html") return "html";
  if (type == "script" || type == "js") return "js";
  if (type == "stylesheet" || type == "css") return "css";
  if (type == "image" || type == "img") return "image";
  if (type == "font") return "font";
  if (type == "media" || type == "video") return "video";
  if (type.empty() || type == "other") return GroupFromExtension(url);
  if (type.ends_with("script")) return "js";
  return "other";
}

std::string ContentColor(std::string_view group) { return Hex(GroupRgb(group)); }

std::string ContentTtfbColor(std::string_view group) {
  Rgb c = GroupRgb(group);
  auto lighten = [](int v) { return v + (255 - v) * 65 / 100; };
  return Hex({lighten(c.r), lighten(c.g), lighten(c.b)});
}

void AppendLegendHtml(std::string* out) {
  auto swatch = [&](const std::string& color, const char* label, const char* extra = "") {
    *out += "<span class=\"key\"><span class=\"sw\" style=\"background:" + color + extra +
            "\"></span>" + label + "</span>";
  };
  *out += "<div class=\"legend\">";
  swatch(kQueuedColor, "queued (waiting for a socket)", ";border:1px solid #c8c090");
  swatch(kDnsColor, "DNS");
  swatch(kConnectColor, "connect");
  swatch(kTlsColor, "TLS");
  *out += "<span class=\"key\">send + wait (TTFB), light / receive, full colour:</span>";
  static const char* const kGroups[] = {"html", "js", "css", "image", "font", "video", "other"};
  for (const char* group : kGroups) {
    *out += "<span class=\"key\"><span class=\"sw\" style=\"background:" + ContentTtfbColor(group) +
            "\"></span><span class=\"sw\" style=\"background:" + ContentColor(group) +
            "\"></span>" + group + "</span>";
  }
  *out +=
      "<span class=\"key\"><span class=\"sw\" style=\"background:" + std::string(kLoadLineColor) +
      ";width:2px\"></span>page load (last response)</span>";
  *out +=
      "<span class=\"key\"><span class=\"sw\" style=\"background:#ddd;opacity:.5;"
      "border:1px dashed #555\"></span>cache hit</span>";
  *out += "<span class=\"key\"><b>new</b>/reused: the request's socket</span>";
  *out += "</div>\n";
}

double NiceStep(double max_value, int max_ticks) {
  if (!(max_value > 0) || max_ticks < 1) return 1;
  double step = 0.1;
  static const int kMultipliers[] = {1, 2, 5};
  for (int guard = 0; guard < 40; ++guard) {
    for (int m : kMultipliers) {
      double s = step * m;
      if (max_value / s <= max_ticks) return s;
    }
    step *= 10;
  }
  return step;
}

std::string Coord(double value) { return FormatFixed(value, 1); }

void AppendHistogramSvg(const ReportHistogram& h, bool bytes, std::string* out) {
  if (h.total() == 0) {
    *out += "<p class=\"note\">no data</p>\n";
    return;
  }
  // The buckets to draw: the zero bucket if used, then first..last non-empty others.
  std::vector<int> buckets;
  if (h.count(0) > 0) buckets.push_back(0);
  int first = -1, last = -1;
  for (int b = 1; b < h.bucket_count(); ++b) {
    if (h.count(b) == 0) continue;
    if (first < 0) first = b;
    last = b;
  }
  if (first > 0) {
    for (int b = first; b <= last; ++b) buckets.push_back(b);
  }
  uint64_t peak = 1;
  for (int b : buckets) peak = std::max(peak, h.count(b));

  const double bar_w = 30, gap = 4, left = 8, top = 16, plot_h = 120, bottom = 34;
  double width = left * 2 + buckets.size() * (bar_w + gap);
  double height = top + plot_h + bottom;
  *out += "<svg class=\"hist\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Coord(width) +
          "\" height=\"" + Coord(height) + "\" role=\"img\">\n";
  double base_y = top + plot_h;
  *out += "<line x1=\"" + Coord(left) + "\" y1=\"" + Coord(base_y) + "\" x2=\"" +
          Coord(width - left) + "\" y2=\"" + Coord(base_y) + "\" stroke=\"#888\"/>\n";
  for (size_t i = 0; i < buckets.size(); ++i) {
    int b = buckets[i];
    uint64_t n = h.count(b);
    double x = left + i * (bar_w + gap);
    double bar_h =
        n ? std::max(1.0, plot_h * static_cast<double>(n) / static_cast<double>(peak)) : 0;
    *out += "<g><title>" + HtmlEscape(RangeText(h, b, bytes)) + ": " + FormatCount(n) + "</title>";
    *out += "<rect class=\"bar\" x=\"" + Coord(x) + "\" y=\"" + Coord(base_y - bar_h) +
            "\" width=\"" + Coord(bar_w) + "\" height=\"" + Coord(bar_h) + "\"/>";
    if (n) {
      *out += "<text class=\"count\" x=\"" + Coord(x + bar_w / 2) + "\" y=\"" +
              Coord(base_y - bar_h - 3) + "\">" + FormatCount(n) + "</text>";
    }
    std::string label = b == 0 ? "0" : b == 1 ? "<" + ShortBound(h.high(b)) : ShortBound(h.low(b));
    if (b == h.bucket_count() - 1) label = "\xE2\x89\xA5" + ShortBound(h.low(b));  // ≥
    *out += "<text class=\"tick\" x=\"" + Coord(x + bar_w / 2) + "\" y=\"" + Coord(base_y + 14) +
            "\">" + HtmlEscape(label) + "</text></g>\n";
  }
  *out += "<text class=\"axis\" x=\"" + Coord(left) + "\" y=\"" + Coord(height - 4) + "\">" +
          (bytes ? "bytes (bucket's lower bound)" : "ms (bucket's lower bound)") + "</text>\n";
  *out += "</svg>\n";
}

}  // namespace netstack
