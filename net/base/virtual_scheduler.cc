#include "net/base/virtual_scheduler.h"

#include <utility>

namespace netstack {

TaskId VirtualScheduler::PostDelayedTask(TimeDelta delay, std::function<void()> task) {
  if (delay < TimeDelta::zero()) delay = TimeDelta::zero();
  return queue_.Push(now_ + delay, std::move(task));
}

bool VirtualScheduler::CancelTask(TaskId id) { return queue_.Cancel(id); }

size_t VirtualScheduler::RunUntilIdle() {
  size_t ran = 0;
  std::function<void()> task;
  while (queue_.PopDue(now_, &task)) {
    task();
    ++ran;
  }
  return ran;
}

size_t VirtualScheduler::AdvanceBy(TimeDelta delta) {
  const TimeTicks end = now_ + delta;
  size_t ran = 0;
  TimeTicks due;
  while (queue_.NextDue(&due) && due <= end) {
    if (due > now_) now_ = due;
    ran += RunUntilIdle();
  }
  now_ = end;
  return ran;
}

size_t VirtualScheduler::RunAll(size_t max_tasks) {
  size_t ran = 0;
  TimeTicks due;
  std::function<void()> task;
  while (ran < max_tasks && queue_.NextDue(&due)) {
    if (due > now_) now_ = due;
    if (queue_.PopDue(now_, &task)) {
      task();
      ++ran;
    }
  }
  return ran;
}

}  // namespace netstack
