// LoadingPolicy: each rule and number of Chrome's LoadingPredictor (loading_policy.h) and its
// origin table, driven directly on made-up times. Its tables and rows: loading_tables_test.cc.
#include "predictor/loading_policy.h"

#include <catch2/catch.hpp>

#include "predictor/policy_util.h"
#include "predictor/predictor_config.h"
#include "tests/predictor/policy_test_util.h"

namespace netstack {
namespace {

using namespace policy_test;

PredictorConfig LoadingConfig() {
  PredictorConfig config;
  config.policy = "loading";
  return config;
}

const HostOriginTable::OriginStat* Stat(const LoadingPolicy& p, const std::string& host,
                                        const SchemeHostPort& origin) {
  const HostOriginTable::Host* h = p.origins().Find(host);
  if (!h) return nullptr;
  for (const auto& s : h->origins) {
    if (s.origin == origin) return &s;
  }
  return nullptr;
}

TEST_CASE("loading: the policy is named loading and made by CreatePredictorPolicy", "[predictor]") {
  PredictorConfig config;
  std::string error;
  REQUIRE(config.Set("predictor", "loading", &error));
  auto policy = CreatePredictorPolicy(config);
  REQUIRE(policy);
  CHECK(std::string(policy->name()) == "loading");
  CHECK_FALSE(config.Set("predictor", "loadin", &error));
  CHECK(error == "predictor: 'loadin' is not a policy (off, chrome, loading or learned)");
  CHECK(config.policy == "loading");
}

TEST_CASE("loading: an unknown host preconnects 2 sockets to the main frame's origin",
          "[predictor]") {
  LoadingPolicy p(LoadingConfig());
  std::vector<Hint> hints;
  p.OnNavigation(U("https://a.test/x?q=1"), At(0), &hints);
  REQUIRE(hints.size() == 1);
  CHECK(hints[0].motivation == HintMotivation::kEarlyLoad);
  CHECK(hints[0].action == SpeculativeAction::kPreconnect);
  CHECK(hints[0].origin == O("https://a.test/"));
  CHECK(hints[0].sockets == LoadingPolicy::kMainFrameSockets);
  CHECK(hints[0].sockets == 2);
  CHECK(hints[0].page == "https://a.test/x?q=1");
}

TEST_CASE("loading: confidence > 0.75 preconnects 1 socket, >= 0.2 pre-resolves", "[predictor]") {
  LoadingPolicy p(LoadingConfig());
  size_t skipped = 9;
  p.LoadRows({LoadingOriginRow("a.test", "https://c80.test:443", 4, 1, 1),   // 0.8
              LoadingOriginRow("a.test", "https://c75.test:443", 3, 1, 2),   // 0.75: not above
              LoadingOriginRow("a.test", "https://c20.test:443", 1, 4, 3),   // 0.2
              LoadingOriginRow("a.test", "https://c16.test:443", 1, 5, 4)},  // 0.167
             At(0), &skipped);
  REQUIRE(skipped == 0);
  std::vector<Hint> hints;
  p.OnNavigation(U("https://a.test/"), At(1), &hints);
  CHECK(PreconnectSockets(hints, O("https://a.test/")) == 2);
  CHECK(PreconnectSockets(hints, O("https://c80.test/")) == 1);
  CHECK_FALSE(HasPreresolve(hints, O("https://c80.test/")));
  CHECK(PreconnectSockets(hints, O("https://c75.test/")) == 0);
  CHECK(HasPreresolve(hints, O("https://c75.test/")));
  CHECK(HasPreresolve(hints, O("https://c20.test/")));
  CHECK(HintsFor(hints, O("https://c16.test/"), SpeculativeAction::kPreresolve).empty());
  CHECK(PreconnectSockets(hints, O("https://c16.test/")) == 0);
  REQUIRE(hints.size() == 4);
  // The table's order, the main frame first; learned ones carry their confidence.
  CHECK(hints[0].origin == O("https://a.test/"));
  CHECK(hints[1].origin == O("https://c80.test/"));
  CHECK(hints[1].motivation == HintMotivation::kLearnedReferral);
  CHECK(hints[1].likelihood == Approx(0.8));
  CHECK(hints[3].likelihood == Approx(0.2));
}

TEST_CASE("loading: the main frame's origin is preconnected once with at least 2 sockets",
          "[predictor]") {
  LoadingPolicy p(LoadingConfig());
  const Url page = U("https://a.test/");
  const SchemeHostPort self = page.scheme_host_port();
  LoadPage(p, page, {{self, 3}}, At(0));
  std::vector<Hint> hints = LoadPage(p, page, {}, At(1));
  // Learned with confidence 1 (1 socket) and raised to 2: one hint, not two.
  CHECK(HintsFor(hints, self, SpeculativeAction::kPreconnect).size() == 1);
  CHECK(PreconnectSockets(hints, self) == 2);
  // A main frame origin the table ranks low for pre-resolve only still gets 2 sockets.
  LoadingPolicy q(LoadingConfig());
  size_t skipped = 0;
  q.LoadRows({LoadingOriginRow("a.test", "https://a.test:443", 1, 2)}, At(0), &skipped);
  hints.clear();
  q.OnNavigation(page, At(1), &hints);
  CHECK(PreconnectSockets(hints, self) == 2);
  CHECK_FALSE(HasPreresolve(hints, self));
}

TEST_CASE("loading: hits, misses and position are counted as Chrome's LearnOrigins does",
          "[predictor]") {
  LoadingPolicy p(LoadingConfig());
  const Url page = U("https://a.test/");
  const SchemeHostPort cdn = O("https://cdn.test/"), ads = O("https://ads.test/");
  LoadPage(p, page, {{cdn, 2}, {ads, 1}}, At(0));  // order: a.test, cdn, ads
  const auto* s = Stat(p, "a.test", cdn);
  REQUIRE(s);
  CHECK(s->hits == 1);
  CHECK(s->misses == 0);
  CHECK(s->average_position == Approx(2));
  CHECK(s->accessed_network);
  LoadPage(p, page, {{ads, 1}, {cdn, 1}}, At(1));  // cdn now third
  s = Stat(p, "a.test", cdn);
  CHECK(s->hits == 2);
  CHECK(s->average_position == Approx(2.5));
  LoadPage(p, page, {{ads, 1}}, At(2));  // cdn missed
  s = Stat(p, "a.test", cdn);
  CHECK(s->hits == 2);
  CHECK(s->misses == 1);
  CHECK(s->consecutive_misses == 1);
  CHECK(HostOriginTable::Confidence(*s) == Approx(2.0 / 3));
  LoadPage(p, page, {{cdn, 1}}, At(3));  // a hit resets the run of misses
  s = Stat(p, "a.test", cdn);
  CHECK(s->consecutive_misses == 0);
  CHECK(s->hits == 3);
  // The position averages over loads scored, misses included: (2.5 * 3 + 2) / 4.
  CHECK(s->average_position == Approx(2.375));
}

TEST_CASE("loading: an origin missed 3 loads in a row is dropped", "[predictor]") {
  LoadingPolicy p(LoadingConfig());
  const Url page = U("https://a.test/");
  const SchemeHostPort cdn = O("https://cdn.test/");
  LoadPage(p, page, {{cdn, 1}}, At(0));
  LoadPage(p, page, {}, At(1));
  LoadPage(p, page, {}, At(2));
  REQUIRE(Stat(p, "a.test", cdn));
  CHECK(Stat(p, "a.test", cdn)->consecutive_misses == 2);
  LoadPage(p, page, {}, At(3));
  CHECK_FALSE(Stat(p, "a.test", cdn));
  // The main frame's origin was requested each time and stays.
  CHECK(Stat(p, "a.test", O("https://a.test/")));
}

TEST_CASE("loading: the table is keyed by the main frame's host", "[predictor]") {
  LoadingPolicy p(LoadingConfig());
  const SchemeHostPort cdn = O("https://cdn.test/");
  LoadPage(p, U("https://a.test/one"), {{cdn, 1}}, At(0));
  // Another page, another scheme and port of the same host: the same row.
  std::vector<Hint> hints = LoadPage(p, U("http://a.test:8080/two"), {}, At(1));
  CHECK(PreconnectSockets(hints, cdn) == 1);
  CHECK(PreconnectSockets(hints, O("http://a.test:8080/")) == 2);
  CHECK(p.origins().size() == 1);
  // Another host: nothing learned.
  hints = LoadPage(p, U("https://b.test/"), {}, At(2));
  CHECK(PreconnectSockets(hints, cdn) == 0);
  CHECK(p.origins().size() == 2);
}

TEST_CASE("loading: a load teaches when it completes, and is abandoned after 60 s", "[predictor]") {
  LoadingPolicy p(LoadingConfig());
  const Url page = U("https://a.test/");
  const SchemeHostPort cdn = O("https://cdn.test/");
  std::vector<Hint> hints;
  p.OnNavigation(page, At(0), &hints);
  p.OnResourceRequested(page, U("https://cdn.test/app.js"), At(0.1));
  CHECK(p.origins().size() == 0);  // not before completion
  CHECK(p.loads_in_progress() == 1);
  p.OnNavigationComplete(page, At(1));
  CHECK(Stat(p, "a.test", cdn));
  CHECK(p.loads_in_progress() == 0);
  // Requested without a connection: known, but not marked as having reached the network.
  CHECK_FALSE(Stat(p, "a.test", cdn)->accessed_network);

  const Url b = U("https://b.test/");
  p.OnNavigation(b, At(10), &hints);
  p.OnResourceRequested(b, U("https://cdn.test/x"), At(10));
  p.OnNavigation(U("https://c.test/"), At(71), &hints);  // b's load is 61 s old: abandoned
  p.OnNavigationComplete(b, At(72));
  CHECK_FALSE(p.origins().Find("b.test"));
  // Events of a page with no load open are ignored.
  p.OnConnectionNeeded(U("https://z.test/"), cdn, SocketSource::kNew, false, 10, At(73));
  p.OnNavigationComplete(U("https://z.test/"), At(73));
  CHECK_FALSE(p.origins().Find("z.test"));
}

TEST_CASE("loading: loads in progress and their origins are bounded", "[predictor]") {
  LoadingPolicy p(LoadingConfig());
  std::vector<Hint> hints;
  for (size_t i = 0; i < LoadingPolicy::kMaxLoadsInProgress + 10; ++i) {
    p.OnNavigation(U("https://p" + std::to_string(i) + ".test/"), At(i * 0.01), &hints);
  }
  CHECK(p.loads_in_progress() == LoadingPolicy::kMaxLoadsInProgress);
  const Url page = U("https://big.test/");
  p.OnNavigation(page, At(1), &hints);
  for (size_t i = 0; i < LoadingPolicy::kMaxOriginsPerLoad + 50; ++i) {
    p.OnResourceRequested(page, U("https://o" + std::to_string(i) + ".test/"), At(1));
  }
  p.OnNavigationComplete(page, At(2));
  // The table keeps 50 of them.
  REQUIRE(p.origins().Find("big.test"));
  CHECK(p.origins().Find("big.test")->origins.size() == LoadingPolicy::kMaxOriginsPerHost);
}

TEST_CASE("loading: at most 50 origins per host, ranked by Chrome's origin score", "[predictor]") {
  LoadingPolicy p(LoadingConfig());
  const Url page = U("https://a.test/");
  std::vector<std::pair<SchemeHostPort, int>> needs;
  for (int i = 0; i < 60; ++i) needs.push_back({O("https://o" + std::to_string(i) + ".test/"), 1});
  LoadPage(p, page, needs, At(0));
  const HostOriginTable::Host* host = p.origins().Find("a.test");
  REQUIRE(host);
  REQUIRE(host->origins.size() == 50);
  CHECK(host->origins[0].origin == O("https://a.test/"));
  // Equal but for position: the earliest kept, the latest cut.
  CHECK(host->origins[1].origin == O("https://o0.test/"));
  CHECK(host->origins[49].origin == O("https://o48.test/"));
  CHECK_FALSE(Stat(p, "a.test", O("https://o59.test/")));
}

TEST_CASE("loading: the score puts high confidence, then network access, then position first",
          "[predictor]") {
  HostOriginTable::OriginStat early, networked, confident;
  early.hits = networked.hits = 1;
  early.average_position = 1;
  networked.average_position = 9;
  networked.accessed_network = true;
  confident.hits = 11;  // > 10 hits, confidence 1 > 0.75
  confident.average_position = 40;
  CHECK(HostOriginTable::Score(networked) > HostOriginTable::Score(early));
  CHECK(HostOriginTable::Score(confident) > HostOriginTable::Score(networked));
  confident.hits = 10;  // not more than 10
  CHECK(HostOriginTable::Score(confident) < HostOriginTable::Score(early));
  HostOriginTable::OriginStat always = early;
  always.always_access_network = true;
  always.average_position = 50;
  CHECK(HostOriginTable::Score(always) > HostOriginTable::Score(networked));
}

TEST_CASE("loading: at most 100 hosts, the least recently visited evicted", "[predictor]") {
  LoadingPolicy p(LoadingConfig());
  for (int i = 0; i < 105; ++i) {
    LoadPage(p, U("https://h" + std::to_string(i) + ".test/"), {}, At(i));
  }
  CHECK(p.origins().size() == LoadingPolicy::kMaxHosts);
  CHECK_FALSE(p.origins().Find("h4.test"));
  CHECK(p.origins().Find("h5.test"));
  // A visit makes a host the most recent.
  LoadPage(p, U("https://h5.test/"), {}, At(200));
  LoadPage(p, U("https://new.test/"), {}, At(201));
  CHECK(p.origins().Find("h5.test"));
  CHECK_FALSE(p.origins().Find("h6.test"));
}

TEST_CASE("loading: omnibox confidence is hits / (hits + misses), 0 below 3 hits", "[predictor]") {
  CHECK(LoadingPolicy::OmniboxConfidence(2, 0) == 0);
  CHECK(LoadingPolicy::OmniboxConfidence(3, 0) == 1);
  CHECK(LoadingPolicy::OmniboxConfidence(3, 7) == Approx(0.3));
}

// `hits` navigations to `url` and `misses` elsewhere, each after typing "x".
void TeachOmnibox(LoadingPolicy& p, const Url& url, int hits, int misses) {
  std::vector<Hint> ignored;
  for (int i = 0; i < hits + misses; ++i) {
    p.OnOmnibox("x", url, At(i), &ignored);
    p.OnNavigation(i < hits ? url : U("https://other.test/"), At(i), &ignored);
  }
}

TEST_CASE("loading: omnibox below 0.3 does nothing, from 0.3 pre-resolves, from 0.5 prerenders",
          "[predictor]") {
  const Url url = U("https://news.test/today");
  const SchemeHostPort origin = url.scheme_host_port();
  std::vector<Hint> hints;
  LoadingPolicy none(LoadingConfig());
  none.OnOmnibox("n", url, At(0), &hints);
  CHECK(hints.empty());  // confidence 0 (no row): ACTION_NONE

  LoadingPolicy p(LoadingConfig());
  TeachOmnibox(p, url, 3, 7);  // 0.3
  p.OnOmnibox("x", url, At(100), &hints);
  REQUIRE(hints.size() == 1);
  // A URL suggestion is not preconnectable (only search ones are): a pre-resolve.
  CHECK(hints[0].action == SpeculativeAction::kPreresolve);
  CHECK(hints[0].motivation == HintMotivation::kOmnibox);
  CHECK(hints[0].likelihood == Approx(0.3));
  CHECK(hints[0].origin == origin);

  LoadingPolicy q(LoadingConfig());
  TeachOmnibox(q, url, 5, 5);  // 0.5
  hints.clear();
  q.OnOmnibox("x", url, At(100), &hints);
  REQUIRE(hints.size() == 1);
  CHECK(hints[0].action == SpeculativeAction::kFetchAhead);
  CHECK(hints[0].url.spec() == url.spec());
  // One prerender per URL until the next navigation; no preconnect beside it.
  hints.clear();
  q.OnOmnibox("x", url, At(101), &hints);
  CHECK(hints.empty());
  q.OnNavigation(url, At(102), &hints);  // a hit: 6 / 11
  hints.clear();
  q.OnOmnibox("x", url, At(103), &hints);
  CHECK(HintsFor(hints, origin, SpeculativeAction::kFetchAhead).size() == 1);
}

TEST_CASE("loading: omnibox pre-resolves at most once per 60 s unless the origin changes",
          "[predictor]") {
  LoadingPolicy p(LoadingConfig());
  const Url a = U("https://a.test/"), b = U("https://b.test/");
  TeachOmnibox(p, a, 3, 4);  // 3 / 7: pre-resolve (each step of the teaching prerendered)
  TeachOmnibox(p, b, 3, 4);
  std::vector<Hint> hints;
  p.OnOmnibox("x", a, At(100), &hints);
  CHECK(hints.size() == 1);
  p.OnOmnibox("x", a, At(159), &hints);  // same origin within 60 s
  CHECK(hints.size() == 1);
  p.OnOmnibox("x", b, At(160), &hints);  // a new origin passes at once
  CHECK(hints.size() == 2);
  p.OnOmnibox("x", a, At(161), &hints);  // and a again is new
  CHECK(hints.size() == 3);
  p.OnOmnibox("x", a, At(221), &hints);  // 60 s after the last pre-resolve
  CHECK(hints.size() == 4);
}

TEST_CASE("loading: OmniboxHintGate: 10 s between preconnects, 60 s between pre-resolves",
          "[predictor]") {
  OmniboxHintGate gate;
  const SchemeHostPort a = O("https://a.test/"), b = O("https://b.test/");
  CHECK(gate.Allow(a, true, At(0)));
  CHECK_FALSE(gate.Allow(a, true, At(9.9)));
  CHECK(gate.Allow(a, true, At(10)));
  CHECK(gate.Allow(a, false, At(11)));  // the pre-resolve time is its own
  CHECK_FALSE(gate.Allow(a, false, At(70)));
  CHECK(gate.Allow(a, false, At(71)));
  CHECK(gate.Allow(b, false, At(72)));  // new origin
  CHECK(gate.Allow(a, true, At(73)));   // new again (the last was b)
}

TEST_CASE("loading: hover and startup do nothing, static hints map to their actions",
          "[predictor]") {
  LoadingPolicy p(LoadingConfig());
  const Url page = U("https://a.test/");
  LoadPage(p, page, {{O("https://cdn.test/"), 1}}, At(0));
  std::vector<Hint> hints;
  p.OnHover(page, At(1), &hints);
  p.OnStartup(At(2), &hints);
  LoadPage(p, page, {}, At(3));
  p.OnStartup(At(4), &hints);
  CHECK(hints.empty());
  p.OnStaticHint(page, StaticHintKind::kDnsPrefetch, U("https://d.test/"), At(5), &hints);
  p.OnStaticHint(page, StaticHintKind::kPreconnect, U("https://c.test/"), At(5), &hints);
  p.OnStaticHint(page, StaticHintKind::kPreload, U("https://l.test/app.js"), At(5), &hints);
  REQUIRE(hints.size() == 3);
  CHECK(hints[0].action == SpeculativeAction::kPreresolve);
  CHECK(hints[1].action == SpeculativeAction::kPreconnect);
  CHECK(hints[2].action == SpeculativeAction::kFetchAhead);
  for (const Hint& h : hints) CHECK(h.motivation == HintMotivation::kStaticReferral);
  CHECK(p.Budget(At(5)) == LoadingPolicy::kBudget);
}

}  // namespace
}  // namespace netstack
