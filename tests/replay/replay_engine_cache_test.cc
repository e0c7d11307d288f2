// The replay's HTTP cache: a page navigated twice is served from the cache the second time
// when its headers allow it, and never with cache=off.
#include <catch2/catch.hpp>

#include "tests/replay/replay_test_util.h"

namespace netstack {
namespace {

using test::MakeEntry;
using test::MakePage;
using test::Navigate;

std::shared_ptr<const TracePage> CacheablePage() {
  // Date: the page's recorded start (the replay's wall clock starts there).
  HeaderList cacheable = {{"Content-Type", "text/css"},
                          {"Date", "Tue, 14 Nov 2023 22:13:20 GMT"},
                          {"Cache-Control", "max-age=3600"}};
  return MakePage("p",
                  {MakeEntry("https://example.com/", 1000, 0, "document"),
                   MakeEntry("https://example.com/style.css", 20'000, 10, "stylesheet", cacheable),
                   MakeEntry("https://cdn.example.com/app.js", 50'000, 10, "script", cacheable)},
                  1'700'000'000'000);  // 2023-11-14T22:13:20Z
}

std::vector<SessionEvent> TwoVisits() {
  auto page = CacheablePage();
  return {Navigate(page, 0), test::Wait(0), Navigate(page, 1000)};
}

TEST_CASE("A revisited page is served from the cache when its headers allow", "[replay][cache]") {
  test::Recorder recorder;
  ReplayTotals totals;
  std::string error;
  REQUIRE(test::Replay(test::ExampleConfig(), TwoVisits(), &recorder, &error, &totals));
  REQUIRE(recorder.pages.size() == 2);
  CHECK(recorder.Get(0, 1).cache == CacheDisposition::kMiss);
  CHECK(recorder.Get(0, 2).cache == CacheDisposition::kMiss);
  // no-store: the document goes to the network again.
  CHECK(recorder.Get(1, 0).cache != CacheDisposition::kHit);
  for (int entry : {1, 2}) {
    const RequestRecord& r = recorder.Get(1, entry);
    INFO(r.url);
    CHECK(r.cache == CacheDisposition::kHit);
    CHECK(r.connection.socket_id == 0);
    CHECK(r.phases.dns_ms == 0);
    CHECK(r.transfer_bytes > 0);
  }
  CHECK(recorder.pages[1].cache_hits == 2);
  CHECK(totals.cache_hits == 2);
  CHECK(recorder.pages[1].load_ms < recorder.pages[0].load_ms);
}

TEST_CASE("cache=off sends every request to the network", "[replay][cache]") {
  ReplayConfig config = test::ExampleConfig();
  std::string error;
  REQUIRE(config.Set("cache=off", &error));
  test::Recorder recorder;
  ReplayTotals totals;
  REQUIRE(test::Replay(config, TwoVisits(), &recorder, &error, &totals));
  for (const RequestRecord& r : recorder.requests) {
    CHECK(r.cache == CacheDisposition::kBypass);
    CHECK(r.connection.socket_id != 0);
  }
  CHECK(totals.cache_hits == 0);
}

}  // namespace
}  // namespace netstack
