#include "net/base/histogram.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace netstack {

Histogram::Histogram(std::string name, std::string description, Options options)
    : name_(std::move(name)), description_(std::move(description)) {
  // Corrected, not refused: see the header.
  options.bucket_count = std::max<size_t>(options.bucket_count, 3);
  options.min_ms = std::max(std::round(options.min_ms), 1.0);
  // Every exponential bucket is at least 1 ms wide, as Chrome's integer boundaries are.
  double narrowest_max = options.min_ms + static_cast<double>(options.bucket_count - 2);
  options.max_ms = std::max(std::round(options.max_ms), narrowest_max);

  const size_t n = options.bucket_count;
  boundaries_.resize(n + 1);
  boundaries_[0] = 0;
  boundaries_[1] = options.min_ms;
  boundaries_[n - 1] = options.max_ms;
  boundaries_[n] = std::numeric_limits<double>::infinity();
  // Each edge spreads what is left of the log range evenly over the steps still to take, then
  // rounds to whole ms; where rounding would not move, the edge steps 1 ms (small values).
  double current = options.min_ms;
  const double log_max = std::log(options.max_ms);
  for (size_t i = 2; i + 1 < n; ++i) {
    double step = (log_max - std::log(current)) / static_cast<double>(n - i);
    double next = std::round(std::exp(std::log(current) + step));
    if (next <= current) next = current + 1;
    boundaries_[i] = next;
    current = next;
  }
  counts_.assign(n, 0);
}

size_t Histogram::BucketIndex(double ms) const {
  if (!(ms > 0)) return 0;
  // The last edge <= ms: upper_bound gives the first edge > ms.
  auto it = std::upper_bound(boundaries_.begin(), boundaries_.end(), ms);
  return static_cast<size_t>(it - boundaries_.begin()) - 1;
}

void Histogram::Add(double ms) {
  if (std::isnan(ms)) return;
  if (ms < 0) ms = 0;
  ++counts_[BucketIndex(ms)];
  if (count_ == 0) {
    min_ = max_ = ms;
  } else {
    min_ = std::min(min_, ms);
    max_ = std::max(max_, ms);
  }
  ++count_;
  sum_ += ms;
}

void Histogram::Reset() {
  std::fill(counts_.begin(), counts_.end(), 0);
  count_ = 0;
  sum_ = min_ = max_ = 0;
}

double Histogram::Percentile(double fraction) const {
  if (count_ == 0) return 0;
  fraction = std::clamp(fraction, 0.0, 1.0);
  const double rank = fraction * static_cast<double>(count_);
  uint64_t below = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] == 0) continue;
    if (static_cast<double>(below + counts_[i]) >= rank) {
      // Within the bucket, samples are taken as spread evenly over its span; the sample range
      // narrows the span where it is known to be tighter (first, last and overflow buckets).
      double low = std::max(boundaries_[i], min_);
      double high = std::min(boundaries_[i + 1], max_);
      if (high < low) high = low;
      double within = (rank - static_cast<double>(below)) / static_cast<double>(counts_[i]);
      return std::clamp(low + (high - low) * within, min_, max_);
    }
    below += counts_[i];
  }
  return max_;
}

nlohmann::json Histogram::ToJson() const {
  nlohmann::json buckets = nlohmann::json::array();
  for (size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] == 0) continue;
    nlohmann::json high = std::isinf(boundaries_[i + 1]) ? nlohmann::json(nullptr)
                                                         : nlohmann::json(boundaries_[i + 1]);
    buckets.push_back({{"low", boundaries_[i]}, {"high", high}, {"count", counts_[i]}});
  }
  return {{"name", name_},
          {"description", description_},
          {"unit", "ms"},
          {"count", count_},
          {"sum", sum_},
          {"min", min()},
          {"max", max()},
          {"mean", mean()},
          {"p50", Percentile(0.5)},
          {"p95", Percentile(0.95)},
          {"buckets", std::move(buckets)}};
}

size_t Histogram::EstimateMemoryUsage() const {
  return sizeof(*this) + name_.capacity() + description_.capacity() +
         boundaries_.capacity() * sizeof(double) + counts_.capacity() * sizeof(uint64_t);
}

}  // namespace netstack
