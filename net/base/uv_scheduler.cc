#include "net/base/uv_scheduler.h"

#include <utility>

namespace netstack {

UvScheduler::UvScheduler(uv_loop_t* loop)
    // Now() starts at 1 s, not 0: TimeTicks{} means "not set" (time.h).
    : loop_(loop), timer_(new uv_timer_t), origin_ns_(uv_hrtime() - 1'000'000'000) {
  uv_timer_init(loop_, timer_);
  timer_->data = this;
}

UvScheduler::~UvScheduler() {
  uv_timer_stop(timer_);
  timer_->data = nullptr;
  uv_close(reinterpret_cast<uv_handle_t*>(timer_),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
}

TimeTicks UvScheduler::Now() const {
  return TimeTicks(TimeDelta(static_cast<int64_t>((uv_hrtime() - origin_ns_) / 1000)));
}

TaskId UvScheduler::PostDelayedTask(TimeDelta delay, std::function<void()> task) {
  if (delay < TimeDelta::zero()) delay = TimeDelta::zero();
  TaskId id = queue_.Push(Now() + delay, std::move(task));
  if (!running_tasks_) Rearm();
  return id;
}

bool UvScheduler::CancelTask(TaskId id) { return queue_.Cancel(id); }

void UvScheduler::OnTimer(uv_timer_t* timer) {
  auto* self = static_cast<UvScheduler*>(timer->data);
  if (self) self->RunDueTasks();
}

void UvScheduler::RunDueTasks() {
  running_tasks_ = true;
  // Tasks posted while running get a due time after `now` unless their delay is zero; those run
  // on the next timer callback so that a task posting itself cannot starve I/O.
  const TimeTicks now = Now();
  size_t budget = queue_.size();
  std::function<void()> task;
  while (budget-- > 0 && queue_.PopDue(now, &task)) task();
  running_tasks_ = false;
  Rearm();
}

void UvScheduler::Rearm() {
  TimeTicks due;
  if (!queue_.NextDue(&due)) {
    uv_timer_stop(timer_);
    return;
  }
  TimeDelta wait = due - Now();
  // libuv timers have millisecond resolution; round up so a task never runs early.
  uint64_t ms = wait <= TimeDelta::zero() ? 0 : static_cast<uint64_t>((wait.count() + 999) / 1000);
  uv_timer_start(timer_, &UvScheduler::OnTimer, ms, 0);
}

}  // namespace netstack
