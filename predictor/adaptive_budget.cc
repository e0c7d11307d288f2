#include "predictor/adaptive_budget.h"

#include <algorithm>
#include <cmath>

#include "predictor/policy_util.h"

namespace netstack {

AdaptiveBudget::AdaptiveBudget(int cap, int initial, int window)
    : cap_(std::max(cap, 1)), window_(std::max(window, 1)), budget_(std::clamp(initial, 1, cap_)) {}

void AdaptiveBudget::OnConnectionWait(double wait_ms) {
  if (!std::isfinite(wait_ms) || wait_ms < 0) return;
  wait_sum_ += wait_ms;
  ++waits_;
}

void AdaptiveBudget::OnNavigationComplete() {
  if (++navigations_ < window_) return;
  navigations_ = 0;
  if (waits_ == 0) return;  // nothing to compare: the window says nothing
  double mean = wait_sum_ / static_cast<double>(waits_);
  wait_sum_ = 0;
  waits_ = 0;
  CloseWindow(mean);
}

void AdaptiveBudget::CloseWindow(double mean) {
  if (probing_) {
    if (mean < baseline_) {
      ++kept_;
      baseline_ = mean;
    } else {
      ++reverted_;
      budget_ -= direction_;
      direction_ = -direction_;
      probing_ = false;  // re-measure the baseline at the restored budget
      return;
    }
  } else {
    baseline_ = mean;
  }
  // Probe one step; turn around at a bound.
  int next = budget_ + direction_;
  if (next < 1 || next > cap_) {
    direction_ = -direction_;
    next = budget_ + direction_;
  }
  if (next < 1 || next > cap_) {  // cap 1: nothing to probe
    probing_ = false;
    return;
  }
  budget_ = next;
  probing_ = true;
}

nlohmann::json AdaptiveBudget::ToJson() const {
  return {{"budget", budget_},
          {"direction", direction_},
          {"probing", probing_},
          {"baseline_ms", baseline_},
          {"navigations", navigations_},
          {"wait_sum_ms", wait_sum_},
          {"waits", waits_},
          {"kept", kept_},
          {"reverted", reverted_},
          {"cap", cap_}};
}

bool AdaptiveBudget::FromJson(const nlohmann::json& data) {
  double budget, direction, baseline, navigations, wait_sum;
  uint64_t waits, kept, reverted;
  if (!ReadNumber(data, "budget", &budget) || !ReadNumber(data, "direction", &direction) ||
      !ReadNumber(data, "baseline_ms", &baseline) ||
      !ReadNumber(data, "navigations", &navigations) ||
      !ReadNumber(data, "wait_sum_ms", &wait_sum) || !ReadCount(data, "waits", &waits) ||
      !ReadCount(data, "kept", &kept) || !ReadCount(data, "reverted", &reverted) ||
      !data.contains("probing") || !data["probing"].is_boolean() ||
      (direction != 1 && direction != -1) || baseline < 0 || wait_sum < 0 || navigations < 0) {
    return false;
  }
  budget_ = ClampToInt(budget, 1, cap_);
  direction_ = direction > 0 ? 1 : -1;
  probing_ = data["probing"].get<bool>();
  baseline_ = baseline;
  navigations_ = ClampToInt(navigations, 0, std::max(window_ - 1, 0));
  wait_sum_ = wait_sum;
  waits_ = waits;
  kept_ = kept;
  reverted_ = reverted;
  return true;
}

}  // namespace netstack
