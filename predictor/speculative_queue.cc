#include "predictor/speculative_queue.h"

#include <algorithm>
#include <iterator>

#include "net/base/memory_usage_estimator.h"
namespace netstack {

const char* HintDropReasonName(HintDropReason reason) {
  switch (reason) {
    case HintDropReason::kExpired:
      return "expired";
    case HintDropReason::kLowValue:
      return "low-value";
    case HintDropReason::kRedundant:
      return "redundant";
    case HintDropReason::kQueueFull:
      return "queue-full";
  }
  return "unknown";
}

bool SpeculativeQueue::Order::operator()(const Entry& a, const Entry& b) const {
  if (a.hint.priority != b.hint.priority) return a.hint.priority > b.hint.priority;
  if (a.hint.likelihood != b.hint.likelihood) return a.hint.likelihood > b.hint.likelihood;
  return a.seq < b.seq;
}

SpeculativeQueue::SpeculativeQueue(const PredictorConfig& config, Scheduler& scheduler,
                                   SpeculationTarget* target, PredictorPolicy* policy,
                                   PredictorStats* stats, Delegate* delegate)
    : config_(config),
      scheduler_(scheduler),
      target_(target),
      policy_(policy),
      stats_(stats),
      delegate_(delegate) {}

SpeculativeQueue::~SpeculativeQueue() = default;

void SpeculativeQueue::Add(const Hint& hint) {
  ++stats_->hints;
  queue_.insert(Entry{hint, next_seq_++});
  // The bound: the lowest-ranked hint goes, which may be the one just added.
  while (queue_.size() > std::max<size_t>(config_.max_queued_hints, 1))
    Drop(std::prev(queue_.end()), HintDropReason::kQueueFull);
  Pump();
}

int SpeculativeQueue::Budget() const {
  int budget = config_.max_in_flight;
  if (policy_) budget = std::min(budget, policy_->Budget(scheduler_.Now()));
  return std::max(budget, 0);
}

bool SpeculativeQueue::TargetSaysRedundant(const Hint& hint) const {
  switch (hint.action) {
    case SpeculativeAction::kPreresolve:
      return target_->IsResolved(hint.origin);
    case SpeculativeAction::kPreconnect:
      return target_->SocketCount(hint.origin) >= hint.sockets;
    case SpeculativeAction::kFetchAhead:
      // Without an HTTP cache a fetch ahead cannot help: nothing to do.
      return !target_->CanFetchAhead();
  }
  return false;
}

void SpeculativeQueue::Pump() {
  if (pumping_) {
    PostPump();
    return;
  }
  pumping_ = true;
  const TimeTicks now = scheduler_.Now();
  // Expired hints go first, wherever they are in the order.
  for (auto it = queue_.begin(); it != queue_.end();) {
    auto next = std::next(it);
    if (it->hint.expires != TimeTicks{} && it->hint.expires <= now)
      Drop(it, HintDropReason::kExpired);
    it = next;
  }
  const int budget = Budget();
  for (auto it = queue_.begin(); it != queue_.end() && in_flight_ < budget;) {
    const Hint& hint = it->hint;
    const bool resolve = hint.action == SpeculativeAction::kPreresolve;
    if (resolve && resolves_in_flight_ >= config_.max_resolves_in_flight) {
      ++it;  // waits for a resolve slot; other kinds behind it may go
      continue;
    }
    auto next = std::next(it);
    if (TargetSaysRedundant(hint) || delegate_->IsRedundant(hint, now)) {
      Drop(it, HintDropReason::kRedundant);
    } else if (policy_ && !policy_->ShouldStart(hint, now)) {
      Drop(it, HintDropReason::kLowValue);
    } else {
      Hint started = hint;
      queue_.erase(it);
      ++stats_->hints_started;
      // Counted before the start: the delegate may report the end of another action meanwhile.
      ++in_flight_;
      if (resolve) ++resolves_in_flight_;
      if (!delegate_->StartAction(started)) {
        --in_flight_;
        if (resolve) --resolves_in_flight_;
      }
    }
    it = next;
  }
  pumping_ = false;
}

void SpeculativeQueue::OnActionDone(SpeculativeAction action) {
  if (in_flight_ > 0) --in_flight_;
  if (action == SpeculativeAction::kPreresolve && resolves_in_flight_ > 0) --resolves_in_flight_;
  if (!queue_.empty()) PostPump();
}

void SpeculativeQueue::DropAll(HintDropReason reason) {
  while (!queue_.empty()) Drop(queue_.begin(), reason);
}

std::vector<Hint> SpeculativeQueue::QueuedHints() const {
  std::vector<Hint> out;
  for (const Entry& e : queue_) out.push_back(e.hint);
  return out;
}

void SpeculativeQueue::Drop(Queue::iterator it, HintDropReason reason) {
  Hint hint = it->hint;
  queue_.erase(it);
  switch (reason) {
    case HintDropReason::kExpired:
      ++stats_->hints_expired;
      break;
    case HintDropReason::kLowValue:
      ++stats_->hints_low_value;
      break;
    case HintDropReason::kRedundant:
      ++stats_->hints_redundant;
      break;
    case HintDropReason::kQueueFull:
      ++stats_->hints_queue_full;
      break;
  }
  delegate_->OnHintDropped(hint, reason);
}

void SpeculativeQueue::PostPump() {
  if (pump_posted_) return;
  pump_posted_ = true;
  scheduler_.PostTask([weak = weak_factory_.GetWeakPtr()] {
    SpeculativeQueue* queue = weak.get();
    if (!queue) return;
    queue->pump_posted_ = false;
    queue->Pump();
  });
}

size_t SpeculativeQueue::EstimateMemoryUsage() const {
  size_t bytes = queue_.size() * TreeNodeBytes<Entry>();
  for (const Entry& entry : queue_)
    bytes += netstack::EstimateMemoryUsage(entry.hint.origin) +
             netstack::EstimateMemoryUsage(entry.hint.url) +
             netstack::EstimateMemoryUsage(entry.hint.page);
  return bytes;
}

}  // namespace netstack
