// Deterministic virtual time: nothing happens until the test or the simulator drives it.
#ifndef NET_BASE_VIRTUAL_SCHEDULER_H_
#define NET_BASE_VIRTUAL_SCHEDULER_H_

#include <functional>

#include "net/base/scheduler.h"

namespace netstack {

class VirtualScheduler : public Scheduler {
 public:
  explicit VirtualScheduler(TimeTicks start = TimeTicks{}) : now_(start) {}

  TimeTicks Now() const override { return now_; }
  TaskId PostDelayedTask(TimeDelta delay, std::function<void()> task) override;
  bool CancelTask(TaskId id) override;

  // Runs every task due now, including ones they post for now, without advancing time.
  // Returns the number of tasks run.
  size_t RunUntilIdle();

  // Advances time by `delta`, running each task at its due time (time jumps from one due time
  // to the next), and leaves Now() at start + delta.
  size_t AdvanceBy(TimeDelta delta);

  // Runs tasks, advancing time to each, until none remain or `max_tasks` have run (a guard
  // against self-rescheduling loops). Returns the number run.
  size_t RunAll(size_t max_tasks = 10'000'000);

  // Runs tasks until `done()` holds (Chrome's TaskEnvironment::RunUntil, on virtual time): runs
  // every task due now, asks `done()`, and while it is false jumps Now() to the next pending
  // task's due time and runs what is due then. Time never moves past the task that made
  // `done()` true, so later timers (idle sockets, TTLs) stay pending. Returns true once
  // `done()` holds; false if no task is left while it does not, or after `max_steps` jumps (a
  // bound, so a test whose condition never holds while tasks keep posting fails instead of
  // hanging). `done()` may itself run work (pump another thread's completions); tasks it posts
  // for now run before time moves.
  bool RunUntil(const std::function<bool()>& done, size_t max_steps = 10'000'000);

  size_t pending_tasks() const { return queue_.size(); }
  // Due time of the next pending task; false if none.
  bool NextTaskTime(TimeTicks* due) { return queue_.NextDue(due); }

 private:
  TaskQueue queue_;
  TimeTicks now_;
};

}  // namespace netstack

#endif  // NET_BASE_VIRTUAL_SCHEDULER_H_
