#include "predictor/decayed_use_table.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "net/base/memory_usage_estimator.h"
#include "predictor/policy_util.h"

namespace netstack {
namespace {

bool ReadArray(const nlohmann::json& array, double* out, size_t size) {
  if (!array.is_array() || array.size() != size) return false;
  for (size_t i = 0; i < size; ++i) {
    const auto& v = array[i];
    if (!v.is_number()) return false;
    double d = v.get<double>();
    if (!std::isfinite(d) || d < 0) return false;
    out[i] = d;
  }
  return true;
}

bool ReadCounts(const nlohmann::json& data, DecayedUseTable::Counts* c) {
  auto it = data.find("c");
  return it != data.end() && ReadArray(*it, c->data(), c->size());
}

bool ReadStateCounts(const nlohmann::json& data,
                     std::array<DecayedUseTable::Counts, DecayedUseTable::kStates>* c) {
  auto it = data.find("c");
  if (it == data.end() || !it->is_array() || it->size() != c->size()) return false;
  for (size_t s = 0; s < c->size(); ++s) {
    if (!ReadArray((*it)[s], (*c)[s].data(), (*c)[s].size())) return false;
  }
  return true;
}

template <size_t N>
nlohmann::json ArrayJson(const std::array<double, N>& c) {
  nlohmann::json out = nlohmann::json::array();
  for (double v : c) out.push_back(v);
  return out;
}

nlohmann::json CountsJson(const DecayedUseTable::Counts& c) { return ArrayJson(c); }

}  // namespace

DecayedUseTable::DecayedUseTable(size_t max_keys, size_t max_origins, double half_life_days)
    : max_keys_(std::max<size_t>(max_keys, 1)),
      max_origins_(std::max<size_t>(max_origins, 1)),
      half_life_days_(half_life_days) {}

const DecayedUseTable::Entry* DecayedUseTable::Find(const std::string& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

DecayedUseTable::Entry* DecayedUseTable::FindMutable(const std::string& key) {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

DecayedUseTable::Entry* DecayedUseTable::FindOrCreate(const std::string& key, bool touch) {
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    EvictLowestUntilRoom(&entries_, max_keys_, [](const Entry& e) { return e.last_use; });
    it = entries_.emplace(key, Entry{}).first;
  }
  if (touch) it->second.last_use = ++sequence_;
  return &it->second;
}

double DecayedUseTable::Factor(const Entry& entry, TimeTicks now) const {
  return DecayFactor(now - entry.updated, half_life_days_);
}

void DecayedUseTable::Observe(const std::string& key, const std::vector<Need>& needs, int state,
                              TimeTicks now, const StateOf& state_of) {
  auto clamp_state = [](int s) { return std::clamp(s, 0, kStates - 1); };
  state = clamp_state(state);
  Entry* e = FindOrCreate(key, /*touch=*/true);
  if (e->observations > 0) {
    double f = Factor(*e, now);
    for (double& v : e->n) v *= f;
    for (auto& [okey, row] : e->origins) {
      for (double& v : row.n) v *= f;
      for (auto& counts : row.c) {
        for (double& v : counts) v *= f;
      }
    }
  }
  e->updated = std::max(e->updated, now);
  const std::array<double, kStates> earlier = e->n;
  e->n[state] += 1;
  ++e->observations;
  std::set<std::string> counted;  // rows this observation has counted, by origin key
  for (const Need& need : needs) {
    std::string okey = OriginKey(need.origin);
    const int s = need.state < 0 ? state : clamp_state(need.state);
    auto it = e->origins.find(okey);
    if (need.connections <= 0) {  // used, no new connection: a row only if it has one already
      if (it != e->origins.end()) {
        it->second.n[s] += 1;
        counted.insert(okey);
      }
      continue;
    }
    if (it == e->origins.end()) {
      // The least used goes (ties: the first by key); the newcomer has just been used.
      EvictLowestUntilRoom(&e->origins, max_origins_,
                           [](const OriginRow& r) { return r.c[0][0] + r.c[1][0]; });
      it = e->origins.emplace(okey, OriginRow{}).first;
      it->second.origin = need.origin;
      // The key's earlier observations did not need the origin; in which state it was then is
      // not known, and an origin nobody used is cold.
      it->second.n[0] = earlier[0] + earlier[1];
    }
    OriginRow& row = it->second;
    row.needed += static_cast<uint64_t>(need.connections);
    row.n[s] += 1;
    for (int k = 1; k <= std::min(need.connections, kMaxK); ++k) row.c[s][k - 1] += 1;
    counted.insert(okey);
  }
  for (auto& [okey, row] : e->origins) {
    if (counted.count(okey)) continue;
    row.n[state_of ? clamp_state(state_of(row.origin)) : state] += 1;
  }
}

std::vector<std::string> DecayedUseTable::KeysByRecentUse() const {
  std::vector<std::pair<uint64_t, std::string>> keys;
  for (const auto& [key, e] : entries_) keys.push_back({e.last_use, key});
  std::sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a > b; });
  std::vector<std::string> out;
  for (auto& k : keys) out.push_back(std::move(k.second));
  return out;
}

void DecayedUseTable::AppendRows(const std::string& table, TimeTicks saved_at,
                                 std::vector<PredictorRow>* out) const {
  for (const auto& [key, e] : entries_) {
    out->push_back(PredictorRow{table,
                                key,
                                "",
                                {{"n", ArrayJson(e.n)},
                                 {"observations", e.observations},
                                 {"last_use", e.last_use},
                                 {"age_us", ToMicros(saved_at - e.updated)}}});
    for (const auto& [okey, row] : e.origins) {
      out->push_back(PredictorRow{table,
                                  key,
                                  okey,
                                  {{"n", ArrayJson(row.n)},
                                   {"c", {CountsJson(row.c[0]), CountsJson(row.c[1])}},
                                   {"needed", row.needed},
                                   {"preconnects", row.preconnects},
                                   {"preresolves", row.preresolves}}});
    }
  }
}

bool DecayedUseTable::LoadRow(const PredictorRow& row, TimeTicks now) {
  if (row.key.empty()) return false;
  if (row.subkey.empty()) {
    std::array<double, kStates> n{};
    uint64_t observations, last_use;
    TimeTicks updated;
    if (!row.data.is_object() || !row.data.contains("n") ||
        !ReadArray(row.data["n"], n.data(), n.size()) ||
        !ReadCount(row.data, "observations", &observations) ||
        !ReadCount(row.data, "last_use", &last_use) ||
        !ReadAge(row.data, "age_us", now, &updated)) {
      return false;
    }
    Entry* e = FindOrCreate(row.key, /*touch=*/false);
    e->n = n;
    e->observations = observations;
    e->last_use = last_use;
    e->updated = updated;
    sequence_ = std::max(sequence_, last_use);
    return true;
  }
  OriginRow o;
  if (!ParseOriginKey(row.subkey, &o.origin) || !ReadStateCounts(row.data, &o.c) ||
      !ReadCount(row.data, "needed", &o.needed) ||
      !ReadCount(row.data, "preconnects", &o.preconnects) ||
      !ReadCount(row.data, "preresolves", &o.preresolves)) {
    return false;
  }
  Entry* e = FindOrCreate(row.key, /*touch=*/false);
  if (!e->origins.count(row.subkey) && e->origins.size() >= max_origins_) return false;
  // A row saved before rows had their own n takes its key's (cold and warm as the key's own
  // origin was); one whose key is read later keeps 0, which the policy bounds below by c.
  if (!row.data.is_object() || !row.data.contains("n")) {
    o.n = e->n;
  } else if (!ReadArray(row.data["n"], o.n.data(), o.n.size())) {
    return false;
  }
  e->origins[row.subkey] = o;
  return true;
}

void DecayedCounts::DecayTo(TimeTicks now, double half_life_days) {
  double f = Factor(now, half_life_days);
  n *= f;
  for (double& v : c) v *= f;
  updated = std::max(updated, now);
}

double DecayedCounts::Factor(TimeTicks now, double half_life_days) const {
  return DecayFactor(now - updated, half_life_days);
}

void DecayedCounts::Observe(int value, TimeTicks now, double half_life_days) {
  DecayTo(now, half_life_days);
  n += 1;
  for (int k = 1; k <= std::min(value, DecayedUseTable::kMaxK); ++k) c[k - 1] += 1;
}

nlohmann::json DecayedCounts::ToRow(TimeTicks saved_at) const {
  return {{"n", n}, {"c", CountsJson(c)}, {"age_us", ToMicros(saved_at - updated)}};
}

bool DecayedCounts::FromRow(const nlohmann::json& data, TimeTicks now) {
  double nn;
  DecayedUseTable::Counts cc{};
  TimeTicks at;
  if (!ReadNumber(data, "n", &nn) || nn < 0 || !ReadCounts(data, &cc) ||
      !ReadAge(data, "age_us", now, &at)) {
    return false;
  }
  n = nn;
  c = cc;
  updated = at;
  return true;
}

size_t DecayedUseTable::EstimateMemoryUsage() const {
  size_t bytes = entries_.size() * TreeNodeBytes<decltype(entries_)::value_type>();
  for (const auto& [key, entry] : entries_) {
    bytes += netstack::EstimateMemoryUsage(key) +
             entry.origins.size() * TreeNodeBytes<decltype(entry.origins)::value_type>();
    for (const auto& [origin_key, row] : entry.origins)
      bytes +=
          netstack::EstimateMemoryUsage(origin_key) + netstack::EstimateMemoryUsage(row.origin);
  }
  return bytes;
}

}  // namespace netstack
