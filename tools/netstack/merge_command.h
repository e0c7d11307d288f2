// `netstack merge SHARD...`: shard files of `netstack replay --shard I/N --json FILE` combined
// into exactly what one replay of all their traces writes: the terminal summary (all but its
// time line), --json, --report, --har and --compare's statistics (docs/replay.md, "Shards and
// merge"). The checking and reading is ShardSet's (tools/replay/report/shard_set.h); the
// outputs are replay's own (replay_outputs.h).
#ifndef TOOLS_NETSTACK_MERGE_COMMAND_H_
#define TOOLS_NETSTACK_MERGE_COMMAND_H_

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

namespace netstack {

struct MergeOptions {
  std::vector<std::string> shards;  // SHARD... (any order)
  std::string json_path;            // --json FILE ("-": stdout; the summary goes to stderr)
  bool json_pages = false;          // --json-pages: no request lines
  std::string report_path;          // --report FILE.html
  std::string har_path;             // --har FILE
  int summary_pages = 20;           // --summary-pages N
  bool quiet = false;               // --quiet: no terminal summary
};

// Adds the merge subcommand's flags to `cmd`, bound to `options`.
void AddMergeOptions(CLI::App* cmd, MergeOptions* options);

// Checks what CLI11 cannot (--har -, --json-pages without --json). False with a one-line
// message.
bool ValidateMergeOptions(const MergeOptions& options, std::string* message);

// Merges; the summary goes to `out` (to `err` when --json is "-"), errors ("netstack: a.jsonl:
// shard 1/4 given twice") to `err`. Returns 0, 1 when an output could not be written, 2 for bad
// input (an incomplete or inconsistent set, a line that is no replay line, a shard without the
// request lines an output needs, an unwritable output path).
int RunMergeCommand(const MergeOptions& options, FILE* out, FILE* err);

// The same for shard files `paths` with replay's outputs `spec` (replay --jobs); `spec`'s
// compare, title, config and network are taken from the shards.
struct ReplayOutputSpec;
int MergeShards(const std::vector<std::string>& paths, ReplayOutputSpec spec, FILE* out, FILE* err,
                double wall_start_s, double cpu_start_s);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_MERGE_COMMAND_H_
