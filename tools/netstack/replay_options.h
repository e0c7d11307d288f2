// `netstack replay` options: parsed and validated here (the configuration they build is checked
// before anything runs), used by replay_command. Kept apart from the running code so parsing is
// unit-tested without a replay. docs/replay.md documents every option.
#ifndef TOOLS_NETSTACK_REPLAY_OPTIONS_H_
#define TOOLS_NETSTACK_REPLAY_OPTIONS_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "net/http/har_writer.h"
#include "tools/replay/replay_config.h"

namespace netstack {

struct ReplayOptions {
  std::vector<std::string> traces;   // TRACE... (HAR or session files; "-": a session on stdin)
  std::vector<std::string> sets;     // --set KEY=VALUE, in order
  std::vector<std::string> configs;  // --config FILE, in order
  std::string preset;                // --preset NAME
  bool estimate = false;             // --estimate: start from the HAR's estimated network
  std::vector<std::string> compare;  // --compare A B (two config specs) or empty
  std::string json_path;             // --json FILE ("-": stdout; the summary goes to stderr)
  std::string report_path;           // --report FILE.html
  std::string netlog_path;           // --netlog FILE
  std::string har_path;              // --har FILE: the simulated loads as HAR 1.2 (a file, not "-")
  int internals_port = -1;           // --internals PORT (docs/internals.md); -1 without
  std::optional<uint64_t> seed;      // --seed N
  bool progress = false;             // --progress: the progress line even when not a terminal
  bool quiet = false;                // --quiet: no progress line, no terminal summary
  int summary_pages = 20;            // --summary-pages N: page lines in the summary
  // Not a flag: the pages one --har archive holds (HarWriter::kMaxPages; tests lower it so the
  // bound is reached without replaying 10,000 pages).
  size_t har_max_pages = HarWriter::kMaxPages;
  // Not a flag: --jobs's most units of work (replay_jobs.h; one trace each up to it, round-robin
  // shares past it). The merge's file bound; tests lower it to reach shares with a few traces.
  uint64_t jobs_max_units = 100'000;
  // --shard I/N: replay the traces at positions p with p % N == I; --json writes a shard file
  // (exact numbers, trace lines, the summary's "shard"). Without it: 0 of 1, no shard file.
  std::string shard_text;
  bool shard = false;
  uint64_t shard_index = 0, shard_count = 1;
  bool json_pages = false;          // --json-pages: no request lines in --json
  int jobs = 1;                     // --jobs N: worker processes (replay_jobs.h)
  std::vector<std::string> sweeps;  // --sweep KEY=V1,V2,... (replay_sweep.h), in order
  std::string sweep_dir;            // --sweep-dir DIR: each point's files and the table

  // Bounds of the numeric flags (checked as text, number_flags.h): --internals 0..65535,
  // --seed 0..2^64-1, --summary-pages 0..kMaxSummaryPages.
  static constexpr uint64_t kMaxSummaryPages = 100'000;
  // --shard I/N: 0 <= I < N <= kMaxShards. --jobs 1..kMaxJobs.
  static constexpr uint64_t kMaxShards = 100'000;
  static constexpr int kMaxJobs = 256;

  // Built by ValidateReplayOptions: --preset, then each --config, then each --set, then --seed.
  // With --estimate, each HAR's estimate is added as the trace's values (NetworkParams'
  // trace_hosts and trace_keys), which yield to every key these options set (OpenTraceFor in
  // replay_command.cc).
  ReplayConfig config;
};

// Adds the replay subcommand's flags to `cmd`, bound to `options`.
void AddReplayOptions(CLI::App* cmd, ReplayOptions* options);

// Builds `options->config` and checks what CLI11 cannot: preset names, config files, --set
// assignments, --compare specs (applied to a copy), conflicting flags. Returns false with a
// one-line message naming the bad value ("--set 'rtt_ms=abc': rtt_ms: 'abc' is not a number",
// "a.conf:3: unknown key 'x' (see docs/replay.md)").
bool ValidateReplayOptions(ReplayOptions* options, std::string* message);

// Parses --shard's "I/N" (whole numbers, 0 <= I < N <= ReplayOptions::kMaxShards).
bool ParseShard(const std::string& text, uint64_t* index, uint64_t* count);

// Applies --set and --seed of `options` to `config`.
bool ApplyReplayOverrides(const ReplayOptions& options, ReplayConfig* config, std::string* message);

// Parses `args` (without "netstack replay") as the command line would, then validates. False
// with the first error's message (CLI11's or validation's). For tests and tools.
bool ParseReplayArgs(const std::vector<std::string>& args, ReplayOptions* options,
                     std::string* message);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_REPLAY_OPTIONS_H_
