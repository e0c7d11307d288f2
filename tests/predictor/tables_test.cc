// The bounded tables on their own (a table never grows past its bound), and SaveRows/LoadRows:
// a policy loaded from another's rows makes the same hints and shows the same tables; bad rows
// are skipped and counted.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <string>

#include "predictor/chrome_policy.h"
#include "predictor/decayed_use_table.h"
#include "predictor/learned_policy.h"
#include "predictor/omnibox_table.h"
#include "predictor/policy_util.h"
#include "predictor/predictor_config.h"
#include "predictor/referrer_table.h"
#include "predictor/startup_list.h"
#include "tests/predictor/policy_test_util.h"

namespace netstack {
namespace {

using namespace policy_test;

TEST_CASE("tables: ReferrerTable never grows past its bounds", "[predictor]") {
  ReferrerTable t(3, 2);
  for (int i = 0; i < 50; ++i) {
    auto* r = t.FindOrCreate("r" + std::to_string(i % 7));
    t.OriginNeeded(r, O("https://o" + std::to_string(i % 5) + ".test/"));
    CHECK(t.size() <= 3);
    CHECK(r->origins.size() <= 2);
  }
}

TEST_CASE("tables: OmniboxTable bounds, LRU, decay and pending", "[predictor]") {
  OmniboxTable t(3, /*half_life_days=*/1);
  for (int i = 0; i < 10; ++i) {
    t.AddPending("t" + std::to_string(i), "https://a.test/");
    t.ScoreNavigation("https://a.test/", At(i));
    CHECK(t.size() <= 3);
  }
  double h, m;
  CHECK(t.Get("t9", "https://a.test/", At(9), &h, &m));
  CHECK(h == 1);
  CHECK(t.Get("t9", "https://a.test/", At(9) + Seconds(86400), &h, &m));
  CHECK(h == Approx(0.5));
  CHECK_FALSE(t.Get("t6", "https://a.test/", At(9), &h, &m));
  for (int i = 0; i < 1000; ++i) t.AddPending(std::to_string(i), "https://b.test/");
  CHECK(t.pending_size() == OmniboxTable::kMaxPending);
}

TEST_CASE("tables: OmniboxRateLimiter allows once per period and stays bounded", "[predictor]") {
  OmniboxRateLimiter limiter(Seconds(10), 2);
  CHECK(limiter.Allow("a", At(0)));
  CHECK_FALSE(limiter.Allow("a", At(9)));
  CHECK(limiter.Allow("a", At(10)));
  CHECK(limiter.Allow("b", At(11)));
  CHECK(limiter.Allow("c", At(12)));  // forgets "a", the oldest
  CHECK(limiter.Allow("a", At(13)));
}

TEST_CASE("tables: DecayedUseTable bounds and counts", "[predictor]") {
  DecayedUseTable t(2, 2, 7);
  for (int i = 0; i < 10; ++i) {
    t.Observe("k" + std::to_string(i % 3),
              {{O("https://a.test/"), 3}, {O("https://b" + std::to_string(i) + ".test/"), 1}},
              i % 2, At(i));
    CHECK(t.size() <= 2);
    for (const auto& key : t.KeysByRecentUse()) CHECK(t.Find(key)->origins.size() <= 2);
  }
  const auto* e = t.Find("k0");  // observed at i = 9 (and 0, 3, 6, evicted in between)
  REQUIRE(e);
  const auto& a = e->origins.at("https://a.test:443");
  CHECK(a.c[1][0] == Approx(e->n[1]));  // i = 9: warm
  CHECK(a.c[1][2] == Approx(e->n[1]));
  CHECK(a.c[1][3] == 0);
  CHECK(a.c[0][0] == Approx(e->n[0]));
}

TEST_CASE("tables: StartupList keeps the top `size` of the window", "[predictor]") {
  StartupList s(2, Seconds(30));
  s.Start(At(0));
  s.OnUse(O("https://a.test/"), At(1));
  s.OnUse(O("https://b.test/"), At(2));
  s.OnUse(O("https://b.test/"), At(3));
  s.OnUse(O("https://c.test/"), At(4));
  s.OnUse(O("https://c.test/"), At(40));  // after the window
  auto list = s.Start(At(100));
  REQUIRE(list.size() == 2);
  CHECK(list[0].origin == O("https://b.test/"));
  CHECK(list[1].origin == O("https://a.test/"));  // tie with c: first used first
  for (int i = 0; i < 3000; ++i) {
    s.OnUse(O("https://h" + std::to_string(i) + ".test/"), At(101));
  }
  CHECK(s.window_size() == StartupList::kMaxCounted);
}

// Drives a policy through a mixed history.
void Teach(PredictorPolicy& p) {
  std::vector<Hint> hints;
  p.OnStartup(At(0), &hints);
  const SchemeHostPort cdn = O("https://cdn.test/");
  for (int i = 0; i < 6; ++i) {
    LoadPage(p, U("https://a.test/p"), {{O("https://a.test/"), 2}, {cdn, 1}}, At(1 + i), 250);
    LoadPage(p, U("https://b.test/"), {{O("https://b.test/"), 1}, {O("https://x.test/"), i % 2}},
             At(2 + i), 120);
    p.OnHover(U("https://b.test/"), At(3 + i), &hints);
    p.OnOmnibox("a", U("https://a.test/p"), At(3.1 + i), &hints);
    LoadPage(p, U(i % 3 ? "https://a.test/p" : "https://b.test/"), {}, At(3.2 + i));
  }
  p.OnStartup(At(100), &hints);
  LoadPage(p, U("https://c.test/"), {{cdn, 1}}, At(101));
  p.OnNavigationComplete(U("https://a.test/p"), At(1000));  // the last event: rows' ages from it
}

// The same events on both policies give the same hints.
void ExpectSameBehaviour(PredictorPolicy& a, PredictorPolicy& b, TimeTicks now) {
  auto step = [&](auto&& event) {
    std::vector<Hint> ha, hb;
    event(a, &ha);
    event(b, &hb);
    CHECK(Describe(ha) == Describe(hb));
    return ha.size();
  };
  size_t total = 0;
  total += step([&](PredictorPolicy& p, std::vector<Hint>* h) {
    p.OnNavigation(U("https://a.test/p"), now, h);
  });
  total += step([&](PredictorPolicy& p, std::vector<Hint>* h) {
    p.OnNavigation(U("https://a.test/other"), now, h);
  });
  total += step(
      [&](PredictorPolicy& p, std::vector<Hint>* h) { p.OnHover(U("https://b.test/"), now, h); });
  total += step([&](PredictorPolicy& p, std::vector<Hint>* h) {
    p.OnOmnibox("a", U("https://a.test/p"), now + Seconds(120), h);
  });
  total += step([&](PredictorPolicy& p, std::vector<Hint>* h) { p.OnStartup(now, h); });
  CHECK(total > 5);  // the comparison compared something
  CHECK(a.Budget(now) == b.Budget(now));
}

nlohmann::json TablesWithoutOutcomes(const PredictorPolicy& p) {
  nlohmann::json t = p.TablesToJson();
  t.erase("outcomes");  // a run's counters, not learned state
  t.erase("warm");      // the origins' state now: not saved (after a restart, every one is cold)
  return t;
}

TEST_CASE("tables: chrome rows round-trip exactly", "[predictor]") {
  PredictorConfig config;
  ChromePolicy original(config);
  Teach(original);
  std::vector<PredictorRow> rows = original.SaveRows();
  ChromePolicy loaded(config);
  size_t skipped = 99;
  loaded.LoadRows(rows, At(1000), &skipped);
  CHECK(skipped == 0);
  CHECK(loaded.SaveRows().size() == rows.size());
  CHECK(TablesWithoutOutcomes(loaded) == TablesWithoutOutcomes(original));
  ExpectSameBehaviour(original, loaded, At(1000));
}

TEST_CASE("tables: learned rows round-trip exactly", "[predictor]") {
  PredictorConfig config;
  LearnedPolicy original(config);
  Teach(original);
  std::vector<PredictorRow> rows = original.SaveRows();
  LearnedPolicy loaded(config);
  size_t skipped = 99;
  loaded.LoadRows(rows, At(1000), &skipped);
  CHECK(skipped == 0);
  CHECK(TablesWithoutOutcomes(loaded) == TablesWithoutOutcomes(original));
  ExpectSameBehaviour(original, loaded, At(1000));
}

TEST_CASE("tables: a learned origin row saved without its own n takes its key's", "[predictor]") {
  PredictorConfig config;
  LearnedPolicy original(config);
  Teach(original);
  std::vector<PredictorRow> rows = original.SaveRows();
  bool stripped = false;
  for (PredictorRow& row : rows) {
    if (row.table != "pages" || row.subkey.empty() || !row.data.contains("n")) continue;
    row.data.erase("n");  // as a profile from before rows had their own
    stripped = true;
  }
  REQUIRE(stripped);
  LearnedPolicy loaded(config);
  size_t skipped = 99;
  loaded.LoadRows(rows, At(1000), &skipped);
  CHECK(skipped == 0);
  for (const std::string& key : loaded.pages().KeysByRecentUse()) {
    const DecayedUseTable::Entry* e = loaded.pages().Find(key);
    for (const auto& [okey, row] : e->origins) {
      INFO(key << " " << okey);
      CHECK(row.n == e->n);
    }
  }
  // A row with a bad n is skipped, like any bad row.
  for (PredictorRow& row : rows) {
    if (row.table == "pages" && !row.subkey.empty()) row.data["n"] = {1, "x"};
  }
  LearnedPolicy bad(config);
  bad.LoadRows(rows, At(1000), &skipped);
  CHECK(skipped > 0);
}

TEST_CASE("tables: rows load at a later time keep their ages", "[predictor]") {
  PredictorConfig config;
  LearnedPolicy original(config);
  Teach(original);
  LearnedPolicy loaded(config);
  size_t skipped = 0;
  // A new process: its clock starts elsewhere; the rows' ages are what they were.
  loaded.LoadRows(original.SaveRows(), At(1000) + Seconds(5000), &skipped);
  const auto* a = original.pages().Find("https://a.test/p");
  const auto* b = loaded.pages().Find("https://a.test/p");
  REQUIRE(a);
  REQUIRE(b);
  CHECK((At(1000) - a->updated) == (At(1000) + Seconds(5000) - b->updated));
}

TEST_CASE("tables: bad rows are skipped and counted", "[predictor]") {
  PredictorConfig config;
  std::vector<PredictorRow> bad = {
      {"nonsense", "k", "", {{"x", 1}}},
      {"referrers", "https://a.test:443", "not an origin", {{"expected_connects", 1.0}}},
      {"referrers", "https://a.test:443", "", {{"page_loads", -1}, {"last_use", 1}}},
      {"omnibox", "t", "https://a.test/", "not an object"},
      {"startup", "https://a.test:443", "", {{"count", 1}, {"rank", 9999}}},
      {"pages", "https://a.test/", "https://cdn.test:443", {{"c", {1, 2}}}},
      {"budget", "budget", "", {{"budget", 3}}},
      {"setup", "bad", "", {{"ms", 1.0}, {"samples", 1}, {"last_use", 1}}},
  };
  ChromePolicy chrome(config);
  size_t skipped = 0;
  chrome.LoadRows(bad, At(0), &skipped);
  CHECK(skipped == bad.size());
  CHECK(chrome.referrers().size() == 0);
  LearnedPolicy learned(config);
  learned.LoadRows(bad, At(0), &skipped);
  CHECK(skipped == bad.size());
  CHECK(learned.pages().size() == 0);
  CHECK(learned.Budget(At(0)) == learned.budget().cap());  // as a new policy's
}

TEST_CASE("tables: loading more rows than the bounds keeps the bounds", "[predictor]") {
  PredictorConfig big;
  ChromePolicy a(big);
  for (int i = 0; i < 50; ++i) {
    LoadPage(a, U("https://p" + std::to_string(i) + ".test/"), {{O("https://c.test/"), 1}}, At(i));
  }
  PredictorConfig small;
  small.max_referrers = 10;
  ChromePolicy b(small);
  size_t skipped = 0;
  b.LoadRows(a.SaveRows(), At(100), &skipped);
  CHECK(b.referrers().size() == 10);
}

TEST_CASE("tables: rows with corrupt ages or numbers are skipped, never cast blindly",
          "[predictor]") {
  PredictorConfig config;
  const nlohmann::json counts = {{"n", 1.0}, {"c", {1, 0, 0, 0, 0, 0}}};
  auto self_row = [&](const nlohmann::json& age) {
    nlohmann::json d = counts;
    d["age_us"] = age;
    return PredictorRow{"self", "cold", "", d};
  };
  auto page_row = [&](const nlohmann::json& age) {
    return PredictorRow{"pages",
                        "https://a.test/",
                        "",
                        {{"n", {1.0, 0.0}}, {"observations", 1}, {"last_use", 1}, {"age_us", age}}};
  };
  auto omnibox_row = [&](const nlohmann::json& age) {
    return PredictorRow{"omnibox",
                        "a",
                        "https://a.test/",
                        {{"hits", 1.0}, {"misses", 0.0}, {"last_use", 1}, {"age_us", age}}};
  };
  const double ten_years_and_more = 11.0 * 365 * 86400 * 1e6;
  std::vector<PredictorRow> bad;
  for (const nlohmann::json& age : {nlohmann::json(1e300), nlohmann::json(-1.0),
                                    nlohmann::json(-5e6), nlohmann::json(ten_years_and_more)}) {
    bad.push_back(self_row(age));
    bad.push_back(page_row(age));
    bad.push_back(omnibox_row(age));
  }
  LearnedPolicy learned(config);
  size_t skipped = 0;
  learned.LoadRows(bad, At(0), &skipped);
  CHECK(skipped == bad.size());
  CHECK(learned.pages().size() == 0);
  ChromePolicy chrome(config);
  std::vector<PredictorRow> omnibox;
  for (const auto& r : bad) {
    if (r.table == "omnibox") omnibox.push_back(r);
  }
  chrome.LoadRows(omnibox, At(0), &skipped);
  CHECK(skipped == omnibox.size());
  CHECK(chrome.TablesToJson()["omnibox"].empty());

  // Good ages still load: a day old is a day before the loading now.
  LearnedPolicy ok(config);
  ok.LoadRows({page_row(86400e6), self_row(0)}, At(1000), &skipped);
  CHECK(skipped == 0);
  REQUIRE(ok.pages().Find("https://a.test/"));
  CHECK(ok.pages().Find("https://a.test/")->updated == At(1000) - Seconds(86400));

  // The budget's numbers are clamped before they become ints.
  LearnedPolicy budget(config);
  budget.LoadRows({{"budget",
                    "budget",
                    "",
                    {{"budget", 1e300},
                     {"direction", 1},
                     {"probing", false},
                     {"baseline_ms", 0},
                     {"navigations", 1e300},
                     {"wait_sum_ms", 0},
                     {"waits", 0},
                     {"kept", 0},
                     {"reverted", 0}}}},
                  At(0), &skipped);
  CHECK(skipped == 0);
  CHECK(budget.Budget(At(0)) == budget.budget().cap());
  budget.LoadRows({{"budget",
                    "budget",
                    "",
                    {{"budget", -1e300},
                     {"direction", -1},
                     {"probing", false},
                     {"baseline_ms", 0},
                     {"navigations", 0},
                     {"wait_sum_ms", 0},
                     {"waits", 0},
                     {"kept", 0},
                     {"reverted", 0}}}},
                  At(0), &skipped);
  CHECK(skipped == 0);
  CHECK(budget.Budget(At(0)) == 1);
}

TEST_CASE("tables: ReadAge and ClampToInt", "[predictor]") {
  TimeTicks updated = At(7);
  CHECK_FALSE(ReadAge({{"age_us", 1e300}}, "age_us", At(0), &updated));
  CHECK_FALSE(ReadAge({{"age_us", -1}}, "age_us", At(0), &updated));
  CHECK_FALSE(ReadAge({{"age_us", "1"}}, "age_us", At(0), &updated));
  CHECK_FALSE(ReadAge({{"x", 1}}, "age_us", At(0), &updated));
  CHECK(updated == At(7));  // untouched on failure
  CHECK(ReadAge({{"age_us", 2e6}}, "age_us", At(10), &updated));
  CHECK(updated == At(8));
  CHECK(ClampToInt(1e300, 1, 8) == 8);
  CHECK(ClampToInt(-1e300, 1, 8) == 1);
  CHECK(ClampToInt(std::nan(""), 1, 8) == 1);
  CHECK(ClampToInt(3.7, 1, 8) == 3);
}

TEST_CASE("tables: FindLowest and EvictLowestUntilRoom", "[predictor]") {
  std::map<std::string, int> m = {{"a", 3}, {"b", 1}, {"c", 1}, {"d", 5}};
  auto rank = [](int v) { return v; };
  CHECK(FindLowest(&m, rank)->first == "b");  // ties: the first by key
  EvictLowestUntilRoom(&m, 3, rank);
  CHECK(m.size() == 2);
  CHECK(m.count("a") == 1);
  CHECK(m.count("d") == 1);
  std::map<std::string, int> empty;
  CHECK(FindLowest(&empty, rank) == empty.end());
  EvictLowestUntilRoom(&empty, 1, rank);
  CHECK(empty.empty());
}

TEST_CASE("tables: both policies accept and ignore the saved_at meta row", "[predictor]") {
  PredictorConfig config;
  std::vector<PredictorRow> rows = {MakeSavedAtRow(TimeFromUnixSeconds(1700000000))};
  CHECK(rows[0].table == kMetaTable);
  size_t skipped = 99;
  ChromePolicy chrome(config);
  chrome.LoadRows(rows, At(0), &skipped);
  CHECK(skipped == 0);
  skipped = 99;
  LearnedPolicy learned(config);
  learned.LoadRows(rows, At(0), &skipped);
  CHECK(skipped == 0);
  CHECK(learned.pages().size() == 0);
}

}  // namespace
}  // namespace netstack
