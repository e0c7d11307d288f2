// What `netstack fetch --page` reports (docs/fetch.md "Page loads"): per request, a FetchRecord
// (the same JSON as a plain fetch) with the page's own fields, rendered as a waterfall line or
// a JSON object; and the page's final line with its figures and the predictor's stats.
#ifndef TOOLS_NETSTACK_PAGE_RECORD_H_
#define TOOLS_NETSTACK_PAGE_RECORD_H_

#include <nlohmann/json.hpp>
#include <string>

#include "tools/netstack/fetch_record.h"
#include "tools/page/page_loader.h"

namespace netstack {

struct PageRequestReport {
  FetchRecord fetch;
  std::string type;      // "document", "stylesheet", "script", "image", ...
  std::string priority;  // RequestPriorityToString
  double start_ms = 0;   // navigation start -> this request's start
  double queued_ms = 0;  // waiting for a socket (LoadTimingPhases::queued_ms)
  SocketSource socket_source = SocketSource::kNone;  // as the pool decided it
};

// The report of one request of `page`; `speculative` is Predictor::SpeculativeFor(origin), or
// null without a predictor.
PageRequestReport MakePageRequestReport(const PageLoadResult& page, const PageRequestRecord& r,
                                        nlohmann::json speculative);

// FetchRecordToJson's object plus "kind": "request", "type", "priority", "start_ms",
// timing.queued_ms and socket.preconnected.
nlohmann::json PageRequestReportToJson(const PageRequestReport& report);

// One waterfall line: start offset, total, a bar of `bar_width` characters over
// [0, load_ms] ('.' queued, 'd' dns, 'c' connect, 's' tls, 'w' send and wait, 'r' receive),
// the phases in ms, priority, status, socket (its id and SocketSourceName), cache, URL. An
// error replaces status..cache with the error.
std::string PageRequestReportToLine(const PageRequestReport& report, double load_ms,
                                    int bar_width = 40);

// The waterfall's header line (column names) for PageRequestReportToLine.
std::string PageWaterfallHeader(int bar_width = 40);

// The final line: {"kind": "page", "page", "final_url", "requests", "failed", "document_ms",
// "load_ms", "parsed", "document_truncated", "nesting_truncated", "subresources_dropped",
// "bad_urls", "skipped_schemes", "hints": [{rel, url}], "predictor": `predictor`}.
nlohmann::json PageSummaryToJson(const PageLoadResult& page, nlohmann::json predictor);
// "page URL  N requests (F failed)  document X ms  load Y ms".
std::string PageSummaryToLine(const PageLoadResult& page);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_PAGE_RECORD_H_
