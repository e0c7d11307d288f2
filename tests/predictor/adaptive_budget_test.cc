// AdaptiveBudget (learned's hill-climbing budget): probes, keeps only improvements, stays
// within [1, cap]; the learned policy starts at its cap.
#include "predictor/adaptive_budget.h"

#include <catch2/catch.hpp>

#include "predictor/learned_policy.h"
#include "predictor/predictor_config.h"
#include "tests/predictor/policy_test_util.h"

namespace netstack {
namespace {

using namespace policy_test;

TEST_CASE("learned: the adaptive budget probes and keeps only improvements", "[predictor]") {
  AdaptiveBudget b(/*cap=*/4);
  CHECK(b.budget() == 3);
  auto feed = [](AdaptiveBudget& budget, double wait_ms) {
    for (int i = 0; i < AdaptiveBudget::kWindowNavigations; ++i) {
      budget.OnConnectionWait(wait_ms);
      budget.OnNavigationComplete();
    }
  };
  auto window = [&](double wait_ms) { feed(b, wait_ms); };
  window(100);  // baseline at 3, probe 4
  CHECK(b.budget() == 4);
  window(80);  // better: kept; 5 is above the cap, so the next probe goes down to 3
  CHECK(b.budget() == 3);
  CHECK(b.kept() == 1);
  window(90);  // worse than 80: back to 4, re-measure
  CHECK(b.budget() == 4);
  CHECK(b.reverted() == 1);
  window(85);  // baseline at 4, probe (direction now up, capped) -> 3
  CHECK(b.budget() == 3);
  // A window with no connection needed says nothing.
  for (int i = 0; i < AdaptiveBudget::kWindowNavigations; ++i) b.OnNavigationComplete();
  CHECK(b.budget() == 3);
  AdaptiveBudget one(1);
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < AdaptiveBudget::kWindowNavigations; ++j) {
      one.OnConnectionWait(10.0 * i);
      one.OnNavigationComplete();
    }
    CHECK(one.budget() == 1);
  }
  // Never below 1.
  AdaptiveBudget low(8, 1);
  for (int i = 0; i < 20; ++i) {
    feed(low, 100 + i);  // always worse
    CHECK(low.budget() >= 1);
    CHECK(low.budget() <= 8);
  }
  // The policy's budget starts at its cap (min of learned_budget_cap and max_in_flight).
  LearnedPolicy p(LearnedConfig());
  CHECK(p.Budget(At(0)) == 8);
  PredictorConfig capped = LearnedConfig();
  capped.learned_budget_cap = 5;
  CHECK(LearnedPolicy(capped).Budget(At(0)) == 5);
}

}  // namespace
}  // namespace netstack
