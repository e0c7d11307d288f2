#include "tools/netstack/page_record.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "net/base/net_error.h"
#include "tools/netstack/terminal_text.h"

namespace netstack {
namespace {

double Round3(double ms) { return std::round(ms * 1000.0) / 1000.0; }

std::string Format(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}

std::string Pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

}  // namespace

PageRequestReport MakePageRequestReport(const PageLoadResult& page, const PageRequestRecord& r,
                                        nlohmann::json speculative) {
  PageRequestReport report;
  report.fetch = FetchRecordFromRequest(r, "GET");
  report.fetch.speculative = std::move(speculative);
  report.type = r.type;
  report.priority = RequestPriorityToString(r.priority);
  report.start_ms = MillisecondsBetween(page.start, r.start);
  report.queued_ms = r.phases.queued_ms;
  report.socket_source = r.connection.socket_source;
  return report;
}

nlohmann::json PageRequestReportToJson(const PageRequestReport& r) {
  nlohmann::json j = FetchRecordToJson(r.fetch);
  j["kind"] = "request";
  j["type"] = r.type;
  j["priority"] = r.priority;
  j["start_ms"] = Round3(r.start_ms);
  j["timing"]["queued_ms"] = Round3(r.queued_ms);
  j["socket"]["preconnected"] = IsPreconnectSocket(r.socket_source);
  return j;
}

std::string PageWaterfallHeader(int bar_width) {
  return "   start    total  " + Pad("waterfall", static_cast<size_t>(bar_width) + 2) +
         "  dns   conn  tls   wait   recv  priority  status  socket            cache  url";
}

std::string PageRequestReportToLine(const PageRequestReport& r, double load_ms, int bar_width) {
  const FetchRecord& f = r.fetch;
  // The bar: each phase's span on a scale where bar_width characters are the whole load.
  std::string bar(static_cast<size_t>(bar_width), ' ');
  const double scale = load_ms > 0 ? bar_width / load_ms : 0;
  double at = r.start_ms;
  auto paint = [&](double ms, char c) {
    int from = static_cast<int>(std::floor(at * scale));
    at += ms;
    int to = static_cast<int>(std::floor(at * scale));
    for (int i = std::max(from, 0); i < std::min(to, bar_width); ++i)
      bar[static_cast<size_t>(i)] = c;
  };
  paint(r.queued_ms, '.');
  paint(f.dns_ms, 'd');
  paint(f.connect_ms, 'c');
  paint(f.tls_ms, 's');
  paint(f.send_ms + f.ttfb_ms, 'w');
  paint(f.receive_ms, 'r');
  // Every request is visible, however short.
  int mark = std::clamp(static_cast<int>(std::floor(r.start_ms * scale)), 0, bar_width - 1);
  if (bar[static_cast<size_t>(mark)] == ' ') bar[static_cast<size_t>(mark)] = '|';

  std::string line = Format("%+8.1f", r.start_ms) + Format("%8.1f", f.total_ms) + "  [" + bar +
                     "]  " + Format("%-5.1f", f.dns_ms) + " " + Format("%-5.1f", f.connect_ms) +
                     " " + Format("%-5.1f", f.tls_ms) + " " +
                     Format("%-6.1f", f.send_ms + f.ttfb_ms) + " " +
                     Format("%-6.1f", f.receive_ms) + " " + Pad(r.priority, 8) + "  ";
  if (f.error) {
    line += TerminalSafe(f.url) + "  error: " + TerminalSafe(f.error_message) + " (" +
            ErrorToString(f.error) + ")";
    return line;
  }
  std::string socket = "-";
  if (f.socket_id != 0) {
    socket = std::to_string(f.socket_id) + " " + SocketSourceName(r.socket_source);
  }
  line += Pad(std::to_string(f.status), 6) + "  " + Pad(socket, 16) + "  " + Pad(f.cache, 5) +
          "  " + TerminalSafe(f.url);
  return line;
}

nlohmann::json PageSummaryToJson(const PageLoadResult& page, nlohmann::json predictor) {
  nlohmann::json hints = nlohmann::json::array();
  for (const ResourceHint& h : page.scan.hints)
    hints.push_back({{"rel", h.rel}, {"url", h.url.spec()}});
  nlohmann::json j;
  j["kind"] = "page";
  j["page"] = page.page.spec();
  j["final_url"] = page.requests.empty() || page.requests[0].final_url.empty()
                       ? page.page.spec()
                       : page.requests[0].final_url;
  j["requests"] = page.requests.size();
  j["failed"] = page.failed;
  j["document_ms"] = Round3(page.document_ms());
  j["load_ms"] = Round3(page.load_ms());
  j["parsed"] = page.parsed;
  j["document_truncated"] = page.scan.document_truncated;
  j["nesting_truncated"] = page.scan.nesting_truncated;
  j["subresources_dropped"] = page.scan.subresources_dropped;
  j["bad_urls"] = page.scan.bad_urls;
  j["skipped_schemes"] = page.scan.skipped_schemes;
  j["hints"] = std::move(hints);
  j["predictor"] = std::move(predictor);
  return j;
}

std::string PageSummaryToLine(const PageLoadResult& page) {
  std::string line = "page " + TerminalSafe(page.page.spec()) + "  " +
                     std::to_string(page.requests.size()) + " requests";
  if (page.failed) line += " (" + std::to_string(page.failed) + " failed)";
  line += "  document " + Format("%.1f", page.document_ms()) + " ms  load " +
          Format("%.1f", page.load_ms()) + " ms";
  if (page.scan.document_truncated) line += "  (document parsed up to its size limit)";
  if (page.scan.nesting_truncated) line += "  (document parsed up to its nesting limit)";
  if (page.scan.subresources_dropped)
    line +=
        "  (" + std::to_string(page.scan.subresources_dropped) + " subresources over the limit)";
  return line;
}

}  // namespace netstack
