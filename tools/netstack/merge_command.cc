#include "tools/netstack/merge_command.h"

#include "tools/netstack/number_flags.h"
#include "tools/netstack/replay_options.h"
#include "tools/netstack/replay_outputs.h"
#include "tools/netstack/terminal_text.h"
#include "tools/replay/report/shard_set.h"

namespace netstack {

void AddMergeOptions(CLI::App* cmd, MergeOptions* o) {
  cmd->add_option("shard", o->shards, "shard files of `netstack replay --shard I/N --json FILE`")
      ->required();
  cmd->add_option("--json", o->json_path, "write the merged JSON Lines to FILE (- = stdout)");
  cmd->add_flag("--json-pages", o->json_pages, "--json without request lines");
  cmd->add_option("--report", o->report_path, "write an HTML report to FILE");
  cmd->add_option("--har", o->har_path, "write the page loads as HAR 1.2 to FILE");
  cmd->add_option("--summary-pages", o->summary_pages, "page lines in the terminal summary")
      ->transform(CountFlag(0, ReplayOptions::kMaxSummaryPages));
  cmd->add_flag("--quiet", o->quiet, "no terminal summary");
}

bool ValidateMergeOptions(const MergeOptions& o, std::string* message) {
  if (o.har_path == "-") {
    *message = "--har needs a file name, not - (stdout carries the summary or --json lines)";
    return false;
  }
  if (o.json_pages && o.json_path.empty()) {
    *message = "--json-pages needs --json FILE";
    return false;
  }
  for (const std::string& s : o.shards) {
    if (s.empty()) {
      *message = "empty shard file name";
      return false;
    }
  }
  return true;
}

int MergeShards(const std::vector<std::string>& paths, ReplayOutputSpec spec, FILE* out, FILE* err,
                double wall_start, double cpu_start) {
  auto fail = [err](const std::string& message) {
    std::fprintf(err, "netstack: %s\n", TerminalSafe(message).c_str());
    return 2;
  };
  ShardSet shards;
  std::string error;
  if (!shards.Open(paths, &error)) return fail(error);
  const bool needs_requests = !spec.report_path.empty() || !spec.har_path.empty() ||
                              (!spec.json_path.empty() && !spec.json_pages);
  if (needs_requests && !shards.shard_without_requests().empty()) {
    return fail(shards.shard_without_requests() +
                ": has no request lines (written with --json-pages); --report, --har and --json "
                "without --json-pages need them");
  }
  spec.compare = shards.compare();
  spec.title = shards.title();
  spec.config = shards.config();
  spec.network = shards.network();
  spec.shard.reset();
  return WriteReplayOutputs(spec, &shards, out, err, wall_start, cpu_start);
}

int RunMergeCommand(const MergeOptions& o, FILE* out, FILE* err) {
  const double wall_start = MonotonicSeconds();
  const double cpu_start = ProcessCpuSeconds();
  ReplayOutputSpec spec;
  spec.json_path = o.json_path;
  spec.json_pages = o.json_pages;
  spec.report_path = o.report_path;
  spec.har_path = o.har_path;
  spec.summary_pages = o.summary_pages;
  spec.quiet = o.quiet;
  return MergeShards(o.shards, spec, out, err, wall_start, cpu_start);
}

}  // namespace netstack
