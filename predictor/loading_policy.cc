#include "predictor/loading_policy.h"

#include <algorithm>

#include "net/base/memory_usage_estimator.h"
#include "predictor/policy_util.h"

namespace netstack {

bool OmniboxHintGate::Allow(const SchemeHostPort& origin, bool preconnectable, TimeTicks now) {
  // Chrome's last origin starts opaque, so the first hint is always for a new origin.
  const bool is_new_origin = !has_last_ || !(origin == last_origin_);
  has_last_ = true;
  last_origin_ = origin;
  TimeTicks& last = preconnectable ? last_preconnect_ : last_preresolve_;
  const TimeDelta period = preconnectable ? kPreconnectPeriod : kPreresolvePeriod;
  if (!is_new_origin && now - last < period) return false;
  last = now;
  return true;
}

LoadingPolicy::LoadingPolicy(const PredictorConfig& config)
    : origins_(kMaxHosts, kMaxOriginsPerHost, kMaxConsecutiveMisses),
      omnibox_(config.max_omnibox_rows, /*half_life_days=*/0) {}

LoadingPolicy::~LoadingPolicy() = default;

void LoadingPolicy::Saw(TimeTicks now) { last_now_ = std::max(last_now_, now); }

double LoadingPolicy::OmniboxConfidence(double hits, double misses) {
  if (hits < kOmniboxMinHits) return 0;
  return hits / (hits + misses);
}

void LoadingPolicy::OnStartup(TimeTicks now, std::vector<Hint>* out) { Saw(now); }

void LoadingPolicy::OnNavigation(const Url& page, TimeTicks now, std::vector<Hint>* out) {
  Saw(now);
  omnibox_.ScoreNavigation(page.spec(), now);
  last_prerender_.clear();  // the navigation ends the omnibox's prerender
  const SchemeHostPort main_frame = page.scheme_host_port();

  // PredictPreconnectOrigins: the host's origins in the table's order; sockets 0 = pre-resolve.
  struct Request {
    SchemeHostPort origin;
    int sockets;
    double confidence;
  };
  std::vector<Request> requests;
  if (const HostOriginTable::Host* host = origins_.Find(main_frame.host)) {
    for (const HostOriginTable::OriginStat& stat : host->origins) {
      const double confidence = HostOriginTable::Confidence(stat);
      if (confidence < kPreresolveFrom) continue;
      requests.push_back(
          {stat.origin, confidence > kPreconnectAbove ? kLearnedSockets : 0, confidence});
    }
  }
  // AddInitialUrlToPreconnectPrediction: the main frame's origin first, with at least 2 sockets.
  if (!requests.empty() && requests.front().origin == main_frame) {
    requests.front().sockets = std::max(requests.front().sockets, kMainFrameSockets);
  } else {
    requests.insert(requests.begin(), {main_frame, kMainFrameSockets, 1.0});
  }
  for (const Request& r : requests) {
    const bool self = r.origin == main_frame;
    const HintMotivation m = self ? HintMotivation::kEarlyLoad : HintMotivation::kLearnedReferral;
    const double likelihood = self ? 1.0 : r.confidence;
    if (r.sockets > 0) {
      out->push_back(MakeHint(m, SpeculativeAction::kPreconnect, r.origin, r.sockets, likelihood,
                              page.spec(), now));
    } else {
      out->push_back(
          MakeHint(m, SpeculativeAction::kPreresolve, r.origin, 1, likelihood, page.spec(), now));
    }
  }

  // CleanupAbandonedHintsAndNavigations: loads open too long are dropped unlearned.
  for (auto it = loads_.begin(); it != loads_.end();) {
    it = now - it->second.started > kMaxNavigationLifetime ? loads_.erase(it) : std::next(it);
  }
  const std::string key = page.spec();
  loads_.erase(key);  // a new load of the same page starts over
  while (loads_.size() >= kMaxLoadsInProgress) {
    loads_.erase(FindLowest(&loads_, [](const Load& l) { return l.started; }));
  }
  loads_[key].started = now;
}

HostOriginTable::OriginSummary* LoadingPolicy::Record(Load* load, const SchemeHostPort& origin) {
  const std::string key = OriginKey(origin);
  auto it = load->index.find(key);
  if (it != load->index.end()) return &load->origins[it->second];
  if (load->origins.size() >= kMaxOriginsPerLoad) return nullptr;
  HostOriginTable::OriginSummary summary;
  summary.origin = origin;
  summary.first_occurrence = load->origins.size();
  load->index.emplace(key, load->origins.size());
  load->origins.push_back(summary);
  return &load->origins.back();
}

void LoadingPolicy::OnResourceRequested(const Url& page, const Url& url, TimeTicks now) {
  Saw(now);
  auto it = loads_.find(page.spec());
  if (it != loads_.end()) Record(&it->second, url.scheme_host_port());
}

void LoadingPolicy::OnConnectionNeeded(const Url& page, const SchemeHostPort& origin,
                                       SocketSource source, bool background, double connect_wait_ms,
                                       TimeTicks now) {
  Saw(now);
  auto it = loads_.find(page.spec());
  if (it == loads_.end()) return;
  // A new connection means the request went to the network (Chrome's network_accessed). A
  // request on a reused socket did too, but the policy is not told of it: the flag only ranks.
  if (HostOriginTable::OriginSummary* s = Record(&it->second, origin)) s->accessed_network = true;
}

void LoadingPolicy::OnNavigationComplete(const Url& page, TimeTicks now) {
  Saw(now);
  auto it = loads_.find(page.spec());
  if (it == loads_.end()) return;
  const SchemeHostPort main_frame = page.scheme_host_port();
  origins_.Learn(main_frame.host, main_frame, it->second.origins);
  loads_.erase(it);
}

void LoadingPolicy::OnHover(const Url& target, TimeTicks now, std::vector<Hint>* out) { Saw(now); }

void LoadingPolicy::OnOmnibox(const std::string& text, const Url& url, TimeTicks now,
                              std::vector<Hint>* out) {
  Saw(now);
  const OmniboxTable::Counts counts = omnibox_.OnKeystroke(text, url.spec(), now);
  const double confidence = OmniboxConfidence(counts.hits, counts.misses);
  const HintMotivation m = HintMotivation::kOmnibox;
  if (confidence >= kOmniboxPrerenderAt) {
    // ACTION_PRERENDER: one prerender of the URL (a fetch ahead here), not renewed per keystroke.
    if (last_prerender_ != url.spec()) {
      last_prerender_ = url.spec();
      out->push_back(MakeFetchHint(m, url, confidence, url.spec(), now));
    }
    return;
  }
  if (confidence < kOmniboxPreconnectAt) return;
  // ACTION_PRECONNECT: PrepareForPageLoad(OMNIBOX, IsPreconnectable(match)). Only search
  // suggestions are preconnectable; the omnibox events here suggest URLs, so it pre-resolves.
  const bool preconnectable = false;
  const SchemeHostPort origin = url.scheme_host_port();
  if (!omnibox_gate_.Allow(origin, preconnectable, now)) return;
  out->push_back(
      MakeHint(m, SpeculativeAction::kPreresolve, origin, 1, confidence, url.spec(), now));
}

void LoadingPolicy::OnStaticHint(const Url& page, StaticHintKind kind, const Url& target,
                                 TimeTicks now, std::vector<Hint>* out) {
  Saw(now);
  AppendStaticHint(page, kind, target, now, out);
}

nlohmann::json LoadingPolicy::TablesToJson() const {
  nlohmann::json rows = nlohmann::json::array();
  for (const std::string& host : origins_.HostsByRecentVisit()) {
    for (const HostOriginTable::OriginStat& s : origins_.Find(host)->origins) {
      const double confidence = HostOriginTable::Confidence(s);
      const char* action = confidence > kPreconnectAbove   ? "preconnect"
                           : confidence >= kPreresolveFrom ? "preresolve"
                                                           : "none";
      rows.push_back({{"page", host},
                      {"origin", OriginKey(s.origin)},
                      {"hits", s.hits},
                      {"misses", s.misses},
                      {"consecutive_misses", s.consecutive_misses},
                      {"confidence", confidence},
                      {"average_position", s.average_position},
                      {"accessed_network", s.accessed_network},
                      {"always_access_network", s.always_access_network},
                      {"action", action}});
    }
  }
  return {{"referrers", rows},
          {"omnibox", omnibox_.ToJson(last_now_, &LoadingPolicy::OmniboxConfidence)}};
}

std::vector<PredictorRow> LoadingPolicy::SaveRows() const {
  std::vector<PredictorRow> rows;
  origins_.AppendRows(&rows);
  omnibox_.AppendRows("omnibox", last_now_, &rows);
  return rows;
}

void LoadingPolicy::LoadRows(const std::vector<PredictorRow>& rows, TimeTicks now,
                             size_t* skipped) {
  Saw(now);
  size_t bad = 0;
  for (const PredictorRow& row : rows) {
    if (row.table == kMetaTable) continue;  // the caller's (saved_at): not a policy row
    bool ok = false;
    if (row.table == "origins") {
      ok = origins_.LoadRow(row);
    } else if (row.table == "omnibox") {
      TimeTicks updated;
      if (row.data.is_object() && ReadAge(row.data, "age_us", now, &updated) &&
          now - updated > kOmniboxMaxAge) {
        continue;  // DeleteOldEntries: too old to keep, not malformed
      }
      ok = omnibox_.LoadRow(row, now);
    }
    if (!ok) ++bad;
  }
  if (skipped) *skipped = bad;
}

size_t LoadingPolicy::EstimateMemoryUsage() const {
  size_t loads = 0;
  for (const auto& [page, load] : loads_) {
    loads += netstack::EstimateMemoryUsage(page) + netstack::EstimateMemoryUsage(load.index) +
             load.origins.capacity() * sizeof(HostOriginTable::OriginSummary) + 4 * sizeof(void*);
    for (const auto& s : load.origins) loads += netstack::EstimateMemoryUsage(s.origin);
  }
  return origins_.EstimateMemoryUsage() + omnibox_.EstimateMemoryUsage() + loads +
         netstack::EstimateMemoryUsage(last_prerender_);
}

}  // namespace netstack
