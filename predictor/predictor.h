// Predictor: the facade both worlds use. Tools (the replay engine, `fetch --page`, the internals
// page) tell it what the user and the pages do; its policy (predictor_policy.h) turns that into
// hints; its queue (speculative_queue.h) starts the worthwhile ones within a budget through a
// SpeculationTarget; and it accounts for every action (used, late, wasted) by watching the
// socket pool and the requests.
//
// Wiring (both worlds; ContextPredictor, context_predictor.h, does the first three lines):
//   ContextSpeculationTarget target(context);
//   Predictor predictor(config, scheduler, &target, net_log);
//   predictor.Observe(context->socket_pool());
//   ... events ...
//   predictor.Finish();  // stops observing: the pool may go away after this
// Finish() or the destructor removes the predictor from the pool it observes, so an owner
// cannot leave the pool calling into a destroyed predictor. (Adding it by hand with
// pool->AddObserver still works; the owner must then RemoveObserver before either goes away,
// and a RemoveObserver after Finish() is a harmless no-op.)
//
// Everything runs on the scheduler's thread. Event methods start actions synchronously when the
// budget allows (the stack's methods never run a callback inside themselves), so a hint given
// just before a request is already acting when the request comes. When an outcome frees budget
// inside a pool observer call, the queue is pumped in a posted task: the predictor never calls
// the pool from inside the pool.
// NetLog: a PREDICTOR source with PREDICTOR_HINT (motivation, action, target, likelihood),
// PREDICTOR_HINT_DROPPED (reason), PREDICTOR_ACTION (started) and PREDICTOR_OUTCOME events.
#ifndef PREDICTOR_PREDICTOR_H_
#define PREDICTOR_PREDICTOR_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "net/base/net_log.h"
#include "net/base/scheduler.h"
#include "net/base/url.h"
#include "net/http/http_transaction.h"
#include "net/socket/client_socket_pool.h"
#include "predictor/hint.h"
#include "predictor/predictor_config.h"
#include "predictor/predictor_policy.h"
#include "predictor/predictor_stats.h"

namespace netstack {

class SpeculationTarget;
class SpeculativeQueue;
class ActionAccounting;

class Predictor : public ClientSocketPool::Observer {
 public:
  // `scheduler`, `target` and `net_log` (may be null) must outlive the predictor. With policy
  // "off" every event is ignored (the stats stay zero) but the accounting still counts
  // connections needed, so recall is comparable across policies.
  Predictor(const PredictorConfig& config, Scheduler& scheduler, SpeculationTarget* target,
            NetLog* net_log);
  // The same with a given policy instead of CreatePredictorPolicy(config)'s (null: "off").
  // For tests and tools that build their own policy.
  Predictor(const PredictorConfig& config, Scheduler& scheduler, SpeculationTarget* target,
            NetLog* net_log, std::unique_ptr<PredictorPolicy> policy);
  // Stops observing the pool (see Observe).
  ~Predictor() override;
  Predictor(const Predictor&) = delete;
  Predictor& operator=(const Predictor&) = delete;

  // Starts observing `pool` (its AddObserver) for the accounting, and remembers it so that
  // Finish() and the destructor remove the predictor from it. `pool` must stay alive until
  // Finish() or the predictor's destruction, whichever comes first. A second call moves the
  // predictor to the new pool; null just stops observing.
  void Observe(ClientSocketPool* pool);

  // Events. `page` is the page (main frame URL) a load is for.
  void OnStartup();
  void OnNavigation(const Url& page);
  void OnResourceRequested(const Url& page, const Url& url);
  // A request of `page` for `url` (one OnResourceRequested announced) got its answer, or
  // failed: `cache` is how the HTTP cache served it (RequestRecord::cache; kBypass for a
  // replay's recorded hit or failure), `connection` the connection it used
  // (RequestRecord::connection.socket_source; kNone when none). Only the accounting listens: a
  // fetch ahead of `url` is used only if the request was served from what it stored (a hit, a
  // revalidation or a stale entry), else wasted (action_accounting.h).
  void OnResourceServed(const Url& page, const Url& url, CacheDisposition cache,
                        SocketSource connection);
  void OnNavigationComplete(const Url& page);
  void OnHover(const Url& target);
  void OnOmnibox(const std::string& text, const Url& url);
  void OnStaticHint(const Url& page, StaticHintKind kind, const Url& target);
  // A hint from elsewhere (a session's "hint" event with a motivation the policies do not
  // know). Queued as is.
  void AddHint(Hint hint);

  // ClientSocketPool::Observer: the accounting of preconnects and connections needed.
  void OnSocketAssigned(const SchemeHostPort& group,
                        const ClientSocketPool::Observer::Assignment& assignment) override;
  void OnPreconnectJobStarted(const SchemeHostPort& group) override;
  void OnPreconnectJobComplete(const SchemeHostPort& group, int result) override;
  void OnPreconnectedSocketClosedUnused(const SchemeHostPort& group, const char* reason) override;

  // Ends the run's accounting: queued hints are dropped (expired), actions still pending become
  // wasted ("never used before the end"), and the predictor stops observing the pool given to
  // Observe. Call before reading final stats and before the pool goes away. Later events are
  // ignored.
  void Finish();

  // What the predictor had done for `origin` so far, for `fetch --json`'s "speculative":
  // {"preresolved": bool, "preconnected": sockets taken, "outcome": "used"|"late"|...|null}.
  nlohmann::json SpeculativeFor(const SchemeHostPort& origin) const;

  const PredictorConfig& config() const { return config_; }
  const PredictorStats& stats() const;
  // Null with policy "off".
  PredictorPolicy* policy() { return policy_.get(); }
  // {"policy", "config", "stats", "tables" (the policy's), "recent": [the last 100 actions:
  //  {time_ms, motivation, action, origin, url, likelihood, outcome}]}.
  nlohmann::json GetInfoAsJson() const;
  // For the internals page's Memory view: an estimate of the heap bytes the predictor holds:
  // its policy's tables (PredictorPolicy::EstimateMemoryUsage), the speculative queue and the
  // outcome accounting, not counting sizeof(Predictor) (net/base/memory_usage_estimator.h).
  size_t EstimateMemoryUsage() const;

 private:
  class Impl;
  const PredictorConfig config_;
  std::unique_ptr<PredictorPolicy> policy_;
  std::unique_ptr<Impl> impl_;
  ClientSocketPool* observed_pool_ = nullptr;  // see Observe
};

}  // namespace netstack

#endif  // PREDICTOR_PREDICTOR_H_
