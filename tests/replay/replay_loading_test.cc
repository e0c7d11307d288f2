// The loading policy (Chrome's LoadingPredictor) in replays on virtual time: a revisited host's
// origins are preconnected at navigation start.
#include <catch2/catch.hpp>

#include "tests/replay/replay_test_util.h"
#include "tools/replay/replay_engine.h"

namespace netstack {
namespace {

using test::FastConfig;
using test::MakeEntry;
using test::MakePage;
using test::Navigate;
using test::Recorder;
using test::Wait;

constexpr double kHourMs = 3'600'000;

// A document and a script on another origin that its parse reveals (10 ms after it ends).
std::shared_ptr<const TracePage> Page(const std::string& host, const std::string& path) {
  TraceEntry script = MakeEntry("https://cdn." + host + "/app.js", 5000, 10, "script");
  script.parent = 0;
  script.gap_ms = 10;
  return MakePage(host, {MakeEntry("https://" + host + path, 5000, 0, "document"), script});
}

TEST_CASE("loading: a revisited host's origins are preconnected at navigation start",
          "[replay][predictor]") {
  // Two pages of one host an hour apart (every socket of the first visit closed by then): the
  // second learns from the first, since the table is keyed by the host.
  std::vector<SessionEvent> events = {Navigate(Page("a.test", "/one"), 0), Wait(0),
                                      Navigate(Page("a.test", "/two"), kHourMs)};
  std::string error;
  Recorder off_recorder, recorder;
  ReplayTotals off, totals;
  REQUIRE(test::Replay(FastConfig("off"), events, &off_recorder, &error, &off));
  REQUIRE(test::Replay(FastConfig("loading"), events, &recorder, &error, &totals));
  REQUIRE(recorder.pages.size() == 2);
  CHECK(totals.predictor_policy == "loading");

  // First visit: nothing known of cdn.a.test.
  CHECK(recorder.Get(0, 1).connection.socket_source == SocketSource::kNew);
  // Second visit: confidence 1/1 > 0.75, preconnected when the navigation started, ready
  // before the document revealed the script.
  CHECK(recorder.Get(1, 1).connection.socket_source == SocketSource::kPreconnected);
  CHECK(recorder.Get(1, 1).phases.dns_ms == 0);
  CHECK(recorder.Get(1, 1).phases.tls_ms == 0);
  CHECK(off_recorder.Get(1, 1).connection.socket_source == SocketSource::kNew);
  CHECK(recorder.pages[1].load_ms < off_recorder.pages[1].load_ms);
  CHECK(totals.predictor.of(SpeculativeAction::kPreconnect).used >= 1);

  // The table the internals page shows: the host, its origins.
  const nlohmann::json& rows = totals.predictor_tables["referrers"];
  bool cdn = false;
  for (const nlohmann::json& row : rows) {
    if (row["page"] == "a.test" && row["origin"] == "https://cdn.a.test:443") {
      cdn = true;
      CHECK(row["hits"] == 2);
      CHECK(row["action"] == "preconnect");
    }
  }
  CHECK(cdn);
}

TEST_CASE("loading: replays are deterministic", "[replay][predictor]") {
  std::vector<SessionEvent> events = {Navigate(Page("a.test", "/"), 0), Wait(0),
                                      Navigate(Page("b.test", "/"), 2000), Wait(2000),
                                      Navigate(Page("a.test", "/"), kHourMs)};
  std::string error;
  Recorder r1, r2;
  ReplayTotals t1, t2;
  REQUIRE(test::Replay(FastConfig("loading"), events, &r1, &error, &t1));
  REQUIRE(test::Replay(FastConfig("loading"), events, &r2, &error, &t2));
  CHECK(t1.ToJson() == t2.ToJson());
}

}  // namespace
}  // namespace netstack
