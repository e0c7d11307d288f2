// LearnedPolicy's model: the numbers of its estimates (shrinkage page -> site -> prior, decay,
// warm and cold state per origin, the cost rule, learned setup time) and a comparison with the
// chrome policy on a synthetic stream. User events: learned_policy_events_test.cc; bounds and
// persistence: learned_policy_state_test.cc.
#include "predictor/learned_policy.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <map>

#include "predictor/chrome_policy.h"
#include "predictor/policy_util.h"
#include "predictor/predictor_config.h"
#include "tests/predictor/policy_test_util.h"

namespace netstack {
namespace {

using namespace policy_test;

TEST_CASE("learned: an unknown page preconnects 1 socket to its own origin", "[predictor]") {
  LearnedPolicy p(LearnedConfig());
  std::vector<Hint> hints;
  p.OnNavigation(U("https://a.test/x"), At(0), &hints);
  REQUIRE(hints.size() == 1);
  CHECK(hints[0].motivation == HintMotivation::kEarlyLoad);
  CHECK(hints[0].action == SpeculativeAction::kPreconnect);
  CHECK(hints[0].sockets == 1);  // prior: P(>=1) = 0.5, P(>=2) = 0.25
  CHECK(hints[0].likelihood == Approx(0.5));
}

TEST_CASE("learned: unknown pages follow what pages need from their own origin", "[predictor]") {
  LearnedPolicy p(LearnedConfig());
  for (int i = 0; i < 20; ++i) {
    const Url page = U("https://s" + std::to_string(i) + ".test/");
    LoadPage(p, page, {{page.scheme_host_port(), 2}}, At(i), 300);
  }
  std::vector<Hint> hints;
  p.OnNavigation(U("https://new.test/"), At(30), &hints);
  CHECK(PreconnectSockets(hints, O("https://new.test/")) == 2);
}

TEST_CASE("learned: estimates shrink page -> site -> prior", "[predictor]") {
  LearnedPolicy p(LearnedConfig());
  const Url page = U("https://a.test/p?x=1");
  const SchemeHostPort cdn = O("https://cdn.test/");
  for (int i = 0; i < 4; ++i) LoadPage(p, page, {{cdn, 2}}, Cold(i), 300);
  bool known = false;
  auto estimates = p.EstimateFor(U("https://a.test/p?y=2"), Cold(4), &known);  // same page key
  CHECK(known);
  const LearnedPolicy::Estimate* e = nullptr;
  for (const auto& est : estimates) {
    if (est.origin == cdn) e = &est;
  }
  REQUIRE(e);
  // site: (4 + 1 x 0) / (4 + 1) = 0.8; page: (4 + 1 x 0.8) / (4 + 1) = 0.96.
  CHECK(e->p[0] == Approx(0.96).epsilon(1e-3));  // a little decay over 4000 s
  CHECK(e->p[1] == Approx(0.96).epsilon(1e-3));
  CHECK(e->p[2] == 0);
  std::vector<Hint> hints = LoadPage(p, page, {}, Cold(5));
  CHECK(PreconnectSockets(hints, cdn) == 2);
  // Another page of the site falls back to the site's row: 0.8 x 5/6 after the 5th load.
  estimates = p.EstimateFor(U("https://a.test/other"), Cold(6), &known);
  CHECK(known);
  for (const auto& est : estimates) {
    if (est.origin == cdn) CHECK(est.p[0] == Approx(4.0 / 6.0).epsilon(1e-2));
  }
}

TEST_CASE("learned: only loads in progress learn", "[predictor]") {
  LearnedPolicy p(LearnedConfig());
  const Url page = U("https://a.test/");
  const SchemeHostPort cdn = O("https://cdn.test/");
  LoadPage(p, page, {{cdn, 1}}, At(0));
  // After the load ended (the accounting names the last page then): no new observation.
  p.OnConnectionNeeded(page, cdn, SocketSource::kNew, false, 50.0, At(5));
  CHECK(p.active_loads() == 0);
  const auto* e = p.pages().Find(PageKey(page));
  REQUIRE(e);
  CHECK(e->observations == 1);
  CHECK(e->origins.at(OriginKey(cdn)).needed == 1);
  CHECK(p.SetupMs(cdn) == Approx(0.7 * 100 + 0.3 * 50));  // setup time still learns
}

TEST_CASE("learned: warm and cold loads are learned apart", "[predictor]") {
  LearnedPolicy p(LearnedConfig());
  const Url page = U("https://a.test/");
  const SchemeHostPort cdn = O("https://cdn.test/");
  // Cold loads need the CDN; revisits within 300 s find sockets and need nothing.
  for (int i = 0; i < 6; ++i) {
    LoadPage(p, page, {{page.scheme_host_port(), 1}, {cdn, 2}}, Cold(i), 300);
    LoadPage(p, page, {}, Cold(i) + Seconds(60));
    LoadPage(p, page, {}, Cold(i) + Seconds(120));
  }
  CHECK(p.StateAt(page.scheme_host_port(), Cold(5) + Seconds(200)) == 1);
  CHECK(p.StateAt(page.scheme_host_port(), Cold(5) + Seconds(500)) == 0);
  std::vector<Hint> warm = LoadPage(p, page, {}, Cold(5) + Seconds(200));
  CHECK(PreconnectSockets(warm, cdn) == 0);
  std::vector<Hint> cold = LoadPage(p, page, {}, Cold(7));
  CHECK(PreconnectSockets(cold, cdn) == 2);
  CHECK(PreconnectSockets(cold, page.scheme_host_port()) == 1);
}

TEST_CASE("learned: each origin is predicted in its own state, not the page's", "[predictor]") {
  LearnedPolicy p(LearnedConfig());
  const Url page = U("https://a.test/");
  const Url other = U("https://a.test/other");  // keeps a.test warm, never uses the CDN
  const SchemeHostPort cdn = O("https://cdn.test/");
  for (int i = 0; i < 6; ++i) {
    LoadPage(p, page, {{cdn, 2}}, Cold(i));
    LoadPage(p, page, {}, Cold(i) + Seconds(100));  // the CDN's sockets are still there
    LoadPage(p, other, {}, Cold(i) + Seconds(200));
    LoadPage(p, other, {}, Cold(i) + Seconds(400));
    LoadPage(p, page, {{cdn, 2}}, Cold(i) + Seconds(500));  // a.test warm, the CDN cold again
  }
  const TimeTicks t = Cold(7);
  LoadPage(p, page, {{cdn, 2}}, t);
  // A page-level state would call both next loads warm and average them (P = 0.5).
  CHECK(p.StateAt(page.scheme_host_port(), t + Seconds(100)) == 1);
  CHECK(p.StateAt(cdn, t + Seconds(100)) == 1);
  CHECK(PreconnectSockets(LoadPage(p, page, {}, t + Seconds(100)), cdn) == 0);
  LoadPage(p, other, {}, t + Seconds(300));
  CHECK(p.StateAt(page.scheme_host_port(), t + Seconds(500)) == 1);
  CHECK(p.StateAt(cdn, t + Seconds(500)) == 0);
  CHECK(PreconnectSockets(LoadPage(p, page, {{cdn, 2}}, t + Seconds(500)), cdn) == 2);
  const auto& row = p.pages().Find(PageKey(page))->origins.at(OriginKey(cdn));
  CHECK(row.n[1] > 0);              // loads with the CDN warm were counted
  CHECK(row.c[1][0] == Approx(0));  // and needed nothing
}

TEST_CASE("learned: an origin's row counts the loads before it as not needing it", "[predictor]") {
  LearnedPolicy p(LearnedConfig());
  const Url page = U("https://a.test/");
  const SchemeHostPort ad = O("https://ad.test/");
  for (int i = 0; i < 4; ++i) LoadPage(p, page, {}, Cold(i));
  LoadPage(p, page, {{ad, 1}}, Cold(4));
  const auto& row = p.pages().Find(PageKey(page))->origins.at(OriginKey(ad));
  CHECK(row.n[0] == Approx(5).epsilon(1e-2));  // a little decay
  CHECK(row.c[0][0] == Approx(1).epsilon(1e-3));
  std::vector<Hint> hints = LoadPage(p, page, {}, Cold(5));
  CHECK(PreconnectSockets(hints, ad) == 0);  // once in five loads: not worth a connection
}

TEST_CASE("learned: a page keeps learned_max_origins_per_page origins", "[predictor]") {
  PredictorConfig config = LearnedConfig();
  CHECK(config.learned_max_origins_per_page == 32);
  const Url page = U("https://news.test/");
  std::vector<std::pair<SchemeHostPort, int>> needs;
  for (int j = 0; j < 20; ++j) needs.push_back({O("https://o" + std::to_string(j) + ".test/"), 1});
  for (size_t bound : {size_t{32}, size_t{10}}) {
    config.learned_max_origins_per_page = bound;
    LearnedPolicy p(config);
    for (int i = 0; i < 3; ++i) LoadPage(p, page, needs, Cold(i), 300);
    std::vector<Hint> hints = LoadPage(p, page, {}, Cold(3));
    int preconnected = 0;
    for (const auto& [origin, count] : needs) preconnected += PreconnectSockets(hints, origin) > 0;
    // Twenty third parties, every load: all of them, unless the bound drops half.
    if (bound >= needs.size()) {
      CHECK(preconnected == static_cast<int>(needs.size()));
    } else {
      CHECK(preconnected <= static_cast<int>(bound));
    }
  }
  std::string error;
  CHECK(config.Set("learned_max_origins_per_page", "0", &error) == false);
  CHECK(error.find("learned_max_origins_per_page") != std::string::npos);
}

TEST_CASE("learned: observations halve every half-life", "[predictor]") {
  LearnedPolicy p(LearnedConfig());  // 7 days
  const Url page = U("https://a.test/");
  const SchemeHostPort cdn = O("https://cdn.test/");
  LoadPage(p, page, {{cdn, 1}}, At(0));
  const TimeTicks later = At(1) + Seconds(static_cast<int64_t>(7 * kDay));
  CHECK(p.pages().Factor(*p.pages().Find(PageKey(page)), later) == Approx(0.5));
  auto estimates = p.EstimateFor(page, later, nullptr);
  for (const auto& est : estimates) {
    if (est.origin != cdn) continue;
    double site = 0.5 / (0.5 + 1);
    CHECK(est.p[0] == Approx((0.5 + site) / 1.5));
  }
  // A load without the origin after two half-lives weighs 1 against the old 0.25.
  LoadPage(p, page, {}, At(1) + Seconds(static_cast<int64_t>(14 * kDay)));
  const auto* e = p.pages().Find(PageKey(page));
  CHECK(e->n[0] == Approx(1.25));
  CHECK(e->origins.at(OriginKey(cdn)).c[0][0] == Approx(0.25));
}

TEST_CASE("learned: the cost rule decides sockets", "[predictor]") {
  LearnedPolicy p(LearnedConfig());  // waste 150 ms
  LearnedPolicy::Probabilities probs{0.9, 0.5, 0.3, 0, 0, 0};
  // 0.9 x 300 >= 0.1 x 150; 0.5 x 300 >= 0.5 x 150; 0.3 x 300 < 0.7 x 150.
  CHECK(p.SocketsWorthIt(probs, 300) == 2);
  CHECK(p.SocketsWorthIt(probs, 10) == 0);
  CHECK(p.SocketsWorthIt({1, 1, 1, 1, 1, 1}, 1) == 6);
  PredictorConfig config = LearnedConfig();
  config.learned_waste_cost_ms = 600;
  LearnedPolicy q(config);
  CHECK(q.SocketsWorthIt(probs, 300) == 1);
}

TEST_CASE("learned: rare origins are pre-resolved or ignored, not preconnected", "[predictor]") {
  LearnedPolicy p(LearnedConfig());
  const Url page = U("https://a.test/");
  const SchemeHostPort ad = O("https://ad.test/");
  LoadPage(p, page, {{ad, 1}}, Cold(0), 300);
  for (int i = 1; i < 3; ++i) LoadPage(p, page, {}, Cold(i));
  // n = 3, c = 1: site 1/4, page (1 + 0.25) / 4 = 0.3125: below 0.5 (300 vs 150 ms).
  std::vector<Hint> hints = LoadPage(p, page, {}, Cold(3));
  CHECK(PreconnectSockets(hints, ad) == 0);
  CHECK(HasPreresolve(hints, ad));
  // n = 5: site 1/6, page (1 + 1/6) / 6 = 0.194 < 0.2: nothing.
  LoadPage(p, page, {}, Cold(4));
  hints = LoadPage(p, page, {}, Cold(5));
  CHECK(HintsFor(hints, ad, SpeculativeAction::kPreresolve).empty());
  CHECK(PreconnectSockets(hints, ad) == 0);
}

TEST_CASE("learned: setup time per origin is an EWMA of new connections' waits", "[predictor]") {
  LearnedPolicy p(LearnedConfig());
  const Url page = U("https://a.test/");
  const SchemeHostPort o = O("https://o.test/");
  CHECK(p.SetupMs(o) == LearnedPolicy::kDefaultSetupMs);
  p.OnConnectionNeeded(page, o, SocketSource::kNew, false, 100.0, At(0));
  CHECK(p.SetupMs(o) == Approx(100));
  p.OnConnectionNeeded(page, o, SocketSource::kNew, false, 200.0, At(0));
  CHECK(p.SetupMs(o) == Approx(130));
  p.OnConnectionNeeded(page, o, SocketSource::kPreconnected, false, 0.0, At(0));
  CHECK(p.SetupMs(o) == Approx(130));
  p.OnConnectionNeeded(page, o, SocketSource::kPreconnectedLate, false, 10.0, At(0));
  CHECK(p.SetupMs(o) == Approx(130));
  // A never-used idle socket no preconnect made counts as a new connection, as it always did
  // (its wait is 0: the policy learns that such an origin costs little).
  p.OnConnectionNeeded(page, o, SocketSource::kUnusedIdle, false, 0.0, At(0));
  CHECK(p.SetupMs(o) == Approx(0.7 * 130));
  // Within a load only the first connection to an origin counts (later ones may have been
  // late-bound to a job an earlier request started).
  std::vector<Hint> hints;
  p.OnNavigation(page, At(1), &hints);
  p.OnConnectionNeeded(page, o, SocketSource::kNew, false, 230.0, At(1));
  CHECK(p.SetupMs(o) == Approx(0.7 * 91 + 0.3 * 230));
  p.OnConnectionNeeded(page, o, SocketSource::kNew, false, 5.0, At(1));
  CHECK(p.SetupMs(o) == Approx(0.7 * 91 + 0.3 * 230));
}

// A synthetic stream: page P always needs its own origin once and a CDN twice; each load also
// needs one ad origin never seen again. Hinted sockets beyond what the load then needed are
// waste; hinted sockets up to it are covered.
struct Score {
  int covered = 0;
  int wasted = 0;
};
Score Run(PredictorPolicy& policy) {
  Score score;
  const Url page = U("https://p.test/");
  for (int i = 0; i < 40; ++i) {
    const SchemeHostPort ad = O("https://ad" + std::to_string(i) + ".test/");
    std::vector<std::pair<SchemeHostPort, int>> needs = {
        {page.scheme_host_port(), 1}, {O("https://cdn.test/"), 2}, {ad, 1}};
    std::vector<Hint> hints = LoadPage(policy, page, needs, At(10 * i), 250);
    std::map<std::string, int> hinted;
    for (const Hint& h : hints) {
      if (h.action != SpeculativeAction::kPreconnect) continue;
      hinted[OriginKey(h.origin)] = std::max(hinted[OriginKey(h.origin)], h.sockets);
    }
    for (const auto& [origin, sockets] : hinted) {
      int needed = 0;
      for (const auto& [o, n] : needs) {
        if (OriginKey(o) == origin) needed = n;
      }
      score.covered += std::min(sockets, needed);
      score.wasted += std::max(0, sockets - needed);
    }
  }
  return score;
}

TEST_CASE("learned: covers what chrome covers with fewer wasted sockets", "[predictor]") {
  PredictorConfig chrome_config;
  ChromePolicy chrome(chrome_config);
  LearnedPolicy learned(LearnedConfig());
  Score c = Run(chrome);
  Score l = Run(learned);
  INFO("chrome covered " << c.covered << " wasted " << c.wasted << "; learned covered " << l.covered
                         << " wasted " << l.wasted);
  CHECK(l.covered >= c.covered);
  CHECK(l.wasted * 4 < c.wasted);
}

}  // namespace
}  // namespace netstack
