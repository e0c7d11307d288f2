// netstack: the command-line entry point. Each subcommand lives in its own *_command file.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "tools/internals/library_memory.h"
#include "tools/netstack/cache_command.h"
#include "tools/netstack/fetch_command.h"
#include "tools/netstack/fetch_options.h"
#include "tools/netstack/gen_session_command.h"
#include "tools/netstack/internals_command.h"
#include "tools/netstack/lab_command.h"
#include "tools/netstack/merge_command.h"
#include "tools/netstack/replay_command.h"
#include "tools/netstack/replay_options.h"
#include "tools/netstack/terminal_text.h"

int main(int argc, char** argv) {
  // Before any library allocates: the internals page's Memory view counts what OpenSSL, libuv
  // and c-ares hold (tools/internals/library_memory.h). Only when the page will be served, so
  // other runs keep the libraries' own allocators.
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "internals" || arg.rfind("--internals", 0) == 0) {
      netstack::InstallLibraryAllocationCounters();
      break;
    }
  }
  CLI::App app{"netstack: a browser-style network stack, simulator and predictor"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "netstack 0.1.0");
  // One line per error, exit 2 (the contract in DESIGN.md).
  // CLI11's messages quote the argument: escaped for the terminal like every echo of input.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "netstack: " + netstack::TerminalSafe(e.what()) + " (see --help)\n";
  });

  netstack::FetchOptions fetch_options;
  CLI::App* fetch = app.add_subcommand("fetch", "fetch URLs over the stack (curl-like)");
  netstack::AddFetchOptions(fetch, &fetch_options);

  netstack::CacheCommandOptions cache_options;
  CLI::App* cache = netstack::AddCacheCommand(&app, &cache_options);

  netstack::ReplayOptions replay_options;
  CLI::App* replay =
      app.add_subcommand("replay", "replay HAR files or sessions over the simulated network");
  netstack::AddReplayOptions(replay, &replay_options);

  netstack::MergeOptions merge_options;
  CLI::App* merge = app.add_subcommand(
      "merge", "merge shard files of `replay --shard I/N --json` into one replay's outputs");
  netstack::AddMergeOptions(merge, &merge_options);

  // ---- gen-session: the report helper adds its subcommand here (options and dispatch). ----
  netstack::GenSessionOptions gen_session_options;
  CLI::App* gen_session = netstack::AddGenSessionCommand(&app, &gen_session_options);

  netstack::InternalsCommandOptions internals_options;
  CLI::App* internals = netstack::AddInternalsCommand(&app, &internals_options);

  // lab and shell: the lab's emulated link (docs/lab.md); one options struct, one parsed.
  netstack::LabCommandOptions lab_options;
  CLI::App* lab = netstack::AddLabCommand(&app, &lab_options);
  CLI::App* shell = netstack::AddShellCommand(&app, &lab_options);

  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  if (fetch->parsed()) {
    std::string message;
    if (!netstack::ValidateFetchOptions(&fetch_options, &message)) {
      std::fprintf(stderr, "netstack: %s\n", message.c_str());
      return 2;
    }
    return netstack::RunFetchCommand(fetch_options, command_line);
  }
  if (cache->parsed()) return netstack::RunCacheCommand(cache_options);
  if (internals->parsed()) return netstack::RunInternalsCommand(internals_options, command_line);
  if (replay->parsed()) {
    std::string message;
    if (!netstack::ValidateReplayOptions(&replay_options, &message)) {
      std::fprintf(stderr, "netstack: %s\n", netstack::TerminalSafe(message).c_str());
      return 2;
    }
    return netstack::RunReplayCommand(replay_options, command_line, stdout, stderr);
  }
  if (merge->parsed()) {
    std::string message;
    if (!netstack::ValidateMergeOptions(merge_options, &message)) {
      std::fprintf(stderr, "netstack: %s\n", netstack::TerminalSafe(message).c_str());
      return 2;
    }
    return netstack::RunMergeCommand(merge_options, stdout, stderr);
  }
  if (lab->parsed() || shell->parsed()) {
    std::string message;
    if (!netstack::ValidateLabOptions(&lab_options, shell->parsed(), &message)) {
      std::fprintf(stderr, "netstack: %s\n", netstack::TerminalSafe(message).c_str());
      return 2;
    }
    return lab->parsed() ? netstack::RunLabCommand(lab_options)
                         : netstack::RunShellCommand(lab_options);
  }
  // ---- gen-session dispatch goes here. ----
  if (gen_session->parsed()) return netstack::RunGenSessionCommand(gen_session_options);
  return 2;
}
