#include "predictor/omnibox_table.h"

#include <algorithm>

#include "net/base/memory_usage_estimator.h"
#include "predictor/policy_util.h"

namespace netstack {

OmniboxTable::OmniboxTable(size_t max_rows, double half_life_days)
    : max_rows_(std::max<size_t>(max_rows, 1)), half_life_days_(half_life_days) {}

void OmniboxTable::AddPending(const std::string& text, const std::string& url) {
  auto pair = std::make_pair(text, url);
  if (std::find(pending_.begin(), pending_.end(), pair) != pending_.end()) return;
  if (pending_.size() >= kMaxPending) pending_.pop_front();
  pending_.push_back(std::move(pair));
}

void OmniboxTable::EvictIfFull() {
  EvictLowestUntilRoom(&rows_, max_rows_, [](const Row& r) { return r.last_use; });
}

void OmniboxTable::ScoreNavigation(const std::string& url, TimeTicks now) {
  for (auto& pair : pending_) {
    auto it = rows_.find(pair);
    if (it == rows_.end()) {
      EvictIfFull();
      it = rows_.emplace(pair, Row{}).first;
      it->second.updated = now;
    }
    Row& row = it->second;
    double f = DecayFactor(now - row.updated, half_life_days_);
    row.hits *= f;
    row.misses *= f;
    row.updated = std::max(row.updated, now);
    (pair.second == url ? row.hits : row.misses) += 1;
    Touch(&row);
  }
  pending_.clear();
}

bool OmniboxTable::Get(const std::string& text, const std::string& url, TimeTicks now, double* hits,
                       double* misses) const {
  *hits = *misses = 0;
  auto it = rows_.find({text, url});
  if (it == rows_.end()) return false;
  double f = DecayFactor(now - it->second.updated, half_life_days_);
  *hits = it->second.hits * f;
  *misses = it->second.misses * f;
  return true;
}

OmniboxTable::Counts OmniboxTable::OnKeystroke(const std::string& text, const std::string& url,
                                               TimeTicks now) {
  AddPending(text, url);
  Counts counts;
  Get(text, url, now, &counts.hits, &counts.misses);
  return counts;
}

nlohmann::json OmniboxTable::ToJson(TimeTicks now,
                                    double (*confidence)(double hits, double misses)) const {
  nlohmann::json rows = nlohmann::json::array();
  for (const Entry& e : Entries(now)) {
    rows.push_back({{"text", e.text},
                    {"url", e.url},
                    {"hits", e.hits},
                    {"misses", e.misses},
                    {"confidence", confidence(e.hits, e.misses)}});
  }
  return rows;
}

std::vector<OmniboxTable::Entry> OmniboxTable::Entries(TimeTicks now) const {
  std::vector<std::pair<uint64_t, Entry>> sorted;
  for (const auto& [key, row] : rows_) {
    double f = DecayFactor(now - row.updated, half_life_days_);
    sorted.push_back({row.last_use, Entry{key.first, key.second, row.hits * f, row.misses * f}});
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<Entry> out;
  for (auto& s : sorted) out.push_back(std::move(s.second));
  return out;
}

void OmniboxTable::AppendRows(const std::string& table, TimeTicks saved_at,
                              std::vector<PredictorRow>* out) const {
  for (const auto& [key, row] : rows_) {
    out->push_back(PredictorRow{table,
                                key.first,
                                key.second,
                                {{"hits", row.hits},
                                 {"misses", row.misses},
                                 {"last_use", row.last_use},
                                 {"age_us", ToMicros(saved_at - row.updated)}}});
  }
}

bool OmniboxTable::LoadRow(const PredictorRow& row, TimeTicks now) {
  double hits, misses;
  uint64_t last_use;
  TimeTicks updated;
  if (!ReadNumber(row.data, "hits", &hits) || !ReadNumber(row.data, "misses", &misses) ||
      !ReadCount(row.data, "last_use", &last_use) || !ReadAge(row.data, "age_us", now, &updated) ||
      hits < 0 || misses < 0 || row.key.empty() || row.subkey.empty()) {
    return false;
  }
  auto key = std::make_pair(row.key, row.subkey);
  if (!rows_.count(key)) EvictIfFull();
  Row& r = rows_[key];
  r.hits = hits;
  r.misses = misses;
  r.updated = updated;
  r.last_use = last_use;
  sequence_ = std::max(sequence_, last_use);
  return true;
}

bool OmniboxRateLimiter::Allow(const std::string& key, TimeTicks now) {
  auto it = last_.find(key);
  if (it != last_.end()) {
    if (now - it->second < period_) return false;
    it->second = now;
    return true;
  }
  EvictLowestUntilRoom(&last_, max_keys_, [](TimeTicks t) { return t; });
  last_[key] = now;
  return true;
}

size_t OmniboxTable::EstimateMemoryUsage() const {
  return netstack::EstimateMemoryUsage(rows_) + netstack::EstimateMemoryUsage(pending_);
}

size_t OmniboxRateLimiter::EstimateMemoryUsage() const {
  return netstack::EstimateMemoryUsage(last_);
}

}  // namespace netstack
