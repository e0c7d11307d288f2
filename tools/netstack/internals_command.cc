#include "tools/netstack/internals_command.h"

#include <cstdio>
#include <memory>

#include "net/base/ip_address.h"
#include "net/http/http_cache.h"
#include "tools/netstack/cache_loop.h"
#include "tools/netstack/fetch_command.h"
#include "tools/netstack/live_internals.h"
#include "tools/netstack/number_flags.h"
#include "tools/netstack/page_command.h"
#include "tools/netstack/page_predictor.h"
#include "tools/netstack/terminal_text.h"

namespace netstack {

CLI::App* AddInternalsCommand(CLI::App* app, InternalsCommandOptions* o) {
  CLI::App* cmd = app->add_subcommand(
      "internals", "serve the internals page for a live stack on a profile (docs/internals.md)");
  cmd->add_option("--port", o->port, "port on the listen address (0: any free port)")
      ->transform(CountFlag(0, 65535));
  cmd->add_option("--listen", o->listen,
                  "address to listen on (default 127.0.0.1; anything else exposes the page)");
  AddStackOptions(cmd, &o->stack);
  return cmd;
}

int RunInternalsCommand(InternalsCommandOptions& o, const std::string& command_line) {
  o.stack.internals_command = true;
  std::string message;
  if (!ValidateFetchOptions(&o.stack, &message)) {
    std::fprintf(stderr, "netstack: %s\n", TerminalSafe(message).c_str());
    return 2;
  }
  std::optional<IPAddress> listen = IPAddress::Parse(o.listen);
  if (!listen) {
    std::fprintf(stderr, "netstack: bad --listen \"%s\": expected an IPv4 or IPv6 address\n",
                 TerminalSafe(o.listen).c_str());
    return 2;
  }
  if (!listen->IsLoopback()) {
    std::fprintf(stderr,
                 "netstack: warning: listening on %s: anyone who can reach it can read this "
                 "stack's cache and NetLog (the token guards only the buttons)\n",
                 TerminalSafe(o.listen).c_str());
  }

  FetchStack opened;
  if (!OpenFetchStack(o.stack, command_line, &opened)) return 2;
  LiveStack* stack = opened.stack.get();
  opened.profile = OpenPredictorProfile(o.stack, std::move(opened.profile));
  auto predictor = std::make_unique<PagePredictor>(
      o.stack.predictor, stack,
      opened.profile ? opened.profile->predictor_db_path() : std::string(), stderr);
  Predictor* events = o.stack.predictor.policy == "off" ? nullptr : predictor->predictor();
  if (events) events->OnStartup();

  LiveInternals::Params params;
  params.mode = "internals";
  params.port = o.port;
  params.listen_address = o.listen;
  params.command_line = command_line;
  params.profile_dir = opened.profile ? opened.profile->dir() : std::string();
  params.predictor_policy = o.stack.predictor.policy;
  auto internals = std::make_unique<LiveInternals>(stack, events, std::move(params));
  std::string error;
  if (!internals->Start(&error)) {
    std::fprintf(stderr, "netstack: %s\n", TerminalSafe(error).c_str());
    return 2;
  }
  internals->ServeUntilQuit();
  internals.reset();

  // As `fetch --page` ends: learned tables saved, then what FinishFetchStack does.
  predictor->Save();
  predictor->Finish();
  return FinishFetchStack(&opened, [&predictor] { predictor.reset(); }) ? 0 : 1;
}

}  // namespace netstack
