#include "net/base/virtual_scheduler.h"

#include <utility>

namespace netstack {

TaskId VirtualScheduler::PostDelayedTask(TimeDelta delay, std::function<void()> task) {
  if (delay < TimeDelta::zero()) delay = TimeDelta::zero();
  return queue_.Push(now_ + delay, std::move(task));
}

bool VirtualScheduler::CancelTask(TaskId id) { return queue_.Cancel(id); }

// Each loop below pops the next task and runs it with one queue call per task. A task's function
// is destroyed as soon as it has run, so what it captured is released before the next one runs.

size_t VirtualScheduler::RunUntilIdle() {
  size_t ran = 0;
  std::function<void()> task;
  while (queue_.PopDue(now_, &task)) {
    task();
    task = nullptr;
    ++ran;
  }
  return ran;
}

size_t VirtualScheduler::AdvanceBy(TimeDelta delta) {
  const TimeTicks end = now_ + delta;
  size_t ran = 0;
  std::function<void()> task;
  TimeTicks due;
  // Equivalent to "jump to the next due time, run everything due then, repeat": tasks pop in
  // (due, posting) order, including those posted for now by the tasks run.
  while (queue_.PopDue(end, &task, &due)) {
    if (due > now_) now_ = due;
    task();
    task = nullptr;
    ++ran;
  }
  now_ = end;
  return ran;
}

size_t VirtualScheduler::RunAll(size_t max_tasks) {
  size_t ran = 0;
  std::function<void()> task;
  TimeTicks due;
  while (ran < max_tasks && queue_.PopDue(TimeTicks::max(), &task, &due)) {
    if (due > now_) now_ = due;
    task();
    task = nullptr;
    ++ran;
  }
  return ran;
}

bool VirtualScheduler::RunUntil(const std::function<bool()>& done, size_t max_steps) {
  for (size_t step = 0; step < max_steps; ++step) {
    RunUntilIdle();
    if (done()) return true;
    TimeTicks due;
    if (!queue_.NextDue(&due)) return false;
    AdvanceBy(due - now_);
  }
  return done();
}

}  // namespace netstack
