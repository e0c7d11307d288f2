// OmniboxTable: chrome://predictors' table. (text typed, URL suggested) -> hits and misses, where
// a hit is a navigation to the URL after the text was typed and a miss a navigation elsewhere.
// Bounded (least recently used row evicted); with a positive half-life the counts decay with
// time on `now` (the learned policy), with none they are plain counts (the chrome policy).
// OmniboxRateLimiter: "at most once per period per key" for the omnibox's actions.
#ifndef PREDICTOR_OMNIBOX_TABLE_H_
#define PREDICTOR_OMNIBOX_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "net/base/time.h"
#include "predictor/predictor_policy.h"

namespace netstack {

class OmniboxTable {
 public:
  // Pairs typed since the last navigation; more are dropped oldest first.
  static constexpr size_t kMaxPending = 256;

  struct Row {
    double hits = 0;  // decayed to `updated` when the table decays
    double misses = 0;
    TimeTicks updated{};
    uint64_t last_use = 0;  // LRU sequence number
  };

  // `max_rows` >= 1. `half_life_days` <= 0: no decay.
  OmniboxTable(size_t max_rows, double half_life_days);

  // A keystroke: `text` suggested `url`. Scored at the next ScoreNavigation.
  void AddPending(const std::string& text, const std::string& url);
  // The same, and what the table knows of the pair (Get, zeros without a row), which is what a
  // policy decides on.
  struct Counts {
    double hits = 0, misses = 0;
  };
  Counts OnKeystroke(const std::string& text, const std::string& url, TimeTicks now);
  // A navigation to `url`: every pending pair scores a hit (same URL) or a miss, creating rows
  // as needed (evicting the least recently used past max_rows); the pending set empties.
  void ScoreNavigation(const std::string& url, TimeTicks now);
  // Hits and misses of (text, url) decayed to `now`; false (and zeros) when there is no row.
  bool Get(const std::string& text, const std::string& url, TimeTicks now, double* hits,
           double* misses) const;

  size_t size() const { return rows_.size(); }
  size_t pending_size() const { return pending_.size(); }
  // Rows as (text, url, hits, misses) decayed to `now`, most recently used first.
  struct Entry {
    std::string text, url;
    double hits, misses;
  };
  std::vector<Entry> Entries(TimeTicks now) const;
  // Entries(now) as the policies' TablesToJson rows {text, url, hits, misses, confidence}, with
  // each policy's own `confidence` rule.
  nlohmann::json ToJson(TimeTicks now, double (*confidence)(double hits, double misses)) const;

  // Persistence as PredictorRow{table, text, url, {hits, misses, last_use, age_us}}, where
  // age_us = `saved_at` - updated. Load places rows at `now` - age_us.
  void AppendRows(const std::string& table, TimeTicks saved_at,
                  std::vector<PredictorRow>* out) const;
  // False if the row's data is malformed (the caller counts it skipped). Bounds still hold.
  bool LoadRow(const PredictorRow& row, TimeTicks now);

  // For the Memory view: an estimate of the heap bytes the rows and the pending pairs hold, not
  // counting sizeof(OmniboxTable). See net/base/memory_usage_estimator.h.
  size_t EstimateMemoryUsage() const;

 private:
  void Touch(Row* row) { row->last_use = ++sequence_; }
  void EvictIfFull();

  const size_t max_rows_;
  const double half_life_days_;
  uint64_t sequence_ = 0;
  std::map<std::pair<std::string, std::string>, Row> rows_;
  std::deque<std::pair<std::string, std::string>> pending_;
};

// At most one action per `period` per key, remembering at most `max_keys` keys (the oldest
// forgotten first, which only allows an action early).
class OmniboxRateLimiter {
 public:
  OmniboxRateLimiter(TimeDelta period, size_t max_keys) : period_(period), max_keys_(max_keys) {}
  // True (and records `now`) if `key` had no action in the last period.
  bool Allow(const std::string& key, TimeTicks now);
  // For the Memory view: the heap bytes of the keys remembered (at most max_keys).
  size_t EstimateMemoryUsage() const;

 private:
  const TimeDelta period_;
  const size_t max_keys_;
  std::map<std::string, TimeTicks> last_;
};

}  // namespace netstack

#endif  // PREDICTOR_OMNIBOX_TABLE_H_
