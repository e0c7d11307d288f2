// ReportHistogram: counts of non-negative values (ms, bytes) in fixed log-spaced buckets on a
// 1-2-5 series, for the report's distributions. Memory is fixed whatever the number of values,
// and the bucket bounds are decimal constants built by multiplication (no log or pow), so a
// value lands in the same bucket on every platform.
//
// Buckets, for lowest L and D decades: [0] exactly 0 (a phase that did not happen: no DNS on a
// reused socket), (0, L), [L, 2L), [2L, 5L), [5L, 10L), ..., [5·L·10^(D-1), L·10^D), and
// [L·10^D, +inf).
#ifndef TOOLS_REPLAY_REPORT_REPORT_HISTOGRAM_H_
#define TOOLS_REPLAY_REPORT_REPORT_HISTOGRAM_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace netstack {

class ReportHistogram {
 public:
  // `lowest` > 0 and 1 <= `decades` <= 12 (checked; out of range values are clamped).
  ReportHistogram(double lowest, int decades);

  // Counts `value`. Negative values count as 0; NaN is ignored (counted in invalid()).
  void Add(double value);

  int bucket_count() const { return static_cast<int>(counts_.size()); }
  uint64_t count(int bucket) const { return counts_[bucket]; }
  // Bucket `bucket` holds values v with low <= v < high; bucket 0 holds exactly 0 (low = high
  // = 0); the last bucket's high is +infinity; bucket 1's low is 0 (exclusive).
  double low(int bucket) const;
  double high(int bucket) const;

  uint64_t total() const { return total_; }
  uint64_t invalid() const { return invalid_; }
  double sum() const { return sum_; }
  double min() const { return total_ ? min_ : 0; }
  double max() const { return total_ ? max_ : 0; }
  double mean() const { return total_ ? sum_ / static_cast<double>(total_) : 0; }
  // An estimate of the q-quantile (0 <= q <= 1): linear within the bucket that holds it,
  // clamped to [min, max]. Exact to the bucket's width. 0 when empty.
  double ApproxQuantile(double q) const;

 private:
  std::vector<double> bounds_;    // L, 2L, 5L, 10L, ... L·10^D, ascending
  std::vector<uint64_t> counts_;  // bounds_.size() + 2
  uint64_t total_ = 0, invalid_ = 0;
  double sum_ = 0;
  double min_ = std::numeric_limits<double>::infinity();
  double max_ = -std::numeric_limits<double>::infinity();
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPORT_REPORT_HISTOGRAM_H_
