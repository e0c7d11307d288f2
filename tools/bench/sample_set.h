// A list of timing samples (microseconds) and the order statistics the cache benchmark reports.
// Percentiles are nearest-rank on the sorted samples, so p99 of 10,000 samples is the 9,900th.
#ifndef TOOLS_BENCH_SAMPLE_SET_H_
#define TOOLS_BENCH_SAMPLE_SET_H_

#include <nlohmann/json.hpp>
#include <vector>

namespace netstack {

class SampleSet {
 public:
  void Add(double us) { samples_.push_back(us); }
  void Reserve(size_t n) { samples_.reserve(n); }
  size_t size() const { return samples_.size(); }
  bool empty() const { return samples_.empty(); }
  const std::vector<double>& samples() const { return samples_; }

  // `p` in [0, 100]; 0 for an empty set (the caller reports the count next to it).
  double Percentile(double p) const;
  double Median() const { return Percentile(50); }
  double Max() const;
  double Mean() const;

  // {"count", "p50", "p99", "max", "mean"}, and "samples" (every value, in the order taken)
  // when `with_samples`.
  nlohmann::json ToJson(bool with_samples) const;

 private:
  std::vector<double> samples_;
};

// The median of a few values (a benchmark's rounds); 0 for none.
double MedianOf(std::vector<double> values);

}  // namespace netstack

#endif  // TOOLS_BENCH_SAMPLE_SET_H_
