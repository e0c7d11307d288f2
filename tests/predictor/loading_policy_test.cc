// LoadingPolicy: each rule and number of Chrome's LoadingPredictor (loading_policy.h), its
// origin table and its persistence, driven directly on made-up times.
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

// A row of the "origins" table as SaveRows writes it.
PredictorRow OriginRow(const std::string& host, const std::string& origin, uint64_t hits,
                       uint64_t misses, uint64_t rank = 0) {
  return {"origins",
          host,
          origin,
          {{"hits", hits},
           {"misses", misses},
           {"consecutive_misses", 0},
           {"average_position", 2.0},
           {"always_access_network", false},
           {"accessed_network", true},
           {"rank", rank},
           {"last_visit", 1}}};
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
  p.LoadRows({OriginRow("a.test", "https://c80.test:443", 4, 1, 1),   // 0.8
              OriginRow("a.test", "https://c75.test:443", 3, 1, 2),   // 0.75: not above
              OriginRow("a.test", "https://c20.test:443", 1, 4, 3),   // 0.2
              OriginRow("a.test", "https://c16.test:443", 1, 5, 4)},  // 0.167
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
  q.LoadRows({OriginRow("a.test", "https://a.test:443", 1, 2)}, At(0), &skipped);
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

TEST_CASE("loading: tables as chrome://predictors rows", "[predictor]") {
  LoadingPolicy p(LoadingConfig());
  const Url page = U("https://a.test/");
  LoadPage(p, page, {{O("https://cdn.test/"), 1}}, At(0));
  LoadPage(p, page, {}, At(1));
  std::vector<Hint> hints;
  p.OnOmnibox("a", page, At(2), &hints);
  p.OnNavigation(page, At(3), &hints);
  nlohmann::json t = p.TablesToJson();
  REQUIRE(t["referrers"].size() == 2);
  const nlohmann::json& self = t["referrers"][0];
  CHECK(self["page"] == "a.test");
  CHECK(self["origin"] == "https://a.test:443");
  const nlohmann::json& cdn = t["referrers"][1];
  CHECK(cdn["origin"] == "https://cdn.test:443");
  CHECK(cdn["hits"] == 1);
  CHECK(cdn["misses"] == 1);
  CHECK(cdn["consecutive_misses"] == 1);
  CHECK(cdn["confidence"].get<double>() == Approx(0.5));
  CHECK(cdn["action"] == "preresolve");
  CHECK(cdn["accessed_network"] == true);
  CHECK(cdn["always_access_network"] == false);
  REQUIRE(t["omnibox"].size() == 1);
  CHECK(t["omnibox"][0]["hits"] == 1.0);
  CHECK(t["omnibox"][0]["confidence"] == 0.0);
}

TEST_CASE("loading: rows round-trip exactly", "[predictor]") {
  PredictorConfig config = LoadingConfig();
  LoadingPolicy original(config);
  const Url page = U("https://a.test/p");
  std::vector<Hint> ignored;
  for (int i = 0; i < 6; ++i) {
    LoadPage(original, page, {{O("https://cdn.test/"), 1}, {O("https://x.test/"), i % 2}}, At(i));
    LoadPage(original, U("https://b.test/"), {{O("https://y.test/"), 1}}, At(i + 0.5));
    original.OnOmnibox("a", page, At(i + 0.6), &ignored);
  }
  LoadPage(original, page, {}, At(10));
  std::vector<PredictorRow> rows = original.SaveRows();
  REQUIRE(rows.size() > 5);
  LoadingPolicy loaded(config);
  size_t skipped = 99;
  loaded.LoadRows(rows, At(10), &skipped);
  CHECK(skipped == 0);
  CHECK(loaded.TablesToJson() == original.TablesToJson());
  CHECK(loaded.SaveRows().size() == rows.size());
  // The same hints from both, and after one more load the same tables.
  std::vector<Hint> a = LoadPage(original, page, {{O("https://z.test/"), 1}}, At(20));
  std::vector<Hint> b = LoadPage(loaded, page, {{O("https://z.test/"), 1}}, At(20));
  CHECK(a.size() >= 3);
  CHECK(Describe(a) == Describe(b));
  a.clear();
  b.clear();
  original.OnOmnibox("a", page, At(21), &a);
  loaded.OnOmnibox("a", page, At(21), &b);
  CHECK(Describe(a) == Describe(b));
  CHECK(loaded.TablesToJson() == original.TablesToJson());
  // The saved_at meta row is the caller's: ignored, not skipped.
  rows.push_back(MakeSavedAtRow(Time{} + Seconds(1000)));
  LoadingPolicy again(config);
  again.LoadRows(rows, At(10), &skipped);
  CHECK(skipped == 0);
}

TEST_CASE("loading: bad rows are skipped and counted, bounds hold", "[predictor]") {
  PredictorRow good = OriginRow("a.test", "https://cdn.test:443", 2, 1);
  auto with = [&](const char* field, nlohmann::json value) {
    PredictorRow r = good;
    r.data[field] = value;
    return r;
  };
  PredictorRow no_origin = good;
  no_origin.subkey = "not an origin";
  PredictorRow no_host = good;
  no_host.key = "";
  PredictorRow not_object = good;
  not_object.data = "nope";
  std::vector<PredictorRow> bad = {
      {"nonsense", "k", "", {{"x", 1}}},
      no_origin,
      no_host,
      not_object,
      with("hits", -1),
      with("hits", 0),
      with("misses", "1"),
      with("consecutive_misses", 3),  // would have been dropped
      with("average_position", -1),
      with("accessed_network", 1),
      with("rank", 1.5),
      {"omnibox", "t", "https://a.test/", "not an object"},
      {"referrers", "https://a.test:443", "", {{"page_loads", 1}, {"last_use", 1}}},
  };
  LoadingPolicy p(LoadingConfig());
  size_t skipped = 0;
  p.LoadRows(bad, At(0), &skipped);
  CHECK(skipped == bad.size());
  CHECK(p.origins().size() == 0);
  CHECK(p.omnibox().size() == 0);

  // More hosts and origins than the bounds: the bounds hold, ranks past 50 are dropped.
  std::vector<PredictorRow> many;
  for (int h = 0; h < 120; ++h) {
    PredictorRow r = OriginRow("h" + std::to_string(h) + ".test", "https://c.test:443", 1, 0);
    r.data["last_visit"] = h + 1;
    many.push_back(r);
  }
  for (uint64_t rank = 0; rank < 60; ++rank) {
    many.push_back(
        OriginRow("h119.test", "https://o" + std::to_string(rank) + ".test:443", 1, 0, rank + 1));
  }
  LoadingPolicy q(LoadingConfig());
  q.LoadRows(many, At(0), &skipped);
  CHECK(skipped == 0);
  CHECK(q.origins().size() == LoadingPolicy::kMaxHosts);
  CHECK_FALSE(q.origins().Find("h19.test"));
  REQUIRE(q.origins().Find("h119.test"));
  CHECK(q.origins().Find("h119.test")->origins.size() == LoadingPolicy::kMaxOriginsPerHost);
  CHECK(q.origins().Find("h119.test")->origins[0].origin == O("https://c.test/"));
}

TEST_CASE("loading: omnibox rows older than 14 days are dropped when the tables load",
          "[predictor]") {
  auto row = [](const std::string& text, double age_days) {
    return PredictorRow{
        "omnibox",
        text,
        "https://a.test/",
        {{"hits", 3.0}, {"misses", 0.0}, {"last_use", 1}, {"age_us", age_days * 86400e6}}};
  };
  LoadingPolicy p(LoadingConfig());
  size_t skipped = 9;
  p.LoadRows({row("fresh", 13.9), row("old", 14.1)}, At(0), &skipped);
  CHECK(skipped == 0);
  double hits, misses;
  CHECK(p.omnibox().Get("fresh", "https://a.test/", At(0), &hits, &misses));
  CHECK_FALSE(p.omnibox().Get("old", "https://a.test/", At(0), &hits, &misses));
}

TEST_CASE("loading: the memory estimate follows the tables and stays bounded", "[predictor]") {
  LoadingPolicy p(LoadingConfig());
  const size_t empty = p.EstimateMemoryUsage();
  LoadPage(p, U("https://a.test/"), {{O("https://cdn.test/"), 1}}, At(0));
  const size_t one = p.EstimateMemoryUsage();
  CHECK(one > empty);
  for (int i = 0; i < 300; ++i) {
    std::vector<std::pair<SchemeHostPort, int>> needs;
    for (int j = 0; j < 60; ++j)
      needs.push_back({O("https://o" + std::to_string(j) + ".test/"), 1});
    LoadPage(p, U("https://h" + std::to_string(i) + ".test/"), needs, At(1 + i));
  }
  CHECK(p.origins().size() == LoadingPolicy::kMaxHosts);
  const size_t full = p.EstimateMemoryUsage();
  CHECK(full > one);
  // One origin stat, its key and the host's share, times the bounds, with room for the rest.
  CHECK(full < LoadingPolicy::kMaxHosts * LoadingPolicy::kMaxOriginsPerHost * 512);
}

}  // namespace
}  // namespace netstack
