#include "tools/replay/report/report_histogram.h"

#include <algorithm>
#include <cmath>

namespace netstack {

ReportHistogram::ReportHistogram(double lowest, int decades) {
  if (!(lowest > 0) || !std::isfinite(lowest)) lowest = 1;
  decades = std::clamp(decades, 1, 12);
  double decade = lowest;
  for (int d = 0; d < decades; ++d) {
    bounds_.push_back(decade);
    bounds_.push_back(decade * 2);
    bounds_.push_back(decade * 5);
    decade *= 10;
  }
  bounds_.push_back(decade);
  counts_.assign(bounds_.size() + 2, 0);
}

void ReportHistogram::Add(double value) {
  if (std::isnan(value)) {
    ++invalid_;
    return;
  }
  if (value < 0) value = 0;
  int bucket;
  if (value == 0) {
    bucket = 0;
  } else {
    // The number of bounds <= value: 0 means (0, L), i.e. bucket 1.
    auto it = std::upper_bound(bounds_.begin(), bounds_.end(), value);
    bucket = 1 + static_cast<int>(it - bounds_.begin());
  }
  ++counts_[bucket];
  ++total_;
  sum_ += value;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
}

double ReportHistogram::low(int bucket) const {
  if (bucket <= 1) return 0;
  return bounds_[bucket - 2];
}

double ReportHistogram::high(int bucket) const {
  if (bucket == 0) return 0;
  if (bucket - 1 >= static_cast<int>(bounds_.size())) {
    return std::numeric_limits<double>::infinity();
  }
  return bounds_[bucket - 1];
}

double ReportHistogram::ApproxQuantile(double q) const {
  if (total_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  // The rank (0-based, fractional) the quantile sits at.
  double rank = q * static_cast<double>(total_ - 1);
  uint64_t seen = 0;
  for (int b = 0; b < bucket_count(); ++b) {
    if (counts_[b] == 0) continue;
    if (rank < static_cast<double>(seen + counts_[b])) {
      double lo = std::max(low(b), min_);
      double hi = std::min(high(b), max_);
      if (b == 0) return 0;
      double within = (rank - static_cast<double>(seen) + 0.5) / static_cast<double>(counts_[b]);
      return std::clamp(lo + (hi - lo) * within, min_, max_);
    }
    seen += counts_[b];
  }
  return max_;
}

}  // namespace netstack
