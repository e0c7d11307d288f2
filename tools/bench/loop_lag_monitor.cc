#include "tools/bench/loop_lag_monitor.h"

#include <algorithm>

namespace netstack {

LoopLagMonitor::LoopLagMonitor(uv_loop_t* loop, uint64_t interval_ms)
    : loop_(loop), interval_ms_(interval_ms), timer_(new uv_timer_t), prepare_(new uv_prepare_t) {
  uv_timer_init(loop_, timer_);
  timer_->data = this;
  uv_prepare_init(loop_, prepare_);
  prepare_->data = this;
  // Watching the poll must not keep the loop alive.
  uv_unref(reinterpret_cast<uv_handle_t*>(prepare_));
}

LoopLagMonitor::~LoopLagMonitor() {
  uv_timer_stop(timer_);
  uv_prepare_stop(prepare_);
  timer_->data = nullptr;
  prepare_->data = nullptr;
  uv_close(reinterpret_cast<uv_handle_t*>(timer_),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
  uv_close(reinterpret_cast<uv_handle_t*>(prepare_),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_prepare_t*>(h); });
}

void LoopLagMonitor::Start() {
  lateness_us_ = SampleSet();
  blocked_us_ = SampleSet();
  wait_ns_ = run_delay_.WaitNs();
  planned_wake_ns_ = 0;
  uv_update_time(loop_);
  due_ms_ = uv_now(loop_) + interval_ms_;
  uv_timer_start(timer_, &LoopLagMonitor::OnTimer, interval_ms_, interval_ms_);
  uv_prepare_start(prepare_, &LoopLagMonitor::OnPrepare);
}

void LoopLagMonitor::Stop() {
  uv_timer_stop(timer_);
  uv_prepare_stop(prepare_);
}

void LoopLagMonitor::OnPrepare(uv_prepare_t* prepare) {
  auto* self = static_cast<LoopLagMonitor*>(prepare->data);
  if (!self) return;
  // Prepare handles run right before uv_run computes the same timeout and polls with it.
  int timeout_ms = uv_backend_timeout(self->loop_);
  self->planned_wake_ns_ =
      timeout_ms > 0 ? uv_hrtime() + static_cast<uint64_t>(timeout_ms) * 1'000'000 : 0;
}

void LoopLagMonitor::OnTimer(uv_timer_t* timer) {
  auto* self = static_cast<LoopLagMonitor*>(timer->data);
  if (!self) return;
  const uint64_t now_ns = uv_hrtime();
  const uint64_t due_ns = self->due_ms_ * 1'000'000;
  const uint64_t wait_ns = self->run_delay_.WaitNs();
  const double late_us = now_ns > due_ns ? static_cast<double>(now_ns - due_ns) / 1e3 : 0;
  const uint64_t expected_ns = std::max(due_ns, self->planned_wake_ns_);
  const double beyond_us =
      now_ns > expected_ns ? static_cast<double>(now_ns - expected_ns) / 1e3 : 0;
  self->lateness_us_.Add(late_us);
  self->blocked_us_.Add(
      std::max(0.0, beyond_us - static_cast<double>(wait_ns - self->wait_ns_) / 1e3));
  self->wait_ns_ = wait_ns;
  self->planned_wake_ns_ = 0;
  // libuv re-armed the timer before this callback, from the loop's present millisecond time.
  self->due_ms_ = uv_now(self->loop_) + uv_timer_get_due_in(timer);
}

}  // namespace netstack
