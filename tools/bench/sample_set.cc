#include "tools/bench/sample_set.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace netstack {

double SampleSet::Percentile(double p) const {
  if (samples_.empty()) return 0;
  std::vector<double> sorted = samples_;
  std::sort(sorted.begin(), sorted.end());
  // Nearest rank: the smallest value with at least p% of the samples at or below it.
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

double SampleSet::Max() const {
  return samples_.empty() ? 0 : *std::max_element(samples_.begin(), samples_.end());
}

double SampleSet::Mean() const {
  if (samples_.empty()) return 0;
  return std::accumulate(samples_.begin(), samples_.end(), 0.0) /
         static_cast<double>(samples_.size());
}

nlohmann::json SampleSet::ToJson(bool with_samples) const {
  nlohmann::json j = {{"count", samples_.size()},
                      {"p50", Median()},
                      {"p99", Percentile(99)},
                      {"max", Max()},
                      {"mean", Mean()}};
  if (with_samples) j["samples"] = samples_;
  return j;
}

double MedianOf(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace netstack
