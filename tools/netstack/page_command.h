// `netstack fetch --page URL`: loads one page over the live stack with the predictor (PageLoader,
// tools/page), persisting the predictor's learned tables in the profile, and prints the page's
// waterfall or its JSON lines (docs/fetch.md "Page loads").
#ifndef TOOLS_NETSTACK_PAGE_COMMAND_H_
#define TOOLS_NETSTACK_PAGE_COMMAND_H_

#include <memory>
#include <string>

#include "tools/netstack/fetch_options.h"
#include "tools/netstack/profile.h"

namespace netstack {

// Returns the exit status: 0 every request of the page succeeded (any HTTP status), 1 one
// failed (the document or a subresource) or the NetLog could not be written, 2 bad input the
// stack rejected. An unusable profile or predictor database is a warning, never an error.
int RunPageCommand(const FetchOptions& options, const std::string& command_line);

// The profile the predictor's tables live in: the cache's (`cache_profile`) when it has one;
// with --no-cache the profile is opened (and locked) for the predictor alone; --private has
// none (nothing of a private run is written). Null with a warning when the profile cannot be
// used, or when the policy is off.
std::unique_ptr<Profile> OpenPredictorProfile(const FetchOptions& options,
                                              std::unique_ptr<Profile> cache_profile);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_PAGE_COMMAND_H_
