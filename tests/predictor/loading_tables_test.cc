// LoadingPolicy's tables: the JSON the internals page shows, the rows it persists (round trip,
// bad rows, bounds, the omnibox's 14 days) and its memory estimate.
#include <catch2/catch.hpp>

#include "predictor/loading_policy.h"
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
  PredictorRow good = LoadingOriginRow("a.test", "https://cdn.test:443", 2, 1);
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
    PredictorRow r =
        LoadingOriginRow("h" + std::to_string(h) + ".test", "https://c.test:443", 1, 0);
    r.data["last_visit"] = h + 1;
    many.push_back(r);
  }
  for (uint64_t rank = 0; rank < 60; ++rank) {
    many.push_back(LoadingOriginRow("h119.test", "https://o" + std::to_string(rank) + ".test:443",
                                    1, 0, rank + 1));
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
