#include "tools/netstack/replay_options.h"

#include "tools/netstack/number_flags.h"
#include "tools/netstack/terminal_text.h"

namespace netstack {

void AddReplayOptions(CLI::App* cmd, ReplayOptions* o) {
  // Repeatable options take one value per use; without allow_extra_args(false) CLI11 would let
  // them swallow the traces that follow.
  cmd->add_option("trace", o->traces, "HAR or session files to replay, in order")->required();
  cmd->add_option("--set", o->sets, "override one parameter: KEY=VALUE (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--config", o->configs, "a config file: JSON object or KEY=VALUE lines")
      ->allow_extra_args(false);
  cmd->add_option("--preset", o->preset, "a network preset (desktop, slow-4g, 3g, ...)");
  cmd->add_flag("--estimate", o->estimate,
                "HAR traces: start from the network estimated from the HAR's timings");
  cmd->add_option("--compare", o->compare,
                  "replay under two configs A and B (file, preset or k=v,k=v) and pair pages")
      ->expected(2)
      ->allow_extra_args(false);
  cmd->add_option("--json", o->json_path, "write JSON Lines results to FILE (- = stdout)");
  cmd->add_option("--report", o->report_path, "write an HTML report to FILE");
  cmd->add_option("--netlog", o->netlog_path, "write Chrome's NetLog JSON to FILE");
  cmd->add_option("--har", o->har_path, "write the simulated page loads as HAR 1.2 to FILE");
  cmd->add_option("--internals", o->internals_port,
                  "serve the internals page for the replay's stack on 127.0.0.1:PORT (0: any "
                  "free port); the replay starts paused")
      ->transform(CountFlag(0, 65535));
  cmd->add_option("--seed", o->seed, "the seed (recorded in outputs; default 0)")
      ->transform(CountFlag(0, UINT64_MAX));
  cmd->add_flag("--progress", o->progress, "print the progress line even if stderr is no terminal");
  cmd->add_flag("--quiet", o->quiet, "no progress line and no terminal summary");
  cmd->add_option("--summary-pages", o->summary_pages, "page lines in the terminal summary")
      ->transform(CountFlag(0, ReplayOptions::kMaxSummaryPages));
  cmd->add_option("--shard", o->shard_text,
                  "replay the share I/N of the traces (positions p with p % N == I); --json then "
                  "writes a shard file for `netstack merge`");
  cmd->add_flag("--json-pages", o->json_pages,
                "--json without request lines (page, trace and summary lines)");
  cmd->add_option("--jobs", o->jobs, "replay the traces in N worker processes (default 1)")
      ->transform(CountFlag(1, ReplayOptions::kMaxJobs));
}

bool ParseShard(const std::string& text, uint64_t* index, uint64_t* count) {
  size_t slash = text.find('/');
  if (slash == std::string::npos) return false;
  auto whole = [](std::string_view digits, uint64_t* out) {
    if (digits.empty() || digits.size() > 6) return false;
    uint64_t v = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    *out = v;
    return true;
  };
  std::string_view all(text);
  return whole(all.substr(0, slash), index) && whole(all.substr(slash + 1), count) &&
         *index < *count && *count <= ReplayOptions::kMaxShards;
}

bool ApplyReplayOverrides(const ReplayOptions& o, ReplayConfig* config, std::string* message) {
  for (const std::string& set : o.sets) {
    std::string error;
    if (!config->Set(set, &error)) {
      *message = "--set '" + EchoInput(set) + "': " + error;
      return false;
    }
  }
  if (o.seed) config->seed = *o.seed;
  return true;
}

bool ValidateReplayOptions(ReplayOptions* o, std::string* message) {
  ReplayConfig config;
  std::string error;
  if (!o->preset.empty() && !config.SetKey("preset", o->preset, &error)) {
    *message = "--preset: " + error;
    return false;
  }
  for (const std::string& file : o->configs) {
    if (file.empty()) {
      *message = "--config: empty file name";
      return false;
    }
    if (!config.Apply(file, &error)) {
      *message = error;
      return false;
    }
  }
  if (!ApplyReplayOverrides(*o, &config, message)) return false;
  if (!o->compare.empty()) {
    if (o->compare.size() != 2) {
      *message = "--compare takes two config specs A and B";
      return false;
    }
    for (const std::string& spec : o->compare) {
      ReplayConfig copy = config;
      if (!copy.Apply(spec, &error)) {
        *message = "--compare: " + error;
        return false;
      }
    }
  }
  if (o->progress && o->quiet) {
    *message = "--progress conflicts with --quiet";
    return false;
  }
  if (!o->netlog_path.empty() && (o->traces.size() > 1 || !o->compare.empty())) {
    *message = "--netlog records one replay: give one TRACE and no --compare";
    return false;
  }
  if (o->har_path == "-") {
    *message = "--har needs a file name, not - (stdout carries the summary or --json lines)";
    return false;
  }
  for (const std::string& t : o->traces) {
    if (t.empty()) {
      *message = "empty trace file name";
      return false;
    }
  }
  size_t stdin_traces = 0;
  for (const std::string& t : o->traces) stdin_traces += t == "-";
  if (stdin_traces > 0 && (o->traces.size() > 1 || !o->compare.empty())) {
    *message = "a session on stdin (-) is read once: give it alone and without --compare";
    return false;
  }
  if (!o->shard_text.empty() || o->shard) {
    if (!ParseShard(o->shard_text, &o->shard_index, &o->shard_count)) {
      *message = "--shard '" + EchoInput(o->shard_text) +
                 "': want I/N, whole numbers with 0 <= I < N <= 100000";
      return false;
    }
    o->shard = true;
  }
  if (o->json_pages && o->json_path.empty()) {
    *message = "--json-pages needs --json FILE";
    return false;
  }
  if (o->jobs > 1) {
    const char* refused = stdin_traces > 0          ? "a session on stdin (-)"
                          : !o->netlog_path.empty() ? "--netlog"
                          : o->internals_port >= 0  ? "--internals"
                          : o->shard                ? "--shard"
                                                    : nullptr;
    if (refused) {
      *message = std::string("--jobs ") + std::to_string(o->jobs) + " replays in worker " +
                 "processes: it cannot take " + refused + " (give --jobs 1)";
      return false;
    }
  }
  o->config = config;
  return true;
}

bool ParseReplayArgs(const std::vector<std::string>& args, ReplayOptions* options,
                     std::string* message) {
  CLI::App app;
  AddReplayOptions(&app, options);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 wants them reversed
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    *message = e.what();
    return false;
  }
  return ValidateReplayOptions(options, message);
}

}  // namespace netstack
