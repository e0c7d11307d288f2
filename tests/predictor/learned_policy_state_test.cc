// What LearnedPolicy keeps: bounded tables and loads, at most kMaxLoadOrigins origins per load
// and startup window, and its rows across processes (decayed by the wall-clock gap, clamped).
#include <catch2/catch.hpp>
#include <cstdint>

#include "predictor/learned_policy.h"
#include "predictor/policy_util.h"
#include "predictor/predictor_config.h"
#include "tests/predictor/policy_test_util.h"

namespace netstack {
namespace {

using namespace policy_test;

TEST_CASE("learned: bounded tables and loads", "[predictor]") {
  PredictorConfig config = LearnedConfig();
  config.max_referrers = 5;
  config.learned_max_origins_per_page = 3;
  LearnedPolicy p(config);
  for (int i = 0; i < 20; ++i) {
    std::vector<std::pair<SchemeHostPort, int>> needs;
    for (int j = 0; j < 6; ++j) needs.push_back({O("https://o" + std::to_string(j) + ".test/"), 1});
    LoadPage(p, U("https://a.test/p" + std::to_string(i)), needs, At(i));
    LoadPage(p, U("https://s" + std::to_string(i) + ".test/"), needs, At(i));
  }
  CHECK(p.pages().size() == 5);
  CHECK(p.sites().size() == 5);
  for (const auto& key : p.pages().KeysByRecentUse()) {
    CHECK(p.pages().Find(key)->origins.size() <= 3);
  }
  std::vector<Hint> hints;
  for (int i = 0; i < 100; ++i)
    p.OnNavigation(U("https://x.test/" + std::to_string(i)), At(50), &hints);
  CHECK(p.active_loads() == LearnedPolicy::kMaxActiveLoads);
}

TEST_CASE("learned: a load and the startup window count at most kMaxLoadOrigins origins",
          "[predictor]") {
  LearnedPolicy p(LearnedConfig());
  const Url page = U("https://a.test/");
  std::vector<Hint> hints;
  p.OnStartup(At(0), &hints);
  p.OnNavigation(page, At(1), &hints);
  const size_t many = LearnedPolicy::kMaxLoadOrigins + 50;
  for (size_t i = 0; i < many; ++i) {
    p.OnConnectionNeeded(page, O("https://o" + std::to_string(i) + ".test/"), SocketSource::kNew,
                         false, 100.0, At(2));
  }
  CHECK(p.load_origins(page) == LearnedPolicy::kMaxLoadOrigins);
  CHECK(p.startup_origins() == LearnedPolicy::kMaxLoadOrigins);
  // An origin already counted still counts further connections; new ones are dropped.
  p.OnConnectionNeeded(page, O("https://o0.test/"), SocketSource::kNew, false, 100.0, At(2));
  CHECK(p.load_origins(page) == LearnedPolicy::kMaxLoadOrigins);
  p.OnNavigationComplete(page, At(3));
  CHECK(p.load_origins(page) == 0);
  CHECK(p.pages().Find(PageKey(page))->origins.size() <= p.pages().max_origins());
}

TEST_CASE("learned: rows loaded after a long gap between processes have decayed", "[predictor]") {
  LearnedPolicy original(LearnedConfig());  // half-life 7 days
  const Url page = U("https://a.test/");
  const SchemeHostPort cdn = O("https://cdn.test/");
  for (int i = 0; i < 3; ++i) LoadPage(original, page, {{cdn, 1}}, At(i));
  std::vector<PredictorRow> rows = original.SaveRows();
  const Time saved_at = TimeFromUnixSeconds(1700000000);
  rows.push_back(MakeSavedAtRow(saved_at));

  // The next process starts 14 days (two half-lives) later by the wall clock; its monotonic
  // clock knows nothing of that.
  const TimeTicks now = At(5);
  const Time wall_now = saved_at + Seconds(static_cast<int64_t>(14 * kDay));
  Time found;
  REQUIRE(FindSavedAt(rows, &found));
  CHECK(found == saved_at);
  LearnedPolicy fresh(LearnedConfig()), late(LearnedConfig());
  size_t skipped = 99;
  fresh.LoadRows(rows, now, &skipped);
  CHECK(skipped == 0);  // the meta row is accepted, not skipped
  late.LoadRows(rows, LoadTimeAfterGap(now, wall_now, saved_at), &skipped);
  CHECK(skipped == 0);
  const auto* f = fresh.pages().Find(PageKey(page));
  const auto* l = late.pages().Find(PageKey(page));
  REQUIRE(f);
  REQUIRE(l);
  CHECK(fresh.pages().Factor(*f, now) == Approx(1.0));
  CHECK(late.pages().Factor(*l, now) == Approx(0.25));
  auto p_of = [&](const LearnedPolicy& p) {
    for (const auto& est : p.EstimateFor(page, now, nullptr)) {
      if (est.origin == cdn) return est.p[0];
    }
    return -1.0;
  };
  CHECK(p_of(late) < p_of(fresh));
}

TEST_CASE("learned: the wall-clock gap is clamped", "[predictor]") {
  const Time saved = TimeFromUnixSeconds(1700000000);
  const TimeTicks now = At(100);
  // A clock set back: as if no time passed.
  CHECK(LoadTimeAfterGap(now, saved - Seconds(3600), saved) == now);
  CHECK(LoadTimeAfterGap(now, saved + Seconds(60), saved) == now - Seconds(60));
  // A corrupt, ancient stamp decays no further than the oldest age a row may carry.
  CHECK(LoadTimeAfterGap(now, saved, TimeFromUnixMicros(INT64_MIN)) == now - kMaxRowAge);
  // A meta row without a usable stamp is not a saved_at.
  Time found;
  CHECK_FALSE(FindSavedAt({{"meta", "saved_at", "", {{"wall_us", "x"}}}}, &found));
  CHECK_FALSE(FindSavedAt({}, &found));
}

}  // namespace
}  // namespace netstack
