// LearnedPolicy's tables as JSON (the internals page) and as rows (persistence).
#include <algorithm>
#include <utility>
#include <vector>

#include "net/base/memory_usage_estimator.h"
#include "predictor/learned_policy.h"
#include "predictor/policy_util.h"

namespace netstack {
namespace {

constexpr char kStartupKey[] = "startup";

// chrome://dns-like rows of one DecayedUseTable level.
nlohmann::json LevelJson(const DecayedUseTable& table, TimeTicks now) {
  nlohmann::json rows = nlohmann::json::array();
  for (const std::string& key : table.KeysByRecentUse()) {
    const DecayedUseTable::Entry* e = table.Find(key);
    const double f = table.Factor(*e, now);
    for (const auto& [okey, row] : e->origins) {
      // The level's own estimates (no shrinkage): decayed share of loads needing >= k, cold
      // and warm.
      double p[DecayedUseTable::kStates], expected = 0;
      for (int s = 0; s < DecayedUseTable::kStates; ++s) {
        double n = row.n[s] * f;
        p[s] = n > 0 ? row.c[s][0] * f / n : 0;
      }
      for (double c : row.c[0]) expected += row.n[0] > 0 ? c / row.n[0] : 0;
      rows.push_back({{"page", key},
                      {"origin", okey},
                      {"page_loads", e->observations},
                      {"navigations", row.needed},
                      {"preconnects", row.preconnects},
                      {"preresolves", row.preresolves},
                      {"p_use", p[0]},
                      {"p_use_warm", p[1]},
                      {"loads_cold", row.n[0] * f},
                      {"loads_warm", row.n[1] * f},
                      {"expected_sockets", expected},
                      {"weight", e->total() * f}});
    }
  }
  return rows;
}

}  // namespace

nlohmann::json LearnedPolicy::TablesToJson() const {
  const TimeTicks now = last_now_;
  nlohmann::json omnibox = omnibox_.ToJson(now, &LearnedPolicy::OmniboxConfidence);
  nlohmann::json startup = nlohmann::json::array();
  if (const DecayedUseTable::Entry* e = startup_.Find(kStartupKey)) {
    const double f = startup_.Factor(*e, now);
    for (const auto& [okey, row] : e->origins) {
      startup.push_back({{"host", okey},
                         {"count", row.needed},
                         {"p_use", row.c[0][0] * f / (e->n[0] * f + kPriorStrength)}});
    }
  }
  nlohmann::json setup = nlohmann::json::array();
  for (const auto& [okey, s] : setup_) {
    setup.push_back({{"origin", okey}, {"setup_ms", s.ms}, {"samples", s.samples}});
  }
  // Each origin's state now, which picks the row (cold or warm) its needs are predicted from;
  // most recently used first. Not saved: after a restart the pool is empty, every origin cold.
  std::vector<std::pair<TimeTicks, const std::string*>> uses;
  for (const auto& [okey, at] : last_use_) uses.push_back({at, &okey});
  std::sort(uses.begin(), uses.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : *a.second < *b.second;
  });
  nlohmann::json warm = nlohmann::json::array();
  for (const auto& [at, okey] : uses) {
    const TimeDelta idle = std::max(TimeDelta::zero(), now - at);
    warm.push_back(
        {{"origin", *okey},
         {"state", idle <= kWarmWindow ? "warm" : "cold"},
         {"idle_ms", ToMilliseconds(idle)},
         {"warm_for_ms", ToMilliseconds(std::max(TimeDelta::zero(), kWarmWindow - idle))}});
  }
  const double fh = hover_.Factor(now, config_.learned_half_life_days);
  return {{"referrers", LevelJson(pages_, now)},
          {"sites", LevelJson(sites_, now)},
          {"omnibox", omnibox},
          {"startup", startup},
          {"setup", setup},
          {"warm", warm},
          {"hover",
           {{"hovers", hover_.n * fh},
            {"clicks", hover_.c[0] * fh},
            {"p_click", ClickProbability(now)}}},
          {"budget", budget_.ToJson()},
          {"outcomes", outcomes_}};
}

std::vector<PredictorRow> LearnedPolicy::SaveRows() const {
  std::vector<PredictorRow> rows;
  pages_.AppendRows("pages", last_now_, &rows);
  sites_.AppendRows("sites", last_now_, &rows);
  if (startup_open_ && !startup_needs_.empty()) {
    // An open window is saved as if it closed now, so a short run still teaches the list.
    DecayedUseTable startup = startup_;
    startup.Observe(kStartupKey, StartupNeeds(), /*state=*/0, last_now_);
    startup.AppendRows("startup", last_now_, &rows);
  } else {
    startup_.AppendRows("startup", last_now_, &rows);
  }
  omnibox_.AppendRows("omnibox", last_now_, &rows);
  rows.push_back({"self", "cold", "", self_[0].ToRow(last_now_)});
  rows.push_back({"self", "warm", "", self_[1].ToRow(last_now_)});
  rows.push_back({"hover", "hover", "", hover_.ToRow(last_now_)});
  rows.push_back({"budget", "budget", "", budget_.ToJson()});
  for (const auto& [okey, s] : setup_) {
    rows.push_back(
        {"setup", okey, "", {{"ms", s.ms}, {"samples", s.samples}, {"last_use", s.last_use}}});
  }
  return rows;
}

void LearnedPolicy::LoadRows(const std::vector<PredictorRow>& rows, TimeTicks now,
                             size_t* skipped) {
  Saw(now);
  size_t bad = 0;
  for (const PredictorRow& row : rows) {
    if (row.table == kMetaTable) continue;  // the caller's (saved_at): not a policy row
    bool ok = false;
    if (row.table == "pages") {
      ok = pages_.LoadRow(row, now);
    } else if (row.table == "sites") {
      ok = sites_.LoadRow(row, now);
    } else if (row.table == "startup") {
      ok = row.key == kStartupKey && startup_.LoadRow(row, now);
    } else if (row.table == "omnibox") {
      ok = omnibox_.LoadRow(row, now);
    } else if (row.table == "self") {
      ok = (row.key == "cold" || row.key == "warm") &&
           self_[row.key == "warm" ? 1 : 0].FromRow(row.data, now);
    } else if (row.table == "hover") {
      ok = hover_.FromRow(row.data, now);
    } else if (row.table == "budget") {
      ok = budget_.FromJson(row.data);
    } else if (row.table == "setup") {
      double ms;
      uint64_t samples, last_use;
      SchemeHostPort origin;
      ok = ParseOriginKey(row.key, &origin) && ReadNumber(row.data, "ms", &ms) && ms >= 0 &&
           ReadCount(row.data, "samples", &samples) && ReadCount(row.data, "last_use", &last_use) &&
           (setup_.count(row.key) || setup_.size() < kMaxSetupOrigins);
      if (ok) {
        setup_[row.key] = Setup{ms, samples, last_use};
        setup_sequence_ = std::max(setup_sequence_, last_use);
      }
    }
    if (!ok) ++bad;
  }
  if (skipped) *skipped = bad;
}

// The learned policy's structs for EstimateMemoryUsage (found by argument-dependent lookup).
static size_t EstimateMemoryUsage(const DecayedUseTable::Need& need) {
  return EstimateMemoryUsage(need.origin);
}

size_t LearnedPolicy::EstimateMemoryUsage() const {
  size_t bytes = pages_.EstimateMemoryUsage() + sites_.EstimateMemoryUsage() +
                 startup_.EstimateMemoryUsage() + omnibox_.EstimateMemoryUsage() +
                 resolve_limiter_.EstimateMemoryUsage() +
                 preconnect_limiter_.EstimateMemoryUsage() + fetch_limiter_.EstimateMemoryUsage();
  bytes += netstack::EstimateMemoryUsage(setup_) + netstack::EstimateMemoryUsage(last_use_) +
           netstack::EstimateMemoryUsage(pending_hovers_) +
           netstack::EstimateMemoryUsage(startup_needs_) + netstack::EstimateMemoryUsage(outcomes_);
  bytes += loads_.size() * TreeNodeBytes<decltype(loads_)::value_type>();
  for (const auto& [spec, load] : loads_)
    bytes += netstack::EstimateMemoryUsage(spec) + netstack::EstimateMemoryUsage(load.page) +
             netstack::EstimateMemoryUsage(load.needs);
  return bytes;
}

}  // namespace netstack
