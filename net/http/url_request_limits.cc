#include "net/http/url_request_limits.h"

#include <cstdio>

namespace netstack {

std::string FormatSeconds(TimeDelta delta) {
  char text[32];
  // At most three decimals (the flags take milliseconds), trailing zeros dropped.
  std::snprintf(text, sizeof(text), "%.3f", static_cast<double>(delta.count()) / 1e6);
  std::string seconds(text);
  seconds.erase(seconds.find_last_not_of('0') + 1);
  if (!seconds.empty() && seconds.back() == '.') seconds.pop_back();
  return seconds;
}

TransferRateMonitor::TransferRateMonitor(int64_t min_bytes_per_second, TimeDelta low_speed_time,
                                         TimeTicks start, int64_t start_bytes)
    : min_bytes_per_second_(min_bytes_per_second), low_speed_time_(low_speed_time) {
  window_[0] = {start, start_bytes};
  count_ = 1;
}

bool TransferRateMonitor::Sample(TimeTicks now, int64_t total_bytes) {
  constexpr int kSlots = kWindowSamples + 1;
  const Point previous = window_[(head_ + count_ - 1) % kSlots];
  if (count_ == kSlots) {
    head_ = (head_ + 1) % kSlots;
    --count_;
  }
  window_[(head_ + count_) % kSlots] = {now, total_bytes};
  ++count_;
  const Point& oldest = window_[head_];
  const int64_t elapsed_us = (now - oldest.time).count();
  last_rate_ = elapsed_us > 0 ? static_cast<double>(total_bytes - oldest.bytes) * 1e6 /
                                    static_cast<double>(elapsed_us)
                              : 0;
  if (last_rate_ >= static_cast<double>(min_bytes_per_second_)) {
    slow_ = false;
    return false;
  }
  if (!slow_) {
    // Slow over the interval that ended now: it has been slow since that interval began.
    slow_ = true;
    slow_since_ = previous.time;
  }
  return now - slow_since_ >= low_speed_time_;
}

}  // namespace netstack
