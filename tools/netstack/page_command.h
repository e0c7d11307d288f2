// `netstack fetch --page URL`: loads one page over the live stack with the predictor (PageLoader,
// tools/page), persisting the predictor's learned tables in the profile, and prints the page's
// waterfall or its JSON lines (docs/fetch.md "Page loads").
#ifndef TOOLS_NETSTACK_PAGE_COMMAND_H_
#define TOOLS_NETSTACK_PAGE_COMMAND_H_

#include <string>

#include "tools/netstack/fetch_options.h"

namespace netstack {

// Returns the exit status: 0 every request of the page succeeded (any HTTP status), 1 one
// failed (the document or a subresource) or the NetLog could not be written, 2 bad input the
// stack rejected. An unusable profile or predictor database is a warning, never an error.
int RunPageCommand(const FetchOptions& options, const std::string& command_line);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_PAGE_COMMAND_H_
