// The oracle ceiling's arithmetic (tools/replay/replay_oracle.h): the chain, overlaps counted
// once, malformed parents; the critical path's last entry (replay_page_metrics.h); the
// comparison's ceiling block and line (replay_compare.h); the page line carries it back.
#include "tools/replay/replay_oracle.h"

#include <catch2/catch.hpp>
#include <limits>

#include "tools/replay/replay_page_metrics.h"
#include "tools/replay/replay_result.h"
#include "tools/replay/report/replay_compare.h"

namespace netstack {
namespace {

OracleEntry Entry(int parent, OracleInterval setup) {
  OracleEntry e;
  e.parent = parent;
  e.setup = setup;
  return e;
}

TEST_CASE("Oracle: the chain's setups add up, entries off the chain do not", "[replay][oracle]") {
  // Document 0 -> stylesheet 2 -> font 3; entry 1 (an image of the document) is off the chain.
  std::vector<OracleEntry> page = {
      Entry(-1, {0, 290}),     // document: 290 ms of setup
      Entry(0, {500, 790}),    // image: not on the chain
      Entry(0, {470, 760}),    // stylesheet on a new origin
      Entry(2, {1230, 1520}),  // font on a third origin
  };
  OracleResult r = CriticalPathSetup(page, 3);
  CHECK(r.setup_ms == 290 * 3);
  CHECK(r.critical_requests == 3);
  // Ending at the image: the document's setup and the image's.
  r = CriticalPathSetup(page, 1);
  CHECK(r.setup_ms == 290 * 2);
  CHECK(r.critical_requests == 2);
}

TEST_CASE("Oracle: overlapping setups are counted once", "[replay][oracle]") {
  // The child waited for part of the parent's setup (an HTTP/2 session both use): the union is
  // 0-300; the grandchild's overlaps it by 20 ms: 0-400 in all.
  std::vector<OracleEntry> page = {Entry(-1, {0, 300}), Entry(0, {240, 290}), Entry(1, {280, 400})};
  CHECK(CriticalPathSetup(page, 1).setup_ms == 300);
  CHECK(CriticalPathSetup(page, 2).setup_ms == 400);
}

TEST_CASE("Oracle: no setup, no chain, and malformed parents", "[replay][oracle]") {
  // Warm sockets and cache hits: no intervals, a chain of 2 with nothing to save.
  std::vector<OracleEntry> warm = {Entry(-1, {}), Entry(0, {})};
  OracleResult r = CriticalPathSetup(warm, 1);
  CHECK(r.setup_ms == 0);
  CHECK(r.critical_requests == 2);
  // No last entry (an empty load set) or one out of range: an empty path.
  CHECK(CriticalPathSetup(warm, -1).critical_requests == 0);
  CHECK(CriticalPathSetup(warm, 2).critical_requests == 0);
  CHECK(CriticalPathSetup({}, 0).setup_ms == 0);
  // A parent that is not earlier ends the chain (no loop); empty, reversed and non-finite
  // intervals count for nothing.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<OracleEntry> odd = {Entry(1, {0, 10}), Entry(1, {20, 10}), Entry(0, {nan, 40}),
                                  Entry(2, {100, 100}), Entry(3, {100, 130})};
  r = CriticalPathSetup(odd, 4);
  CHECK(r.setup_ms == 30 + 10);  // 4, 3 (empty), 2 (not a number), 0
  CHECK(r.critical_requests == 4);
  r = CriticalPathSetup(odd, 2);
  CHECK(r.setup_ms == 10);
  CHECK(r.critical_requests == 2);
  CHECK(CriticalPathSetup(odd, 1).critical_requests == 1);
}

TEST_CASE("Oracle: a request's setup runs from its start until it could send", "[replay][oracle]") {
  const TimeTicks page(TimeDelta(1'000'000));
  const TimeTicks start = page + TimeDelta(100'000);  // 100 ms into the page
  LoadTimingInfo t;
  t.connect_timing.dns_start = start + TimeDelta(150'000);  // after a lookup of its own
  t.connect_timing.dns_end = t.connect_timing.dns_start;
  t.connect_timing.connect_start = t.connect_timing.dns_end;
  t.connect_timing.connect_end = start + TimeDelta(450'000);
  t.send_start = t.connect_timing.connect_end;
  // A new connection: the lookup before the job, connect and TLS, 100 to 550 ms.
  OracleInterval i = SetupInterval(SocketSource::kNew, t, start, page);
  CHECK(i.start_ms == 100);
  CHECK(i.end_ms == 550);
  // A preconnect still connecting when the request came: what was left.
  CHECK(SetupInterval(SocketSource::kPreconnectedLate, t, start + TimeDelta(300'000), page)
            .start_ms == 400);
  // A stream that waited for another request's HTTP/2 session: the part it waited for.
  LoadTimingInfo joined;
  joined.send_start = t.send_start;
  i = SetupInterval(SocketSource::kHttp2Session, joined, start + TimeDelta(296'000), page);
  CHECK(i.end_ms - i.start_ms == Approx(154));
  // An open session, idle sockets, cache hits: nothing.
  joined.send_start = start;
  i = SetupInterval(SocketSource::kHttp2Session, joined, start, page);
  CHECK(i.end_ms <= i.start_ms);
  for (SocketSource s : {SocketSource::kReused, SocketSource::kPreconnected,
                         SocketSource::kUnusedIdle, SocketSource::kNone}) {
    i = SetupInterval(s, t, start, page);
    CHECK(i.end_ms <= i.start_ms);
  }
}

TEST_CASE("The page load's last entry: the load set's with onLoad, else the last end",
          "[replay][oracle]") {
  // Recorded ends 100, 300, 900; replayed 80, 250, 700; entry 1 skipped in the second case.
  std::vector<PageEventEntry> entries = {{100, 80}, {300, 250}, {900, 700}};
  CHECK(PageLoadLastEntry(400, entries) == 1);
  CHECK(PageLoadLastEntry(-1, entries) == 2);
  // A recorded-early entry replayed later is the set's last.
  entries[0].replayed_end_ms = 260;
  CHECK(PageLoadLastEntry(400, entries) == 0);
  // Skipped entries are never last; an empty load set has none.
  CHECK(PageLoadLastEntry(-1, {{100, 80}, {200, -1}}) == 0);
  CHECK(PageLoadLastEntry(50, entries) == -1);
  CHECK(PageLoadLastEntry(-1, {}) == -1);
}

PageResult Page(uint64_t index, double load, double oracle) {
  PageResult p;
  p.page_index = index;
  p.load_ms = load;
  p.oracle_setup_ms = oracle;
  return p;
}

TEST_CASE("Compare: the ceiling is A's oracle over the pairs, share = saved / ceiling",
          "[replay][oracle][compare]") {
  PageLoadCollector a, b;
  a.OnPage(Page(0, 1000, 300));
  a.OnPage(Page(1, 800, 100));
  a.OnPage(Page(2, 500, 50));  // not paired: B has two pages
  b.OnPage(Page(0, 800, 0));
  b.OnPage(Page(1, 800, 0));
  std::vector<double> pa, pb;
  PairPageLoads(a, b, &pa, &pb);
  CompareSummary s = ComparePageLoads(pa, pb);
  s.SetCeiling(a, "off");
  CHECK(s.ceiling_ms == 400);
  CHECK(s.ceiling_per_navigation() == 200);
  CHECK(s.ceiling_share() == 0.5);
  nlohmann::json j = s.ToJson()["ceiling"];
  CHECK(j["total_ms"] == 400);
  CHECK(j["per_navigation_ms"] == 200);
  CHECK(j["share"] == 0.5);
  CHECK(j["relative_to"] == "off");

  ReplayTotals off, chrome;
  chrome.predictor_policy = "chrome";
  std::string text = FormatPredictorComparison(off, chrome, s);
  size_t saved = text.find("saved by B"), ceiling = text.find("ceiling     400 ms in total");
  REQUIRE(saved != std::string::npos);
  REQUIRE(ceiling != std::string::npos);
  CHECK(ceiling > saved);
  CHECK(text.find("B took 50.0% of it") != std::string::npos);
  CHECK(text.find("relative to A") == std::string::npos);

  // A with a predictor: the ceiling is what remains beyond A, and says so.
  s.SetCeiling(a, "chrome");
  CHECK(s.ToJson()["ceiling"]["relative_to"] == "a");
  text = FormatPredictorComparison(chrome, off, s);
  CHECK(text.find("relative to A, which ran with predictor=chrome") != std::string::npos);
  // Without a ceiling, no share.
  PageLoadCollector none;
  s.SetCeiling(none, "off");
  CHECK(s.ToJson()["ceiling"]["share"].is_null());
  CHECK(FormatPredictorComparison(off, chrome, s).find("B took - of it") != std::string::npos);
}

TEST_CASE("The page line carries the oracle, and a shard's page line gives it back",
          "[replay][oracle]") {
  PageResult p = Page(3, 900, 123.456789);
  p.oracle_critical_requests = 4;
  nlohmann::json rounded = p.ToJson();
  CHECK(rounded["oracle"]["setup_ms"] == 123.457);
  CHECK(rounded["oracle"]["critical_requests"] == 4);
  PageResult back;
  std::string error;
  REQUIRE(PageResultFromJson(p.ToJson(JsonNumbers::kExact), &back, &error));
  CHECK(back.oracle_setup_ms == 123.456789);
  CHECK(back.oracle_critical_requests == 4);
  // A page line without it (a shard written by another version) is refused, by name.
  nlohmann::json old = p.ToJson(JsonNumbers::kExact);
  old.erase("oracle");
  CHECK_FALSE(PageResultFromJson(old, &back, &error));
  CHECK(error.find("oracle") != std::string::npos);
}

}  // namespace
}  // namespace netstack
