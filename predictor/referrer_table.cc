#include "predictor/referrer_table.h"

#include <algorithm>

#include "net/base/memory_usage_estimator.h"
#include "predictor/policy_util.h"

namespace netstack {

ReferrerTable::ReferrerTable(size_t max_referrers, size_t max_origins)
    : max_referrers_(std::max<size_t>(max_referrers, 1)),
      max_origins_(std::max<size_t>(max_origins, 1)) {}

ReferrerTable::Referrer* ReferrerTable::Find(const std::string& referrer) {
  auto it = referrers_.find(referrer);
  return it == referrers_.end() ? nullptr : &it->second;
}

const ReferrerTable::Referrer* ReferrerTable::Find(const std::string& referrer) const {
  auto it = referrers_.find(referrer);
  return it == referrers_.end() ? nullptr : &it->second;
}

ReferrerTable::Referrer* ReferrerTable::FindOrCreate(const std::string& referrer) {
  auto it = referrers_.find(referrer);
  if (it == referrers_.end()) {
    EvictLowestUntilRoom(&referrers_, max_referrers_, [](const Referrer& r) { return r.last_use; });
    it = referrers_.emplace(referrer, Referrer{}).first;
  }
  it->second.last_use = ++sequence_;
  return &it->second;
}

void ReferrerTable::OriginNeeded(Referrer* referrer, const SchemeHostPort& origin) {
  std::string key = OriginKey(origin);
  auto it = referrer->origins.find(key);
  if (it != referrer->origins.end()) {
    it->second.expected_connects += kIncreasePerConnect;
    ++it->second.navigations;
    return;
  }
  // Chrome's DeleteLeastUseful: the lowest expected value goes (ties: the first by key).
  EvictLowestUntilRoom(&referrer->origins, max_origins_,
                       [](const OriginRow& r) { return r.expected_connects; });
  OriginRow row;
  row.origin = origin;
  row.expected_connects = kInitialExpectedConnects;
  row.navigations = 1;
  referrer->origins.emplace(key, row);
}

void ReferrerTable::DecayOnVisit(Referrer* referrer) {
  for (auto it = referrer->origins.begin(); it != referrer->origins.end();) {
    it->second.expected_connects *= kDecayPerVisit;
    if (it->second.expected_connects < kDiscardBelow) {
      it = referrer->origins.erase(it);
    } else {
      ++it;
    }
  }
}

std::vector<std::string> ReferrerTable::KeysByRecentUse() const {
  std::vector<std::pair<uint64_t, std::string>> keys;
  for (const auto& [key, r] : referrers_) keys.push_back({r.last_use, key});
  std::sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a > b; });
  std::vector<std::string> out;
  for (auto& k : keys) out.push_back(std::move(k.second));
  return out;
}

void ReferrerTable::AppendRows(std::vector<PredictorRow>* out) const {
  for (const auto& [key, r] : referrers_) {
    out->push_back(PredictorRow{
        "referrers", key, "", {{"page_loads", r.page_loads}, {"last_use", r.last_use}}});
    for (const auto& [okey, o] : r.origins) {
      out->push_back(PredictorRow{"referrers",
                                  key,
                                  okey,
                                  {{"expected_connects", o.expected_connects},
                                   {"navigations", o.navigations},
                                   {"preconnects", o.preconnects},
                                   {"preresolves", o.preresolves}}});
    }
  }
}

bool ReferrerTable::LoadRow(const PredictorRow& row) {
  if (row.key.empty()) return false;
  if (row.subkey.empty()) {
    uint64_t page_loads, last_use;
    if (!ReadCount(row.data, "page_loads", &page_loads) ||
        !ReadCount(row.data, "last_use", &last_use)) {
      return false;
    }
    Referrer* r = FindOrCreate(row.key);
    r->page_loads = page_loads;
    r->last_use = last_use;
    sequence_ = std::max(sequence_, last_use);
    return true;
  }
  OriginRow o;
  if (!ParseOriginKey(row.subkey, &o.origin) ||
      !ReadNumber(row.data, "expected_connects", &o.expected_connects) || o.expected_connects < 0 ||
      !ReadCount(row.data, "navigations", &o.navigations) ||
      !ReadCount(row.data, "preconnects", &o.preconnects) ||
      !ReadCount(row.data, "preresolves", &o.preresolves)) {
    return false;
  }
  Referrer* r = Find(row.key);
  if (!r) {
    // Created without counting as a use: its "" row sets last_use. Keep the LRU bound.
    uint64_t saved = sequence_;
    r = FindOrCreate(row.key);
    r->last_use = 0;
    sequence_ = saved;
  }
  if (!r->origins.count(row.subkey) && r->origins.size() >= max_origins_) return false;
  r->origins[row.subkey] = o;
  return true;
}

size_t ReferrerTable::EstimateMemoryUsage() const {
  size_t bytes = referrers_.size() * TreeNodeBytes<decltype(referrers_)::value_type>();
  for (const auto& [key, referrer] : referrers_) {
    bytes += netstack::EstimateMemoryUsage(key) +
             referrer.origins.size() * TreeNodeBytes<decltype(referrer.origins)::value_type>();
    for (const auto& [origin_key, row] : referrer.origins)
      bytes +=
          netstack::EstimateMemoryUsage(origin_key) + netstack::EstimateMemoryUsage(row.origin);
  }
  return bytes;
}

}  // namespace netstack
