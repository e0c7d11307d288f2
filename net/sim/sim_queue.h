// SimQueue: a FIFO over a vector that reuses its storage: the queues of a modelled connection
// hold a few entries at a time, and std::deque would allocate a block per connection up front.
// Internal to net/sim.
#ifndef NET_SIM_SIM_QUEUE_H_
#define NET_SIM_SIM_QUEUE_H_

#include <cstddef>
#include <utility>
#include <vector>

namespace netstack {

template <typename T>
class SimQueue {
 public:
  bool empty() const { return head_ == items_.size(); }
  size_t size() const { return items_.size() - head_; }
  T& front() { return items_[head_]; }
  const T& front() const { return items_[head_]; }
  T& back() { return items_.back(); }
  void push_back(T item) { items_.push_back(std::move(item)); }
  // Drops the front entry. The storage is reused once the queue is empty, and compacted when
  // most of it is dead, so a queue that never drains stays as large as its live entries.
  void pop_front() {
    items_[head_] = T();
    if (++head_ == items_.size()) {
      clear();
    } else if (head_ >= 16 && head_ * 2 >= items_.size()) {
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }
  void clear() {
    items_.clear();
    head_ = 0;
  }

 private:
  std::vector<T> items_;
  size_t head_ = 0;
};

}  // namespace netstack

#endif  // NET_SIM_SIM_QUEUE_H_
