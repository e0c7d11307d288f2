// `netstack internals --profile DIR [--port N] [--listen ADDR]`: a long-running live stack on a
// profile (its disk cache and the predictor's learned tables), shown and driven through the
// internals page (docs/internals.md) until Quit or Ctrl-C.
#ifndef TOOLS_NETSTACK_INTERNALS_COMMAND_H_
#define TOOLS_NETSTACK_INTERNALS_COMMAND_H_

#include <CLI/CLI.hpp>
#include <string>

#include "tools/netstack/fetch_options.h"

namespace netstack {

struct InternalsCommandOptions {
  FetchOptions stack;  // the stack's flags (AddStackOptions); no URLs
  int port = 0;        // 0: any free port
  std::string listen = "127.0.0.1";
};

// Adds the `internals` subcommand to `app`, bound to `options`.
CLI::App* AddInternalsCommand(CLI::App* app, InternalsCommandOptions* options);

// Returns the exit status: 0 after a clean Quit or signal, 2 for bad input (a setting the stack
// rejected, a bad --listen address, a port that cannot be had).
int RunInternalsCommand(InternalsCommandOptions& options, const std::string& command_line);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_INTERNALS_COMMAND_H_
