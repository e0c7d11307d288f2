#include "net/base/scheduler.h"

#include <utility>

namespace netstack {

TaskId TaskQueue::Push(TimeTicks due, std::function<void()> task) {
  TaskId id = next_id_++;
  heap_.push(Key{due, id});
  tasks_.emplace(id, std::move(task));
  return id;
}

bool TaskQueue::Cancel(TaskId id) { return tasks_.erase(id) > 0; }

void TaskQueue::DropCancelledTop() {
  while (!heap_.empty() && !tasks_.count(heap_.top().id)) heap_.pop();
}

bool TaskQueue::NextDue(TimeTicks* due) {
  DropCancelledTop();
  if (heap_.empty()) return false;
  *due = heap_.top().due;
  return true;
}

bool TaskQueue::PopDue(TimeTicks now, std::function<void()>* task) {
  DropCancelledTop();
  if (heap_.empty() || heap_.top().due > now) return false;
  auto it = tasks_.find(heap_.top().id);
  heap_.pop();
  *task = std::move(it->second);
  tasks_.erase(it);
  return true;
}

void OneShotTimer::Start(TimeDelta delay, std::function<void()> task) {
  Stop();
  if (delay < TimeDelta::zero()) delay = TimeDelta::zero();
  due_ = scheduler_.Now() + delay;
  id_ = scheduler_.PostDelayedTask(delay, [this, task = std::move(task)]() {
    id_ = kNoTask;
    task();
  });
}

void OneShotTimer::Stop() {
  if (id_ != kNoTask) {
    scheduler_.CancelTask(id_);
    id_ = kNoTask;
  }
}

}  // namespace netstack
