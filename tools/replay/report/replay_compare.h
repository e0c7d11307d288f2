// `replay --compare A B`: the same trace under two configurations, paired page by page. The
// statistics (median and mean difference, pages faster/slower/same, the Wilcoxon signed-rank
// test) and the collector that keeps each run's page load times.
#ifndef TOOLS_REPLAY_REPORT_REPLAY_COMPARE_H_
#define TOOLS_REPLAY_REPORT_REPLAY_COMPARE_H_

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/replay/replay_result.h"

namespace netstack {

struct WilcoxonResult {
  size_t n = 0;        // non-zero differences (zeros are dropped, Wilcoxon's original method)
  double w_plus = 0;   // sum of the ranks of positive differences (average ranks for ties)
  double w_minus = 0;  // sum of the ranks of negative differences
  double z = 0;        // normal approximation, tie-corrected variance, continuity correction
  double p = 1;        // two-sided p-value; 1 when n == 0
};

// The Wilcoxon signed-rank test of `differences` (B - A per pair) against a zero median.
// Differences with |d| <= `zero` count as zero.
WilcoxonResult WilcoxonSignedRank(const std::vector<double>& differences, double zero = 1e-9);

// Keeps each page's load times: its last request's end, and its onLoad (-1 when the trace has
// none); and the first pages' URLs for the per-page lines. Bounded: at most `max_pages` pages;
// past it, overflowed() is true and the comparison is refused.
class PageLoadCollector : public ReplayObserver {
 public:
  explicit PageLoadCollector(size_t max_pages = 1'000'000, size_t max_labels = 20)
      : max_pages_(max_pages), max_labels_(max_labels) {}
  void OnPage(const PageResult& page) override;

  // Last request's ends, by page index.
  const std::vector<double>& loads() const { return loads_; }
  // Replayed onLoads, by page index; -1 for a page without one.
  const std::vector<double>& onloads() const { return onloads_; }
  // The oracle ceilings (PageResult::oracle_setup_ms), by page index.
  const std::vector<double>& oracles() const { return oracles_; }
  const std::vector<std::string>& labels() const { return labels_; }
  bool overflowed() const { return overflowed_; }

 private:
  const size_t max_pages_, max_labels_;
  std::vector<double> loads_;  // by page index (pages arrive in completion order)
  std::vector<double> onloads_;
  std::vector<double> oracles_;
  std::vector<std::string> labels_;
  bool overflowed_ = false;
};

// The page loads a comparison pairs: page i's onLoad on both sides when both sides have one,
// else its last request's end on both sides (a pair never mixes the two). Returns how many
// pairs are onLoads.
size_t PairPageLoads(const PageLoadCollector& a, const PageLoadCollector& b,
                     std::vector<double>* loads_a, std::vector<double>* loads_b);

struct CompareSummary {
  size_t pages = 0;
  // Pairs compared on onLoad (PairPageLoads); the others on the last request's end.
  size_t onload_pages = 0;
  double median_a = 0, median_b = 0;
  double median_diff = 0, mean_diff = 0;    // of B - A
  double total_diff = 0;                    // sum of B - A over the pairs
  size_t faster = 0, slower = 0, same = 0;  // B faster than A, slower, the same
  WilcoxonResult wilcoxon;
  // The oracle ceiling (tools/replay/replay_oracle.h): A's PageResult::oracle_setup_ms summed
  // over the paired pages (SetCeiling). It is what an oracle could save against predictor=off
  // when A ran with it; otherwise what it could save beyond A (`ceiling_relative_to_a`).
  double ceiling_ms = 0;
  bool ceiling_relative_to_a = false;

  // The ceiling per navigation; the share of it B saved (A - B over the ceiling; 0 without a
  // ceiling). Negative when B is slower; above 1 is possible (docs/replay.md).
  double ceiling_per_navigation() const;
  double ceiling_share() const;
  // Sets ceiling_ms from A's collector over the first `pages` pages (the pairs) and whether A
  // ran with a predictor (`a_policy` other than "off").
  void SetCeiling(const PageLoadCollector& a, const std::string& a_policy);

  // Also "ceiling": {"total_ms", "per_navigation_ms", "share" (null without a ceiling),
  // "relative_to": "off" or "a"}; and "saved_ms": {"total", "per_navigation"}: A - B summed and
  // averaged (the critical-path time B saves, negative when B is slower), "metric" ("onload",
  // "last_end" or "mixed") and "onload_pages".
  nlohmann::json ToJson() const;
  // "onload" (every pair), "last_end" (none) or "mixed".
  const char* metric() const;
};

// Pairs `a` and `b` (same length; page i with page i).
CompareSummary ComparePageLoads(const std::vector<double>& a, const std::vector<double>& b);

// The terminal text: per page A, B, B - A (up to `max_lines` pages, then "... N more"), then
// the paired summary, which names the figure ("page load: onLoad; 12 of 12 pages" when some
// pairs are onLoads). `labels` name the first pages.
std::string FormatComparison(const std::vector<double>& a, const std::vector<double>& b,
                             const std::vector<std::string>& labels, const CompareSummary& s,
                             const std::string& name_a, const std::string& name_b,
                             size_t max_lines = 20);

// The predictor lines of a comparison: each side's predictor figures (policy, actions taken,
// precision, recall, wasted resolves and connections, time waited for new connections) and the
// critical-path time B saved: A - B in page load over the paired pages, in total and per
// navigation, with the Wilcoxon test's verdict, then the oracle ceiling and the share of it B
// took. Empty when both sides ran with "off".
std::string FormatPredictorComparison(const ReplayTotals& a, const ReplayTotals& b,
                                      const CompareSummary& s);

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPORT_REPLAY_COMPARE_H_
