#include "predictor/chrome_policy.h"

#include <algorithm>
#include <cmath>

#include "predictor/policy_util.h"

namespace netstack {
namespace {

// Rate limiters remember this many hosts / origins / URLs (older ones forgotten first).
constexpr size_t kLimiterKeys = 512;

}  // namespace

ChromePolicy::ChromePolicy(const PredictorConfig& config)
    : referrers_(config.max_referrers, config.max_origins_per_referrer),
      omnibox_(config.max_omnibox_rows, /*half_life_days=*/0),
      startup_(config.startup_list_size, config.startup_window),
      resolve_limiter_(kOmniboxResolvePeriod, kLimiterKeys),
      preconnect_limiter_(kOmniboxPreconnectPeriod, kLimiterKeys),
      fetch_limiter_(kOmniboxFetchPeriod, kLimiterKeys) {}

ChromePolicy::~ChromePolicy() = default;

void ChromePolicy::Saw(TimeTicks now) { last_now_ = std::max(last_now_, now); }

double ChromePolicy::OmniboxConfidence(double hits, double misses) {
  if (hits < kOmniboxMinHits) return 0;
  return hits / (hits + misses);
}

void ChromePolicy::OnStartup(TimeTicks now, std::vector<Hint>* out) {
  Saw(now);
  std::vector<StartupList::Item> list = startup_.Start(now);
  uint64_t top = list.empty() ? 1 : std::max<uint64_t>(list.front().count, 1);
  for (const auto& item : list) {
    out->push_back(MakeHint(HintMotivation::kStartupList, SpeculativeAction::kPreresolve,
                            item.origin, 1, static_cast<double>(item.count) / top, "", now));
  }
}

void ChromePolicy::EmitReferrals(const Url& page, const HintMotivation* motivation, TimeTicks now,
                                 std::vector<Hint>* out) {
  const std::string key = PageOriginKey(page);
  ReferrerTable::Referrer* referrer = referrers_.Find(key);
  if (!referrer || referrer->origins.empty()) {
    out->push_back(MakeHint(motivation ? *motivation : HintMotivation::kEarlyLoad,
                            SpeculativeAction::kPreconnect, page.scheme_host_port(),
                            kUnknownPageSockets, 1.0, page.spec(), now));
    return;
  }
  // Most valuable first, so a queue that fills keeps the best.
  std::vector<ReferrerTable::OriginRow*> rows;
  for (auto& [okey, row] : referrer->origins) rows.push_back(&row);
  std::stable_sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) {
    return a->expected_connects > b->expected_connects;
  });
  const SchemeHostPort self = page.scheme_host_port();
  for (ReferrerTable::OriginRow* row : rows) {
    double value = row->expected_connects;
    HintMotivation m = motivation            ? *motivation
                       : row->origin == self ? HintMotivation::kSelfReferral
                                             : HintMotivation::kLearnedReferral;
    double likelihood = std::min(value, 1.0);
    if (value > kPreconnectAbove) {
      // Clamped before the conversion: a loaded row may hold any finite value.
      int sockets = ClampToInt(std::ceil(value), 1, kMaxPreconnectSockets);
      out->push_back(MakeHint(m, SpeculativeAction::kPreconnect, row->origin, sockets, likelihood,
                              page.spec(), now));
      ++row->preconnects;
    } else if (value > kPreresolveAbove) {
      out->push_back(MakeHint(m, SpeculativeAction::kPreresolve, row->origin, 1, likelihood,
                              page.spec(), now));
      ++row->preresolves;
    }
  }
}

void ChromePolicy::OnNavigation(const Url& page, TimeTicks now, std::vector<Hint>* out) {
  Saw(now);
  omnibox_.ScoreNavigation(page.spec(), now);
  EmitReferrals(page, nullptr, now, out);
  ReferrerTable::Referrer* referrer = referrers_.FindOrCreate(PageOriginKey(page));
  referrers_.DecayOnVisit(referrer);
  ++referrer->page_loads;
}

void ChromePolicy::OnResourceRequested(const Url& page, const Url& url, TimeTicks now) {
  Saw(now);
  startup_.OnUse(url.scheme_host_port(), now);
}

void ChromePolicy::OnConnectionNeeded(const Url& page, const SchemeHostPort& origin,
                                      SocketSource source, bool background, double connect_wait_ms,
                                      TimeTicks now) {
  Saw(now);
  // Every connection counts, whether a preconnect made it ready or not, and background ones
  // too (Chrome's predictor learns from every subresource): the value estimates the
  // connections a load needs.
  referrers_.OriginNeeded(referrers_.FindOrCreate(PageOriginKey(page)), origin);
}

void ChromePolicy::OnNavigationComplete(const Url& page, TimeTicks now) { Saw(now); }

void ChromePolicy::OnHover(const Url& target, TimeTicks now, std::vector<Hint>* out) {
  Saw(now);
  const HintMotivation m = HintMotivation::kMouseOver;
  out->push_back(MakeHint(m, SpeculativeAction::kPreconnect, target.scheme_host_port(),
                          kHoverSockets, 1.0, target.spec(), now));
  EmitReferrals(target, &m, now, out);
}

void ChromePolicy::OnOmnibox(const std::string& text, const Url& url, TimeTicks now,
                             std::vector<Hint>* out) {
  Saw(now);
  const OmniboxTable::Counts counts = omnibox_.OnKeystroke(text, url.spec(), now);
  const double confidence = OmniboxConfidence(counts.hits, counts.misses);
  const SchemeHostPort origin = url.scheme_host_port();
  const HintMotivation m = HintMotivation::kOmnibox;
  bool connecting = false;
  if (confidence >= kOmniboxFetchAt && fetch_limiter_.Allow(url.spec(), now)) {
    out->push_back(MakeFetchHint(m, url, confidence, url.spec(), now));
  }
  if (confidence >= kOmniboxPreconnectAt && preconnect_limiter_.Allow(OriginKey(origin), now)) {
    out->push_back(
        MakeHint(m, SpeculativeAction::kPreconnect, origin, 1, confidence, url.spec(), now));
    connecting = true;
  }
  // A preconnect resolves the host itself; the limiter still records the resolve.
  if (resolve_limiter_.Allow(origin.host, now) && !connecting) {
    out->push_back(
        MakeHint(m, SpeculativeAction::kPreresolve, origin, 1, confidence, url.spec(), now));
  }
}

void ChromePolicy::OnStaticHint(const Url& page, StaticHintKind kind, const Url& target,
                                TimeTicks now, std::vector<Hint>* out) {
  Saw(now);
  AppendStaticHint(page, kind, target, now, out);
}

nlohmann::json ChromePolicy::TablesToJson() const {
  nlohmann::json referrers = nlohmann::json::array();
  for (const std::string& key : referrers_.KeysByRecentUse()) {
    const ReferrerTable::Referrer* r = referrers_.Find(key);
    std::vector<const ReferrerTable::OriginRow*> rows;
    for (const auto& [okey, row] : r->origins) rows.push_back(&row);
    std::stable_sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) {
      return a->expected_connects > b->expected_connects;
    });
    for (const auto* row : rows) {
      referrers.push_back({{"page", key},
                           {"origin", OriginKey(row->origin)},
                           {"page_loads", r->page_loads},
                           {"navigations", row->navigations},
                           {"preconnects", row->preconnects},
                           {"preresolves", row->preresolves},
                           {"expected_connects", row->expected_connects}});
    }
  }
  nlohmann::json omnibox = omnibox_.ToJson(last_now_, &ChromePolicy::OmniboxConfidence);
  nlohmann::json startup = nlohmann::json::array();
  for (const auto& item : startup_.Current()) {
    startup.push_back({{"host", OriginKey(item.origin)}, {"count", item.count}});
  }
  return {{"referrers", referrers}, {"omnibox", omnibox}, {"startup", startup}};
}

std::vector<PredictorRow> ChromePolicy::SaveRows() const {
  std::vector<PredictorRow> rows;
  referrers_.AppendRows(&rows);
  omnibox_.AppendRows("omnibox", last_now_, &rows);
  startup_.AppendRows(&rows);
  return rows;
}

void ChromePolicy::LoadRows(const std::vector<PredictorRow>& rows, TimeTicks now, size_t* skipped) {
  Saw(now);
  size_t bad = 0;
  for (const PredictorRow& row : rows) {
    if (row.table == kMetaTable) continue;  // the caller's (saved_at): not a policy row
    bool ok = false;
    if (row.table == "referrers") {
      ok = referrers_.LoadRow(row);
    } else if (row.table == "omnibox") {
      ok = omnibox_.LoadRow(row, now);
    } else if (row.table == "startup") {
      ok = startup_.LoadRow(row);
    }
    if (!ok) ++bad;
  }
  if (skipped) *skipped = bad;
}

size_t ChromePolicy::EstimateMemoryUsage() const {
  return referrers_.EstimateMemoryUsage() + omnibox_.EstimateMemoryUsage() +
         startup_.EstimateMemoryUsage() + resolve_limiter_.EstimateMemoryUsage() +
         preconnect_limiter_.EstimateMemoryUsage() + fetch_limiter_.EstimateMemoryUsage();
}

}  // namespace netstack
