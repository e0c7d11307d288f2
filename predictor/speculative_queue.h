// SpeculativeQueue: where hints wait for a slot of speculative work. Hints are ordered by
// priority (higher first), then likelihood (higher first), then arrival (FIFO); the queue holds
// at most PredictorConfig::max_queued_hints (one more drops the lowest-ranked hint, counted as
// queue_full). A pump drops expired hints (counted), then starts hints from the top while the
// budget allows: budget = min(policy->Budget(now), config.max_in_flight) actions in flight, and
// at most config.max_resolves_in_flight pre-resolves among them (Chrome's 3; a pre-resolve over
// that limit waits while hints of other kinds behind it may start). At the top, a hint is
// dropped as redundant when starting it would do nothing (see Delegate::IsRedundant and the
// target's IsResolved / SocketCount), or as low-value when policy->ShouldStart says no.
//
// No timer: expired hints go at the next pump; the queue pumps when a hint comes (synchronously)
// and when an action ends (in a posted task, since the end may be reported from inside a pool
// method). Deterministic: the same calls at the same times give the same actions.
#ifndef PREDICTOR_SPECULATIVE_QUEUE_H_
#define PREDICTOR_SPECULATIVE_QUEUE_H_

#include <cstdint>
#include <set>
#include <vector>

#include "net/base/scheduler.h"
#include "net/base/weak_ptr.h"
#include "predictor/hint.h"
#include "predictor/predictor_config.h"
#include "predictor/predictor_policy.h"
#include "predictor/predictor_stats.h"
#include "predictor/speculation_target.h"

namespace netstack {

// Why a hint ended without becoming an action (PREDICTOR_HINT_DROPPED's "reason").
enum class HintDropReason { kExpired, kLowValue, kRedundant, kQueueFull };
// "expired", "low-value", "redundant", "queue-full".
const char* HintDropReasonName(HintDropReason reason);

class SpeculativeQueue {
 public:
  class Delegate {
   public:
    virtual ~Delegate() = default;
    // Redundancy the target cannot see (a pre-resolve of the host already running, a URL
    // fetched ahead and not yet expired). Asked after the target's checks.
    virtual bool IsRedundant(const Hint& hint, TimeTicks now) { return false; }
    // Starts `hint`'s action. Returns true if it is now in flight: the delegate then calls
    // OnActionDone(hint.action) exactly once, later. False if it ended at once (done or failed).
    virtual bool StartAction(const Hint& hint) = 0;
    // `hint` left the queue without starting (already counted in the stats).
    virtual void OnHintDropped(const Hint& hint, HintDropReason reason) {}
  };

  // Every pointer but `policy` (null: "off", the budget is config.max_in_flight) must outlive
  // the queue. `stats` receives the hint counters.
  SpeculativeQueue(const PredictorConfig& config, Scheduler& scheduler, SpeculationTarget* target,
                   PredictorPolicy* policy, PredictorStats* stats, Delegate* delegate);
  ~SpeculativeQueue();
  SpeculativeQueue(const SpeculativeQueue&) = delete;
  SpeculativeQueue& operator=(const SpeculativeQueue&) = delete;

  // Queues `hint` (counted in stats.hints), applies the bound, then pumps: a hint that can
  // start starts before this returns.
  void Add(const Hint& hint);

  // Drops expired hints, then starts what the budget allows. Never re-entered: a call from
  // inside a pump (through the delegate) is deferred to a posted pump.
  void Pump();

  // An action StartAction reported in flight ended: its slot frees and a pump is posted (one at
  // a time). Safe to call from inside a pool observer call.
  void OnActionDone(SpeculativeAction action);

  // Drops every queued hint as `reason` (Predictor::Finish: expired). No pump afterwards.
  void DropAll(HintDropReason reason);

  size_t size() const { return queue_.size(); }
  int in_flight() const { return in_flight_; }
  int resolves_in_flight() const { return resolves_in_flight_; }
  // The budget now: min(policy->Budget(now), config.max_in_flight), at least 0.
  int Budget() const;
  // The queued hints, best first.
  std::vector<Hint> QueuedHints() const;
  // For the Memory view: an estimate of the heap bytes the queued hints hold, not counting
  // sizeof(SpeculativeQueue). See net/base/memory_usage_estimator.h.
  size_t EstimateMemoryUsage() const;

 private:
  struct Entry {
    Hint hint;
    uint64_t seq = 0;
  };
  struct Order {
    bool operator()(const Entry& a, const Entry& b) const;
  };
  using Queue = std::multiset<Entry, Order>;

  void Drop(Queue::iterator it, HintDropReason reason);
  bool TargetSaysRedundant(const Hint& hint) const;
  void PostPump();

  const PredictorConfig& config_;
  Scheduler& scheduler_;
  SpeculationTarget* const target_;
  PredictorPolicy* const policy_;
  PredictorStats* const stats_;
  Delegate* const delegate_;

  Queue queue_;
  uint64_t next_seq_ = 0;
  int in_flight_ = 0;
  int resolves_in_flight_ = 0;
  bool pumping_ = false;
  bool pump_posted_ = false;

  WeakPtrFactory<SpeculativeQueue> weak_factory_{this};
};

}  // namespace netstack

#endif  // PREDICTOR_SPECULATIVE_QUEUE_H_
