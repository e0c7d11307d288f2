// Statistics for comparing a replay with a recording (tools/bench/replay_fidelity) and two
// replays with each other (the report's --compare section): absolute percentage error, mean,
// median, and Spearman's rank correlation with ties given their average rank.
#ifndef TOOLS_REPLAY_REPORT_REPORT_STATS_H_
#define TOOLS_REPLAY_REPORT_REPORT_STATS_H_

#include <vector>

namespace netstack {

// |predicted - actual| / |actual| * 100. NaN when `actual` is 0 or either value is not
// finite (the error is undefined; callers skip NaNs and count them).
double AbsolutePercentageError(double actual, double predicted);

// Mean and median of the finite values (NaNs are skipped); NaN when there are none.
double MeanOf(const std::vector<double>& values);
double MedianOf(std::vector<double> values);

// 1-based ranks of `values`; tied values all get the mean of the ranks they span
// ({10, 20, 20, 30} -> {1, 2.5, 2.5, 4}).
std::vector<double> AverageRanks(const std::vector<double>& values);

// Spearman's rho: the Pearson correlation of the average ranks of `x` and `y` (paired by index;
// the shorter length is used). NaN when fewer than 2 pairs, or when either side is constant
// (every value tied: no ranking to correlate). Pairs with a non-finite value are dropped first.
double SpearmanCorrelation(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPORT_REPORT_STATS_H_
