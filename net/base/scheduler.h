// The stack's only source of time and deferred work. Every class that waits takes a Scheduler&
// so that the same code runs on libuv (live) and on virtual time (tests, replay).
#ifndef NET_BASE_SCHEDULER_H_
#define NET_BASE_SCHEDULER_H_

#include <cstdint>
#include <functional>
#include <queue>
#include <unordered_map>
#include <vector>

#include "net/base/time.h"

namespace netstack {

using TaskId = uint64_t;
inline constexpr TaskId kNoTask = 0;

// Single-threaded: all methods are called on the loop thread, and tasks run there.
class Scheduler {
 public:
  virtual ~Scheduler() = default;

  // The current time. Constant while one task runs on virtual time.
  virtual TimeTicks Now() const = 0;

  // Runs `task` once, no earlier than `delay` from Now() (a negative delay counts as zero).
  // Tasks run in order of due time, then of posting. Never runs `task` inside this call.
  // Returns an id for CancelTask; ids are never reused.
  virtual TaskId PostDelayedTask(TimeDelta delay, std::function<void()> task) = 0;

  // Same as PostDelayedTask with no delay.
  TaskId PostTask(std::function<void()> task) {
    return PostDelayedTask(TimeDelta::zero(), std::move(task));
  }

  // Drops a pending task (its function is destroyed now). Returns false if it already ran or was
  // cancelled.
  virtual bool CancelTask(TaskId id) = 0;
};

// The ordered task store both schedulers share: a binary heap of (due time, sequence) with lazy
// cancellation. Not a Scheduler itself.
class TaskQueue {
 public:
  TaskId Push(TimeTicks due, std::function<void()> task);
  bool Cancel(TaskId id);
  // Due time of the earliest live task; false if there is none.
  bool NextDue(TimeTicks* due);
  // Removes and returns the earliest live task if it is due at or before `now`.
  bool PopDue(TimeTicks now, std::function<void()>* task);
  size_t size() const { return tasks_.size(); }
  bool empty() const { return tasks_.empty(); }

 private:
  struct Key {
    TimeTicks due;
    TaskId id;
    bool operator>(const Key& o) const { return due != o.due ? due > o.due : id > o.id; }
  };
  void DropCancelledTop();

  std::priority_queue<Key, std::vector<Key>, std::greater<Key>> heap_;
  std::unordered_map<TaskId, std::function<void()>> tasks_;
  TaskId next_id_ = 1;
};

// A one-shot timer owned by its user: stopping or destroying it cancels the pending task, so a
// callback never runs after its owner is gone.
class OneShotTimer {
 public:
  explicit OneShotTimer(Scheduler& scheduler) : scheduler_(scheduler) {}
  ~OneShotTimer() { Stop(); }
  OneShotTimer(const OneShotTimer&) = delete;
  OneShotTimer& operator=(const OneShotTimer&) = delete;

  // Starts (or restarts) the timer: `task` runs after `delay` unless Stop() is called first.
  void Start(TimeDelta delay, std::function<void()> task);
  void Stop();
  bool IsRunning() const { return id_ != kNoTask; }
  // When the running timer fires; meaningless if not running.
  TimeTicks desired_run_time() const { return due_; }

 private:
  Scheduler& scheduler_;
  TaskId id_ = kNoTask;
  TimeTicks due_{};
};

}  // namespace netstack

#endif  // NET_BASE_SCHEDULER_H_
