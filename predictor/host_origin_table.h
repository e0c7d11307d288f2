// HostOriginTable: the loading policy's learned table, Chrome's ResourcePrefetchPredictor origin
// data (chrome/browser/predictors/resource_prefetch_predictor.cc LearnOrigins,
// resource_prefetch_predictor_tables.cc). Per main-frame *host*, the origins its loads requested,
// each with hits (loads that requested it), misses (loads that did not), consecutive misses,
// its average position in the loads' order of first request, and whether the load reached the
// network for it. Bounded: max_hosts hosts (the least recently visited evicted), max_origins
// origins per host (the lowest ranked trimmed after each load).
#ifndef PREDICTOR_HOST_ORIGIN_TABLE_H_
#define PREDICTOR_HOST_ORIGIN_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "net/base/url.h"
#include "predictor/predictor_policy.h"

namespace netstack {

class HostOriginTable {
 public:
  // Chrome's ResourcePrefetchPredictorTables::kMaxStringLength: longer hosts are not learned.
  static constexpr size_t kMaxHostLength = 1024;

  // Chrome's OriginStat.
  struct OriginStat {
    SchemeHostPort origin;
    uint64_t hits = 0;
    uint64_t misses = 0;
    uint64_t consecutive_misses = 0;
    double average_position = 0;  // 1-based position of first request, averaged over loads
    bool always_access_network = false;
    bool accessed_network = false;
  };
  // A host's origins in Chrome's order: the main frame's origin first when present, then by
  // Score, highest first.
  struct Host {
    std::vector<OriginStat> origins;
    uint64_t last_visit = 0;  // LRU sequence (Chrome keeps last_visit_time; only order matters)
  };
  // What one load saw of an origin (Chrome's OriginRequestSummary).
  struct OriginSummary {
    SchemeHostPort origin;
    size_t first_occurrence = 0;  // 0 for the first origin the load requested
    bool always_access_network = false;
    bool accessed_network = false;
  };

  // `max_hosts`, `max_origins` >= 1 (clamped); an origin missed `max_consecutive_misses`
  // loads in a row is dropped.
  HostOriginTable(size_t max_hosts, size_t max_origins, uint64_t max_consecutive_misses);

  // One finished load of a page on `host` (Chrome's LearnOrigins): origins already known score a
  // hit (in `summaries`) or a miss; new ones enter with 1 hit; then origins at
  // max_consecutive_misses go, the rest are sorted (`main_frame` first) and cut to max_origins.
  // A host left with no origin is removed. The host becomes the most recently visited.
  void Learn(const std::string& host, const SchemeHostPort& main_frame,
             const std::vector<OriginSummary>& summaries);

  // hits / (hits + misses); 0 for a row with neither.
  static double Confidence(const OriginStat& stat);
  // Chrome's ComputeOriginScore: high confidence (> 0.75 with more than 10 hits) first, then
  // always-network, then network-accessed, then earlier average position.
  static double Score(const OriginStat& stat);

  const Host* Find(const std::string& host) const;
  size_t size() const { return hosts_.size(); }
  // Hosts, most recently visited first.
  std::vector<std::string> HostsByRecentVisit() const;

  // Persistence: table "origins", key = host, subkey = origin key, data {hits, misses,
  // consecutive_misses, average_position, always_access_network, accessed_network, rank,
  // last_visit}; rank is the origin's index in its host's order.
  void AppendRows(std::vector<PredictorRow>* out) const;
  // False for a malformed row (the caller counts it skipped). A row for an origin already loaded
  // replaces it; bounds hold (a host past max_hosts evicts the least recently visited, an
  // origin ranked past max_origins is dropped).
  bool LoadRow(const PredictorRow& row);

  // For the Memory view: heap bytes of the hosts and their origins (memory_usage_estimator.h).
  size_t EstimateMemoryUsage() const;

 private:
  Host* Touch(const std::string& host);

  const size_t max_hosts_;
  const size_t max_origins_;
  const uint64_t max_consecutive_misses_;
  uint64_t sequence_ = 0;
  std::map<std::string, Host> hosts_;
  // Host -> the saved rank of each of its origins (parallel to Host::origins) for hosts whose
  // rows were loaded and not learned since: where the next loaded row goes.
  std::map<std::string, std::vector<uint64_t>> load_ranks_;
};

}  // namespace netstack

#endif  // PREDICTOR_HOST_ORIGIN_TABLE_H_
