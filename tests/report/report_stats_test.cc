#include "tools/replay/report/report_stats.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

using namespace netstack;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

TEST_CASE("report stats: absolute percentage error") {
  CHECK(AbsolutePercentageError(100, 123) == Approx(23));
  CHECK(AbsolutePercentageError(100, 77) == Approx(23));
  CHECK(AbsolutePercentageError(200, 200) == 0);
  CHECK(std::isnan(AbsolutePercentageError(0, 5)));
  CHECK(std::isnan(AbsolutePercentageError(kNaN, 5)));
}

TEST_CASE("report stats: mean and median skip NaNs") {
  CHECK(MeanOf({1, 2, 3, kNaN}) == Approx(2));
  CHECK(MedianOf({5, 1, 3}) == 3);
  CHECK(MedianOf({4, 1, 3, 2}) == Approx(2.5));
  CHECK(MedianOf({kNaN, 7}) == 7);
  CHECK(std::isnan(MedianOf({})));
  CHECK(std::isnan(MeanOf({kNaN})));
}

TEST_CASE("report stats: ties share their average rank") {
  auto r = AverageRanks({10, 20, 20, 30});
  REQUIRE(r.size() == 4);
  CHECK(r[0] == 1);
  CHECK(r[1] == 2.5);
  CHECK(r[2] == 2.5);
  CHECK(r[3] == 4);
  auto s = AverageRanks({3, 1, 3, 3});
  CHECK(s[1] == 1);
  CHECK(s[0] == 3);  // ranks 2, 3, 4 -> 3
  CHECK(s[2] == 3);
  CHECK(s[3] == 3);
}

TEST_CASE("report stats: Spearman on known data") {
  CHECK(SpearmanCorrelation({1, 2, 3, 4, 5}, {10, 20, 30, 40, 50}) == Approx(1));
  CHECK(SpearmanCorrelation({1, 2, 3, 4, 5}, {50, 40, 30, 20, 10}) == Approx(-1));
  // Monotone but not linear: rank correlation is still 1.
  CHECK(SpearmanCorrelation({1, 2, 3, 4}, {1, 8, 27, 1000}) == Approx(1));
  // Without ties: 1 - 6·Σd²/(n(n²-1)); d = {0, 0, 1, -1, 0} -> 1 - 12/120 = 0.9.
  CHECK(SpearmanCorrelation({1, 2, 3, 4, 5}, {1, 2, 4, 3, 5}) == Approx(0.9));
  // With ties (Pearson on average ranks): x ranks {1, 2.5, 2.5, 4}, y ranks {1, 2, 3, 4}:
  // cov = 4.5, var x = 4.5, var y = 5 -> 4.5 / sqrt(22.5).
  CHECK(SpearmanCorrelation({1, 2, 2, 3}, {1, 2, 3, 4}) == Approx(4.5 / std::sqrt(22.5)));
}

TEST_CASE("report stats: Spearman is undefined for constant or tiny inputs") {
  CHECK(std::isnan(SpearmanCorrelation({1, 1, 1}, {1, 2, 3})));
  CHECK(std::isnan(SpearmanCorrelation({1}, {1})));
  CHECK(std::isnan(SpearmanCorrelation({}, {})));
  // Pairs with a NaN are dropped before ranking.
  CHECK(SpearmanCorrelation({1, 2, kNaN, 3}, {1, 2, 100, 3}) == Approx(1));
}
