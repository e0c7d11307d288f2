// Turns the requests a DevTools log described (devtools_events.h) into pages of TraceEntry:
// recorded timings in HAR's conventions, bytes on the wire, cache state, connections, failures,
// skips by reason, and dependencies from the recorded initiators (dependency_inference.h).
// Part of the DevTools log reader (devtools_log.h); internal.
#ifndef TOOLS_REPLAY_TRACE_DEVTOOLS_PAGES_H_
#define TOOLS_REPLAY_TRACE_DEVTOOLS_PAGES_H_

#include <string>
#include <string_view>
#include <vector>

#include "tools/replay/trace/devtools_events.h"
#include "tools/replay/trace/har_reader.h"

namespace netstack {

// What the log says about one page besides its requests.
struct DevtoolsPageInfo {
  std::string navigation_url;  // the main-frame navigation's URL; empty when the log has none
  double content_load_s = -1;  // Page.domContentEventFired's timestamp, -1 when absent
  double load_s = -1;          // Page.loadEventFired's
};

// Builds `out` from `requests` (in log order; each names its page, an index of `pages`), whose
// strings and headers it moves out. `name`
// labels errors and page sources. False with a one-line `error` naming the file: nothing can be
// replayed ("a.json: no request can be replayed: 3 skipped (...)"), or a time or body past
// trace.h's bounds, naming the request's message ("a.json: message 7
// (Network.requestWillBeSent): the request lasts 2e+10 ms, more than the limit of 1e+10 ms").
bool BuildDevtoolsPages(const std::string& name, std::vector<DevtoolsRequest>* requests,
                        const std::vector<DevtoolsPageInfo>& pages, HarFile* out,
                        std::string* error);

}  // namespace netstack

#endif  // TOOLS_REPLAY_TRACE_DEVTOOLS_PAGES_H_
