// ActionAccounting: decides what became of every speculative action (used in time, late, wasted;
// see predictor_stats.h) from what the pool and the pages report, and counts the connections
// requests needed (recall). It reports each outcome to the policy (OnOutcome) and each needed
// connection (OnConnectionNeeded), and tells its ActionLog (action_log.h: the last 100 actions
// and a per-origin summary, for the internals page and `fetch --json`) as actions change.
//
// The rules:
// - Preconnect (unit: one socket a preconnect job opened). Jobs the pool starts while
//   Predictor starts a preconnect belong to that action. Outcomes are attributed to the oldest
//   action of the group with undecided sockets (FIFO): used = a request got a never-used idle
//   socket a preconnect made (SocketSource::kPreconnected); late = a request took a preconnect
//   job's socket as it connected (kPreconnectedLate); wasted = the socket closed unused or
//   its job failed (charged to the action owning the job: the oldest one of the group with jobs
//   in flight). The action is in flight until the jobs it started complete (FIFO as well).
// - Speculative requests (Assignment::speculative: a fetch ahead's own connection) are not a
//   page's need: not counted in connections_needed, not reported to OnConnectionNeeded, and
//   they use no pre-resolve; a preconnected socket one takes is wasted.
// - Pre-resolve (unit: one resolve). Used when a connection to the host is needed that a connect
//   job made for a request (kNew, not a preconnect's: a preconnected socket did its own
//   resolve) within config.preresolve_lifetime of the start, the resolve finished; late
//   if the resolve was still running; wasted when the lifetime passes or the resolve failed.
// - Critical and background. A request at IDLE priority (Assignment::background: pings,
//   beacons, prefetches, background revalidations) is off the page's critical path: a
//   preconnected socket or pre-resolve it uses counts as used_background / late_background,
//   never as used or late, and its need counts in connections_needed_background, not in
//   recall. The policy still hears of it (OnConnectionNeeded's `background`).
// - Fetch-ahead (unit: one fetch). A page request for the URL (OnResourceRequested) claims the
//   oldest undecided fetch of it; the request's answer (OnResourceServed) decides: used when it
//   was served from what the fetch stored (a cache hit, a revalidation or a stale entry), late
//   when so but the fetch was still running when the request came; otherwise wasted (the
//   navigation went to the network: real documents are no-cache or max-age=0). Unclaimed, it
//   is wasted after config.fetch_ahead_lifetime, when the fetch failed, or when the cache
//   answered the fetch itself (kFetchAheadAlreadyCached: it stored nothing). A wasted fetch is
//   also `warmed` when its request opened a connection (a new or preconnected socket) and a
//   page request to its origin then rode on an existing connection (kReused or an h2 session)
//   before the fetch was decided: it worked as a preconnect. (Approximate: the pool does not
//   say which socket a request reused.) Such a reuse is no new connection, so it is in neither
//   connections_needed nor recall: a warmed connection is credited only as `warmed`.
// Lifetimes are checked lazily, on every event and at Finish (no timer, so a replay's clock is
// never pushed forward by the accounting).
//
// Page attribution for OnConnectionNeeded: the most recent navigation still loading, else the
// last navigation (an approximation: the pool does not know which page a request is for).
// Connections needed before any navigation are counted but not reported to the policy.
#ifndef PREDICTOR_ACTION_ACCOUNTING_H_
#define PREDICTOR_ACTION_ACCOUNTING_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "net/base/net_log.h"
#include "net/base/url.h"
#include "net/http/http_transaction.h"
#include "net/socket/client_socket_pool.h"
#include "predictor/action_log.h"
#include "predictor/hint.h"
#include "predictor/predictor_config.h"
#include "predictor/predictor_policy.h"
#include "predictor/predictor_stats.h"

namespace netstack {

class ActionAccounting {
 public:
  // Bounds. Pending actions past kMaxPendingActions: the oldest one not in flight is decided
  // wasted early. The log's ring keeps kRecentActions; its per-origin summary kMaxOrigins (LRU).
  static constexpr size_t kMaxPendingActions = 2000;
  static constexpr size_t kRecentActions = ActionLog::kRecentActions;
  static constexpr size_t kMaxOrigins = ActionLog::kMaxOrigins;
  static constexpr size_t kMaxLoadingPages = 64;

  using ActionId = uint64_t;

  // `stats` and `config` must outlive this; `policy` may be null ("off"). `preconnect_done`
  // runs when a preconnect action that EndPreconnect reported in flight has seen all its jobs
  // complete (possibly inside a pool observer call: the receiver must not call the pool).
  ActionAccounting(const PredictorConfig& config, PredictorStats* stats, PredictorPolicy* policy,
                   const NetLogWithSource& net_log, std::function<void(ActionId)> preconnect_done);
  ~ActionAccounting();
  ActionAccounting(const ActionAccounting&) = delete;
  ActionAccounting& operator=(const ActionAccounting&) = delete;

  // An action starts for `hint`. Pre-resolves and fetches count as taken now; a preconnect's
  // sockets are taken as the pool starts its jobs, between this call and EndPreconnect().
  ActionId OnActionStarted(const Hint& hint, TimeTicks now);
  // Target::Preconnect returned `rv`. True if jobs of the action are still connecting (the
  // action is in flight until `preconnect_done`); false if it is over (no job started, or all
  // completed synchronously).
  bool EndPreconnect(ActionId id, int rv, TimeTicks now);
  // A pre-resolve or fetch-ahead finished (synchronously or in its callback) with `result`
  // (for a fetch, kFetchAheadAlreadyCached: wasted, it stored nothing).
  void OnResolveDone(ActionId id, int result, TimeTicks now);
  void OnFetchDone(ActionId id, int result, TimeTicks now);

  // ClientSocketPool::Observer's reports.
  void OnSocketAssigned(const SchemeHostPort& group,
                        const ClientSocketPool::Observer::Assignment& assignment, TimeTicks now);
  void OnPreconnectJobStarted(const SchemeHostPort& group, TimeTicks now);
  void OnPreconnectJobComplete(const SchemeHostPort& group, int result, TimeTicks now);
  void OnPreconnectedSocketClosedUnused(const SchemeHostPort& group, const char* reason,
                                        TimeTicks now);

  // Page events (for fetch-ahead use and the page of OnConnectionNeeded).
  void OnNavigation(const Url& page, TimeTicks now);
  void OnNavigationComplete(const Url& page, TimeTicks now);
  void OnResourceRequested(const Url& page, const Url& url, TimeTicks now);
  // A request of `page` for `url` got its answer: `cache` is how the HTTP cache served it,
  // `connection` the connection it used (kNone when none). Decides a fetch ahead of `url` that
  // the request claimed, and notes warmed connections (see the rules above).
  void OnResourceServed(const Url& page, const Url& url, CacheDisposition cache,
                        SocketSource connection, TimeTicks now);

  // Redundancy the target cannot see: a pre-resolve of the host is already running; the URL
  // was fetched ahead and that fetch has not expired.
  bool IsRedundant(const Hint& hint, TimeTicks now) const;

  // Decides wasted whatever outlived its lifetime at `now`.
  void ExpireLifetimes(TimeTicks now);
  // Every pending action becomes wasted ("never used before the end"); later calls are ignored.
  void Finish(TimeTicks now);

  size_t pending_actions() const { return actions_.size(); }
  // The last kRecentActions actions, oldest first (ActionLog::RecentToJson); an action's
  // outcome is "pending", "used", "late", "wasted", or for a preconnect whose sockets differ
  // the best of them.
  nlohmann::json RecentToJson() const { return log_.RecentToJson(); }
  // {"preresolved", "preconnected", "fetched_ahead", "outcome"} for `origin`, see
  // Predictor::SpeculativeFor.
  nlohmann::json SpeculativeFor(const SchemeHostPort& origin) const {
    return log_.SpeculativeFor(origin);
  }
  // For the Memory view: an estimate of the heap bytes of the pending actions, the log (recent
  // actions, per-origin summary) and the loads tracked, not counting sizeof(ActionAccounting).
  // See net/base/memory_usage_estimator.h.
  size_t EstimateMemoryUsage() const;

 private:
  using Outcome = PredictorPolicy::Outcome;
  struct Action;

  Action* Find(ActionId id);
  // Records one unit's outcome for `action` (stats, policy, NetLog, the ring and the origin).
  // `background`: a background request used it (counted as used_background/late_background;
  // the policy hears kUsed/kLate as before).
  void Decide(Action* action, Outcome outcome, TimeTicks now, bool background = false);
  // Removes the action if nothing about it is pending any more.
  void MaybeRemove(ActionId id);
  // The oldest preconnect action of `group` with undecided sockets / outstanding jobs.
  Action* OldestPreconnectWithSockets(const SchemeHostPort& group);
  Action* OldestPreconnectWithJobs(const SchemeHostPort& group);
  void EnforceBound(TimeTicks now);
  // The action's state as the log shows it.
  static ActionLog::State StateOf(const Action& action);
  Url CurrentPage() const;

  const PredictorConfig& config_;
  PredictorStats* const stats_;
  PredictorPolicy* const policy_;
  NetLogWithSource net_log_;
  std::function<void(ActionId)> preconnect_done_;
  bool finished_ = false;

  ActionId next_id_ = 1;
  std::map<ActionId, std::unique_ptr<Action>> actions_;  // pending, oldest first
  ActionId starting_preconnect_ = 0;  // the action whose jobs the pool is starting now

  ActionLog log_;

  // Navigations not yet complete, oldest first, and the last navigation.
  std::deque<Url> loading_;
  Url last_page_;
};

}  // namespace netstack

#endif  // PREDICTOR_ACTION_ACCOUNTING_H_
