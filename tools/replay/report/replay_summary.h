// The terminal summary of a replay: an observer that keeps what the summary prints (the first
// pages' lines, the distribution of page load times) in bounded memory, and the text itself.
#ifndef TOOLS_REPLAY_REPORT_REPLAY_SUMMARY_H_
#define TOOLS_REPLAY_REPORT_REPLAY_SUMMARY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tools/replay/replay_config.h"
#include "tools/replay/replay_result.h"

namespace netstack {

// Quantiles of a stream of values in bounded memory: exact while at most `exact_limit` values
// were added, then from a histogram (1 ms buckets below 100 s, 100 ms buckets to 10,000 s,
// then one overflow bucket: kHistogramBuckets counts, 1.6 MB), deterministic either way. The
// default limit keeps the exact values (128 KiB) well under the histogram's size, so that a
// long replay's memory stops growing once it has seen 16,384 pages.
class Distribution {
 public:
  static constexpr size_t kDefaultExactLimit = 16'384;
  static constexpr size_t kHistogramBuckets = 100'000 + 99'000 + 1;

  explicit Distribution(size_t exact_limit = kDefaultExactLimit) : exact_limit_(exact_limit) {}
  void Add(double value);
  // The q-quantile (0..1); 0 when empty. While exact: linear interpolation between the closest
  // ranks of the sorted values (R's type 7; the median of an even count is the mean of the
  // middle two). From the histogram: the nearest rank (ceil(q * count)), as its bucket's middle.
  // Not const: sorts the exact values.
  double Quantile(double q);
  size_t count() const { return count_; }
  // Values (exact) or counts (histogram) held: at most max(exact_limit, kHistogramBuckets)
  // however many values were added.
  size_t slots() const { return exact_.capacity() + histogram_.size(); }
  double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0; }

 private:
  void ToHistogram();
  static size_t Bucket(double value);
  static double BucketMid(size_t bucket);

  const size_t exact_limit_;
  std::vector<double> exact_;
  bool sorted_ = true;
  std::vector<uint64_t> histogram_;  // used once exact_limit_ is passed
  size_t count_ = 0;
  double sum_ = 0;
};

class ReplaySummary : public ReplayObserver {
 public:
  // Prints at most `max_page_lines` page lines, then "... N more pages".
  explicit ReplaySummary(size_t max_page_lines = 20) : max_page_lines_(max_page_lines) {}

  void OnPage(const PageResult& page) override;

  // The summary: page lines, then totals (page load median/p90, saying "(onLoad; N of M
  // pages)" when some pages had one, then their last request's end), time in each phase with its
  // share, sockets, cache, failures), the predictor block (when its policy is not "off"), the
  // network line, virtual, wall and CPU time (wall/cpu < 0: not printed), and the simulated
  // events (totals.scheduler_tasks) with the CPU nanoseconds per event when cpu_s > 0 (the
  // line "  events      N simulated (scheduler tasks), X ns of cpu per event", which
  // tools/bench/replay-bench reads). Lines end in '\n'.
  std::string Format(const ReplayTotals& totals, const ReplayConfig& config, double wall_s,
                     double cpu_s);
  // The same with the network line's text given (ReplayConfig::Describe(): a merge has the
  // text its shards carry, not the configuration).
  std::string Format(const ReplayTotals& totals, const std::string& network, double wall_s,
                     double cpu_s);
  // {"median_ms", "p90_ms", "mean_ms", "metric", "onload_pages"} of page loads (each page's
  // PageResult::page_load_ms(): its onLoad when the trace has one, else its last request's
  // end), for the --json summary. "metric" is PageLoadMetric().
  nlohmann::json PageLoadJson();
  // "onload" (every page had one), "last_end" (none had) or "mixed".
  std::string PageLoadMetric() const;
  Distribution& loads() { return loads_; }
  uint64_t onload_pages() const { return onload_pages_; }

 private:
  struct PageLine {
    uint64_t index;
    std::string url;
    double load_ms;
    int requests, failed;
  };
  const size_t max_page_lines_;
  std::vector<PageLine> lines_;
  uint64_t pages_ = 0, onload_pages_ = 0;
  Distribution loads_;      // page loads (PageResult::page_load_ms)
  Distribution last_ends_;  // last request's ends of the pages with an onLoad
};

// The predictor block of the summary (FormatPredictorBlock) for `totals`: hints started and
// dropped by reason; per action taken, used, late, wasted; precision; recall; wasted resolves
// and connections; the time requests waited for new connections. Lines start with two spaces.
std::string FormatPredictorBlock(const ReplayTotals& totals);

// "1,234"
std::string FormatThousands(uint64_t value);
// "470 ms", "1,234 ms", "12.3 s"
std::string FormatDuration(double ms);

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPORT_REPLAY_SUMMARY_H_
