// The stack's only source of time and deferred work. Every class that waits takes a Scheduler&
// so that the same code runs on libuv (live) and on virtual time (tests, replay).
#ifndef NET_BASE_SCHEDULER_H_
#define NET_BASE_SCHEDULER_H_

#include <cstdint>
#include <functional>
#include <utility>
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

// The ordered task store both schedulers share. Not a Scheduler itself.
//
// No hashing and no allocation per task (beyond what the std::function itself needs): functions
// live in a slot vector recycled through a free list, and an id names its slot directly (low 32
// bits) plus the slot's generation (high 32 bits), so Cancel finds the task in O(1). Order is
// kept by entries (due, posting sequence, id) in a 4-ary heap, plus a FIFO run for the common
// case of tasks posted for the current time (PostTask from a running task), which then cost O(1)
// instead of O(log n). A cancelled task's function is destroyed at once and its slot reused; its
// entry stays behind and is recognised as dead by the generation mismatch when it surfaces. When
// dead entries outnumber live ones they are swept, so however many timers are restarted memory
// stays bounded: 40 bytes of slot per task pending at the peak, and 24-byte entries at most twice
// as many as the tasks pending now (or 64).
class TaskQueue {
 public:
  TaskQueue() = default;
  TaskQueue(const TaskQueue&) = delete;
  TaskQueue& operator=(const TaskQueue&) = delete;

  // Adds `task`, due at `due`. Returns its id: never kNoTask and never reused by this queue.
  // Tasks pop in order of due time, then of Push.
  TaskId Push(TimeTicks due, std::function<void()> task);
  // Destroys the task's function now (before returning) and returns true if it is pending; false
  // if it already popped, was cancelled, or `id` was not issued by this queue.
  bool Cancel(TaskId id);
  // Due time of the earliest pending task; false if there is none.
  bool NextDue(TimeTicks* due);
  // Removes the earliest pending task if it is due at or before `now`: moves its function to
  // *task (whose previous function is destroyed) and, if `due` is not null, stores its due time
  // there. Returns false, changing nothing, if no task is due. The caller runs the task; Cancel
  // of its id returns false from here on.
  bool PopDue(TimeTicks now, std::function<void()>* task, TimeTicks* due = nullptr);
  // Number of pending (pushed, not popped, not cancelled) tasks.
  size_t size() const { return live_; }
  bool empty() const { return live_ == 0; }

  // A slot retires (is never reused) when its generation reaches `generation`, an even number;
  // by default when its 32-bit generation wraps, i.e. after 2^31 tasks. Tests lower it to check
  // that ids are not reused.
  void set_retire_generation_for_testing(uint32_t generation) { retire_generation_ = generation; }
  // Entries held for ordering, dead ones included (at most about twice size()).
  size_t entries_for_testing() const { return entries(); }

 private:
  // A generation is odd while the slot holds a pending task and even while it is free, so an id
  // (always of an odd generation) matches its slot only while that task is pending.
  struct Slot {
    std::function<void()> task;
    uint32_t generation = 0;
    uint32_t next_free = 0;  // Meaningful while free and on the free list.
  };
  // `seq` (the Push count) orders equal due times by posting, which ids cannot since slots are
  // reused.
  struct Entry {
    TimeTicks due;
    uint64_t seq;
    TaskId id;
  };
  static bool Before(const Entry& a, const Entry& b) {
    return a.due != b.due ? a.due < b.due : a.seq < b.seq;
  }
  static constexpr uint32_t kNoSlot = UINT32_MAX;

  bool IsLive(TaskId id) const {
    return slots_[static_cast<uint32_t>(id)].generation == static_cast<uint32_t>(id >> 32);
  }
  bool FifoEmpty() const { return fifo_head_ == fifo_.size(); }
  size_t entries() const { return heap_.size() + fifo_.size() - fifo_head_; }
  // Marks the slot of a task that popped or was cancelled free; its function must be empty.
  void Release(uint32_t slot);
  // Drops dead entries from the front of the FIFO and the top of the heap.
  void DropDeadFronts();
  void PopFifo();
  // The heap is 4-ary (children of i at 4i+1..4i+4): half a binary heap's depth, so a pop
  // touches fewer cache lines for about as many comparisons.
  void PushHeap(const Entry& entry);
  void PopHeap();
  // Moves `entry` down from the hole at `hole` to its place.
  void SiftDown(size_t hole, const Entry& entry);
  // Sweeps dead entries out of the heap and the FIFO once they are more than half of all (and
  // there are at least 64 entries: fewer are left to surface).
  void MaybeCompact() {
    const size_t n = entries();
    if (n >= 64 && n - live_ > n / 2) Compact();
  }
  void Compact();

  std::vector<Slot> slots_;
  uint32_t free_head_ = kNoSlot;
  size_t live_ = 0;
  uint64_t next_seq_ = 0;
  uint32_t retire_generation_ = 0;
  std::vector<Entry> heap_;
  // Entries in (due, seq) order, from fifo_head_ on. Push appends here rather than to the heap
  // when that keeps the order and the task is due no later than the heap's top, which is what a
  // task posted for now is.
  std::vector<Entry> fifo_;
  size_t fifo_head_ = 0;
};

// A one-shot timer owned by its user: stopping or destroying it cancels the pending task, so a
// callback never runs after its owner is gone. The project's one idiom for delayed work that
// its owner may cancel or outlive (net/base/README.md); a posted task that may outlive its owner
// and is never cancelled holds a WeakPtr instead (weak_ptr.h).
class OneShotTimer {
 public:
  explicit OneShotTimer(Scheduler& scheduler) : scheduler_(scheduler) {}
  ~OneShotTimer() { Stop(); }
  OneShotTimer(const OneShotTimer&) = delete;
  OneShotTimer& operator=(const OneShotTimer&) = delete;

  // Starts (or restarts) the timer: `task` (a copyable callable, void()) runs after `delay`
  // unless Stop() is called first. The task travels inside the posted function, next to `this`
  // (a task capturing one pointer fits std::function's inline storage with it: no allocation
  // per Start), so while it runs it belongs to the scheduler: it may restart or destroy this
  // timer.
  template <typename Task>
  void Start(TimeDelta delay, Task&& task) {
    Stop();
    if (delay < TimeDelta::zero()) delay = TimeDelta::zero();
    due_ = scheduler_.Now() + delay;
    id_ = scheduler_.PostDelayedTask(delay, [this, task = std::forward<Task>(task)]() mutable {
      id_ = kNoTask;
      task();
    });
  }
  // Cancels the pending task; its function (the task) is destroyed now.
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
