// `netstack fetch`: runs the fetches of FetchOptions over one live stack and prints a
// request record per URL (docs/fetch.md, docs/request-record.md).
#ifndef TOOLS_NETSTACK_FETCH_COMMAND_H_
#define TOOLS_NETSTACK_FETCH_COMMAND_H_

#include <functional>
#include <memory>
#include <string>

#include "net/base/net_log_file_writer.h"
#include "net/http/live_stack.h"
#include "tools/netstack/fetch_options.h"
#include "tools/netstack/profile.h"

namespace netstack {

// Returns the process exit status: 0 all fetched, 1 a fetch failed, 2 bad input (a setting the
// stack rejected, such as an unreadable CA file). With options.page, runs RunPageCommand
// (page_command.h) instead.
int RunFetchCommand(const FetchOptions& options, const std::string& command_line);

// The live stack's settings `options` ask for (pool limits, timeouts, DNS, TLS, --resolve).
LiveStackOptions MakeLiveStackOptions(const FetchOptions& options);

// What `fetch` and `fetch --page` open before their first request. Members are destroyed in
// reverse order: the NetLog writer, then the stack (and the HTTP cache in it), then the
// profile, whose lock is so held until the cache is gone.
struct FetchStack {
  std::unique_ptr<Profile> profile;  // the cache's profile; null without one
  std::unique_ptr<LiveStack> stack;
  std::unique_ptr<NetLogFileWriter> netlog;  // null without --netlog
};

// Builds the live stack for `options`, starts the NetLog file (--netlog; `command_line` goes
// into its constants) and gives the stack its HTTP cache (the profile's, in memory, or none, as
// OpenFetchCache decides; a profile that cannot be used is a warning, not an error). Returns
// false after printing a one-line "netstack: ..." error when the stack or the NetLog file
// cannot be made: the caller exits 2.
bool OpenFetchStack(const FetchOptions& options, const std::string& command_line, FetchStack* out);

// The end of a run on a FetchStack opened by OpenFetchStack: stale-while-revalidate refreshes
// and queued cache writes land (inside the NetLog file), `before_sockets_close` runs (a
// predictor goes there, so closing its unused preconnects is not counted against it again),
// idle sockets end their NetLog lifetimes inside the file, the file is finished, and the stack
// is destroyed. Returns false after printing the NetLog's write error. Call outside loop
// callbacks.
bool FinishFetchStack(FetchStack* opened, const std::function<void()>& before_sockets_close = {});

}  // namespace netstack

#endif  // TOOLS_NETSTACK_FETCH_COMMAND_H_
