// What `netstack replay` and `netstack merge` write, built in one place from a stream of
// records (a ReplayPassSource: the engine, or shard files read back): the terminal summary (or
// the --compare comparison), --json lines, the --report page and the --har archive. The
// observers are fed in the same order whichever source runs, so a merge of shards writes the
// bytes one replay writes (docs/replay.md, "Shards and merge").
#ifndef TOOLS_NETSTACK_REPLAY_OUTPUTS_H_
#define TOOLS_NETSTACK_REPLAY_OUTPUTS_H_

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "net/http/har_writer.h"
#include "tools/replay/report/replay_pass_source.h"

namespace netstack {

struct ReplayOutputSpec {
  std::string json_path;    // --json FILE ("-": stdout; the summary then goes to err)
  bool json_pages = false;  // --json-pages: no request lines
  std::string report_path;  // --report FILE.html
  std::string har_path;     // --har FILE
  // The pages the --har archive holds (not a flag: tests lower it, ReplayOptions::har_max_pages).
  size_t har_max_pages = HarWriter::kMaxPages;
  int summary_pages = 20;  // --summary-pages
  bool quiet = false;      // --quiet: no terminal summary
  // --compare's A and B specs; empty: one run.
  std::vector<std::string> compare;
  std::string title;      // the report's title (the traces' names)
  nlohmann::json config;  // the configuration's JSON (the summary line, the report)
  std::string network;    // ReplayConfig::Describe(), the summary's network line
  // `replay --shard`: the --json lines are a shard file (exact numbers, trace lines, and this
  // as the summary's "shard" member).
  std::optional<nlohmann::json> shard;
};

// Opens the outputs `spec` asks for, runs the source's passes into them (one, or A then B),
// and writes the summary. `wall_start` and `cpu_start` time the summary's time line.
// Returns the exit status: 0 done, 1 a pass failed or an output could not be written, 2 bad
// input or an output path that cannot be created (the message, "netstack: ...", on `err`).
int WriteReplayOutputs(const ReplayOutputSpec& spec, ReplayPassSource* source, FILE* out, FILE* err,
                       double wall_start_s, double cpu_start_s);

// Checks that `path` can be created (creating it empty) before a long replay runs. False with
// `error` ("cannot write /nonexistent/r.html: No such file or directory").
bool CheckOutputWritable(const std::string& path, std::string* error);

// The process's CPU seconds and a monotonic clock's seconds (the summary's time line).
double ProcessCpuSeconds();
double MonotonicSeconds();

}  // namespace netstack

#endif  // TOOLS_NETSTACK_REPLAY_OUTPUTS_H_
