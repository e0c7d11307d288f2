// DecayedUseTable: the learned policy's table. Per key (a page, a site, "startup") and per origin,
// per state of that origin when the load saw it (cold: unused for a while, so the pool has no
// socket for it; warm: used recently), the decayed number of observations n (loads, starts) and
// the decayed number c_k of those that needed at least k new connections to the origin
// (k = 1..kMaxK), so c_k / n estimates P(need >= k | the origin's state). The key also keeps
// its observations per state of its own origin (the page's), for the tables. Every observation's
// weight halves each `half_life_days` of `now`; a key's rows share one reference time, so decaying
// a key is one multiplication. Bounded: `max_keys` keys (least recently used evicted) and
// `max_origins` origins per key (the least used dropped for a new one).
#ifndef PREDICTOR_DECAYED_USE_TABLE_H_
#define PREDICTOR_DECAYED_USE_TABLE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "net/base/time.h"
#include "net/base/url.h"
#include "predictor/predictor_policy.h"

namespace netstack {

class DecayedUseTable {
 public:
  static constexpr int kMaxK = 6;
  static constexpr int kStates = 2;  // 0 cold, 1 warm
  using Counts = std::array<double, kMaxK>;

  struct OriginRow {
    SchemeHostPort origin;
    // n[state]: decayed observations of the key with the origin in `state` (a row starts with
    // the key's earlier observations as cold ones: the origin was not needed then).
    std::array<double, kStates> n{};
    // c[state][k-1]: decayed observations in `state` needing >= k connections.
    std::array<Counts, kStates> c{};
    uint64_t needed = 0;       // connections needed, all time (chrome://dns "navigations")
    uint64_t preconnects = 0;  // hints made from this row
    uint64_t preresolves = 0;
  };
  struct Entry {
    std::array<double, kStates> n{};  // decayed observations per state, as of `updated`
    TimeTicks updated{};
    uint64_t observations = 0;                 // all time ("page_loads")
    uint64_t last_use = 0;                     // LRU sequence number
    std::map<std::string, OriginRow> origins;  // by OriginKey
    double total() const { return n[0] + n[1]; }
  };
  // One observation: connections needed per origin, and the origin's state when the load first
  // saw it (-1: the observation's state).
  struct Need {
    SchemeHostPort origin;
    int connections = 0;
    int state = -1;
  };
  // The state of an origin the observation did not need, for rows of the key it leaves out.
  using StateOf = std::function<int(const SchemeHostPort&)>;

  DecayedUseTable(size_t max_keys, size_t max_origins, double half_life_days);

  const Entry* Find(const std::string& key) const;
  Entry* FindMutable(const std::string& key);
  // Adds one observation of `key` in `state` (of the key's own origin) at `now` (creating the
  // key, evicting at the bounds): each origin of `needs` counts in its own state (`state` if
  // -1), every other row of the key as not needed in state_of(origin) (`state` if null).
  void Observe(const std::string& key, const std::vector<Need>& needs, int state, TimeTicks now,
               const StateOf& state_of = nullptr);
  // Decay factor of `entry`'s counts from its reference time to `now`.
  double Factor(const Entry& entry, TimeTicks now) const;

  size_t size() const { return entries_.size(); }
  size_t max_origins() const { return max_origins_; }
  // Keys, most recently used first.
  std::vector<std::string> KeysByRecentUse() const;

  // Persistence: table `table`, key, subkey "" = {n: [kStates], observations, last_use, age_us}
  // and subkey = origin key for {n: [kStates], c: [kStates][kMaxK], needed, preconnects,
  // preresolves} (a row without n, saved before rows had their own, takes its key's). age_us =
  // saved_at - updated; a load places the entry at now - age_us.
  void AppendRows(const std::string& table, TimeTicks saved_at,
                  std::vector<PredictorRow>* out) const;
  bool LoadRow(const PredictorRow& row, TimeTicks now);

  // For the Memory view: an estimate of the heap bytes the keys and their origin rows hold, not
  // counting sizeof(DecayedUseTable). See net/base/memory_usage_estimator.h.
  size_t EstimateMemoryUsage() const;

 private:
  Entry* FindOrCreate(const std::string& key, bool touch);

  const size_t max_keys_;
  const size_t max_origins_;
  const double half_life_days_;
  uint64_t sequence_ = 0;
  std::map<std::string, Entry> entries_;
};

// Decayed counts of one thing (the global self-origin prior, hover clicks): n observations,
// c[k-1] of which reached k.
struct DecayedCounts {
  double n = 0;
  std::array<double, DecayedUseTable::kMaxK> c{};
  TimeTicks updated{};

  // Adds an observation that reached `value` (0..kMaxK counted) at `now`.
  void Observe(int value, TimeTicks now, double half_life_days);
  // Decays to `now` without observing.
  void DecayTo(TimeTicks now, double half_life_days);
  double Factor(TimeTicks now, double half_life_days) const;
  nlohmann::json ToRow(TimeTicks saved_at) const;
  bool FromRow(const nlohmann::json& data, TimeTicks now);
};

}  // namespace netstack

#endif  // PREDICTOR_DECAYED_USE_TABLE_H_
