#include "predictor/learned_policy.h"

#include <algorithm>
#include <cmath>

#include "predictor/policy_util.h"

namespace netstack {
namespace {

constexpr size_t kLimiterKeys = 512;
constexpr char kStartupKey[] = "startup";

// P(need >= k) of one level with the origin in `state`, shrunk toward `prior` with
// kPriorStrength pseudo-observations. Without a row the level never needed the origin: all its
// observations, in either state, count against it.
LearnedPolicy::Probabilities Shrink(const DecayedUseTable::Entry* entry,
                                    const DecayedUseTable::OriginRow* row, int state, double factor,
                                    const LearnedPolicy::Probabilities& prior) {
  if (!entry) return prior;
  LearnedPolicy::Probabilities p{};
  const double a = LearnedPolicy::kPriorStrength;
  // A row read from a profile before its key has n = 0: never fewer observations than needs.
  const double n = (row ? std::max(row->n[state], row->c[state][0]) : entry->total()) * factor;
  for (size_t k = 0; k < p.size(); ++k) {
    double c = row ? row->c[state][k] * factor : 0;
    p[k] = (c + a * prior[k]) / (n + a);
  }
  return p;
}

}  // namespace

LearnedPolicy::LearnedPolicy(const PredictorConfig& config)
    : config_(config),
      pages_(config.max_referrers, config.learned_max_origins_per_page,
             config.learned_half_life_days),
      sites_(config.max_referrers, config.learned_max_origins_per_page,
             config.learned_half_life_days),
      startup_(1, std::max<size_t>(2 * config.startup_list_size, 1), config.learned_half_life_days),
      omnibox_(config.max_omnibox_rows, config.learned_half_life_days),
      resolve_limiter_(std::chrono::seconds(60), kLimiterKeys),
      preconnect_limiter_(std::chrono::seconds(10), kLimiterKeys),
      fetch_limiter_(std::chrono::seconds(60), kLimiterKeys),
      // The budget starts at its cap and probes down: a navigation's hints come in one burst
      // (a news page's 20 origins at once), and a budget of 3 in flight started the fourth
      // preconnect only when one of the first three was done, late for the page.
      budget_(std::min(config.learned_budget_cap, config.max_in_flight),
              std::min(config.learned_budget_cap, config.max_in_flight)) {}

LearnedPolicy::~LearnedPolicy() = default;

void LearnedPolicy::Saw(TimeTicks now) {
  last_now_ = std::max(last_now_, now);
  if (startup_open_ && now - startup_start_ > config_.startup_window) {
    CloseStartupWindow(startup_start_ + config_.startup_window);
  }
}

// ---- The model ----

std::vector<LearnedPolicy::Estimate> LearnedPolicy::EstimateFor(const Url& page, TimeTicks now,
                                                                bool* known) const {
  const DecayedUseTable::Entry* page_entry = pages_.Find(PageKey(page));
  const DecayedUseTable::Entry* site_entry = sites_.Find(PageOriginKey(page));
  if (known) *known = page_entry || site_entry;
  const double fp = page_entry ? pages_.Factor(*page_entry, now) : 1;
  const double fs = site_entry ? sites_.Factor(*site_entry, now) : 1;
  const SchemeHostPort self = page.scheme_host_port();
  const int self_state = StateAt(self, now);

  // The global prior: own origin from every load seen in this state, nothing for another
  // origin.
  Probabilities self_prior{};
  const DecayedCounts& global = self_[self_state];
  const double fself = global.Factor(now, config_.learned_half_life_days);
  for (size_t k = 0; k < self_prior.size(); ++k) {
    self_prior[k] = (global.c[k] * fself + kSelfPriorWeight * std::ldexp(1.0, -(int(k) + 1))) /
                    (global.n * fself + kSelfPriorWeight);
  }

  std::vector<std::string> keys{OriginKey(self)};
  std::map<std::string, SchemeHostPort> origins{{keys[0], self}};
  for (const auto* entry : {page_entry, site_entry}) {
    if (!entry) continue;
    for (const auto& [okey, row] : entry->origins) {
      if (origins.emplace(okey, row.origin).second) keys.push_back(okey);
    }
  }
  std::vector<Estimate> out;
  for (const std::string& okey : keys) {
    const SchemeHostPort& origin = origins[okey];
    // Each origin in its own state: a third party another site used a minute ago still has a
    // socket in the pool, and one this site's pages need has none after a long pause.
    const int state = StateAt(origin, now);
    Probabilities prior{};
    if (origin == self) prior = self_prior;
    auto row_of = [&](const DecayedUseTable::Entry* e) -> const DecayedUseTable::OriginRow* {
      if (!e) return nullptr;
      auto it = e->origins.find(okey);
      return it == e->origins.end() ? nullptr : &it->second;
    };
    const auto* site_row = row_of(site_entry);
    Probabilities site = Shrink(site_entry, site_row, 0, fs, prior);
    // A warm load borrows from the cold estimate until warm loads of its own say otherwise.
    if (state == 1) site = Shrink(site_entry, site_row, 1, fs, site);
    out.push_back({origin, Shrink(page_entry, row_of(page_entry), state, fp, site)});
  }
  return out;
}

int LearnedPolicy::StateAt(const SchemeHostPort& origin, TimeTicks now) const {
  auto it = last_use_.find(OriginKey(origin));
  return it != last_use_.end() && now - it->second <= kWarmWindow ? 1 : 0;
}

void LearnedPolicy::Used(const SchemeHostPort& origin, TimeTicks now) {
  std::string key = OriginKey(origin);
  auto it = last_use_.find(key);
  if (it == last_use_.end()) {
    EvictLowestUntilRoom(&last_use_, kMaxSetupOrigins, [](TimeTicks t) { return t; });
    last_use_[key] = now;
  } else {
    it->second = std::max(it->second, now);
  }
}

int LearnedPolicy::SocketsWorthIt(const Probabilities& p, double saved_ms) const {
  int sockets = 0;
  for (size_t k = 0; k < p.size(); ++k) {
    if (p[k] * saved_ms < (1 - p[k]) * config_.learned_waste_cost_ms) break;
    sockets = static_cast<int>(k) + 1;
  }
  return std::min(sockets, kMaxPreconnectSockets);
}

double LearnedPolicy::SetupMs(const SchemeHostPort& origin) const {
  auto it = setup_.find(OriginKey(origin));
  return it == setup_.end() ? kDefaultSetupMs : it->second.ms;
}

double LearnedPolicy::ClickProbability(TimeTicks now) const {
  double f = hover_.Factor(now, config_.learned_half_life_days);
  return (hover_.c[0] * f + 1) / (hover_.n * f + 2);
}

double LearnedPolicy::OmniboxConfidence(double hits, double misses) {
  return (hits + kOmniboxPriorHits) / (hits + misses + kOmniboxPriorHits + kOmniboxPriorMisses);
}

void LearnedPolicy::EmitReferrals(const Url& page, double scale, const HintMotivation* motivation,
                                  bool only_self, TimeTicks now, std::vector<Hint>* out) {
  bool known = false;
  std::vector<Estimate> estimates = EstimateFor(page, now, &known);
  // Most likely first, so a queue that fills keeps the best.
  std::stable_sort(estimates.begin(), estimates.end(),
                   [](const Estimate& a, const Estimate& b) { return a.p[0] > b.p[0]; });
  const SchemeHostPort self = page.scheme_host_port();
  DecayedUseTable::Entry* page_entry = pages_.FindMutable(PageKey(page));
  DecayedUseTable::Entry* site_entry = sites_.FindMutable(PageOriginKey(page));
  for (Estimate& e : estimates) {
    if (only_self && e.origin != self) continue;
    for (double& v : e.p) v *= scale;
    HintMotivation m = motivation         ? *motivation
                       : !known           ? HintMotivation::kEarlyLoad
                       : e.origin == self ? HintMotivation::kSelfReferral
                                          : HintMotivation::kLearnedReferral;
    int sockets = SocketsWorthIt(e.p, SetupMs(e.origin));
    SpeculativeAction action;
    if (sockets > 0) {
      action = SpeculativeAction::kPreconnect;
      out->push_back(MakeHint(m, action, e.origin, sockets, e.p[0], page.spec(), now));
    } else if (e.p[0] >= kPreresolveMinP) {
      action = SpeculativeAction::kPreresolve;
      out->push_back(MakeHint(m, action, e.origin, 1, e.p[0], page.spec(), now));
    } else {
      continue;
    }
    // Count the hint in the most specific row that knows the origin.
    std::string okey = OriginKey(e.origin);
    for (DecayedUseTable::Entry* entry : {page_entry, site_entry}) {
      if (!entry) continue;
      auto it = entry->origins.find(okey);
      if (it == entry->origins.end()) continue;
      ++(action == SpeculativeAction::kPreconnect ? it->second.preconnects
                                                  : it->second.preresolves);
      break;
    }
  }
}

// ---- Events ----

void LearnedPolicy::OnStartup(TimeTicks now, std::vector<Hint>* out) {
  Saw(now);
  if (startup_open_) CloseStartupWindow(now);
  startup_open_ = true;
  startup_start_ = now;
  const DecayedUseTable::Entry* e = startup_.Find(kStartupKey);
  if (!e) return;
  const double f = startup_.Factor(*e, now);
  std::vector<Estimate> estimates;
  for (const auto& [okey, row] : e->origins) {
    Estimate est{row.origin, {}};
    for (size_t k = 0; k < est.p.size(); ++k) {
      est.p[k] = row.c[0][k] * f / (e->n[0] * f + kPriorStrength);
    }
    estimates.push_back(est);
  }
  std::stable_sort(estimates.begin(), estimates.end(),
                   [](const Estimate& a, const Estimate& b) { return a.p[0] > b.p[0]; });
  if (estimates.size() > config_.startup_list_size) estimates.resize(config_.startup_list_size);
  for (const Estimate& est : estimates) {
    int sockets = SocketsWorthIt(est.p, SetupMs(est.origin));
    if (sockets > 0) {
      out->push_back(MakeHint(HintMotivation::kStartupList, SpeculativeAction::kPreconnect,
                              est.origin, sockets, est.p[0], "", now));
    } else if (est.p[0] >= kPreresolveMinP) {
      out->push_back(MakeHint(HintMotivation::kStartupList, SpeculativeAction::kPreresolve,
                              est.origin, 1, est.p[0], "", now));
    }
  }
}

std::vector<DecayedUseTable::Need> LearnedPolicy::StartupNeeds() const {
  std::vector<DecayedUseTable::Need> needs;
  for (const auto& [okey, need] : startup_needs_) needs.push_back(need);
  return needs;
}

void LearnedPolicy::CloseStartupWindow(TimeTicks at) {
  startup_open_ = false;
  startup_.Observe(kStartupKey, StartupNeeds(), /*state=*/0, at);
  startup_needs_.clear();
}

void LearnedPolicy::OnNavigation(const Url& page, TimeTicks now, std::vector<Hint>* out) {
  Saw(now);
  omnibox_.ScoreNavigation(page.spec(), now);
  // A click on a hovered link.
  for (auto it = pending_hovers_.begin(); it != pending_hovers_.end();) {
    if (now - it->second > kHoverClickWindow) {
      it = pending_hovers_.erase(it);
    } else if (it->first == page.spec()) {
      hover_.DecayTo(now, config_.learned_half_life_days);
      hover_.c[0] += 1;
      it = pending_hovers_.erase(it);
    } else {
      ++it;
    }
  }
  if (loads_.count(page.spec())) FinishLoad(page.spec(), now);  // a reload restarts the load
  EmitReferrals(page, 1.0, nullptr, /*only_self=*/false, now, out);
  FindOrStartLoad(page, now);
}

LearnedPolicy::Load* LearnedPolicy::FindOrStartLoad(const Url& page, TimeTicks now) {
  auto it = loads_.find(page.spec());
  if (it != loads_.end()) return &it->second;
  while (loads_.size() >= kMaxActiveLoads)
    FinishLoad(FindLowest(&loads_, [](const Load& l) { return l.order; })->first, now);
  Load& load = loads_[page.spec()];
  load.page = page;
  load.order = ++load_sequence_;
  load.state = StateAt(page.scheme_host_port(), now);
  load.start = now;
  return &load;
}

void LearnedPolicy::FinishLoad(const std::string& spec, TimeTicks now) {
  auto it = loads_.find(spec);
  if (it == loads_.end()) return;
  const Load& load = it->second;
  const SchemeHostPort self = load.page.scheme_host_port();
  std::vector<DecayedUseTable::Need> needs;
  int self_connections = 0;
  for (const auto& [okey, need] : load.needs) {
    needs.push_back(need);
    if (need.origin == self) self_connections = need.connections;
  }
  // An origin the load did not touch is in the state it had when the load started (the load
  // did not change its last use).
  const TimeTicks start = load.start;
  auto state_of = [this, start](const SchemeHostPort& origin) { return StateAt(origin, start); };
  pages_.Observe(PageKey(load.page), needs, load.state, now, state_of);
  sites_.Observe(PageOriginKey(load.page), needs, load.state, now, state_of);
  self_[load.state].Observe(self_connections, now, config_.learned_half_life_days);
  budget_.OnNavigationComplete();
  loads_.erase(it);
}

void LearnedPolicy::Touch(const Url& page, const SchemeHostPort& origin, int connections,
                          TimeTicks now) {
  auto load = loads_.find(page.spec());
  if (load != loads_.end()) {
    auto& needs = load->second.needs;
    const std::string okey = OriginKey(origin);
    if (needs.count(okey) || needs.size() < kMaxLoadOrigins) {
      auto [need, inserted] = needs.try_emplace(okey);
      if (inserted) {
        need->second.origin = origin;
        need->second.state = StateAt(origin, now);  // before this load's use makes it warm
      }
      need->second.connections += connections;
    }
  }
  // A request alone does not make an origin warm: the HTTP cache may answer it, and the pool's
  // socket lives 300 s from its last network use (OnResourceServed says which it was).
  if (connections > 0) Used(origin, now);
}

void LearnedPolicy::OnResourceRequested(const Url& page, const Url& url, TimeTicks now) {
  Saw(now);
  Touch(page, url.scheme_host_port(), 0, now);
}

void LearnedPolicy::OnResourceServed(const Url& page, const Url& url, bool network, TimeTicks now) {
  Saw(now);
  // Answered over a connection (a miss, a revalidation, no cache): the origin's socket or h2
  // session was just used, so it stays open for the pool's idle timeout.
  if (network) Used(url.scheme_host_port(), now);
}

void LearnedPolicy::OnConnectionNeeded(const Url& page, const SchemeHostPort& origin,
                                       SocketSource source, bool background, double connect_wait_ms,
                                       TimeTicks now) {
  Saw(now);
  std::string okey = OriginKey(origin);
  // Only a load in progress learns: a connection after its end (the accounting then names the
  // last page) would otherwise count as a load of its own that needed almost nothing.
  auto load = loads_.find(page.spec());
  const DecayedUseTable::Need* before = nullptr;
  if (load != loads_.end()) {
    auto need = load->second.needs.find(okey);
    if (need != load->second.needs.end()) before = &need->second;
  }
  // The load's first connection to the origin: it paid the whole setup.
  const bool first = !before || before->connections == 0;
  // A background request (a ping, a beacon, a background revalidation) is off the page's
  // critical path: a socket preconnected for it saves the page nothing, so it is not a need to
  // learn (the origin is still used: warm).
  Touch(page, origin, background ? 0 : 1, now);
  Used(origin, now);  // a new connection, even a background one's, is open now
  const double wait_ms = std::max(0.0, connect_wait_ms);
  budget_.OnConnectionWait(wait_ms);
  // Later connections of a load often got a socket late-bound from a job started for an earlier
  // request, so their wait is only part of what a ready socket saves. A never-used idle socket
  // no preconnect made (kUnusedIdle) counts as a new connection here, as it always did.
  if ((source == SocketSource::kNew || source == SocketSource::kUnusedIdle) && first) {
    auto it = setup_.find(okey);
    if (it == setup_.end()) {
      EvictLowestUntilRoom(&setup_, kMaxSetupOrigins, [](const Setup& s) { return s.last_use; });
      it = setup_.emplace(okey, Setup{wait_ms, 0, 0}).first;
    }
    Setup& s = it->second;
    s.ms = s.samples == 0 ? wait_ms : (1 - kSetupEwmaWeight) * s.ms + kSetupEwmaWeight * wait_ms;
    ++s.samples;
    s.last_use = ++setup_sequence_;
  }
  if (startup_open_ && now - startup_start_ <= std::min(config_.startup_window, kStartupHorizon) &&
      (startup_needs_.count(okey) || startup_needs_.size() < kMaxLoadOrigins)) {
    auto& sn = startup_needs_[okey];
    sn.origin = origin;
    ++sn.connections;
  }
}

void LearnedPolicy::OnNavigationComplete(const Url& page, TimeTicks now) {
  Saw(now);
  FinishLoad(page.spec(), now);
}

void LearnedPolicy::OnHover(const Url& target, TimeTicks now, std::vector<Hint>* out) {
  Saw(now);
  bool pending = false;
  for (const auto& [spec, t] : pending_hovers_) {
    if (spec == target.spec() && now - t <= kHoverClickWindow) pending = true;
  }
  if (!pending) {  // a pointer resting on the same link again is the same hover
    hover_.Observe(0, now, config_.learned_half_life_days);
    if (pending_hovers_.size() >= kMaxPendingHovers) pending_hovers_.pop_front();
    pending_hovers_.push_back({target.spec(), now});
  }
  // Only the target's own origin: its document's connection is on the critical path the moment
  // the click comes, while its subresource origins are preconnected at the navigation anyway,
  // a whole document load before they are needed. A hover adds ~200 ms of lead to those, not a
  // connection's worth, and a stray hover (about a third) would waste them.
  const HintMotivation m = HintMotivation::kMouseOver;
  EmitReferrals(target, ClickProbability(now), &m, /*only_self=*/true, now, out);
}

void LearnedPolicy::OnOmnibox(const std::string& text, const Url& url, TimeTicks now,
                              std::vector<Hint>* out) {
  Saw(now);
  const OmniboxTable::Counts counts = omnibox_.OnKeystroke(text, url.spec(), now);
  const double confidence = OmniboxConfidence(counts.hits, counts.misses);
  const SchemeHostPort origin = url.scheme_host_port();
  const HintMotivation m = HintMotivation::kOmnibox;
  if (confidence >= kOmniboxFetchAt && counts.hits >= kOmniboxFetchMinHits &&
      fetch_limiter_.Allow(url.spec(), now)) {
    out->push_back(MakeFetchHint(m, url, confidence, url.spec(), now));
  }
  bool connecting = false;
  if (confidence * SetupMs(origin) >= (1 - confidence) * config_.learned_waste_cost_ms &&
      preconnect_limiter_.Allow(OriginKey(origin), now)) {
    out->push_back(
        MakeHint(m, SpeculativeAction::kPreconnect, origin, 1, confidence, url.spec(), now));
    connecting = true;
  }
  if (confidence >= kPreresolveMinP && resolve_limiter_.Allow(origin.host, now) && !connecting) {
    out->push_back(
        MakeHint(m, SpeculativeAction::kPreresolve, origin, 1, confidence, url.spec(), now));
  }
}

void LearnedPolicy::OnStaticHint(const Url& page, StaticHintKind kind, const Url& target,
                                 TimeTicks now, std::vector<Hint>* out) {
  Saw(now);
  AppendStaticHint(page, kind, target, now, out);
}

void LearnedPolicy::OnOutcome(SpeculativeAction action, HintMotivation motivation,
                              const SchemeHostPort& origin, Outcome outcome, TimeTicks now) {
  Saw(now);
  ++outcomes_[PredictorOutcomeName(outcome)];
}

}  // namespace netstack
