#include "predictor/action_accounting.h"

#include <algorithm>
#include <utility>

#include "net/base/memory_usage_estimator.h"
#include "predictor/speculation_target.h"
namespace netstack {

struct ActionAccounting::Action {
  ActionId id = 0;
  Hint hint;
  TimeTicks started{};
  // Pre-resolve and fetch-ahead: one unit.
  bool running = true;  // its callback has not run
  bool decided = false;
  // Preconnect: one unit per job the pool started for it.
  bool starting = false;   // between OnActionStarted and EndPreconnect
  bool in_flight = false;  // EndPreconnect said so; preconnect_done_ not yet run
  int jobs_started = 0;
  int jobs_outstanding = 0;
  int sockets_undecided = 0;
  int error = OK;  // Preconnect's synchronous result
  int used = 0, late = 0, wasted = 0;
  // Fetch ahead: a page request for its URL came (while the fetch was still running), and its
  // answer (OnResourceServed) decides the outcome; the fetch's request took a connection of
  // its own (a new or preconnected socket, not a reused one); a page request then reused a
  // connection to the origin (the fetch warmed it).
  bool requested = false;
  bool requested_while_running = false;
  bool opened_connection = false;
  bool warmed = false;

  bool IsPreconnect() const { return hint.action == SpeculativeAction::kPreconnect; }
  // Nothing left to decide or to wait for.
  bool Over() const {
    if (IsPreconnect()) return !starting && jobs_outstanding == 0 && sockets_undecided == 0;
    return decided;
  }
  const char* OutcomeString() const {
    if (IsPreconnect()) {
      if (jobs_started == 0 && !starting) return "none";
      if (sockets_undecided > 0 || starting) return "pending";
      return used ? "used" : late ? "late" : "wasted";
    }
    if (!decided) return "pending";
    return used ? "used" : late ? "late" : "wasted";
  }
};

ActionAccounting::ActionAccounting(const PredictorConfig& config, PredictorStats* stats,
                                   PredictorPolicy* policy, const NetLogWithSource& net_log,
                                   std::function<void(ActionId)> preconnect_done)
    : config_(config),
      stats_(stats),
      policy_(policy),
      net_log_(net_log),
      preconnect_done_(std::move(preconnect_done)) {}

ActionAccounting::~ActionAccounting() = default;

ActionAccounting::ActionId ActionAccounting::OnActionStarted(const Hint& hint, TimeTicks now) {
  ExpireLifetimes(now);
  auto action = std::make_unique<Action>();
  action->id = next_id_++;
  action->hint = hint;
  action->started = now;
  SpeculationCounts& counts = stats_->of(hint.action);
  if (action->IsPreconnect()) {
    action->starting = true;
    starting_preconnect_ = action->id;
  } else {
    ++counts.taken;
    ++counts.pending;
  }
  log_.OnStarted(action->id, now, hint, StateOf(*action));

  const ActionId id = action->id;
  actions_.emplace(id, std::move(action));
  EnforceBound(now);
  return id;
}

bool ActionAccounting::EndPreconnect(ActionId id, int rv, TimeTicks now) {
  if (starting_preconnect_ == id) starting_preconnect_ = 0;
  Action* action = Find(id);
  if (!action) return false;
  action->starting = false;
  action->error = rv < 0 ? rv : OK;
  const bool in_flight = action->jobs_outstanding > 0;
  action->in_flight = in_flight;
  log_.Update(id, StateOf(*action));
  MaybeRemove(id);
  return in_flight;
}

void ActionAccounting::OnResolveDone(ActionId id, int result, TimeTicks now) {
  ExpireLifetimes(now);
  Action* action = Find(id);
  if (!action) return;
  action->running = false;
  if (result != OK && !action->decided) Decide(action, Outcome::kWasted, now);
  MaybeRemove(id);
}

void ActionAccounting::OnFetchDone(ActionId id, int result, TimeTicks now) {
  // The same rules as a resolve (failure wastes, success waits for use), and a fetch the cache
  // answered itself stored nothing: wasted now.
  OnResolveDone(id, result == kFetchAheadAlreadyCached ? ERR_ABORTED : result, now);
}

void ActionAccounting::OnSocketAssigned(const SchemeHostPort& group,
                                        const ClientSocketPool::Observer::Assignment& assignment,
                                        TimeTicks now) {
  if (finished_) return;
  ExpireLifetimes(now);
  const SocketSource source = assignment.source;
  if (source == SocketSource::kReused) return;  // no new connection needed
  if (assignment.speculative) {
    // A fetch ahead: no page needed this connection (not counted, not reported to the
    // policy, no pre-resolve used). A preconnected socket it took is gone without serving a
    // page: wasted. The fetch now has a connection a page request may reuse (warmed).
    for (auto& [id, action] : actions_) {
      if (action->hint.action != SpeculativeAction::kFetchAhead || !action->running ||
          action->opened_connection || action->hint.origin != group) {
        continue;
      }
      action->opened_connection = true;
      break;
    }
    if (IsPreconnectSocket(source)) {
      if (Action* action = OldestPreconnectWithSockets(group)) {
        const ActionId id = action->id;
        Decide(action, Outcome::kWasted, now);
        MaybeRemove(id);
      }
    }
    return;
  }

  const bool background = assignment.background;
  (background ? stats_->connections_needed_background : stats_->connections_needed)++;
  stats_->connect_wait_ms += assignment.connect_wait_ms;
  if (IsPreconnectSocket(source)) {
    const bool ready = source == SocketSource::kPreconnected;
    if (background) {
      (ready ? stats_->connections_ready_background : stats_->connections_late_background)++;
    } else {
      (ready ? stats_->connections_ready : stats_->connections_late)++;
    }
    if (Action* action = OldestPreconnectWithSockets(group)) {
      const ActionId id = action->id;
      Decide(action, ready ? Outcome::kUsed : Outcome::kLate, now, background);
      MaybeRemove(id);
    }
  } else if (source == SocketSource::kNew) {
    // A connect job ran for this request, so it resolved the host: a pre-resolve helped.
    for (auto& [id, action] : actions_) {
      if (action->hint.action != SpeculativeAction::kPreresolve || action->decided) continue;
      if (action->hint.origin.host != group.host) continue;
      const ActionId found = id;
      Decide(action.get(), action->running ? Outcome::kLate : Outcome::kUsed, now, background);
      MaybeRemove(found);
      break;
    }
  }
  const Url page = CurrentPage();
  if (policy_ && page.is_valid()) {
    policy_->OnConnectionNeeded(page, group, source, background, assignment.connect_wait_ms, now);
  }
}

void ActionAccounting::OnPreconnectJobStarted(const SchemeHostPort& group, TimeTicks now) {
  if (finished_ || starting_preconnect_ == 0) return;  // not a job of ours
  Action* action = Find(starting_preconnect_);
  if (!action || action->hint.origin != group) return;
  ++action->jobs_started;
  ++action->jobs_outstanding;
  ++action->sockets_undecided;
  SpeculationCounts& counts = stats_->of(SpeculativeAction::kPreconnect);
  ++counts.taken;
  ++counts.pending;
  log_.OnPreconnectSocket(group);
}

void ActionAccounting::OnPreconnectJobComplete(const SchemeHostPort& group, int result,
                                               TimeTicks now) {
  if (finished_) return;
  ExpireLifetimes(now);
  // The job belongs to the oldest action of the group with jobs in flight (FIFO).
  Action* action = OldestPreconnectWithJobs(group);
  if (result != OK) {
    // The failed job's socket is the owner's to waste; if the owner has none undecided left
    // (another action's outcome went to it first, FIFO), the oldest action with one.
    Action* charged =
        action && action->sockets_undecided > 0 ? action : OldestPreconnectWithSockets(group);
    if (charged) Decide(charged, Outcome::kWasted, now);
    if (charged && charged != action) MaybeRemove(charged->id);
  }
  if (!action) return;
  const ActionId id = action->id;
  --action->jobs_outstanding;
  const bool done = action->jobs_outstanding == 0 && action->in_flight;
  if (done) action->in_flight = false;
  MaybeRemove(id);
  if (done && preconnect_done_) preconnect_done_(id);
}

void ActionAccounting::OnPreconnectedSocketClosedUnused(const SchemeHostPort& group,
                                                        const char* reason, TimeTicks now) {
  if (finished_) return;
  ExpireLifetimes(now);
  if (Action* action = OldestPreconnectWithSockets(group)) {
    const ActionId id = action->id;
    Decide(action, Outcome::kWasted, now);
    MaybeRemove(id);
  }
}

void ActionAccounting::OnNavigation(const Url& page, TimeTicks now) {
  if (finished_) return;
  ExpireLifetimes(now);
  loading_.push_back(page);
  while (loading_.size() > kMaxLoadingPages) loading_.pop_front();
  last_page_ = page;
}

void ActionAccounting::OnNavigationComplete(const Url& page, TimeTicks now) {
  if (finished_) return;
  ExpireLifetimes(now);
  for (auto it = loading_.rbegin(); it != loading_.rend(); ++it) {
    if (it->spec() != page.spec()) continue;
    loading_.erase(std::next(it).base());
    break;
  }
}

void ActionAccounting::OnResourceRequested(const Url& page, const Url& url, TimeTicks now) {
  if (finished_) return;
  ExpireLifetimes(now);
  // The request claims the oldest fetch of its URL; its answer decides (OnResourceServed).
  for (auto& [id, action] : actions_) {
    if (action->hint.action != SpeculativeAction::kFetchAhead || action->decided ||
        action->requested || action->hint.url.spec() != url.spec()) {
      continue;
    }
    action->requested = true;
    action->requested_while_running = action->running;
    break;
  }
}

void ActionAccounting::OnResourceServed(const Url& page, const Url& url, CacheDisposition cache,
                                        SocketSource connection, TimeTicks now) {
  if (finished_) return;
  ExpireLifetimes(now);
  const bool reused =
      connection == SocketSource::kReused || connection == SocketSource::kHttp2Session;
  const SchemeHostPort origin = url.scheme_host_port();
  if (reused) {
    // A page request rode on an existing connection to the origin: a fetch there that opened
    // one warmed it (an approximation: the pool does not say which socket it was).
    for (auto& [id, action] : actions_) {
      if (action->hint.action == SpeculativeAction::kFetchAhead && !action->decided &&
          action->opened_connection && action->hint.origin == origin) {
        action->warmed = true;
      }
    }
  }
  for (auto& [id, action] : actions_) {
    if (action->hint.action != SpeculativeAction::kFetchAhead || action->decided ||
        !action->requested || action->hint.url.spec() != url.spec()) {
      continue;
    }
    // Served from what the fetch stored: a hit on its entry, a revalidation of it, or the
    // entry served stale. Anything else went to the network: the fetch was no use as a fetch.
    const bool served = cache == CacheDisposition::kHit ||
                        cache == CacheDisposition::kRevalidated ||
                        cache == CacheDisposition::kStale;
    const ActionId found = id;
    Decide(action.get(),
           !served                           ? Outcome::kWasted
           : action->requested_while_running ? Outcome::kLate
                                             : Outcome::kUsed,
           now);
    MaybeRemove(found);
    break;
  }
}

bool ActionAccounting::IsRedundant(const Hint& hint, TimeTicks now) const {
  for (const auto& [id, action] : actions_) {
    if (action->hint.action != hint.action) continue;
    if (hint.action == SpeculativeAction::kPreresolve && action->running &&
        action->hint.origin.host == hint.origin.host) {
      return true;
    }
    if (hint.action == SpeculativeAction::kFetchAhead && !action->decided && !action->requested &&
        action->hint.url.spec() == hint.url.spec() &&
        now < action->started + config_.fetch_ahead_lifetime) {
      return true;
    }
  }
  return false;
}

void ActionAccounting::ExpireLifetimes(TimeTicks now) {
  if (finished_) return;
  std::vector<ActionId> expired;
  for (auto& [id, action] : actions_) {
    // A fetch a page request claimed waits for that request's answer instead.
    if (action->IsPreconnect() || action->decided || action->requested) continue;
    const TimeDelta lifetime = action->hint.action == SpeculativeAction::kPreresolve
                                   ? config_.preresolve_lifetime
                                   : config_.fetch_ahead_lifetime;
    if (now >= action->started + lifetime) expired.push_back(id);
  }
  for (ActionId id : expired) {
    Decide(Find(id), Outcome::kWasted, now);
    MaybeRemove(id);
  }
}

void ActionAccounting::Finish(TimeTicks now) {
  if (finished_) return;
  ExpireLifetimes(now);
  for (auto& [id, action] : actions_) {
    if (action->IsPreconnect()) {
      while (action->sockets_undecided > 0) Decide(action.get(), Outcome::kWasted, now);
    } else if (!action->decided) {
      Decide(action.get(), Outcome::kWasted, now);
    }
  }
  actions_.clear();
  starting_preconnect_ = 0;
  finished_ = true;
}

ActionAccounting::Action* ActionAccounting::Find(ActionId id) {
  auto it = actions_.find(id);
  return it == actions_.end() ? nullptr : it->second.get();
}

void ActionAccounting::Decide(Action* action, Outcome outcome, TimeTicks now, bool background) {
  SpeculationCounts& counts = stats_->of(action->hint.action);
  if (counts.pending > 0) --counts.pending;
  switch (outcome) {
    case Outcome::kUsed:
      ++(background ? counts.used_background : counts.used);
      ++action->used;
      break;
    case Outcome::kLate:
      ++(background ? counts.late_background : counts.late);
      ++action->late;
      break;
    case Outcome::kWasted:
      ++counts.wasted;
      ++action->wasted;
      if (action->warmed) ++counts.warmed;
      break;
  }
  if (action->IsPreconnect()) {
    --action->sockets_undecided;
  } else {
    action->decided = true;
  }
  log_.OnDecided(action->hint.origin, PredictorOutcomeName(outcome));
  log_.Update(action->id, StateOf(*action));
  net_log_.AddEvent(NetLogEventType::PREDICTOR_OUTCOME, [&] {
    return nlohmann::json{{"action", SpeculativeActionName(action->hint.action)},
                          {"target", HintTarget(action->hint)},
                          {"outcome", PredictorOutcomeName(outcome)}};
  });
  if (policy_)
    policy_->OnOutcome(action->hint.action, action->hint.motivation, action->hint.origin, outcome,
                       now);
}

void ActionAccounting::MaybeRemove(ActionId id) {
  auto it = actions_.find(id);
  if (it != actions_.end() && it->second->Over()) actions_.erase(it);
}

ActionAccounting::Action* ActionAccounting::OldestPreconnectWithSockets(
    const SchemeHostPort& group) {
  for (auto& [id, action] : actions_) {
    if (action->IsPreconnect() && action->sockets_undecided > 0 && action->hint.origin == group)
      return action.get();
  }
  return nullptr;
}

ActionAccounting::Action* ActionAccounting::OldestPreconnectWithJobs(const SchemeHostPort& group) {
  for (auto& [id, action] : actions_) {
    if (action->IsPreconnect() && action->jobs_outstanding > 0 && action->hint.origin == group)
      return action.get();
  }
  return nullptr;
}

void ActionAccounting::EnforceBound(TimeTicks now) {
  while (actions_.size() > kMaxPendingActions) {
    // The oldest action nothing is waiting on: decided wasted early.
    auto victim = actions_.end();
    for (auto it = actions_.begin(); it != actions_.end(); ++it) {
      const Action& a = *it->second;
      const bool busy = a.IsPreconnect() ? (a.starting || a.jobs_outstanding > 0) : false;
      if (!busy) {
        victim = it;
        break;
      }
    }
    if (victim == actions_.end()) return;
    Action* action = victim->second.get();
    if (action->IsPreconnect()) {
      while (action->sockets_undecided > 0) Decide(action, Outcome::kWasted, now);
    } else if (!action->decided) {
      Decide(action, Outcome::kWasted, now);
    }
    actions_.erase(victim);
  }
}

ActionLog::State ActionAccounting::StateOf(const Action& action) {
  ActionLog::State state;
  state.outcome = action.OutcomeString();
  state.jobs = action.jobs_started;
  state.used = action.used;
  state.late = action.late;
  state.wasted = action.wasted;
  state.error = action.error;
  return state;
}

Url ActionAccounting::CurrentPage() const {
  return loading_.empty() ? last_page_ : loading_.back();
}

size_t ActionAccounting::EstimateMemoryUsage() const {
  size_t bytes =
      actions_.size() * (TreeNodeBytes<decltype(actions_)::value_type>() + sizeof(Action));
  for (const auto& [id, action] : actions_) {
    bytes += netstack::EstimateMemoryUsage(action->hint.origin) +
             netstack::EstimateMemoryUsage(action->hint.url) +
             netstack::EstimateMemoryUsage(action->hint.page);
  }
  return bytes + log_.EstimateMemoryUsage() + netstack::EstimateMemoryUsage(loading_) +
         netstack::EstimateMemoryUsage(last_page_);
}

}  // namespace netstack
