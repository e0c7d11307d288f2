#include "predictor/predictor.h"

#include <algorithm>
#include <utility>

#include "net/base/memory_usage_estimator.h"
#include "net/base/weak_ptr.h"
#include "predictor/action_accounting.h"
#include "predictor/speculation_target.h"
#include "predictor/speculative_queue.h"

namespace netstack {

namespace {

bool IsValidOrigin(const SchemeHostPort& origin) {
  return (origin.scheme == "http" || origin.scheme == "https") && !origin.host.empty() &&
         origin.port != 0;
}

}  // namespace

// Wires the queue, the accounting and the target together; the facade forwards to it.
class Predictor::Impl : public SpeculativeQueue::Delegate {
 public:
  Impl(const PredictorConfig& config, Scheduler& scheduler, SpeculationTarget* target,
       NetLog* net_log, PredictorPolicy* policy)
      : scheduler_(scheduler),
        target_(target),
        policy_(policy),
        net_log_(net_log ? NetLogWithSource::Make(net_log, NetLogSourceType::PREDICTOR)
                         : NetLogWithSource()),
        accounting_(config, &stats_, policy, net_log_,
                    [this](ActionAccounting::ActionId) {
                      queue_.OnActionDone(SpeculativeAction::kPreconnect);
                    }),
        queue_(config, scheduler, target, policy, &stats_, this) {}

  TimeTicks Now() const { return scheduler_.Now(); }

  // Normalizes `hint`, logs it and queues it; an unusable hint is counted and dropped.
  void AddHint(Hint hint) {
    if (finished_) return;
    if (hint.created == TimeTicks{}) hint.created = Now();
    if (hint.action == SpeculativeAction::kFetchAhead && hint.url.is_valid() &&
        !IsValidOrigin(hint.origin)) {
      hint.origin = hint.url.scheme_host_port();
    }
    hint.likelihood = std::clamp(hint.likelihood, 0.0, 1.0);
    hint.sockets = std::max(hint.sockets, 1);
    net_log_.AddEvent(NetLogEventType::PREDICTOR_HINT, [&] {
      return nlohmann::json{{"motivation", HintMotivationName(hint.motivation)},
                            {"action", SpeculativeActionName(hint.action)},
                            {"target", HintTarget(hint)},
                            {"likelihood", hint.likelihood},
                            {"priority", hint.priority},
                            {"page", hint.page}};
    });
    const bool valid = IsValidOrigin(hint.origin) &&
                       (hint.action != SpeculativeAction::kFetchAhead || hint.url.is_valid());
    if (!valid) {
      ++stats_.hints;
      ++stats_.hints_invalid;
      LogDropped(hint, "invalid");
      return;
    }
    queue_.Add(hint);
  }

  void AddHints(const std::vector<Hint>& hints) {
    for (const Hint& hint : hints) AddHint(hint);
  }

  // SpeculativeQueue::Delegate.
  bool IsRedundant(const Hint& hint, TimeTicks now) override {
    return accounting_.IsRedundant(hint, now);
  }

  bool StartAction(const Hint& hint) override {
    const TimeTicks now = Now();
    net_log_.AddEvent(NetLogEventType::PREDICTOR_ACTION, [&] {
      nlohmann::json j = {{"action", SpeculativeActionName(hint.action)},
                          {"motivation", HintMotivationName(hint.motivation)},
                          {"target", HintTarget(hint)}};
      if (hint.action == SpeculativeAction::kPreconnect) j["sockets"] = hint.sockets;
      return j;
    });
    const ActionAccounting::ActionId id = accounting_.OnActionStarted(hint, now);
    WeakPtr<Impl> weak = weak_factory_.GetWeakPtr();
    switch (hint.action) {
      case SpeculativeAction::kPreresolve: {
        int rv = target_->Preresolve(hint.origin, net_log_, [weak, id](int result) {
          if (Impl* impl = weak.get())
            impl->OnTargetDone(SpeculativeAction::kPreresolve, id, result);
        });
        if (rv == ERR_IO_PENDING) return true;
        accounting_.OnResolveDone(id, rv, now);
        return false;
      }
      case SpeculativeAction::kPreconnect: {
        int rv = target_->Preconnect(hint.origin, hint.sockets, net_log_);
        return accounting_.EndPreconnect(id, rv, now);
      }
      case SpeculativeAction::kFetchAhead: {
        int rv = target_->FetchAhead(hint.url, net_log_, [weak, id](int result) {
          if (Impl* impl = weak.get())
            impl->OnTargetDone(SpeculativeAction::kFetchAhead, id, result);
        });
        if (rv == ERR_IO_PENDING) return true;
        accounting_.OnFetchDone(id, rv, now);
        return false;
      }
    }
    return false;
  }

  void OnHintDropped(const Hint& hint, HintDropReason reason) override {
    LogDropped(hint, HintDropReasonName(reason));
  }

  void OnTargetDone(SpeculativeAction action, ActionAccounting::ActionId id, int result) {
    if (action == SpeculativeAction::kPreresolve) {
      accounting_.OnResolveDone(id, result, Now());
    } else {
      accounting_.OnFetchDone(id, result, Now());
    }
    queue_.OnActionDone(action);
  }

  void LogDropped(const Hint& hint, const char* reason) {
    net_log_.AddEvent(NetLogEventType::PREDICTOR_HINT_DROPPED, [&] {
      return nlohmann::json{{"reason", reason}, {"target", HintTarget(hint)}};
    });
  }

  void Finish() {
    if (finished_) return;
    queue_.DropAll(HintDropReason::kExpired);
    accounting_.Finish(Now());
    finished_ = true;
  }

  Scheduler& scheduler_;
  SpeculationTarget* const target_;
  PredictorPolicy* const policy_;
  NetLogWithSource net_log_;
  PredictorStats stats_;
  ActionAccounting accounting_;
  SpeculativeQueue queue_;
  bool finished_ = false;

  WeakPtrFactory<Impl> weak_factory_{this};
};

Predictor::Predictor(const PredictorConfig& config, Scheduler& scheduler, SpeculationTarget* target,
                     NetLog* net_log)
    : Predictor(config, scheduler, target, net_log, CreatePredictorPolicy(config)) {}

Predictor::Predictor(const PredictorConfig& config, Scheduler& scheduler, SpeculationTarget* target,
                     NetLog* net_log, std::unique_ptr<PredictorPolicy> policy)
    : config_(config),
      policy_(std::move(policy)),
      impl_(std::make_unique<Impl>(config_, scheduler, target, net_log, policy_.get())) {}

Predictor::~Predictor() { Observe(nullptr); }

void Predictor::Observe(ClientSocketPool* pool) {
  if (observed_pool_ == pool) return;
  if (observed_pool_) observed_pool_->RemoveObserver(this);
  observed_pool_ = pool;
  if (observed_pool_) observed_pool_->AddObserver(this);
}

void Predictor::OnStartup() {
  if (!policy_ || impl_->finished_) return;
  std::vector<Hint> hints;
  policy_->OnStartup(impl_->Now(), &hints);
  impl_->AddHints(hints);
}

void Predictor::OnNavigation(const Url& page) {
  if (impl_->finished_) return;
  impl_->accounting_.OnNavigation(page, impl_->Now());
  if (!policy_) return;
  std::vector<Hint> hints;
  policy_->OnNavigation(page, impl_->Now(), &hints);
  impl_->AddHints(hints);
}

void Predictor::OnResourceRequested(const Url& page, const Url& url) {
  if (impl_->finished_) return;
  impl_->accounting_.OnResourceRequested(page, url, impl_->Now());
  if (policy_) policy_->OnResourceRequested(page, url, impl_->Now());
}

void Predictor::OnResourceServed(const Url& page, const Url& url, CacheDisposition cache,
                                 SocketSource connection) {
  if (impl_->finished_) return;
  impl_->accounting_.OnResourceServed(page, url, cache, connection, impl_->Now());
  if (policy_) {
    policy_->OnResourceServed(page, url,
                              cache != CacheDisposition::kHit && cache != CacheDisposition::kStale,
                              impl_->Now());
  }
}

void Predictor::OnNavigationComplete(const Url& page) {
  if (impl_->finished_) return;
  impl_->accounting_.OnNavigationComplete(page, impl_->Now());
  if (policy_) policy_->OnNavigationComplete(page, impl_->Now());
}

void Predictor::OnHover(const Url& target) {
  if (!policy_ || impl_->finished_) return;
  std::vector<Hint> hints;
  policy_->OnHover(target, impl_->Now(), &hints);
  impl_->AddHints(hints);
}

void Predictor::OnOmnibox(const std::string& text, const Url& url) {
  if (!policy_ || impl_->finished_) return;
  std::vector<Hint> hints;
  policy_->OnOmnibox(text, url, impl_->Now(), &hints);
  impl_->AddHints(hints);
}

void Predictor::OnStaticHint(const Url& page, StaticHintKind kind, const Url& target) {
  if (!policy_ || impl_->finished_) return;
  std::vector<Hint> hints;
  policy_->OnStaticHint(page, kind, target, impl_->Now(), &hints);
  impl_->AddHints(hints);
}

void Predictor::AddHint(Hint hint) {
  if (!policy_) return;  // "off" does nothing speculative
  impl_->AddHint(std::move(hint));
}

void Predictor::OnSocketAssigned(const SchemeHostPort& group,
                                 const ClientSocketPool::Observer::Assignment& assignment) {
  if (impl_->finished_) return;
  impl_->accounting_.OnSocketAssigned(group, assignment, impl_->Now());
}

void Predictor::OnPreconnectJobStarted(const SchemeHostPort& group) {
  if (impl_->finished_) return;
  impl_->accounting_.OnPreconnectJobStarted(group, impl_->Now());
}

void Predictor::OnPreconnectJobComplete(const SchemeHostPort& group, int result) {
  if (impl_->finished_) return;
  impl_->accounting_.OnPreconnectJobComplete(group, result, impl_->Now());
}

void Predictor::OnPreconnectedSocketClosedUnused(const SchemeHostPort& group, const char* reason) {
  if (impl_->finished_) return;
  impl_->accounting_.OnPreconnectedSocketClosedUnused(group, reason, impl_->Now());
}

void Predictor::Finish() {
  impl_->Finish();
  Observe(nullptr);  // the pool may go away from here on
}

nlohmann::json Predictor::SpeculativeFor(const SchemeHostPort& origin) const {
  return impl_->accounting_.SpeculativeFor(origin);
}

const PredictorStats& Predictor::stats() const { return impl_->stats_; }

nlohmann::json Predictor::GetInfoAsJson() const {
  return {
      {"policy", policy_ ? policy_->name() : "off"},
      {"config", config_.ToJson()},
      {"stats", impl_->stats_.ToJson()},
      {"tables", policy_ ? policy_->TablesToJson() : nlohmann::json::object()},
      {"recent", impl_->accounting_.RecentToJson()},
      {"queue",
       {{"queued", impl_->queue_.size()},
        {"in_flight", impl_->queue_.in_flight()},
        {"budget", impl_->queue_.Budget()}}},
  };
}

size_t Predictor::EstimateMemoryUsage() const {
  return (policy_ ? policy_->EstimateMemoryUsage() : 0) + sizeof(Impl) +
         impl_->queue_.EstimateMemoryUsage() + impl_->accounting_.EstimateMemoryUsage();
}

}  // namespace netstack
