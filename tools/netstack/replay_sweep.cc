#include "tools/netstack/replay_sweep.h"

#include "net/base/string_util.h"
#include "tools/netstack/number_flags.h"
#include "tools/netstack/terminal_text.h"

namespace netstack {
namespace {

// The --sweep as messages quote it: bounded, a control character shown as '?'.
std::string Shown(const std::string& flag) {
  std::string text = flag.substr(0, 256);
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return "--sweep '" + EchoInput(text) + "'";
}

// A file name for a per-point output (DIR/NNN.NAME): no folder, not the point's --json name.
bool CheckPointFileName(const char* flag, const std::string& name, std::string* message) {
  if (name.find('/') != std::string::npos) {
    *message = std::string(flag) +
               " with --sweep names each point's file DIR/NNN.NAME: give a file name without "
               "a folder, not '" +
               EchoInput(name) + "'";
    return false;
  }
  if (name == "jsonl") {
    *message = std::string(flag) + " with --sweep: 'jsonl' would be each point's --json file";
    return false;
  }
  return true;
}

}  // namespace

bool SweepGrid::Parse(const std::vector<std::string>& flags, std::string* message) {
  axes_.clear();
  size_ = 0;
  if (flags.size() > kMaxAxes) {
    *message = "--sweep: " + std::to_string(flags.size()) + " given, at most " +
               std::to_string(kMaxAxes) + " (one per key)";
    return false;
  }
  size_t points = 1;
  for (const std::string& flag : flags) {
    if (flag.size() > kMaxFlagBytes) {
      *message = Shown(flag) + ": longer than " + FormatFlagCount(kMaxFlagBytes) + " bytes";
      return false;
    }
    for (char c : flag) {
      // The values become the table's cells and sweep.tsv's fields: no tab, no newline.
      auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u == 0x7f) {
        *message = Shown(flag) + ": a control character";
        return false;
      }
    }
    size_t eq = flag.find('=');
    if (eq == std::string::npos) {
      *message = Shown(flag) + ": not KEY=V1,V2,...";
      return false;
    }
    SweepAxis axis;
    axis.flag = flag;
    axis.key = std::string(TrimWhitespaceAscii(std::string_view(flag).substr(0, eq)));
    if (axis.key.empty()) {
      *message = Shown(flag) + ": empty key";
      return false;
    }
    for (const SweepAxis& other : axes_) {
      if (EqualsCaseInsensitiveAscii(other.key, axis.key)) {
        *message =
            Shown(flag) + ": " + EchoInput(axis.key) + " is already swept by " + Shown(other.flag);
        return false;
      }
    }
    std::string_view rest = std::string_view(flag).substr(eq + 1);
    while (true) {
      size_t comma = rest.find(',');
      std::string value(TrimWhitespaceAscii(rest.substr(0, comma)));
      if (value.empty()) {
        *message = Shown(flag) + ": value " + std::to_string(axis.values.size() + 1) + " is empty";
        return false;
      }
      for (const std::string& v : axis.values) {
        if (v == value) {
          *message = Shown(flag) + ": '" + EchoInput(value) + "' is given twice";
          return false;
        }
      }
      if (axis.values.size() == kMaxValuesPerAxis) {
        *message = Shown(flag) + ": more than " + std::to_string(kMaxValuesPerAxis) + " values";
        return false;
      }
      axis.values.push_back(std::move(value));
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 1);
    }
    // points <= kMaxPoints and values <= kMaxValuesPerAxis: the product cannot overflow.
    points *= axis.values.size();
    if (points > kMaxPoints) {
      *message = Shown(flag) + ": the grid would have " + FormatFlagCount(points) +
                 " points or more, at most " + FormatFlagCount(kMaxPoints) +
                 ": sweep fewer values (or run the points as shards on a cluster)";
      return false;
    }
    axes_.push_back(std::move(axis));
  }
  size_ = axes_.empty() ? 0 : points;
  return true;
}

bool SweepGrid::Validate(const ReplayConfig& base, std::string* message) const {
  for (const SweepAxis& axis : axes_) {
    for (const std::string& value : axis.values) {
      ReplayConfig copy = base;
      std::string error;
      if (!copy.SetKey(axis.key, value, &error)) {
        *message = Shown(axis.flag) + ": " + error;
        return false;
      }
    }
  }
  return true;
}

std::vector<std::string> SweepGrid::Values(size_t index) const {
  std::vector<std::string> values(axes_.size());
  for (size_t i = axes_.size(); i-- > 0;) {
    const std::vector<std::string>& v = axes_[i].values;
    values[i] = v[index % v.size()];
    index /= v.size();
  }
  return values;
}

std::vector<std::string> SweepGrid::Assignments(size_t index) const {
  std::vector<std::string> values = Values(index);
  for (size_t i = 0; i < values.size(); ++i) values[i] = axes_[i].key + "=" + values[i];
  return values;
}

std::string SweepGrid::Describe(size_t index) const {
  std::string text;
  for (const std::string& a : Assignments(index)) text += (text.empty() ? "" : " ") + a;
  return text;
}

void AddReplaySweepOptions(CLI::App* cmd, ReplayOptions* o) {
  cmd->add_option("--sweep", o->sweeps,
                  "replay once per point of a grid: KEY=V1,V2,... (repeatable; one axis each)")
      ->allow_extra_args(false);
  cmd->add_option("--sweep-dir", o->sweep_dir,
                  "a sweep's folder (new or empty): NNN.jsonl per point, sweep.tsv, sweep.json");
}

bool ValidateSweepOptions(const ReplayOptions& o, const ReplayConfig& config,
                          std::string* message) {
  if (o.sweeps.empty()) {
    if (o.sweep_dir.empty()) return true;
    *message = "--sweep-dir needs --sweep KEY=V1,V2,...";
    return false;
  }
  if (o.sweep_dir.empty()) {
    *message = "--sweep needs --sweep-dir DIR: each point's results and the table go there";
    return false;
  }
  if (!o.compare.empty()) {
    *message =
        "--sweep conflicts with --compare: the sweep's table already sets its points side by "
        "side (sweep the compared key instead: --sweep KEY=A,B)";
    return false;
  }
  if (!o.json_path.empty()) {
    *message =
        "--sweep conflicts with --json: each point's --json lines go to DIR/NNN.jsonl and the "
        "table to DIR/sweep.json";
    return false;
  }
  if (o.shard) {
    *message =
        "--sweep conflicts with --shard: each point's table row would be one shard's (run a "
        "point's shards with its --set assignments, as netstack-dask --sweep does)";
    return false;
  }
  if (!o.netlog_path.empty() || o.internals_port >= 0) {
    *message = std::string(o.netlog_path.empty() ? "--internals" : "--netlog") +
               " follows one replay and a sweep runs many: replay the point you want alone "
               "with --set";
    return false;
  }
  for (const std::string& t : o.traces) {
    if (t == "-") {
      *message = "--sweep replays its traces once per point: a session on stdin (-) is read once";
      return false;
    }
  }
  if (!o.report_path.empty() && !CheckPointFileName("--report", o.report_path, message))
    return false;
  if (!o.har_path.empty() && !CheckPointFileName("--har", o.har_path, message)) return false;
  if (!o.report_path.empty() && o.report_path == o.har_path) {
    *message = "--report and --har with --sweep need different names (DIR/NNN.NAME each)";
    return false;
  }
  SweepGrid grid;
  if (!grid.Parse(o.sweeps, message)) return false;
  for (const SweepAxis& axis : grid.axes()) {
    if (o.seed && EqualsCaseInsensitiveAscii(axis.key, "seed")) {
      *message = Shown(axis.flag) + " conflicts with --seed, which would override it";
      return false;
    }
  }
  return grid.Validate(config, message);
}

}  // namespace netstack
