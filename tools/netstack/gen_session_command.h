// `netstack gen-session --synthetic [--pages N | --requests N] [--sites N] [--pages-per-site N]
// [--think-s S] [--seed S] [-o FILE]`: writes a session trace (docs/trace-format.md) that
// `netstack replay` can run. Today the one generator is the synthetic browsing model of
// tools/replay/synthetic_session.h; later ones (Zipf exponents, hover and omnibox events) add
// flags here and fields to GenSessionOptions.
#ifndef TOOLS_NETSTACK_GEN_SESSION_COMMAND_H_
#define TOOLS_NETSTACK_GEN_SESSION_COMMAND_H_

#include <CLI/CLI.hpp>
#include <string>

#include "tools/replay/synthetic_session.h"

namespace netstack {

struct GenSessionOptions {
  bool synthetic = false;  // --synthetic: required today (the only generator)
  SyntheticSessionOptions model;
  std::string output = "-";  // -o FILE; "-" is stdout
  bool quiet = false;        // --quiet: no summary line on stderr
};

// Adds the `gen-session` subcommand to `app`, bound to `options`. Returns it (parsed() tells
// whether it ran).
CLI::App* AddGenSessionCommand(CLI::App* app, GenSessionOptions* options);

// Runs the parsed command: writes the session to the output and, unless --quiet, one summary
// line on stderr ("netstack: wrote 1,000,000 requests in 18,380 navigations (360 pages) to
// s.jsonl"). Returns the exit status: 0 written; 1 the output cannot be created or written (the
// partial file is removed); 2 bad usage (no --synthetic, no count, a value out of range).
int RunGenSessionCommand(const GenSessionOptions& options);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_GEN_SESSION_COMMAND_H_
