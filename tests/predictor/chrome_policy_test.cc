// ChromePolicy: each rule and number of Chrome's old predictor (DESIGN.md "Chrome's defaults"),
// driven directly on made-up times.
#include "predictor/chrome_policy.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "predictor/policy_util.h"
#include "predictor/predictor_config.h"
#include "tests/predictor/policy_test_util.h"

namespace netstack {
namespace {

using namespace policy_test;

PredictorConfig ChromeConfig() {
  PredictorConfig config;
  config.policy = "chrome";
  return config;
}

double Value(const ChromePolicy& p, const std::string& referrer, const SchemeHostPort& origin) {
  const auto* r = p.referrers().Find(referrer);
  if (!r) return -1;
  auto it = r->origins.find(OriginKey(origin));
  return it == r->origins.end() ? -1 : it->second.expected_connects;
}

TEST_CASE("chrome: an unknown page preconnects 2 sockets to its own origin", "[predictor]") {
  ChromePolicy p(ChromeConfig());
  std::vector<Hint> hints;
  p.OnNavigation(U("https://a.test/x?q=1"), At(0), &hints);
  REQUIRE(hints.size() == 1);
  CHECK(hints[0].motivation == HintMotivation::kEarlyLoad);
  CHECK(hints[0].action == SpeculativeAction::kPreconnect);
  CHECK(hints[0].origin == O("https://a.test/"));
  CHECK(hints[0].sockets == 2);
}

TEST_CASE("chrome: a needed origin starts at 2.0, gains 0.34 per connection, x0.66 per visit",
          "[predictor]") {
  ChromePolicy p(ChromeConfig());
  const Url page = U("https://a.test/");
  const SchemeHostPort cdn = O("https://cdn.test/");
  LoadPage(p, page, {{cdn, 1}}, At(0));
  CHECK(Value(p, "https://a.test:443", cdn) == Approx(2.0));
  LoadPage(p, page, {{cdn, 2}}, At(10));
  // The visit decays first (2.0 x 0.66), then two connections add 0.34 each.
  CHECK(Value(p, "https://a.test:443", cdn) == Approx(2.0 * 0.66 + 0.68));
  LoadPage(p, page, {}, At(20));
  CHECK(Value(p, "https://a.test:443", cdn) == Approx((2.0 * 0.66 + 0.68) * 0.66));
  // Steady state: an origin needing n connections per load converges to n.
  for (int i = 0; i < 60; ++i) LoadPage(p, page, {{cdn, 3}}, At(30 + i));
  CHECK(Value(p, "https://a.test:443", cdn) == Approx(3.0).epsilon(1e-3));
}

TEST_CASE("chrome: hints come from the values before the visit's decay", "[predictor]") {
  ChromePolicy p(ChromeConfig());
  const Url page = U("https://a.test/");
  const SchemeHostPort cdn = O("https://cdn.test/");
  LoadPage(p, page, {{cdn, 1}}, At(0));  // 2.0
  std::vector<Hint> hints = LoadPage(p, page, {}, At(1));
  CHECK(PreconnectSockets(hints, cdn) == 2);  // ceil(2.0), not ceil(1.32)
  hints = LoadPage(p, page, {}, At(2));       // 1.32
  CHECK(PreconnectSockets(hints, cdn) == 2);
  hints = LoadPage(p, page, {}, At(3));  // 0.8712 > 0.8
  CHECK(PreconnectSockets(hints, cdn) == 1);
  hints = LoadPage(p, page, {}, At(4));  // 0.575: pre-resolve only
  CHECK(PreconnectSockets(hints, cdn) == 0);
  CHECK(HasPreresolve(hints, cdn));
  LoadPage(p, page, {}, At(5));          // 0.379
  LoadPage(p, page, {}, At(6));          // 0.250
  LoadPage(p, page, {}, At(7));          // 0.165
  hints = LoadPage(p, page, {}, At(8));  // 0.109 > 0.1: still pre-resolved
  CHECK(HasPreresolve(hints, cdn));
  CHECK(Value(p, "https://a.test:443", cdn) == Approx(2.0 * std::pow(0.66, 8)));  // 0.072
  hints = LoadPage(p, page, {}, At(9));  // 0.072 <= 0.1: nothing
  CHECK(HintsFor(hints, cdn, SpeculativeAction::kPreresolve).empty());
  CHECK(PreconnectSockets(hints, cdn) == 0);
  CHECK(Value(p, "https://a.test:443", cdn) == -1);  // then 0.0475 < 0.05: forgotten
}

TEST_CASE("chrome: preconnects ceil(value) sockets, at most 6", "[predictor]") {
  ChromePolicy p(ChromeConfig());
  const Url page = U("https://a.test/");
  const SchemeHostPort cdn = O("https://cdn.test/");
  LoadPage(p, page, {{cdn, 30}}, At(0));  // 2.0 + 29 x 0.34 = 11.86
  std::vector<Hint> hints = LoadPage(p, page, {}, At(1));
  CHECK(PreconnectSockets(hints, cdn) == 6);
}

TEST_CASE("chrome: a loaded expected value of any size still preconnects at most 6",
          "[predictor]") {
  ChromePolicy p(ChromeConfig());
  const SchemeHostPort cdn = O("https://cdn.test/");
  size_t skipped = 99;
  // Finite, non-negative, so a valid row; converted to sockets only after clamping.
  p.LoadRows({{"referrers", "https://a.test:443", "", {{"page_loads", 1}, {"last_use", 1}}},
              {"referrers",
               "https://a.test:443",
               "https://cdn.test:443",
               {{"expected_connects", 1e300},
                {"navigations", 1},
                {"preconnects", 0},
                {"preresolves", 0}}}},
             At(0), &skipped);
  CHECK(skipped == 0);
  std::vector<Hint> hints;
  p.OnNavigation(U("https://a.test/"), At(1), &hints);
  CHECK(PreconnectSockets(hints, cdn) == 6);
}

TEST_CASE("chrome: the page's own origin is a self referral, others learned referrals",
          "[predictor]") {
  ChromePolicy p(ChromeConfig());
  const Url page = U("https://a.test/");
  LoadPage(p, page, {{O("https://a.test/"), 1}, {O("https://cdn.test/"), 1}}, At(0));
  std::vector<Hint> hints = LoadPage(p, U("https://a.test/other"), {}, At(1));
  auto self = HintsFor(hints, O("https://a.test/"), SpeculativeAction::kPreconnect);
  auto cdn = HintsFor(hints, O("https://cdn.test/"), SpeculativeAction::kPreconnect);
  REQUIRE(self.size() == 1);
  REQUIRE(cdn.size() == 1);
  CHECK(self[0].motivation == HintMotivation::kSelfReferral);
  CHECK(cdn[0].motivation == HintMotivation::kLearnedReferral);
  // Keyed by origin: another path of the same site shares the referrer.
  CHECK(p.referrers().size() == 1);
  CHECK(p.referrers().Find("https://a.test:443")->page_loads == 2);
}

TEST_CASE("chrome: at most 10 origins per referrer, the least valuable dropped", "[predictor]") {
  ChromePolicy p(ChromeConfig());
  const Url page = U("https://a.test/");
  std::vector<std::pair<SchemeHostPort, int>> needs;
  for (int i = 0; i < 10; ++i) needs.push_back({O("https://o" + std::to_string(i) + ".test/"), 2});
  LoadPage(p, page, needs, At(0));  // every origin 2.34
  // o0 is needed once more (2.34 x 0.66 + 0.34), the others not: they are all 1.5444 but o0.
  LoadPage(p, page, {{O("https://o0.test/"), 1}}, At(1));
  LoadPage(p, page, {{O("https://new.test/"), 1}}, At(2));
  const auto* r = p.referrers().Find("https://a.test:443");
  CHECK(r->origins.size() == 10);
  CHECK(r->origins.count("https://new.test:443"));
  CHECK(r->origins.count("https://o0.test:443"));        // the most valuable stays
  CHECK_FALSE(r->origins.count("https://o1.test:443"));  // least valuable (ties: first key)
}

TEST_CASE("chrome: at most 100 referrers, the most recently used kept", "[predictor]") {
  ChromePolicy p(ChromeConfig());
  for (int i = 0; i < 150; ++i) {
    LoadPage(p, U("https://p" + std::to_string(i) + ".test/"), {{O("https://cdn.test/"), 1}},
             At(i));
  }
  CHECK(p.referrers().size() == 100);
  CHECK(p.referrers().Find("https://p149.test:443"));
  CHECK(p.referrers().Find("https://p50.test:443"));
  CHECK_FALSE(p.referrers().Find("https://p49.test:443"));
  // A use refreshes: p50 visited again survives the next eviction, p51 does not.
  LoadPage(p, U("https://p50.test/"), {}, At(200));
  LoadPage(p, U("https://late.test/"), {}, At(201));
  CHECK(p.referrers().Find("https://p50.test:443"));
  CHECK_FALSE(p.referrers().Find("https://p51.test:443"));
}

TEST_CASE("chrome: startup list pre-resolves the 10 most used origins after the last start",
          "[predictor]") {
  PredictorConfig config = ChromeConfig();
  ChromePolicy p(config);
  std::vector<Hint> hints;
  p.OnStartup(At(0), &hints);
  CHECK(hints.empty());  // nothing learned yet
  const Url page = U("https://a.test/");
  for (int i = 0; i < 12; ++i) {
    for (int j = 0; j <= i; ++j) {  // origin i used i + 1 times
      p.OnResourceRequested(page, U("https://h" + std::to_string(i) + ".test/r"), At(1));
    }
  }
  // Outside the 30 s window: not counted.
  for (int j = 0; j < 50; ++j) p.OnResourceRequested(page, U("https://late.test/"), At(31));
  hints.clear();
  p.OnStartup(At(100), &hints);
  REQUIRE(hints.size() == 10);
  CHECK(hints[0].origin == O("https://h11.test/"));  // most used first
  CHECK(hints[9].origin == O("https://h2.test/"));
  for (const Hint& h : hints) {
    CHECK(h.motivation == HintMotivation::kStartupList);
    CHECK(h.action == SpeculativeAction::kPreresolve);
    CHECK(h.origin != O("https://late.test/"));
  }
  // The list is the last start's: this start saw nothing yet, so the list stays until it does.
  hints.clear();
  p.OnResourceRequested(page, U("https://only.test/"), At(101));
  p.OnStartup(At(200), &hints);
  REQUIRE(hints.size() == 1);
  CHECK(hints[0].origin == O("https://only.test/"));
}

TEST_CASE("chrome: omnibox confidence is hits / (hits + misses), 0 below 3 hits", "[predictor]") {
  CHECK(ChromePolicy::OmniboxConfidence(2, 0) == 0);
  CHECK(ChromePolicy::OmniboxConfidence(3, 0) == 1);
  CHECK(ChromePolicy::OmniboxConfidence(3, 3) == Approx(0.5));
  CHECK(ChromePolicy::OmniboxConfidence(3, 7) == Approx(0.3));
}

TEST_CASE("chrome: omnibox hits and misses are scored at the next navigation", "[predictor]") {
  ChromePolicy p(ChromeConfig());
  std::vector<Hint> hints;
  const Url news = U("https://news.test/");
  p.OnOmnibox("n", U("https://nba.test/"), At(0), &hints);
  p.OnOmnibox("ne", news, At(1), &hints);
  p.OnNavigation(news, At(2), &hints);
  double hits, misses;
  REQUIRE(p.omnibox().Get("ne", news.spec(), At(2), &hits, &misses));
  CHECK(hits == 1);
  CHECK(misses == 0);
  REQUIRE(p.omnibox().Get("n", "https://nba.test/", At(2), &hits, &misses));
  CHECK(hits == 0);
  CHECK(misses == 1);
  CHECK(p.omnibox().pending_size() == 0);
  // Only pairs typed since the last navigation are scored.
  p.OnNavigation(news, At(3), &hints);
  p.omnibox().Get("ne", news.spec(), At(3), &hits, &misses);
  CHECK(hits == 1);
}

TEST_CASE("chrome: omnibox actions follow confidence and their rate limits", "[predictor]") {
  ChromePolicy p(ChromeConfig());
  const Url url = U("https://news.test/today");
  const SchemeHostPort origin = url.scheme_host_port();
  std::vector<Hint> hints;
  // Confidence 0: a pre-resolve, at most once per 60 s per host.
  p.OnOmnibox("n", url, At(0), &hints);
  REQUIRE(hints.size() == 1);
  CHECK(hints[0].action == SpeculativeAction::kPreresolve);
  CHECK(hints[0].motivation == HintMotivation::kOmnibox);
  hints.clear();
  p.OnOmnibox("ne", url, At(59), &hints);
  CHECK(hints.empty());
  p.OnOmnibox("new", url, At(60), &hints);
  CHECK(hints.size() == 1);
  // 3 hits, 7 misses: 0.3 -> preconnect (which resolves too), not fetch ahead.
  ChromePolicy q(ChromeConfig());
  for (int i = 0; i < 10; ++i) {
    q.OnOmnibox("x", url, At(i), &hints);
    q.OnNavigation(i < 3 ? url : U("https://other.test/"), At(i), &hints);
  }
  hints.clear();
  q.OnOmnibox("x", url, At(100), &hints);
  CHECK(PreconnectSockets(hints, origin) == 1);
  CHECK(HintsFor(hints, origin, SpeculativeAction::kFetchAhead).empty());
  CHECK_FALSE(HasPreresolve(hints, origin));
  hints.clear();
  q.OnOmnibox("x", url, At(109), &hints);  // within 10 s: no second preconnect
  CHECK(PreconnectSockets(hints, origin) == 0);
  hints.clear();
  q.OnOmnibox("x", url, At(110), &hints);
  CHECK(PreconnectSockets(hints, origin) == 1);
  // 5 hits, 5 misses: 0.5 -> fetch ahead the URL as well.
  ChromePolicy r(ChromeConfig());
  for (int i = 0; i < 10; ++i) {
    r.OnOmnibox("x", url, At(i), &hints);
    r.OnNavigation(i < 5 ? url : U("https://other.test/"), At(i), &hints);
  }
  hints.clear();
  r.OnOmnibox("x", url, At(100), &hints);
  auto fetch = HintsFor(hints, origin, SpeculativeAction::kFetchAhead);
  REQUIRE(fetch.size() == 1);
  CHECK(fetch[0].url.spec() == url.spec());
  CHECK(PreconnectSockets(hints, origin) == 1);
}

TEST_CASE("chrome: the omnibox table keeps at most max_omnibox_rows rows, LRU", "[predictor]") {
  PredictorConfig config = ChromeConfig();
  config.max_omnibox_rows = 5;
  ChromePolicy p(config);
  std::vector<Hint> hints;
  for (int i = 0; i < 8; ++i) {
    p.OnOmnibox("t" + std::to_string(i), U("https://a.test/"), At(i), &hints);
    p.OnNavigation(U("https://a.test/"), At(i), &hints);
  }
  CHECK(p.omnibox().size() == 5);
  double h, m;
  CHECK_FALSE(p.omnibox().Get("t2", "https://a.test/", At(9), &h, &m));
  CHECK(p.omnibox().Get("t3", "https://a.test/", At(9), &h, &m));
}

TEST_CASE("chrome: hover preconnects 1 socket and the target's referrals, without a visit",
          "[predictor]") {
  ChromePolicy p(ChromeConfig());
  const Url page = U("https://a.test/");
  const SchemeHostPort cdn = O("https://cdn.test/");
  std::vector<Hint> hints;
  p.OnHover(U("https://b.test/x"), At(0), &hints);  // unknown target: 1 + its 2 early sockets
  CHECK(PreconnectSockets(hints, O("https://b.test/")) == 2);
  LoadPage(p, page, {{cdn, 1}}, At(1));
  hints.clear();
  p.OnHover(page, At(2), &hints);
  CHECK(PreconnectSockets(hints, O("https://a.test/")) == 1);
  CHECK(PreconnectSockets(hints, cdn) == 2);
  for (const Hint& h : hints) CHECK(h.motivation == HintMotivation::kMouseOver);
  CHECK(Value(p, "https://a.test:443", cdn) == Approx(2.0));  // no decay
  CHECK(p.referrers().Find("https://a.test:443")->page_loads == 1);
}

TEST_CASE("chrome: static hints map to their actions", "[predictor]") {
  ChromePolicy p(ChromeConfig());
  const Url page = U("https://a.test/");
  std::vector<Hint> hints;
  p.OnStaticHint(page, StaticHintKind::kDnsPrefetch, U("https://d.test/"), At(0), &hints);
  p.OnStaticHint(page, StaticHintKind::kPreconnect, U("https://c.test/"), At(0), &hints);
  p.OnStaticHint(page, StaticHintKind::kPreload, U("https://l.test/app.js"), At(0), &hints);
  p.OnStaticHint(page, StaticHintKind::kPrefetch, U("https://f.test/next"), At(0), &hints);
  REQUIRE(hints.size() == 4);
  CHECK(hints[0].action == SpeculativeAction::kPreresolve);
  CHECK(hints[1].action == SpeculativeAction::kPreconnect);
  CHECK(hints[1].sockets == 1);
  CHECK(hints[2].action == SpeculativeAction::kFetchAhead);
  CHECK(hints[2].url.spec() == "https://l.test/app.js");
  CHECK(hints[3].action == SpeculativeAction::kFetchAhead);
  for (const Hint& h : hints) CHECK(h.motivation == HintMotivation::kStaticReferral);
  CHECK(hints[3].likelihood < hints[2].likelihood);
}

TEST_CASE("chrome: budget, priorities (user gestures first) and expiry", "[predictor]") {
  ChromePolicy p(ChromeConfig());
  CHECK(p.Budget(At(0)) == 8);
  CHECK(HintPriority(HintMotivation::kMouseOver) > HintPriority(HintMotivation::kEarlyLoad));
  CHECK(HintPriority(HintMotivation::kOmnibox) > HintPriority(HintMotivation::kEarlyLoad));
  CHECK(HintPriority(HintMotivation::kEarlyLoad) > HintPriority(HintMotivation::kLearnedReferral));
  CHECK(HintPriority(HintMotivation::kLearnedReferral) >
        HintPriority(HintMotivation::kStartupList));
  std::vector<Hint> hints;
  p.OnHover(U("https://b.test/"), At(0), &hints);
  CHECK(hints[0].created == At(0));
  CHECK(hints[0].expires == At(0) + HintLifetime(HintMotivation::kMouseOver));
  CHECK(hints[0].priority == HintPriority(HintMotivation::kMouseOver));
}

TEST_CASE("chrome: tables as chrome://dns and chrome://predictors rows", "[predictor]") {
  ChromePolicy p(ChromeConfig());
  const Url page = U("https://a.test/");
  LoadPage(p, page, {{O("https://cdn.test/"), 1}}, At(0));
  LoadPage(p, page, {}, At(1));
  std::vector<Hint> hints;
  p.OnOmnibox("a", page, At(2), &hints);
  p.OnNavigation(page, At(3), &hints);
  nlohmann::json t = p.TablesToJson();
  REQUIRE(t["referrers"].size() == 1);
  const auto& row = t["referrers"][0];
  CHECK(row["page"] == "https://a.test:443");
  CHECK(row["origin"] == "https://cdn.test:443");
  CHECK(row["page_loads"] == 3);
  CHECK(row["navigations"] == 1);
  CHECK(row["preconnects"] == 2);
  CHECK(row["preresolves"] == 0);
  CHECK(row["expected_connects"].get<double>() == Approx(2.0 * 0.66 * 0.66));
  REQUIRE(t["omnibox"].size() == 1);
  CHECK(t["omnibox"][0]["hits"] == 1.0);
  CHECK(t["omnibox"][0]["confidence"] == 0.0);
  CHECK(t["startup"].is_array());
}

}  // namespace
}  // namespace netstack
