// Pages whose hosts are written as IP addresses or `localhost` (a local test server, Lighthouse's
// fixtures) replay on the simulated network like any other: no DNS, a connect of one RTT, the
// per-host keys of the URL's host.
#include <catch2/catch.hpp>
#include <string>

#include "tests/replay/replay_test_util.h"
#include "tools/replay/replay_engine.h"

namespace netstack {
namespace {

using test::MakeEntry;
using test::MakePage;
using test::Navigate;
using test::Recorder;

TEST_CASE("Replay: localhost and IP-literal hosts are served without DNS, by their own keys",
          "[replay][engine][literal]") {
  ReplayConfig config = test::ExampleConfig();  // DNS 50 ms, RTT 80 ms, server 100 ms
  std::string error;
  REQUIRE(config.Set("localhost:rtt_ms=20", &error));
  REQUIRE(config.Set("127.0.0.1:rtt_ms=30", &error));
  REQUIRE(config.Set("[::1]:rtt_ms=60", &error));
  auto page = MakePage("local", {MakeEntry("http://localhost:8080/", 1000, 0, "document"),
                                 MakeEntry("http://127.0.0.1:9000/a.js", 1000, 0),
                                 MakeEntry("http://[::1]:8000/b.js", 1000, 0),
                                 MakeEntry("http://192.0.2.7/c.js", 1000, 0)});
  Recorder recorder;
  ReplayTotals totals;
  REQUIRE(test::Replay(config, {Navigate(page)}, &recorder, &error, &totals));
  CHECK(totals.failed == 0);
  const double rtts[] = {20, 30, 60, 80};  // 192.0.2.7 has no key of its own: the global RTT
  for (int i = 0; i < 4; ++i) {
    const RequestRecord& r = recorder.Get(0, i);
    INFO(r.url);
    CHECK(r.error == OK);
    CHECK(r.status == 200);
    CHECK(r.phases.dns_ms == 0);
    CHECK(r.phases.connect_ms == rtts[i]);
    CHECK(r.phases.ttfb_ms == rtts[i] + 100);
  }
}

}  // namespace
}  // namespace netstack
