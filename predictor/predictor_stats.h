// What the predictor did and what came of it (the accounting). Every speculative action ends
// as exactly one of: used (ready before the request came), late (the request came while it was
// still in progress, and waited for it), wasted (expired, closed or failed without use); until
// then it is pending. Every hint ends started or dropped (expired in the queue, too little
// value, redundant, or the queue was full).
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
  uint64_t used = 0;
  uint64_t late = 0;
  uint64_t wasted = 0;
  uint64_t pending = 0;  // taken - used - late - wasted
  // (used + late) / taken; 0 when nothing was taken.
  double Precision() const;
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
  // Recall's parts: requests that needed a new connection (not a reused one), and those that
  // found a preconnected socket ready; requests that waited for a preconnect in progress.
  uint64_t connections_needed = 0;
  uint64_t connections_ready = 0;
  uint64_t connections_late = 0;
  // The connect wait of those connections (net/base/load_timing_phases.h: DNS + connect + TLS
  // as each request saw it, clamped at its start; the same number its record gives), summed:
  // what the predictor tries to drive down. Time queued behind the pool's limits is not in it:
  // a preconnect does not remove that.
  double connect_wait_ms = 0;

  const SpeculationCounts& of(SpeculativeAction a) const { return actions[static_cast<int>(a)]; }
  SpeculationCounts& of(SpeculativeAction a) { return actions[static_cast<int>(a)]; }
  // All three kinds added up.
  SpeculationCounts Total() const;
  // connections_ready / connections_needed; 0 when none were needed.
  double Recall() const;
  // {"hints": {produced, started, expired, low_value, redundant, invalid, queue_full},
  //  "preresolve": {...}, "preconnect": {...}, "fetch_ahead": {...},
  //  "connections": {needed, ready, late, recall, connect_wait_ms}, "precision": x}
  nlohmann::json ToJson() const;
};

}  // namespace netstack

#endif  // PREDICTOR_PREDICTOR_STATS_H_
