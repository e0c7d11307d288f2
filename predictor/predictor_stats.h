// What the predictor did and what came of it (the accounting). Every speculative action ends
// as exactly one of: used (ready before a critical request came), late (a critical request came
// while it was still in progress, and waited for it), used_background / late_background (the
// same for a background request: IDLE priority, such as pings, beacons, prefetches and a cache's
// background revalidations, off the page's critical path), wasted (expired, closed or failed
// without use; a fetch ahead the page was not served from); until then it is pending. Every hint
// ends started or dropped (expired in the queue, too little value, redundant, or the queue was
// full).
#ifndef PREDICTOR_PREDICTOR_STATS_H_
#define PREDICTOR_PREDICTOR_STATS_H_

#include <cstdint>
#include <nlohmann/json.hpp>

#include "predictor/hint.h"

namespace netstack {

struct SpeculationCounts {
  // For kPreconnect the unit is a socket the pool opened for the predictor, for the others one
  // resolve or one fetch.
  uint64_t taken = 0;
  uint64_t used = 0;  // critical requests only, as `late`
  uint64_t late = 0;
  uint64_t used_background = 0;  // taken by background requests
  uint64_t late_background = 0;
  uint64_t wasted = 0;
  // taken - used - late - used_background - late_background - wasted
  uint64_t pending = 0;
  // Fetch ahead only: wasted fetches whose connection a page's request then used (a subset of
  // `wasted`: the fetch only warmed a connection).
  uint64_t warmed = 0;
  // (used + late) / taken; 0 when nothing was taken. Background uses do not count.
  double Precision() const;
  // Adds `other`'s counts to these.
  void Add(const SpeculationCounts& other);
  nlohmann::json ToJson() const;
};

struct PredictorStats {
  SpeculationCounts actions[kNumSpeculativeActions];  // indexed by SpeculativeAction
  uint64_t hints = 0;                                 // hints the policies produced
  uint64_t hints_started = 0;                         // became an action
  uint64_t hints_expired = 0;                         // expired while queued
  uint64_t hints_low_value = 0;                       // below the policy's threshold when dequeued
  uint64_t hints_redundant = 0;   // nothing to do (host already resolved, enough sockets)
  uint64_t hints_invalid = 0;     // unusable (not an http(s) origin, a fetch without a URL)
  uint64_t hints_queue_full = 0;  // the queue was at its bound
  // Recall's parts: critical requests that needed a new connection (not a reused one), and
  // those that found a preconnected socket ready; those that waited for a preconnect in
  // progress. A socket is ready only when a preconnect made it: one a fetch ahead opened and a
  // page request then reused is not a need at all (the pool reports no new connection), so it
  // shows as the fetch's `warmed`, never in recall.
  uint64_t connections_needed = 0;
  uint64_t connections_ready = 0;
  uint64_t connections_late = 0;
  // The same for background requests (IDLE priority): not in recall.
  uint64_t connections_needed_background = 0;
  uint64_t connections_ready_background = 0;
  uint64_t connections_late_background = 0;
  // The connect wait of those connections (net/base/load_timing_phases.h: DNS + connect + TLS
  // as each request saw it, clamped at its start; the same number its record gives), summed:
  // what the predictor tries to drive down. Time queued behind the pool's limits is not in it:
  // a preconnect does not remove that.
  double connect_wait_ms = 0;

  const SpeculationCounts& of(SpeculativeAction a) const { return actions[static_cast<int>(a)]; }
  SpeculationCounts& of(SpeculativeAction a) { return actions[static_cast<int>(a)]; }
  // All three kinds added up.
  SpeculationCounts Total() const;
  // Pre-resolves and preconnects added up: the connection work whose precision the tools print
  // (a fetch ahead's is printed apart, of(kFetchAhead).Precision()).
  SpeculationCounts ConnectionTotal() const;
  // connections_ready / connections_needed (critical requests only); 0 when none were needed.
  double Recall() const;
  // Adds `other`'s counts to these (sessions, shards).
  void Add(const PredictorStats& other);
  // {"hints": {produced, started, expired, low_value, redundant, invalid, queue_full},
  //  "preresolve": {taken, used, late, used_background, late_background, wasted, pending,
  //  precision}, "preconnect": {...}, "fetch_ahead": {... and warmed},
  //  "connections": {needed, ready, late, needed_background, ready_background, late_background,
  //  recall, connect_wait_ms}, "precision": ConnectionTotal().Precision()}
  nlohmann::json ToJson() const;
};

}  // namespace netstack

#endif  // PREDICTOR_PREDICTOR_STATS_H_
