// `netstack fetch`: runs the fetches of FetchOptions over one live stack and prints a
// FetchRecord per URL (docs/fetch.md).
#ifndef TOOLS_NETSTACK_FETCH_COMMAND_H_
#define TOOLS_NETSTACK_FETCH_COMMAND_H_

#include <string>

#include "tools/netstack/fetch_options.h"
#include "tools/netstack/live_stack.h"

namespace netstack {

// Returns the process exit status: 0 all fetched, 1 a fetch failed, 2 bad input (a setting the
// stack rejected, such as an unreadable CA file). With options.page, runs RunPageCommand
// (page_command.h) instead.
int RunFetchCommand(const FetchOptions& options, const std::string& command_line);

// The live stack's settings `options` ask for (pool limits, timeouts, DNS, TLS, --resolve).
LiveStackOptions MakeLiveStackOptions(const FetchOptions& options);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_FETCH_COMMAND_H_
