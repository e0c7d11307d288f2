#include "net/base/scheduler.h"

#include <algorithm>
#include <utility>

namespace netstack {

namespace {

// The FIFO's consumed prefix is erased once it is this long and more than half the vector (the
// vector is simply cleared whenever it empties, which is the common case).
constexpr size_t kFifoShiftSize = 1024;

}  // namespace

TaskId TaskQueue::Push(TimeTicks due, std::function<void()> task) {
  uint32_t slot = free_head_;
  if (slot != kNoSlot) {
    free_head_ = slots_[slot].next_free;
  } else {
    // Bounded by memory long before 2^32 - 1 slots (40 bytes each).
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[slot];
  s.task = std::move(task);
  const uint32_t generation = ++s.generation;  // Even (free) to odd (pending).
  const TaskId id = (static_cast<TaskId>(generation) << 32) | slot;
  ++live_;
  const Entry entry{due, next_seq_++, id};
  // The FIFO stays sorted because only a task due no earlier than its last entry joins it (seq
  // grows anyway). Requiring a non-empty heap keeps a lone far-off timer out of it: at its end,
  // it would send every task posted for now to the heap until it ran.
  if (!heap_.empty() && due <= heap_.front().due && (FifoEmpty() || due >= fifo_.back().due)) {
    fifo_.push_back(entry);
  } else {
    PushHeap(entry);
  }
  return id;
}

bool TaskQueue::Cancel(TaskId id) {
  const uint32_t slot = static_cast<uint32_t>(id);
  const uint32_t generation = static_cast<uint32_t>(id >> 32);
  // Even generations are free slots; kNoTask (generation 0) is one of them.
  if (slot >= slots_.size() || (generation & 1) == 0 || slots_[slot].generation != generation)
    return false;
  // The function's destructor may re-enter (cancel or post tasks, growing slots_), so the queue
  // is made consistent first and the function destroyed last.
  std::function<void()> doomed = std::exchange(slots_[slot].task, nullptr);
  Release(slot);
  MaybeCompact();
  return true;
}

void TaskQueue::Release(uint32_t slot) {
  Slot& s = slots_[slot];
  --live_;
  // Odd (pending) to even (free). A slot whose generations are used up retires instead of
  // returning to the free list, so that no id is ever issued twice.
  if (++s.generation == retire_generation_) return;
  s.next_free = free_head_;
  free_head_ = slot;
}

void TaskQueue::PopFifo() {
  if (++fifo_head_ == fifo_.size()) {
    fifo_.clear();
    fifo_head_ = 0;
  } else if (fifo_head_ >= kFifoShiftSize && fifo_head_ * 2 > fifo_.size()) {
    fifo_.erase(fifo_.begin(), fifo_.begin() + static_cast<ptrdiff_t>(fifo_head_));
    fifo_head_ = 0;
  }
}

void TaskQueue::PushHeap(const Entry& entry) {
  size_t hole = heap_.size();
  heap_.push_back(entry);
  while (hole > 0) {
    const size_t parent = (hole - 1) / 4;
    if (!Before(entry, heap_[parent])) break;
    heap_[hole] = heap_[parent];
    hole = parent;
  }
  heap_[hole] = entry;
}

void TaskQueue::PopHeap() {
  const Entry last = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) SiftDown(0, last);
}

void TaskQueue::SiftDown(size_t hole, const Entry& entry) {
  const size_t n = heap_.size();
  for (;;) {
    const size_t first = 4 * hole + 1;
    if (first >= n) break;
    const size_t end = std::min(first + 4, n);
    size_t best = first;
    for (size_t c = first + 1; c < end; ++c)
      if (Before(heap_[c], heap_[best])) best = c;
    if (!Before(heap_[best], entry)) break;
    heap_[hole] = heap_[best];
    hole = best;
  }
  heap_[hole] = entry;
}

void TaskQueue::DropDeadFronts() {
  while (!FifoEmpty() && !IsLive(fifo_[fifo_head_].id)) PopFifo();
  while (!heap_.empty() && !IsLive(heap_.front().id)) PopHeap();
}

void TaskQueue::Compact() {
  auto dead = [this](const Entry& e) { return !IsLive(e.id); };
  std::erase_if(heap_, dead);
  if (heap_.size() > 1) {
    // Every parent, bottom up (the last one is the parent of the last entry).
    for (size_t i = (heap_.size() - 2) / 4 + 1; i-- > 0;) SiftDown(i, Entry(heap_[i]));
  }
  fifo_.erase(fifo_.begin(), fifo_.begin() + static_cast<ptrdiff_t>(fifo_head_));
  fifo_head_ = 0;
  std::erase_if(fifo_, dead);  // Keeps the order.
}

bool TaskQueue::NextDue(TimeTicks* due) {
  DropDeadFronts();
  if (FifoEmpty() && heap_.empty()) return false;
  if (heap_.empty() || (!FifoEmpty() && Before(fifo_[fifo_head_], heap_.front())))
    *due = fifo_[fifo_head_].due;
  else
    *due = heap_.front().due;
  return true;
}

bool TaskQueue::PopDue(TimeTicks now, std::function<void()>* task, TimeTicks* due) {
  DropDeadFronts();
  Entry next;
  if (!FifoEmpty() && (heap_.empty() || Before(fifo_[fifo_head_], heap_.front()))) {
    next = fifo_[fifo_head_];
    if (next.due > now) return false;
    PopFifo();
  } else {
    if (heap_.empty() || heap_.front().due > now) return false;
    next = heap_.front();
    PopHeap();
  }
  const uint32_t slot = static_cast<uint32_t>(next.id);
  std::function<void()> popped = std::exchange(slots_[slot].task, nullptr);
  Release(slot);
  if (due) *due = next.due;
  MaybeCompact();  // Pops shrink the live count too: keeps entries within twice of it.
  // Last, for the same reason as in Cancel: this destroys the caller's previous function.
  *task = std::move(popped);
  return true;
}

void OneShotTimer::Stop() {
  // Cleared first: the function's destructor (run by CancelTask) may restart this timer.
  if (id_ != kNoTask) scheduler_.CancelTask(std::exchange(id_, kNoTask));
}

}  // namespace netstack
