// `netstack replay --sweep KEY=V1,V2,...`: the grid of configurations a sweep replays. Each
// --sweep is one axis (a configuration key and its values); the grid is their cartesian
// product, the first --sweep varying slowest, and each point is the list of assignments
// "KEY=VALUE" applied, in --sweep order, after --preset, --config and --set. Parsing is bounded
// (points, axes, values, bytes) and every value is checked by applying it to a copy of the
// configuration before anything runs, so a typo in the last value fails in a millisecond, not
// after hours of earlier points. Running the points is replay_sweep_run's (docs/replay.md,
// "Sweeps").
#ifndef TOOLS_NETSTACK_REPLAY_SWEEP_H_
#define TOOLS_NETSTACK_REPLAY_SWEEP_H_

#include <cstddef>
#include <string>
#include <vector>

#include "tools/netstack/replay_options.h"
#include "tools/replay/replay_config.h"

namespace netstack {

// One --sweep: a key and its values, as given (trimmed of spaces).
struct SweepAxis {
  std::string flag;  // the --sweep's text, for messages
  std::string key;
  std::vector<std::string> values;
};

class SweepGrid {
 public:
  // Bounds. A sweep's points run one after another, each a whole replay, so more than a
  // thousand is a job for a cluster (tools/cluster), not one command; the per-axis and
  // per-flag bounds keep parsing bounded whatever the command line holds.
  static constexpr size_t kMaxPoints = 1000;
  static constexpr size_t kMaxAxes = 32;
  static constexpr size_t kMaxValuesPerAxis = 100;
  static constexpr size_t kMaxFlagBytes = 65536;

  // Parses the --sweep texts `flags` (each "KEY=V1,V2,..."). False with a one-line `message`
  // naming the --sweep and what is wrong: no '=', an empty key or value, a control character,
  // a value given twice in one --sweep, a key swept by two --sweeps (keys compared without
  // case, as host names are), more axes, values or points than the bounds. Values are not
  // checked against the configuration here: see Validate.
  bool Parse(const std::vector<std::string>& flags, std::string* message);

  // Applies each value of each axis to a copy of `base` (the configuration --preset, --config
  // and --set built). False with a one-line `message` naming the --sweep and the value's
  // problem as ReplayConfig gives it ("--sweep 'rtt_ms=20,abc': rtt_ms: 'abc' is not a
  // number").
  bool Validate(const ReplayConfig& base, std::string* message) const;

  const std::vector<SweepAxis>& axes() const { return axes_; }
  // The number of points: the product of the axes' value counts (at most kMaxPoints).
  size_t size() const { return size_; }
  // Point `index` (< size()): one "KEY=VALUE" per axis, in --sweep order; the first axis
  // varies slowest.
  std::vector<std::string> Assignments(size_t index) const;
  // The value of each axis at point `index`, in --sweep order.
  std::vector<std::string> Values(size_t index) const;
  // Point `index` as text for messages and the table: "rtt_ms=20 predictor=chrome".
  std::string Describe(size_t index) const;

 private:
  std::vector<SweepAxis> axes_;
  size_t size_ = 0;
};

// Adds --sweep and --sweep-dir to the replay subcommand `cmd`, bound to `options` (called by
// AddReplayOptions).
void AddReplaySweepOptions(CLI::App* cmd, ReplayOptions* options);

// The --sweep checks of ValidateReplayOptions (replay_options.cc), given the configuration it
// built: with --sweep, --sweep-dir is needed and --compare, --json, --netlog, --internals and a
// trace on stdin are refused (each message says why); --report and --har must be file names
// without a folder (each point's goes to DIR/NNN.NAME); --sweep seed=... conflicts with --seed;
// then the grid is parsed and validated. --sweep-dir without --sweep is an error. True when
// there is no --sweep and no --sweep-dir.
bool ValidateSweepOptions(const ReplayOptions& options, const ReplayConfig& config,
                          std::string* message);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_REPLAY_SWEEP_H_
