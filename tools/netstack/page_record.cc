#include "tools/netstack/page_record.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "net/base/net_error.h"
#include "net/base/time.h"
#include "net/http/request_record_json.h"
#include "predictor/predictor.h"
#include "tools/netstack/terminal_text.h"

namespace netstack {
namespace {

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

std::vector<RequestRecord> PageRequestReports(const PageLoadResult& page,
                                              const Predictor* predictor) {
  std::vector<RequestRecord> reports = page.requests;
  for (RequestRecord& r : reports) {
    Url url;
    std::string message;
    r.speculative = predictor && Url::Parse(r.url, &url, &message) == OK
                        ? predictor->SpeculativeFor(url.scheme_host_port())
                        : nlohmann::json(nullptr);
  }
  return reports;
}

std::string PageWaterfallHeader(int bar_width) {
  return "   start    total  " + Pad("waterfall", static_cast<size_t>(bar_width) + 2) +
         "  dns   conn  tls   wait   recv  priority  status  socket                  cache  url";
}

std::string PageRequestToLine(const RequestRecord& r, double load_ms, int bar_width) {
  const LoadTimingPhases& f = r.phases;
  const double start_ms = r.start_ms();
  const char* priority = r.placement ? RequestPriorityToString(r.placement->priority) : "";
  // The bar: each phase's span on a scale where bar_width characters are the whole load.
  std::string bar(static_cast<size_t>(bar_width), ' ');
  const double scale = load_ms > 0 ? bar_width / load_ms : 0;
  double at = start_ms;
  auto paint = [&](double ms, char c) {
    int from = static_cast<int>(std::floor(at * scale));
    at += ms;
    int to = static_cast<int>(std::floor(at * scale));
    for (int i = std::max(from, 0); i < std::min(to, bar_width); ++i)
      bar[static_cast<size_t>(i)] = c;
  };
  paint(f.queued_ms, '.');
  paint(f.dns_ms, 'd');
  paint(f.connect_ms, 'c');
  paint(f.tls_ms, 's');
  paint(f.send_ms + f.ttfb_ms, 'w');
  paint(f.receive_ms, 'r');
  // Every request is visible, however short.
  int mark = std::clamp(static_cast<int>(std::floor(start_ms * scale)), 0, bar_width - 1);
  if (bar[static_cast<size_t>(mark)] == ' ') bar[static_cast<size_t>(mark)] = '|';

  std::string line = Format("%+8.1f", start_ms) + Format("%8.1f", r.total_ms()) + "  [" + bar +
                     "]  " + Format("%-5.1f", f.dns_ms) + " " + Format("%-5.1f", f.connect_ms) +
                     " " + Format("%-5.1f", f.tls_ms) + " " +
                     Format("%-6.1f", f.send_ms + f.ttfb_ms) + " " +
                     Format("%-6.1f", f.receive_ms) + " " + Pad(priority, 8) + "  ";
  if (r.error != OK) {
    line += TerminalSafe(r.url) + "  error: " + TerminalSafe(r.error_message) + " (" +
            ErrorToString(r.error) + ")";
    return line;
  }
  std::string socket = "-";
  if (r.connection.socket_id != 0) {
    socket =
        std::to_string(r.connection.socket_id) + " " + SocketSourceName(r.connection.socket_source);
  }
  line += Pad(std::to_string(r.status), 6) + "  " + Pad(socket, 22) + "  " +
          Pad(r.cache_name(), 5) + "  " + TerminalSafe(r.url);
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
  j["document_ms"] = RoundMsForJson(page.document_ms());
  j["load_ms"] = RoundMsForJson(page.load_ms());
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
