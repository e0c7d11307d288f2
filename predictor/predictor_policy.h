// PredictorPolicy: the part of the predictor that learns and decides. The Predictor facade
// (predictor.h) feeds it events and outcomes; it answers with hints and owns its tables.
// Policies do no I/O and read no clock: every call carries `now`. Three exist: chrome_policy.h
// (Chrome's old predictor, the baseline), loading_policy.h (Chrome's current LoadingPredictor)
// and learned_policy.h (ours); "off" has no policy.
//
// Calls come in this order for a page load: OnNavigation, then OnResourceRequested and
// OnConnectionNeeded as the page loads (OnStaticHint when its markup is parsed), then
// OnNavigationComplete. Loads may overlap; `page` says which one an event belongs to.
#ifndef PREDICTOR_PREDICTOR_POLICY_H_
#define PREDICTOR_PREDICTOR_POLICY_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "net/base/time.h"
#include "net/base/url.h"
#include "net/socket/socket_source.h"
#include "predictor/hint.h"
#include "predictor/predictor_stats.h"

namespace netstack {

struct PredictorConfig;

// A learned table's row as persisted (predictor_store.h): (table, key, subkey) -> data.
struct PredictorRow {
  std::string table;   // "referrers", "omnibox", "startup", ...
  std::string key;     // the page, the omnibox text, the host
  std::string subkey;  // the origin, the URL; "" when the table has one key
  nlohmann::json data;
};

// What a page's markup or a session's "hint" event asked for.
enum class StaticHintKind { kDnsPrefetch, kPreconnect, kPreload, kPrefetch };

class PredictorPolicy {
 public:
  virtual ~PredictorPolicy() = default;

  // "chrome", "loading" or "learned".
  virtual const char* name() const = 0;

  // The browser starts. May append startup-list hints to `out`.
  virtual void OnStartup(TimeTicks now, std::vector<Hint>* out) = 0;
  // A page load starts (before its document is requested). Appends the referral hints for
  // `page` (learned, self, early-load) to `out`.
  virtual void OnNavigation(const Url& page, TimeTicks now, std::vector<Hint>* out) = 0;
  // A request of `page`'s load (the document included) is issued.
  virtual void OnResourceRequested(const Url& page, const Url& url, TimeTicks now) = 0;
  // A request of `page`'s load was answered; `network` is false when the HTTP cache answered it
  // without the network (a fresh or stale hit). Default: ignored.
  virtual void OnResourceServed(const Url& page, const Url& url, bool network, TimeTicks now) {}
  // A request of `page`'s load needed a new connection to `origin` (not a reused socket).
  // `source` says how it got one (the pool's SocketSource: kNew, kPreconnected,
  // kPreconnectedLate or kUnusedIdle, never kReused); `connect_wait_ms` is how long the request
  // waited for its setup (load_timing_phases.h: DNS + connect + TLS from the request's start; 0
  // when a preconnected socket was ready; queueing behind pool limits not included).
  // `background`: the request was a background one (IDLE priority: a ping, beacon, prefetch or
  // background revalidation; Assignment::background), off the page's critical path: a policy
  // may learn from it, but a socket it preconnects for one saves the page nothing.
  virtual void OnConnectionNeeded(const Url& page, const SchemeHostPort& origin,
                                  SocketSource source, bool background, double connect_wait_ms,
                                  TimeTicks now) = 0;
  // `page`'s load finished (every request ended).
  virtual void OnNavigationComplete(const Url& page, TimeTicks now) = 0;
  // The pointer rests on a link to `target`.
  virtual void OnHover(const Url& target, TimeTicks now, std::vector<Hint>* out) = 0;
  // The user typed `text` in the omnibox and the suggestion leads to `url`. The next
  // OnNavigation says whether it was a hit (navigated to `url`) or a miss.
  virtual void OnOmnibox(const std::string& text, const Url& url, TimeTicks now,
                         std::vector<Hint>* out) = 0;
  // `page` (its markup, or a session hint) asked for `target`.
  virtual void OnStaticHint(const Url& page, StaticHintKind kind, const Url& target, TimeTicks now,
                            std::vector<Hint>* out) = 0;

  // Called when a hint is dequeued: false drops it as low-value (the policy's thresholds or
  // adaptive budget say no now). The default keeps it.
  virtual bool ShouldStart(const Hint& hint, TimeTicks now) { return true; }
  // How many speculative actions may be in flight at once now (the queue's budget); the
  // Predictor never exceeds PredictorConfig::max_in_flight whatever this says.
  virtual int Budget(TimeTicks now) const = 0;
  // Every outcome the accounting decides, for policies that adapt.
  enum class Outcome { kUsed, kLate, kWasted };
  virtual void OnOutcome(SpeculativeAction action, HintMotivation motivation,
                         const SchemeHostPort& origin, Outcome outcome, TimeTicks now) {}

  // The tables for chrome://dns- and chrome://predictors-like views and for the terminal:
  // {"referrers": [{page, origin, page_loads, navigations, preconnects, preresolves,
  //   expected_connects, ...}], "omnibox": [{text, url, hits, misses, confidence}],
  //  "startup": [{host, count}], ...}. Bounded by the tables' own bounds.
  virtual nlohmann::json TablesToJson() const = 0;

  // Persistence: every row of the learned tables, and loading them back (rows of unknown
  // tables or with bad data are skipped and counted in `skipped`; never an exception).
  virtual std::vector<PredictorRow> SaveRows() const = 0;
  virtual void LoadRows(const std::vector<PredictorRow>& rows, TimeTicks now, size_t* skipped) = 0;

  // For the internals page's Memory view: an estimate of the heap bytes the policy holds (its
  // tables, rate limiters and loads in progress), not counting sizeof(*this)
  // (net/base/memory_usage_estimator.h). Bounded by the tables' bounds.
  virtual size_t EstimateMemoryUsage() const = 0;
};

// "used", "late" or "wasted": the outcome's name in NetLog events, tables and JSON.
const char* PredictorOutcomeName(PredictorPolicy::Outcome outcome);

// Creates the policy `config.policy` names ("chrome", "loading", "learned"); null for "off".
std::unique_ptr<PredictorPolicy> CreatePredictorPolicy(const PredictorConfig& config);

}  // namespace netstack

#endif  // PREDICTOR_PREDICTOR_POLICY_H_
