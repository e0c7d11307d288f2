#include "tools/replay/report/report_histogram.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

using namespace netstack;

TEST_CASE("report histogram: 1-2-5 bounds") {
  ReportHistogram h(1, 2);  // 0 | (0,1) | [1,2) [2,5) [5,10) [10,20) [20,50) [50,100) | [100,inf)
  REQUIRE(h.bucket_count() == 9);
  CHECK(h.low(0) == 0);
  CHECK(h.high(0) == 0);
  CHECK(h.low(1) == 0);
  CHECK(h.high(1) == 1);
  CHECK(h.low(2) == 1);
  CHECK(h.high(2) == 2);
  CHECK(h.low(4) == 5);
  CHECK(h.high(4) == 10);
  CHECK(h.low(7) == 50);
  CHECK(h.high(7) == 100);
  CHECK(h.low(8) == 100);
  CHECK(std::isinf(h.high(8)));
}

TEST_CASE("report histogram: values land in the bucket whose bounds hold them") {
  ReportHistogram h(1, 2);
  for (double v : {0.0, -3.0}) h.Add(v);            // zero bucket (negative counts as 0)
  for (double v : {0.001, 0.999}) h.Add(v);         // (0, 1)
  for (double v : {1.0, 1.999}) h.Add(v);           // [1, 2)
  h.Add(2.0);                                       // [2, 5)
  h.Add(4.999);                                     // [2, 5)
  h.Add(5.0);                                       // [5, 10)
  h.Add(99.99);                                     // [50, 100)
  for (double v : {100.0, 1e12}) h.Add(v);          // [100, inf)
  h.Add(std::numeric_limits<double>::quiet_NaN());  // ignored

  CHECK(h.count(0) == 2);
  CHECK(h.count(1) == 2);
  CHECK(h.count(2) == 2);
  CHECK(h.count(3) == 2);
  CHECK(h.count(4) == 1);
  CHECK(h.count(5) == 0);
  CHECK(h.count(6) == 0);
  CHECK(h.count(7) == 1);
  CHECK(h.count(8) == 2);
  CHECK(h.total() == 12);
  CHECK(h.invalid() == 1);
  CHECK(h.min() == 0);
  CHECK(h.max() == 1e12);
}

TEST_CASE("report histogram: decimal lowest bounds are exact products") {
  ReportHistogram h(0.1, 6);
  // 0.1 * 2 and 0.1 * 5 are what the bucket lookup compares against; 0.2 lands in [0.2, 0.5).
  h.Add(0.2);
  h.Add(0.5);
  h.Add(100000);
  CHECK(h.count(3) == 1);  // [0.2, 0.5)
  CHECK(h.count(4) == 1);  // [0.5, 1)
  CHECK(h.count(h.bucket_count() - 1) == 1);
  CHECK(h.low(h.bucket_count() - 1) == Approx(100000));
}

TEST_CASE("report histogram: quantiles stay within the bucket and the observed range") {
  ReportHistogram h(1, 4);
  for (int i = 0; i < 100; ++i) h.Add(100 + i);  // all in [100, 200)
  double median = h.ApproxQuantile(0.5);
  CHECK(median >= 100);
  CHECK(median < 200);
  CHECK(h.ApproxQuantile(0) >= 100);
  CHECK(h.ApproxQuantile(1) <= 199);
  CHECK(h.mean() == Approx(149.5));

  ReportHistogram empty(1, 4);
  CHECK(empty.ApproxQuantile(0.5) == 0);
  CHECK(empty.mean() == 0);
}
