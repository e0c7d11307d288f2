// Histogram: a bucketed distribution of durations, like Chrome's UMA_HISTOGRAM_CUSTOM_TIMES. The
// bucket boundaries are laid out once, exponentially from `min_ms` to `max_ms`, with an underflow
// bucket [0, min_ms) and an overflow bucket [max_ms, inf): so a 2 ms and a 2 s sample both land in
// a bucket about as wide, relatively, as themselves. Memory is fixed at construction (one count
// per bucket); Add never allocates.
#ifndef NET_BASE_HISTOGRAM_H_
#define NET_BASE_HISTOGRAM_H_

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace netstack {

class Histogram {
 public:
  struct Options {
    double min_ms = 1;         // the first boundary above zero (>= 1)
    double max_ms = 60'000;    // where the overflow bucket starts (> min_ms)
    size_t bucket_count = 50;  // every bucket, underflow and overflow included (>= 3)
  };

  // Invalid options (min < 1, max <= min, fewer than 3 buckets) are corrected to the nearest
  // valid ones rather than refused: a histogram is display only.
  Histogram(std::string name, std::string description, Options options);
  Histogram(std::string name, std::string description)
      : Histogram(std::move(name), std::move(description), {}) {}

  // Counts one sample of `ms` milliseconds. Negative values count as 0; NaN is ignored.
  void Add(double ms);
  // Forgets every sample; the boundaries stay.
  void Reset();

  const std::string& name() const { return name_; }
  uint64_t count() const { return count_; }
  double sum() const { return sum_; }
  // 0 while empty.
  double min() const { return count_ ? min_ : 0; }
  double max() const { return count_ ? max_ : 0; }
  double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0; }
  // The value under which `fraction` (0..1) of the samples lie, estimated from the buckets by
  // linear interpolation inside the bucket that holds it, and kept within [min(), max()] (the
  // overflow bucket has no upper edge, so max() closes it). 0 while empty.
  double Percentile(double fraction) const;

  // Boundaries: bucket i is [boundaries()[i], boundaries()[i + 1]); the last one is infinity.
  const std::vector<double>& boundaries() const { return boundaries_; }
  const std::vector<uint64_t>& counts() const { return counts_; }
  // The bucket `ms` falls in.
  size_t BucketIndex(double ms) const;

  // {"name", "description", "unit": "ms", "count", "sum", "min", "max", "mean", "p50", "p95",
  //  "buckets": [{"low", "high", "count"}]}: non-empty buckets only, lowest first; "high" is
  // null for the overflow bucket.
  nlohmann::json ToJson() const;
  size_t EstimateMemoryUsage() const;

 private:
  std::string name_;
  std::string description_;
  std::vector<double> boundaries_;  // bucket_count + 1 edges: 0, min, ..., max, inf
  std::vector<uint64_t> counts_;    // bucket_count
  uint64_t count_ = 0;
  double sum_ = 0;
  double min_ = 0;
  double max_ = 0;
};

}  // namespace netstack

#endif  // NET_BASE_HISTOGRAM_H_
