// `netstack gen-session --synthetic [--pages N | --requests N] [--sites N] [--pages-per-site N]
// [--think-s S] [--http2-share F] [--seed S] [-o FILE]` or `netstack gen-session --har FILE.har...
// [--pages N] [--seed S] [-o FILE]`, both with the user model's [--day-pages N]
// [--routine-sites N] [--stray-hover P] [--no-user-events]. Every number is checked for range
// before anything runs (number_flags.h; the bounds are in docs/replay.md). Writes a session trace
// (docs/trace-format.md) that `netstack replay` can run. Generators: the synthetic browsing model
// of tools/replay/gen/synthetic_session.h, and HAR pages (tools/replay/gen/har_session.h); the user
// model they share (startup routine, hovers, omnibox typing) is
// tools/replay/gen/session_behavior.h.
#ifndef TOOLS_NETSTACK_GEN_SESSION_COMMAND_H_
#define TOOLS_NETSTACK_GEN_SESSION_COMMAND_H_

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tools/replay/gen/synthetic_session.h"

namespace netstack {

struct GenSessionOptions {
  bool synthetic = false;         // --synthetic: the synthetic pages
  std::vector<std::string> hars;  // --har FILE...: pages of HAR files (exclusive with the above)
  bool no_user_events = false;    // --no-user-events: the model without startup/hover/omnibox
  SyntheticSessionOptions model;  // model.behavior: the user model's flags (both generators)
  std::optional<double> http2_share;  // --http2-share F (--synthetic only): model.http2_share
  std::string output = "-";           // -o FILE; "-" is stdout
  bool quiet = false;                 // --quiet: no summary line on stderr
};

// Adds the `gen-session` subcommand to `app`, bound to `options`. Returns it (parsed() tells
// whether it ran).
CLI::App* AddGenSessionCommand(CLI::App* app, GenSessionOptions* options);

// Runs the parsed command: writes the session to the output and, unless --quiet, one summary
// line on stderr ("netstack: wrote 1,000,000 requests in 18,380 navigations (360 pages) to
// s.jsonl"). Returns the exit status: 0 written; 2 bad usage (neither or both of --synthetic and
// --har, no count, a value out of range, a HAR that cannot be read) or an output that cannot be
// created or written. A regular file is written to a temporary next to it and renamed into place
// only when complete, so a failure leaves what was at the path as it was; a device (/dev/null,
// /dev/full) is written in place and never removed (output_file.h). Errors are one line on
// stderr.
int RunGenSessionCommand(const GenSessionOptions& options);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_GEN_SESSION_COMMAND_H_
