// AdaptiveBudget: the learned policy's speculative budget (actions in flight), tuned by hill
// climbing on what users wait for. Every `window` completed navigations it takes the mean wait
// per needed connection (OnConnectionNeeded's `connect_wait_ms`, 0 when a preconnected socket was
// ready) over that window. It first measures a baseline at the current budget, then probes one step
// (up first); a probe is kept only if the mean wait improved on the baseline (and the next probe
// goes the same way), otherwise the budget goes back and the next probe goes the other way.
// Always within [1, cap]. Windows with no needed connection say nothing and are skipped.
// Deterministic: no randomness, no clock.
#ifndef PREDICTOR_ADAPTIVE_BUDGET_H_
#define PREDICTOR_ADAPTIVE_BUDGET_H_

#include <cstdint>
#include <nlohmann/json.hpp>

namespace netstack {

class AdaptiveBudget {
 public:
  static constexpr int kInitial = 3;
  static constexpr int kWindowNavigations = 8;

  // `cap` >= 1 (learned_budget_cap, and never above max_in_flight).
  explicit AdaptiveBudget(int cap, int initial = kInitial, int window = kWindowNavigations);

  // A connection a page load needed, and how long it waited for it.
  void OnConnectionWait(double wait_ms);
  // A navigation completed; may close a window and move the budget.
  void OnNavigationComplete();

  int budget() const { return budget_; }
  int cap() const { return cap_; }
  // How many times a probe was kept / reverted (for the tables and tests).
  uint64_t kept() const { return kept_; }
  uint64_t reverted() const { return reverted_; }

  // State for persistence and the tables; FromJson false (and no change) on bad data.
  nlohmann::json ToJson() const;
  bool FromJson(const nlohmann::json& data);

 private:
  void CloseWindow(double mean);

  const int cap_;
  const int window_;
  int budget_;
  int direction_ = +1;
  bool probing_ = false;  // false: measuring a baseline at budget_
  double baseline_ = 0;   // mean wait of the baseline window
  int navigations_ = 0;
  double wait_sum_ = 0;
  uint64_t waits_ = 0;
  uint64_t kept_ = 0;
  uint64_t reverted_ = 0;
};

}  // namespace netstack

#endif  // PREDICTOR_ADAPTIVE_BUDGET_H_
