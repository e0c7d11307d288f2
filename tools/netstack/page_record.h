// What `netstack fetch --page` reports (docs/fetch.md "Page loads"): per request, its record
// (net/http/request_record.h, written by the one JSON writer, or as a waterfall line); and the
// page's final line with its figures and the predictor's stats.
#ifndef TOOLS_NETSTACK_PAGE_RECORD_H_
#define TOOLS_NETSTACK_PAGE_RECORD_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "net/http/request_record.h"
#include "tools/page/page_loader.h"

namespace netstack {

class Predictor;

// `page`'s request records as `--page` and the internals fetch box report them: each with
// `speculative` set to what `predictor` had done for its origin (Predictor::SpeculativeFor;
// null without a predictor). Read before the predictor's Finish turns pending into wasted.
std::vector<RequestRecord> PageRequestReports(const PageLoadResult& page,
                                              const Predictor* predictor);

// One waterfall line of a request of a page load `load_ms` long: start offset, total, a bar of
// `bar_width` characters over [0, load_ms] ('.' queued, 'd' dns, 'c' connect, 's' tls, 'w' send
// and wait, 'r' receive), the phases in ms, priority, status, socket (its id and
// SocketSourceName), cache, URL. An error replaces status..cache with the error.
std::string PageRequestToLine(const RequestRecord& request, double load_ms, int bar_width = 40);

// The waterfall's header line (column names) for PageRequestToLine.
std::string PageWaterfallHeader(int bar_width = 40);

// The final line: {"kind": "page", "page", "final_url", "requests", "failed", "document_ms",
// "load_ms", "parsed", "document_truncated", "nesting_truncated", "subresources_dropped",
// "bad_urls", "skipped_schemes", "hints": [{rel, url}], "predictor": `predictor`}.
nlohmann::json PageSummaryToJson(const PageLoadResult& page, nlohmann::json predictor);
// "page URL  N requests (F failed)  document X ms  load Y ms".
std::string PageSummaryToLine(const PageLoadResult& page);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_PAGE_RECORD_H_
