// Histogram: Chrome-like exponential buckets, percentile estimates, overflow and reset.
#include "net/base/histogram.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

namespace netstack {
namespace {

TEST_CASE("Histogram lays out exponential boundaries from 1 ms to 60 s", "[histogram]") {
  Histogram h("t", "test");
  const auto& b = h.boundaries();
  REQUIRE(b.size() == 51);  // 50 buckets
  CHECK(b[0] == 0);
  CHECK(b[1] == 1);
  CHECK(b[49] == 60'000);
  CHECK(std::isinf(b[50]));
  for (size_t i = 1; i < b.size(); ++i) CHECK(b[i] > b[i - 1]);
  // Exponential: the widths grow, so the upper half of the range holds few buckets.
  CHECK(b[25] < 1000);
  CHECK((b[48] - b[47]) > 100 * (b[3] - b[2]));
  CHECK(h.BucketIndex(0) == 0);
  CHECK(h.BucketIndex(0.5) == 0);
  CHECK(h.BucketIndex(1) == 1);
  CHECK(h.BucketIndex(59'999) == 48);
  CHECK(h.BucketIndex(60'000) == 49);
  CHECK(h.BucketIndex(1e12) == 49);
}

TEST_CASE("Histogram corrects options it cannot use", "[histogram]") {
  Histogram h("t", "test", {.min_ms = 0, .max_ms = 5, .bucket_count = 10});
  const auto& b = h.boundaries();
  REQUIRE(b.size() == 11);
  CHECK(b[1] == 1);
  for (size_t i = 1; i < b.size(); ++i) CHECK(b[i] > b[i - 1]);
  Histogram tiny("t", "test", {.min_ms = 1, .max_ms = 2, .bucket_count = 1});
  CHECK(tiny.boundaries().size() == 4);
}

TEST_CASE("Histogram counts, sums and estimates percentiles from buckets", "[histogram]") {
  Histogram h("t", "test");
  for (int i = 0; i < 50; ++i) h.Add(10);
  for (int i = 0; i < 50; ++i) h.Add(1000);
  CHECK(h.count() == 100);
  CHECK(h.sum() == Approx(50'500));
  CHECK(h.mean() == Approx(505));
  CHECK(h.min() == 10);
  CHECK(h.max() == 1000);
  size_t ten = h.BucketIndex(10);
  CHECK(h.counts()[ten] == 50);
  // p50 lies in the bucket holding 10 ms; p95 in the one holding 1000 ms (closed by the max).
  double p50 = h.Percentile(0.5);
  CHECK(p50 >= 10);
  CHECK(p50 <= h.boundaries()[ten + 1]);
  double p95 = h.Percentile(0.95);
  CHECK(p95 >= h.boundaries()[h.BucketIndex(1000)]);
  CHECK(p95 <= 1000);
  CHECK(h.Percentile(1.0) == 1000);
  CHECK(h.Percentile(0.0) == 10);

  // One value only: every percentile is that value.
  Histogram one("t", "test");
  one.Add(123.5);
  CHECK(one.Percentile(0.5) == 123.5);
  CHECK(one.Percentile(0.95) == 123.5);
}

TEST_CASE("Histogram puts large values in the overflow bucket", "[histogram]") {
  Histogram h("t", "test");
  h.Add(120'000);
  h.Add(-5);                                        // counts as 0: underflow
  h.Add(std::numeric_limits<double>::quiet_NaN());  // ignored
  CHECK(h.count() == 2);
  CHECK(h.counts().back() == 1);
  CHECK(h.counts().front() == 1);
  CHECK(h.min() == 0);
  // Within the overflow bucket, between its edge and the largest sample.
  CHECK(h.Percentile(0.95) > 60'000);
  CHECK(h.Percentile(0.95) < 120'000);
  CHECK(h.Percentile(1.0) == 120'000);
  nlohmann::json j = h.ToJson();
  REQUIRE(j["buckets"].size() == 2);  // non-empty buckets only
  CHECK(j["buckets"][0]["low"] == 0);
  CHECK(j["buckets"][0]["high"] == 1);
  CHECK(j["buckets"][1]["low"] == 60'000);
  CHECK(j["buckets"][1]["high"].is_null());
  CHECK(j["buckets"][1]["count"] == 1);
  CHECK(j["name"] == "t");
  CHECK(j["unit"] == "ms");
  CHECK(j["count"] == 2);
  CHECK(j["p95"] == h.Percentile(0.95));
  CHECK(j["max"] == 120'000);
}

TEST_CASE("Histogram Reset forgets samples and keeps the buckets", "[histogram]") {
  Histogram h("t", "test");
  for (int i = 1; i <= 20; ++i) h.Add(i * 7.0);
  size_t memory = h.EstimateMemoryUsage();
  h.Reset();
  CHECK(h.count() == 0);
  CHECK(h.sum() == 0);
  CHECK(h.mean() == 0);
  CHECK(h.Percentile(0.5) == 0);
  CHECK(h.ToJson()["buckets"].empty());
  CHECK(h.boundaries().size() == 51);
  // Fixed memory: adding samples does not grow it.
  for (int i = 0; i < 10'000; ++i) h.Add(i);
  CHECK(h.EstimateMemoryUsage() == memory);
  CHECK(h.count() == 10'000);
}

}  // namespace
}  // namespace netstack
