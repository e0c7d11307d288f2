// LearnedPolicy's user events: a hover weighed by P(click | hover), omnibox confidence with a
// prior, and the startup list as the decayed share of starts needing each origin.
#include <catch2/catch.hpp>

#include "predictor/learned_policy.h"
#include "predictor/predictor_config.h"
#include "tests/predictor/policy_test_util.h"

namespace netstack {
namespace {

using namespace policy_test;

TEST_CASE("learned: a hover preconnects the target's own origin, scaled by P(click | hover)",
          "[predictor]") {
  LearnedPolicy p(LearnedConfig());
  const Url target = U("https://b.test/");
  const SchemeHostPort self = target.scheme_host_port();
  const SchemeHostPort cdn = O("https://cdn.test/");
  for (int i = 0; i < 5; ++i) LoadPage(p, target, {{self, 1}, {cdn, 1}}, Cold(i), 300);
  CHECK(p.ClickProbability(Cold(5)) == Approx(0.5));
  for (int i = 0; i < 10; ++i) {  // hover, click 200 ms later
    std::vector<Hint> ignored;
    p.OnHover(target, Cold(6 + i), &ignored);
    LoadPage(p, target, {{self, 1}, {cdn, 1}}, Cold(6 + i) + Milliseconds(200), 300);
  }
  CHECK(p.ClickProbability(Cold(20)) == Approx(11.0 / 12.0).epsilon(1e-2));
  std::vector<Hint> hints;
  p.OnHover(target, Cold(20), &hints);
  CHECK(PreconnectSockets(hints, self) == 1);
  // The subresource origins wait for the navigation: it preconnects them a document load ahead.
  CHECK(HintsFor(hints, cdn, SpeculativeAction::kPreconnect).empty());
  CHECK_FALSE(HasPreresolve(hints, cdn));
  for (const Hint& h : hints) CHECK(h.motivation == HintMotivation::kMouseOver);
  // Hovers that are never clicked teach the opposite.
  for (int i = 0; i < 40; ++i) {
    std::vector<Hint> ignored;
    p.OnHover(U("https://c.test/" + std::to_string(i)), Cold(21) + Seconds(10 * i), &ignored);
  }
  CHECK(p.ClickProbability(Cold(22)) < 0.3);
  hints.clear();
  p.OnHover(target, Cold(22), &hints);
  CHECK(PreconnectSockets(hints, self) == 0);
}

TEST_CASE("learned: omnibox confidence has a prior, actions follow the cost rule", "[predictor]") {
  LearnedPolicy p(LearnedConfig());
  const Url url = U("https://news.test/");
  const SchemeHostPort origin = url.scheme_host_port();
  CHECK(p.OmniboxConfidence(0, 0) == Approx(0.2));
  std::vector<Hint> hints;
  p.OnOmnibox("n", url, At(0), &hints);  // 0.2: pre-resolve only
  REQUIRE(hints.size() == 1);
  CHECK(hints[0].action == SpeculativeAction::kPreresolve);
  // 1 hit: 1.5 / 3.5; no fetch ahead below 1.5 (decayed) hits.
  p.OnOmnibox("n", url, At(100), &hints);
  p.OnNavigation(url, At(100.5), &hints);
  hints.clear();
  p.OnOmnibox("n", url, At(200), &hints);
  CHECK(HintsFor(hints, origin, SpeculativeAction::kFetchAhead).empty());
  // 2 hits: 2.5 / 4.5 = 0.556 >= 0.5: fetch ahead; x 200 ms >= 0.444 x 150 ms: preconnect.
  p.OnOmnibox("n", url, At(300), &hints);
  p.OnNavigation(url, At(300.5), &hints);
  hints.clear();
  p.OnOmnibox("n", url, At(400), &hints);
  CHECK(HintsFor(hints, origin, SpeculativeAction::kFetchAhead).size() == 1);
  CHECK(PreconnectSockets(hints, origin) == 1);
  // 2 hits, 3 misses: 2.5 / 7.5 = 0.333: neither; a pre-resolve (>= 0.2).
  for (int i = 0; i < 3; ++i) {
    p.OnOmnibox("n", url, At(500 + i), &hints);
    p.OnNavigation(U("https://other.test/"), At(500.5 + i), &hints);
  }
  hints.clear();
  p.OnOmnibox("n", url, At(600), &hints);
  CHECK(HintsFor(hints, origin, SpeculativeAction::kFetchAhead).empty());
  CHECK(PreconnectSockets(hints, origin) == 0);
  CHECK(HasPreresolve(hints, origin));
}

TEST_CASE("learned: startup list is the decayed share of starts needing each origin",
          "[predictor]") {
  LearnedPolicy p(LearnedConfig());
  const Url page = U("https://a.test/");
  const SchemeHostPort mail = O("https://mail.test/");
  const SchemeHostPort late = O("https://late.test/");
  const SchemeHostPort mid = O("https://mid.test/");
  std::vector<Hint> hints;
  p.OnStartup(At(0), &hints);
  CHECK(hints.empty());
  p.OnConnectionNeeded(page, mail, SocketSource::kNew, false, 300.0, At(1));
  // Inside startup_window (30 s) but past kStartupHorizon (10 s): a socket preconnected at the
  // start would have closed unused by then.
  p.OnConnectionNeeded(page, mid, SocketSource::kNew, false, 300.0, At(20));
  p.OnConnectionNeeded(page, late, SocketSource::kNew, false, 300.0, At(40));
  p.OnStartup(At(100), &hints);  // n = 1, c = 1: 1 / (1 + 1) = 0.5; 0.5 x 300 >= 0.5 x 150
  CHECK(PreconnectSockets(hints, mail) == 1);
  CHECK(hints[0].motivation == HintMotivation::kStartupList);
  CHECK(HintsFor(hints, late, SpeculativeAction::kPreconnect).empty());
  CHECK_FALSE(HasPreresolve(hints, late));
  CHECK(HintsFor(hints, mid, SpeculativeAction::kPreconnect).empty());
  CHECK_FALSE(HasPreresolve(hints, mid));
  // Two starts without it: 1 / (3 + 1) = 0.25: a pre-resolve.
  p.OnStartup(At(200), &hints);
  hints.clear();
  p.OnStartup(At(300), &hints);
  CHECK(PreconnectSockets(hints, mail) == 0);
  CHECK(HasPreresolve(hints, mail));
}

}  // namespace
}  // namespace netstack
