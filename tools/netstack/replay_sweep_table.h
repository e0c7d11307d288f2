// A sweep's table: one row per point, its figures taken from the point's own --json summary
// line (DIR/NNN.jsonl's last line), so the table can never disagree with the per-point files.
// Written three ways: the terminal's aligned columns, DIR/sweep.tsv and DIR/sweep.json
// (docs/replay.md, "Sweeps", lists the columns).
#ifndef TOOLS_NETSTACK_REPLAY_SWEEP_TABLE_H_
#define TOOLS_NETSTACK_REPLAY_SWEEP_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace netstack {

// One point's figures, as its summary line gives them (times in ms, rounded as --json rounds).
struct SweepRow {
  size_t point = 0;
  std::vector<std::string> values;  // the point's value of each swept key, in --sweep order
  std::vector<std::string> files;   // its files in the sweep's folder, --json's first
  uint64_t pages = 0;
  uint64_t requests = 0;
  double median_ms = 0;  // page_load's median_ms, p90_ms, mean_ms and metric
  double p90_ms = 0;
  double mean_ms = 0;
  std::string metric;
  double connect_wait_ms = 0;  // totals' connect_wait_ms (a sum over the pages)
  uint64_t cache_hits = 0;
  std::string predictor;        // totals' predictor policy ("off", "chrome", "loading", "learned")
  uint64_t predictor_used = 0;  // used (in time) and wasted, over its three actions
  uint64_t predictor_wasted = 0;

  // connect_wait_ms / pages, to the microsecond; none without pages.
  std::optional<double> ConnectWaitPerPage() const;
};

// The longest summary line read: a summary carries each trace's configuration, so a corpus of
// many traces makes a long line, but never this long.
constexpr size_t kMaxSweepSummaryBytes = 256u << 20;

// Reads the last line of the --json file at `path` and fills `row`'s figures from it (its
// point, values and files are the caller's). The configurations the line carries are skipped
// while parsing, not built. False with a one-line `error` naming the file: unreadable, no
// summary line, a line longer than kMaxSweepSummaryBytes, a field missing.
bool ReadSweepRow(const std::string& path, SweepRow* row, std::string* error);

// The figures of `row` from the summary object `summary` (a --json summary line). False with
// `error` naming the first missing or mistyped field.
bool SweepRowFromSummary(const nlohmann::json& summary, SweepRow* row, std::string* error);

class SweepTable {
 public:
  // `keys`: the swept keys, in --sweep order (the rows' values follow them).
  explicit SweepTable(std::vector<std::string> keys) : keys_(std::move(keys)) {}

  void Add(SweepRow row) { rows_.push_back(std::move(row)); }
  const std::vector<SweepRow>& rows() const { return rows_; }

  // Row `i`'s page-load median over the first row's; none when the first is 0.
  std::optional<double> MedianRatio(size_t i) const;

  // The terminal table: a header and one line per row, columns aligned; durations as the
  // summary prints them, "-" for what a row does not have (the predictor's columns when its
  // policy is off).
  std::string FormatText() const;
  // sweep.tsv: a header line and one line per row, tab-separated; numbers as JSON writes
  // them, empty fields for what a row does not have.
  std::string FormatTsv() const;
  // sweep.json: {"kind": "sweep", "keys", "points": [...]} (docs/replay.md).
  nlohmann::json ToJson() const;

 private:
  std::vector<std::string> keys_;
  std::vector<SweepRow> rows_;
};

}  // namespace netstack

#endif  // TOOLS_NETSTACK_REPLAY_SWEEP_TABLE_H_
