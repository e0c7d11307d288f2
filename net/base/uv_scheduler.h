// The live Scheduler: one uv_timer_t on the caller's loop, armed for the earliest task.
#ifndef NET_BASE_UV_SCHEDULER_H_
#define NET_BASE_UV_SCHEDULER_H_

#include <uv.h>

#include "net/base/scheduler.h"

namespace netstack {

class UvScheduler : public Scheduler {
 public:
  // `loop` must outlive this object. Now() is 1 s at construction (never the null time).
  explicit UvScheduler(uv_loop_t* loop);
  // Closes the timer handle; its memory is freed in the close callback, so the loop must run
  // once more after this (uv_run until uv_loop_close succeeds). Pending tasks are dropped.
  ~UvScheduler() override;

  TimeTicks Now() const override;
  TaskId PostDelayedTask(TimeDelta delay, std::function<void()> task) override;
  bool CancelTask(TaskId id) override;

  uv_loop_t* loop() const { return loop_; }

 private:
  static void OnTimer(uv_timer_t* timer);
  void RunDueTasks();
  void Rearm();

  uv_loop_t* loop_;
  uv_timer_t* timer_;  // Owned; freed in its close callback.
  uint64_t origin_ns_;
  TaskQueue queue_;
  bool running_tasks_ = false;
};

}  // namespace netstack

#endif  // NET_BASE_UV_SCHEDULER_H_
