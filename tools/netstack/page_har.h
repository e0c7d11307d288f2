// `fetch --page --har FILE` (docs/fetch.md "--har"): a live page load as an HTTP Archive (HAR
// 1.2, net/http/har_writer.h), one page ("page_1", titled with its URL) and one entry per
// request, so a viewer shows it beside a replay of it, and `netstack replay` replays it.
#ifndef TOOLS_NETSTACK_PAGE_HAR_H_
#define TOOLS_NETSTACK_PAGE_HAR_H_

#include <cstdio>
#include <vector>

#include "net/http/request_record.h"
#include "tools/page/page_loader.h"

namespace netstack {

// The netstack version a HAR's creator names.
extern const char kNetstackHarVersion[];

// Writes `page` (its requests as `requests`: PageRequestReports' records, in the order issued)
// to `out` as HAR. `start_epoch_ms` is the wall-clock time of the navigation's start
// (page.start), in ms since the Unix epoch; every date is counted from it. pageTimings:
// onContentLoad is the document's end (the loader runs no scripts: the document is parsed as
// soon as it is complete), onLoad the last request's end (every subresource the document lists
// has loaded); both -1 when the load did not finish. Each subresource's _initiator is the
// document ({"type": "parser", "url": the document's final URL}); the document's is "other".
void WritePageHar(const PageLoadResult& page, const std::vector<RequestRecord>& requests,
                  double start_epoch_ms, bool finished, std::FILE* out);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_PAGE_HAR_H_
