// ReplayInternals (replay --internals) without a replay: its ReplayEngine::Monitor methods are
// called directly with made-up session events and totals, and its state is read through
// GetInfo()["replay"]. A pause point that pauses serves the page until told to go on, so every
// case here is one that does not pause: the replay is set running first, or has quit, or has no
// server. (Pausing itself, "step" and the end of a "step_page" need the page to answer while the
// replay waits; they are not covered here.)
#include "tools/netstack/replay_internals.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "net/base/clock.h"
#include "net/base/net_log.h"
#include "net/base/virtual_scheduler.h"
#include "tools/replay/replay_result.h"
#include "tools/replay/trace/trace.h"

namespace netstack {
namespace {

using nlohmann::json;

SessionEvent Navigate(const std::string& url) {
  SessionEvent event;
  event.type = SessionEvent::Type::kNavigate;
  event.url = url;
  return event;
}

ReplayTotals Totals(uint64_t pages, uint64_t requests) {
  ReplayTotals totals;
  totals.pages = pages;
  totals.requests = requests;
  return totals;
}

json ReplayState(ReplayInternals& host) { return host.GetInfo()["replay"]; }

// A started host on an ephemeral loopback port.
struct StartedHost {
  StartedHost() {
    std::string error;
    started = host.Start(&error);
    INFO(error);
    REQUIRE(started);
  }
  ReplayInternals host{0, "netstack replay --internals 0 trace", "chrome"};
  bool started = false;
};

TEST_CASE("replay internals: info before the first event", "[internals][replay_internals]") {
  StartedHost s;
  json info = s.host.GetInfo();
  INFO(info.dump());
  CHECK(info["mode"] == "replay");
  CHECK(info["command_line"] == "netstack replay --internals 0 trace");
  CHECK(info["predictor_policy"] == "chrome");
  CHECK(info["can_fetch"] == false);
  CHECK(info["profile"].is_null());
  CHECK(info["replay"]["events_done"] == 0);
  CHECK(info["replay"]["pass"] == 0);
  CHECK(info["replay"]["quit"] == false);
  CHECK(s.host.context() == nullptr);
  CHECK(s.host.predictor() == nullptr);
}

TEST_CASE("replay internals: running, events and pages are counted",
          "[internals][replay_internals]") {
  StartedHost s;
  InternalsResult run = s.host.ReplayControl("run");
  REQUIRE(run.status == 200);
  CHECK(run.body["state"] == "running");

  s.host.BeforeEvent(Navigate("https://a.test/"), 0, Totals(0, 0));
  s.host.BeforeEvent(Navigate("https://b.test/"), 1, Totals(1, 7));
  SessionEvent hover;
  hover.type = SessionEvent::Type::kHover;
  hover.url = "https://c.test/";
  s.host.BeforeEvent(hover, 2, Totals(2, 9));
  json state = ReplayState(s.host);
  INFO(state.dump());
  CHECK(state["state"] == "running");
  CHECK(state["events_done"] == 3);
  CHECK(state["pages_done"] == 2);
  CHECK(state["requests_done"] == 9);

  // The end of the trace is a pause point too.
  s.host.OnRunEnd(Totals(3, 12));
  state = ReplayState(s.host);
  CHECK(state["events_done"] == 4);
  CHECK(state["pages_done"] == 3);
  CHECK(state["requests_done"] == 12);
}

TEST_CASE("replay internals: while running, the position follows the events at each poll",
          "[internals][replay_internals]") {
  StartedHost s;
  REQUIRE(s.host.ReplayControl("run").status == 200);
  // The page is served (and the position noted) at most every 20 ms of wall time: wait longer.
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  s.host.BeforeEvent(Navigate("https://a.test/x"), 0, Totals(0, 0));
  CHECK(ReplayState(s.host)["position"] == "navigate https://a.test/x");
}

TEST_CASE("replay internals: step_page goes on while the page count stays",
          "[internals][replay_internals]") {
  StartedHost s;
  REQUIRE(s.host.ReplayControl("run").status == 200);
  s.host.BeforeEvent(Navigate("https://a.test/"), 0, Totals(2, 5));
  InternalsResult step = s.host.ReplayControl("step_page");
  REQUIRE(step.status == 200);
  CHECK(step.body["pages_done"] == 2);
  // Still two pages done: no pause.
  s.host.BeforeEvent(Navigate("https://b.test/"), 1, Totals(2, 6));
  s.host.BeforeEvent(Navigate("https://c.test/"), 2, Totals(2, 8));
  json state = ReplayState(s.host);
  CHECK(state["events_done"] == 3);
  CHECK(state["state"] == "running");
  // "run" cancels the page step: a third page does not pause either.
  REQUIRE(s.host.ReplayControl("run").status == 200);
  s.host.BeforeEvent(Navigate("https://d.test/"), 3, Totals(3, 9));
  CHECK(ReplayState(s.host)["events_done"] == 4);
}

TEST_CASE("replay internals: an unknown action is refused", "[internals][replay_internals]") {
  StartedHost s;
  for (const char* action : {"", "Run", "stop", "step page"}) {
    INFO(action);
    InternalsResult r = s.host.ReplayControl(action);
    CHECK(r.status == 400);
    REQUIRE(r.body["error"].is_string());
    CHECK(r.body["error"].get<std::string>().find(std::string("\"") + action + "\"") !=
          std::string::npos);
  }
}

TEST_CASE("replay internals: stack changes are counted", "[internals][replay_internals]") {
  StartedHost s;
  s.host.OnStackChanged("close idle sockets");
  s.host.OnStackChanged("clear host cache");
  CHECK(s.host.stack_changes() == 2);
  CHECK(ReplayState(s.host)["stack_changes"] == 2);
}

TEST_CASE("replay internals: the stack of a pass", "[internals][replay_internals]") {
  StartedHost s;
  VirtualScheduler scheduler{TimeTicks(TimeDelta(1'000'000))};
  NetLog net_log{scheduler};
  SystemClock clock;
  s.host.OnStackCreated(nullptr, nullptr, &net_log, clock);
  CHECK(ReplayState(s.host)["pass"] == 1);
  CHECK(&s.host.clock() == &clock);
  s.host.OnStackDestroyed();
  CHECK(&s.host.clock() != &clock);
  s.host.OnStackCreated(nullptr, nullptr, &net_log, clock);
  CHECK(ReplayState(s.host)["pass"] == 2);
  s.host.OnStackDestroyed();
}

TEST_CASE("replay internals: after Quit nothing pauses", "[internals][replay_internals]") {
  StartedHost s;
  // Paused before the first event (the initial state) and pause asked again: without Quit the
  // next BeforeEvent would wait for the page.
  REQUIRE(s.host.ReplayControl("pause").status == 200);
  s.host.Quit();
  s.host.BeforeEvent(Navigate("https://a.test/"), 0, Totals(0, 0));
  REQUIRE(s.host.ReplayControl("pause").status == 200);
  s.host.BeforeEvent(Navigate("https://b.test/"), 1, Totals(1, 2));
  REQUIRE(s.host.ReplayControl("step").status == 200);
  s.host.BeforeEvent(Navigate("https://c.test/"), 2, Totals(2, 3));
  REQUIRE(s.host.ReplayControl("step_page").status == 200);
  s.host.BeforeEvent(Navigate("https://d.test/"), 3, Totals(3, 4));
  s.host.OnRunEnd(Totals(4, 5));
  json state = ReplayState(s.host);
  INFO(state.dump());
  CHECK(state["quit"] == true);
  CHECK(state["events_done"] == 5);
  CHECK(state["state"] == "running");
}

TEST_CASE("replay internals: ServeUntilQuit after Quit returns at once",
          "[internals][replay_internals]") {
  StartedHost s;
  s.host.Quit();
  s.host.ServeUntilQuit();
  json state = ReplayState(s.host);
  CHECK(state["state"] == "finished");
  CHECK(state["quit"] == true);
  // A finished replay takes no more controls.
  CHECK(s.host.ReplayControl("run").status == 409);
}

TEST_CASE("replay internals: without a server nothing pauses", "[internals][replay_internals]") {
  ReplayInternals host(0, "netstack replay", "off");  // never started
  host.BeforeEvent(Navigate("https://a.test/"), 0, Totals(0, 0));
  host.OnRunEnd(Totals(1, 1));
  CHECK(ReplayState(host)["events_done"] == 2);
  host.ServeUntilQuit();
  CHECK(ReplayState(host)["state"] == "finished");
}

}  // namespace
}  // namespace netstack
