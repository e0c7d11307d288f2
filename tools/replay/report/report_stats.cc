#include "tools/replay/report/report_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace netstack {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

double AbsolutePercentageError(double actual, double predicted) {
  if (!std::isfinite(actual) || !std::isfinite(predicted) || actual == 0) return kNaN;
  return std::fabs(predicted - actual) / std::fabs(actual) * 100.0;
}

double MeanOf(const std::vector<double>& values) {
  double sum = 0;
  size_t n = 0;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    sum += v;
    ++n;
  }
  return n ? sum / static_cast<double>(n) : kNaN;
}

double MedianOf(std::vector<double> values) {
  values.erase(
      std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }),
      values.end());
  if (values.empty()) return kNaN;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::vector<double> AverageRanks(const std::vector<double>& values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  // Stable, so the result does not depend on the sort's implementation for ties.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  size_t i = 0;
  while (i < order.size()) {
    size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    // Positions i..j (0-based) hold ranks i+1..j+1; each gets their mean.
    double rank = (static_cast<double>(i + 1) + static_cast<double>(j + 1)) / 2;
    for (size_t k = i; k <= j; ++k) ranks[order[k]] = rank;
    i = j + 1;
  }
  return ranks;
}

double SpearmanCorrelation(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> a, b;
  size_t n = std::min(x.size(), y.size());
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(y[i])) continue;
    a.push_back(x[i]);
    b.push_back(y[i]);
  }
  if (a.size() < 2) return kNaN;
  std::vector<double> ra = AverageRanks(a), rb = AverageRanks(b);
  double mean = (static_cast<double>(a.size()) + 1) / 2;  // mean of ranks 1..n, ties or not
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    double da = ra[i] - mean, db = rb[i] - mean;
    cov += da * db;
    va += da * da;
    vb += db * db;
  }
  if (va == 0 || vb == 0) return kNaN;
  return cov / std::sqrt(va * vb);
}

}  // namespace netstack
