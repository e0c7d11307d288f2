#include "predictor/host_origin_table.h"

#include <algorithm>

#include "net/base/memory_usage_estimator.h"
#include "predictor/policy_util.h"

namespace netstack {
namespace {

// ComputeOriginScore's weights (resource_prefetch_predictor_tables.cc): each criterion outweighs
// every later one.
constexpr double kHighConfidenceWeight = 1e6;
constexpr double kAlwaysNetworkWeight = 1e4;
constexpr double kAccessedNetworkWeight = 1e2;
constexpr double kPositionBase = 1e2;
// "High confidence" in ComputeOriginScore: confidence above this with more than that many hits.
constexpr double kHighConfidence = 0.75;
constexpr uint64_t kHighConfidenceMinHits = 10;

HostOriginTable::OriginStat FromSummary(const HostOriginTable::OriginSummary& s) {
  HostOriginTable::OriginStat stat;
  stat.origin = s.origin;
  stat.hits = 1;
  stat.average_position = static_cast<double>(s.first_occurrence) + 1;
  stat.always_access_network = s.always_access_network;
  stat.accessed_network = s.accessed_network;
  return stat;
}

bool ReadBool(const nlohmann::json& data, const char* name, bool* out) {
  auto it = data.find(name);
  if (it == data.end() || !it->is_boolean()) return false;
  *out = it->get<bool>();
  return true;
}

}  // namespace

HostOriginTable::HostOriginTable(size_t max_hosts, size_t max_origins,
                                 uint64_t max_consecutive_misses)
    : max_hosts_(std::max<size_t>(max_hosts, 1)),
      max_origins_(std::max<size_t>(max_origins, 1)),
      max_consecutive_misses_(std::max<uint64_t>(max_consecutive_misses, 1)) {}

double HostOriginTable::Confidence(const OriginStat& stat) {
  const double total = static_cast<double>(stat.hits) + static_cast<double>(stat.misses);
  return total > 0 ? static_cast<double>(stat.hits) / total : 0;
}

double HostOriginTable::Score(const OriginStat& stat) {
  double score = 0;
  if (Confidence(stat) > kHighConfidence && stat.hits > kHighConfidenceMinHits) {
    score += kHighConfidenceWeight;
  }
  if (stat.always_access_network) score += kAlwaysNetworkWeight;
  if (stat.accessed_network) score += kAccessedNetworkWeight;
  score += kPositionBase - stat.average_position;
  return score;
}

HostOriginTable::Host* HostOriginTable::Touch(const std::string& host) {
  auto it = hosts_.find(host);
  if (it == hosts_.end()) {
    while (hosts_.size() >= max_hosts_) {
      auto lowest = FindLowest(&hosts_, [](const Host& h) { return h.last_visit; });
      load_ranks_.erase(lowest->first);
      hosts_.erase(lowest);
    }
    it = hosts_.emplace(host, Host{}).first;
  }
  it->second.last_visit = ++sequence_;
  return &it->second;
}

void HostOriginTable::Learn(const std::string& host, const SchemeHostPort& main_frame,
                            const std::vector<OriginSummary>& summaries) {
  if (host.empty() || host.size() > kMaxHostLength) return;
  load_ranks_.erase(host);
  const bool existed = hosts_.count(host) > 0;
  Host* data = Touch(host);
  std::vector<OriginStat>& origins = data->origins;
  if (!existed) {
    // A new host takes the load's origins in their order of first request.
    std::vector<const OriginSummary*> ordered;
    for (const OriginSummary& s : summaries) ordered.push_back(&s);
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto* a, const auto* b) {
      return a->first_occurrence < b->first_occurrence;
    });
    for (const OriginSummary* s : ordered) origins.push_back(FromSummary(*s));
  } else {
    std::map<std::string, const OriginSummary*> seen;
    for (const OriginSummary& s : summaries) seen.emplace(OriginKey(s.origin), &s);
    std::map<std::string, bool> known;
    for (OriginStat& stat : origins) {
      const std::string key = OriginKey(stat.origin);
      known[key] = true;
      auto it = seen.find(key);
      if (it == seen.end()) {
        ++stat.misses;
        ++stat.consecutive_misses;
        continue;
      }
      const OriginSummary& s = *it->second;
      stat.always_access_network = s.always_access_network;
      stat.accessed_network = s.accessed_network;
      // The position averages over every load the origin was scored on, misses included, as
      // Chrome's does.
      const double total = static_cast<double>(stat.hits + stat.misses);
      stat.average_position =
          (stat.average_position * total + static_cast<double>(s.first_occurrence) + 1) /
          (total + 1);
      ++stat.hits;
      stat.consecutive_misses = 0;
    }
    for (const OriginSummary& s : summaries) {
      if (!known.count(OriginKey(s.origin))) origins.push_back(FromSummary(s));
    }
  }
  // Trim, sort, cut (TrimOrigins, SortOrigins, DeleteSubrange).
  origins.erase(std::remove_if(origins.begin(), origins.end(),
                               [this](const OriginStat& s) {
                                 return s.consecutive_misses >= max_consecutive_misses_;
                               }),
                origins.end());
  auto first = origins.begin();
  auto self = std::find_if(origins.begin(), origins.end(),
                           [&](const OriginStat& s) { return s.origin == main_frame; });
  if (self != origins.end()) {
    std::iter_swap(origins.begin(), self);
    ++first;
  }
  // Stable, so equal scores keep their order and runs are reproducible.
  std::stable_sort(first, origins.end(),
                   [](const OriginStat& a, const OriginStat& b) { return Score(a) > Score(b); });
  if (origins.size() > max_origins_) origins.resize(max_origins_);
  if (origins.empty()) hosts_.erase(host);
}

const HostOriginTable::Host* HostOriginTable::Find(const std::string& host) const {
  auto it = hosts_.find(host);
  return it == hosts_.end() ? nullptr : &it->second;
}

std::vector<std::string> HostOriginTable::HostsByRecentVisit() const {
  std::vector<std::pair<uint64_t, std::string>> order;
  for (const auto& [host, data] : hosts_) order.emplace_back(data.last_visit, host);
  std::sort(order.rbegin(), order.rend());
  std::vector<std::string> out;
  for (auto& [visit, host] : order) out.push_back(std::move(host));
  return out;
}

void HostOriginTable::AppendRows(std::vector<PredictorRow>* out) const {
  for (const auto& [host, data] : hosts_) {
    for (size_t i = 0; i < data.origins.size(); ++i) {
      const OriginStat& s = data.origins[i];
      out->push_back(PredictorRow{"origins",
                                  host,
                                  OriginKey(s.origin),
                                  {{"hits", s.hits},
                                   {"misses", s.misses},
                                   {"consecutive_misses", s.consecutive_misses},
                                   {"average_position", s.average_position},
                                   {"always_access_network", s.always_access_network},
                                   {"accessed_network", s.accessed_network},
                                   {"rank", i},
                                   {"last_visit", data.last_visit}}});
    }
  }
}

bool HostOriginTable::LoadRow(const PredictorRow& row) {
  OriginStat s;
  uint64_t rank = 0, last_visit = 0;
  if (row.key.empty() || row.key.size() > kMaxHostLength || !row.data.is_object() ||
      !ParseOriginKey(row.subkey, &s.origin) || !ReadCount(row.data, "hits", &s.hits) ||
      !ReadCount(row.data, "misses", &s.misses) ||
      !ReadCount(row.data, "consecutive_misses", &s.consecutive_misses) ||
      !ReadNumber(row.data, "average_position", &s.average_position) ||
      !ReadBool(row.data, "always_access_network", &s.always_access_network) ||
      !ReadBool(row.data, "accessed_network", &s.accessed_network) ||
      !ReadCount(row.data, "rank", &rank) || !ReadCount(row.data, "last_visit", &last_visit) ||
      s.hits + s.misses == 0 || s.hits < 1 || s.average_position < 0 ||
      s.consecutive_misses >= max_consecutive_misses_) {
    // A row with no hit never exists (an origin enters with one); one at the miss limit would
    // have been dropped.
    return false;
  }
  if (rank >= max_origins_) return true;  // past this table's bound: dropped, not malformed
  const bool existed = hosts_.count(row.key) > 0;
  if (!existed) {
    while (hosts_.size() >= max_hosts_) {
      auto lowest = FindLowest(&hosts_, [](const Host& h) { return h.last_visit; });
      load_ranks_.erase(lowest->first);
      hosts_.erase(lowest);
    }
  }
  Host& host = hosts_[row.key];
  host.last_visit = std::max(host.last_visit, last_visit);
  sequence_ = std::max(sequence_, last_visit);
  std::vector<uint64_t>& ranks = load_ranks_[row.key];
  ranks.resize(host.origins.size(), 0);  // a host learned before this load: its rows rank 0
  auto same = std::find_if(host.origins.begin(), host.origins.end(),
                           [&](const OriginStat& o) { return o.origin == s.origin; });
  if (same != host.origins.end()) {
    ranks.erase(ranks.begin() + (same - host.origins.begin()));
    host.origins.erase(same);
  }
  const size_t at = std::upper_bound(ranks.begin(), ranks.end(), rank) - ranks.begin();
  host.origins.insert(host.origins.begin() + at, s);
  ranks.insert(ranks.begin() + at, rank);
  if (host.origins.size() > max_origins_) {
    host.origins.resize(max_origins_);
    ranks.resize(max_origins_);
  }
  return true;
}

size_t HostOriginTable::EstimateMemoryUsage() const {
  size_t bytes = netstack::EstimateMemoryUsage(load_ranks_);
  for (const auto& [host, data] : hosts_) {
    bytes += netstack::EstimateMemoryUsage(host) + sizeof(Host) + 4 * sizeof(void*);
    bytes += data.origins.capacity() * sizeof(OriginStat);
    for (const OriginStat& s : data.origins) bytes += netstack::EstimateMemoryUsage(s.origin);
  }
  return bytes;
}

}  // namespace netstack
