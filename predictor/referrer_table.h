// ReferrerTable: the chrome policy's learned table (Chrome's old predictor's Referrer map, what
// chrome://dns showed). Per referring page key (the page's origin), each subresource origin the
// page's loads needed has an expected-connects value: 2.0 when first needed, x0.66 on each visit
// of the referrer, +0.34 on each connection a load needs, forgotten below 0.05, so it converges
// to the connections a load of that page needs. Bounded: at most `max_origins` origins per
// referrer (the least valuable dropped for a new one) and `max_referrers` referrers (the least
// recently used evicted). No clock: use order is a sequence number.
#ifndef PREDICTOR_REFERRER_TABLE_H_
#define PREDICTOR_REFERRER_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "net/base/url.h"
#include "predictor/predictor_policy.h"

namespace netstack {

class ReferrerTable {
 public:
  static constexpr double kInitialExpectedConnects = 2.0;
  static constexpr double kDecayPerVisit = 0.66;
  static constexpr double kIncreasePerConnect = 0.34;
  static constexpr double kDiscardBelow = 0.05;

  struct OriginRow {
    SchemeHostPort origin;
    double expected_connects = 0;
    uint64_t navigations = 0;  // connections the referrer's loads needed to this origin
    uint64_t preconnects = 0;  // preconnect hints made from this row
    uint64_t preresolves = 0;  // pre-resolve hints made from this row
  };
  struct Referrer {
    uint64_t page_loads = 0;
    uint64_t last_use = 0;                     // LRU sequence number
    std::map<std::string, OriginRow> origins;  // by OriginKey
  };

  ReferrerTable(size_t max_referrers, size_t max_origins);

  // The referrer's entry, or null. Does not count as a use.
  Referrer* Find(const std::string& referrer);
  const Referrer* Find(const std::string& referrer) const;
  // The entry, created if missing (evicting the least recently used referrer at the bound);
  // counts as a use.
  Referrer* FindOrCreate(const std::string& referrer);

  // A load of `referrer` needed a connection to `origin`: a new origin starts at 2.0 (dropping
  // the least valuable one if the referrer is full), a known one gains 0.34.
  void OriginNeeded(Referrer* referrer, const SchemeHostPort& origin);
  // A visit of the referrer: every value x0.66; those below 0.05 are forgotten.
  void DecayOnVisit(Referrer* referrer);

  size_t size() const { return referrers_.size(); }
  size_t max_origins() const { return max_origins_; }
  // Referrer keys, most recently used first.
  std::vector<std::string> KeysByRecentUse() const;

  // Persistence: table "referrers", key = referrer, subkey "" = {page_loads, last_use}, subkey
  // = origin key for {expected_connects, navigations, preconnects, preresolves}.
  void AppendRows(std::vector<PredictorRow>* out) const;
  // False for a malformed row (skipped by the caller). Bounds still hold.
  bool LoadRow(const PredictorRow& row);

  // For the Memory view: an estimate of the heap bytes the table holds (map nodes, keys,
  // origins), not counting sizeof(ReferrerTable). See net/base/memory_usage_estimator.h.
  size_t EstimateMemoryUsage() const;

 private:
  const size_t max_referrers_;
  const size_t max_origins_;
  uint64_t sequence_ = 0;
  std::map<std::string, Referrer> referrers_;
};

}  // namespace netstack

#endif  // PREDICTOR_REFERRER_TABLE_H_
