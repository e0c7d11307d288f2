// The predictor in replays (tools/replay/replay_predictor.h) on virtual time: hovers, startup
// lists, omnibox typing and hints acted on through the engine; "off" changing nothing; the
// accounting in the totals; determinism.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "predictor/predictor.h"
#include "tests/replay/replay_test_util.h"
#include "tools/replay/replay_engine.h"
#include "tools/replay/report/replay_json_writer.h"

namespace netstack {
namespace {

using test::FastConfig;
using test::MakeEntry;
using test::MakePage;
using test::Navigate;
using test::Recorder;
using test::Wait;

constexpr double kHourMs = 3'600'000;

SessionEvent Event(SessionEvent::Type type, double t, const std::string& url,
                   const std::string& text = "") {
  SessionEvent e = test::Other(type, t);
  e.url = url;
  e.text = text;
  return e;
}

SessionEvent Hint(double t, const std::string& kind, const std::string& url) {
  SessionEvent e = Event(SessionEvent::Type::kHint, t, url);
  e.hint = kind;
  return e;
}

// A document and a script on another host that its parse reveals (10 ms after it ends).
std::shared_ptr<const TracePage> Page(const std::string& host) {
  TraceEntry script = MakeEntry("https://cdn." + host + "/app.js", 5000, 10, "script");
  script.parent = 0;
  script.gap_ms = 10;
  return MakePage(host, {MakeEntry("https://" + host + "/", 5000, 0, "document"), script});
}

struct Run {
  Recorder recorder;
  ReplayTotals totals;
};

void ReplayEvents(const ReplayConfig& config, std::vector<SessionEvent> events, Run* run) {
  std::string error;
  INFO(error);
  REQUIRE(test::Replay(config, std::move(events), &run->recorder, &error, &run->totals));
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every output of a replay as bytes: request and page lines, then the totals.
std::string JsonOf(const ReplayConfig& config, const std::vector<SessionEvent>& events) {
  std::string path = "/tmp/replay_predictor_test_" + std::to_string(::getpid()) + ".jsonl", error;
  ReplayJsonWriter json;
  REQUIRE(json.Open(path, &error));
  ReplayEngine engine(config);
  engine.AddObserver(&json);
  test::VectorSource source(events);
  REQUIRE(engine.Run(&source, &error));
  json.WriteLine(engine.totals().ToJson());
  REQUIRE(json.Close(&error));
  std::string text = ReadFile(path);
  std::remove(path.c_str());
  return text;
}

TEST_CASE("A hover 200 ms before a click: the connection is ready and the page loads sooner",
          "[replay][predictor]") {
  auto page = Page("a.test");
  std::vector<SessionEvent> events = {Event(SessionEvent::Type::kHover, 800, "https://a.test/"),
                                      Navigate(page, 1000)};
  Run off, chrome;
  ReplayEvents(FastConfig("off"), events, &off);
  ReplayEvents(FastConfig("chrome"), events, &chrome);
  REQUIRE(off.recorder.pages.size() == 1);
  REQUIRE(chrome.recorder.pages.size() == 1);

  CHECK(off.recorder.Get(0, 0).connection.socket_source == SocketSource::kNew);
  CHECK(chrome.recorder.Get(0, 0).connection.socket_source == SocketSource::kPreconnected);
  // The document's DNS, TCP and TLS (100 ms) happened during the hover.
  CHECK(chrome.recorder.Get(0, 0).phases.dns_ms == 0);
  CHECK(chrome.recorder.Get(0, 0).phases.tls_ms == 0);
  CHECK(off.recorder.pages[0].load_ms - chrome.recorder.pages[0].load_ms == Approx(100));
  CHECK(chrome.recorder.pages[0].preconnected >= 1);
  CHECK(chrome.recorder.pages[0].connect_wait_ms < off.recorder.pages[0].connect_wait_ms);

  const PredictorStats& s = chrome.totals.predictor;
  CHECK(chrome.totals.predictor_policy == "chrome");
  CHECK(s.of(SpeculativeAction::kPreconnect).taken >= 1);
  CHECK(s.of(SpeculativeAction::kPreconnect).used >= 1);
  CHECK(s.connections_ready >= 1);
  CHECK(s.connections_needed >= 2);
  // "off" acts on nothing but still counts the connections requests needed.
  CHECK(off.totals.predictor.Total().taken == 0);
  CHECK(off.totals.predictor.connections_needed == s.connections_needed);
  CHECK(off.totals.predictor_tables.is_null());
}

TEST_CASE("A hover too close to the click: the preconnect is late but still helps",
          "[replay][predictor]") {
  auto page = Page("a.test");
  std::vector<SessionEvent> events = {Event(SessionEvent::Type::kHover, 950, "https://a.test/"),
                                      Navigate(page, 1000)};
  Run off, chrome;
  ReplayEvents(FastConfig("off"), events, &off);
  ReplayEvents(FastConfig("chrome"), events, &chrome);
  CHECK(chrome.recorder.Get(0, 0).connection.socket_source == SocketSource::kPreconnectedLate);
  CHECK(chrome.recorder.pages[0].preconnect_late == 1);
  CHECK(off.recorder.pages[0].load_ms - chrome.recorder.pages[0].load_ms == Approx(50));
  CHECK(chrome.totals.predictor.connections_late >= 1);
}

TEST_CASE("The page line counts a background request's preconnect apart, as the stats do",
          "[replay][predictor]") {
  // A document, then a script (critical) and a ping (IDLE: background) it reveals, each on an
  // origin the session's hints preconnected a second before the navigation.
  TraceEntry script = MakeEntry("https://cdn.a.test/app.js", 5000, 10, "script");
  TraceEntry ping = MakeEntry("https://beacon.a.test/ping", 0, 10, "ping");
  script.parent = ping.parent = 0;
  script.gap_ms = ping.gap_ms = 10;
  auto page = MakePage("a.test", {MakeEntry("https://a.test/", 5000, 0, "document"), script, ping});
  std::vector<SessionEvent> hinted = {Hint(0, "preconnect", "https://cdn.a.test/"),
                                      Hint(0, "preconnect", "https://beacon.a.test/"),
                                      Navigate(page, 1000)};
  Run run;
  ReplayEvents(FastConfig("chrome"), hinted, &run);
  REQUIRE(run.recorder.pages.size() == 1);
  const PageResult& p = run.recorder.pages[0];
  REQUIRE(run.recorder.Get(0, 2).placement->priority == IDLE);
  REQUIRE(run.recorder.Get(0, 1).connection.socket_source == SocketSource::kPreconnected);
  REQUIRE(run.recorder.Get(0, 2).connection.socket_source == SocketSource::kPreconnected);
  // The ping's preconnected socket is no critical-path saving: counted apart.
  CHECK(p.preconnected == 1);
  CHECK(p.preconnected_background == 1);
  CHECK(p.connections_needed_background == 1);
  CHECK(p.preconnect_late_background == 0);
  // The page line and the predictor's accounting agree, critical and background.
  const PredictorStats& s = run.totals.predictor;
  CHECK(s.connections_ready == static_cast<uint64_t>(p.preconnected));
  CHECK(s.connections_needed == static_cast<uint64_t>(p.connections_needed));
  CHECK(s.connections_ready_background == static_cast<uint64_t>(p.preconnected_background));
  CHECK(s.connections_needed_background == static_cast<uint64_t>(p.connections_needed_background));
  const nlohmann::json line = p.ToJson()["preconnect"];
  CHECK(line["ready"] == p.preconnected);
  CHECK(line["needed"] == p.connections_needed);
  CHECK(line["ready_background"] == 1);
  CHECK(line["late_background"] == 0);
  CHECK(line["needed_background"] == 1);
  PageResult back;
  std::string error;
  REQUIRE(PageResultFromJson(p.ToJson(JsonNumbers::kExact), &back, &error));
  CHECK(back.preconnected_background == 1);
  CHECK(back.connections_needed_background == 1);

  // Without a predictor the ping still needs its connection, counted apart from the page's.
  Run off;
  ReplayEvents(FastConfig("off"), {Navigate(page, 1000)}, &off);
  CHECK(off.recorder.pages[0].connections_needed == 2);
  CHECK(off.recorder.pages[0].connections_needed_background == 1);
  CHECK(off.recorder.pages[0].preconnected_background == 0);
}

TEST_CASE("The startup list is acted on at the second startup", "[replay][predictor]") {
  auto page = Page("a.test");
  std::vector<SessionEvent> first_day = {test::Other(SessionEvent::Type::kStartup, 0),
                                         Navigate(page, 1000), Wait(1000)};
  std::vector<SessionEvent> two_days = first_day;
  two_days.push_back(test::Other(SessionEvent::Type::kStartup, 12 * kHourMs));
  Run one, two;
  ReplayEvents(FastConfig("chrome"), first_day, &one);
  ReplayEvents(FastConfig("chrome"), two_days, &two);
  const auto preresolves = [](const Run& r) {
    return r.totals.predictor.of(SpeculativeAction::kPreresolve).taken;
  };
  CHECK(preresolves(two) > preresolves(one));
  // The list names the hosts the first day's startup used.
  REQUIRE(two.totals.predictor_tables.contains("startup"));
  CHECK(two.totals.predictor_tables["startup"].dump().find("a.test") != std::string::npos);
  // Nobody used them: wasted at the end (the accounting ran to the end of the replay).
  CHECK(two.totals.predictor.of(SpeculativeAction::kPreresolve).wasted >= 1);
}

TEST_CASE("Omnibox keystrokes: hits and misses are recorded in the policy's table",
          "[replay][predictor]") {
  for (const char* policy : {"chrome", "learned"}) {
    INFO(policy);
    auto page = Page("abc.test");
    std::vector<SessionEvent> events = {
        Event(SessionEvent::Type::kOmnibox, 0, "https://ab.test/", "a"),
        Event(SessionEvent::Type::kOmnibox, 200, "https://abc.test/", "ab"),
        Navigate(page, 500),
    };
    Run run;
    ReplayEvents(FastConfig(policy), events, &run);
    const nlohmann::json& tables = run.totals.predictor_tables;
    REQUIRE(tables.contains("omnibox"));
    double hits = 0, misses = 0;
    for (const auto& row : tables["omnibox"]) {
      if (row["url"] == "https://abc.test/") hits += row["hits"].get<double>();
      if (row["url"] == "https://ab.test/") misses += row["misses"].get<double>();
    }
    CHECK(hits > 0);
    CHECK(misses > 0);
    CHECK(run.totals.predictor.hints > 0);
  }
}

TEST_CASE("Session hints: each kind reaches the predictor", "[replay][predictor]") {
  auto page = Page("a.test");
  struct Case {
    const char* kind;
    SpeculativeAction action;
  };
  for (Case c : {Case{"preconnect", SpeculativeAction::kPreconnect},
                 Case{"dns-prefetch", SpeculativeAction::kPreresolve},
                 Case{"mouse-over", SpeculativeAction::kPreconnect},
                 // A kind the policies do not know: a pre-resolve of its host.
                 Case{"something-else", SpeculativeAction::kPreresolve}}) {
    INFO(c.kind);
    std::vector<SessionEvent> events = {Hint(0, c.kind, "https://b.test/x.js"),
                                        Navigate(page, 1000)};
    Run run;
    ReplayEvents(FastConfig("chrome"), events, &run);
    CHECK(run.totals.predictor.of(c.action).taken >= 1);
    // The learned policy weighs hints by its own model: it hears them without failing.
    Run learned;
    ReplayEvents(FastConfig("learned"), events, &learned);
    CHECK(learned.totals.predictor.hints >= 1);
  }
}

TEST_CASE("A fetch ahead of a page's URL before its navigation is answered as recorded",
          "[replay][predictor]") {
  // The modelled servers answer from pages in flight; a speculative fetch comes before its
  // page, so they also remember finished pages when a predictor runs.
  auto page = Page("a.test");
  std::vector<SessionEvent> events = {Navigate(page, 0), Wait(0),
                                      Hint(5000, "prefetch", "https://cdn.a.test/app.js")};
  Run run;
  ReplayEvents(FastConfig("chrome"), events, &run);
  CHECK(run.totals.predictor.of(SpeculativeAction::kFetchAhead).taken == 1);
  CHECK(run.totals.unmatched == 0);
}

TEST_CASE("predictor=off: user events change nothing", "[replay][predictor]") {
  auto a = Page("a.test");
  auto b = Page("b.test");
  std::vector<SessionEvent> plain = {Navigate(a, 0), Wait(0), Navigate(b, 5000)};
  std::vector<SessionEvent> busy = {
      test::Other(SessionEvent::Type::kStartup, 0),
      Navigate(a, 0),
      Wait(0),
      Event(SessionEvent::Type::kOmnibox, 4000, "https://b.test/", "b"),
      Hint(4100, "preconnect", "https://cdn.b.test/"),
      Event(SessionEvent::Type::kHover, 4800, "https://b.test/"),
      Navigate(b, 5000)};
  std::string with_events = JsonOf(FastConfig("off"), busy);
  std::string without = JsonOf(FastConfig("off"), plain);
  // Only the count of the other events differs.
  auto cut = [](std::string s) {
    size_t at = s.find("\"other_events\":");
    REQUIRE(at != std::string::npos);
    size_t end = s.find(',', at);
    return s.erase(at, end - at);
  };
  CHECK(cut(with_events) == cut(without));
}

TEST_CASE("The predictor's replays are deterministic", "[replay][predictor]") {
  std::vector<SessionEvent> events = {
      test::Other(SessionEvent::Type::kStartup, 0),
      Event(SessionEvent::Type::kOmnibox, 0, "https://a.test/", "a"),
      Navigate(Page("a.test"), 300),
      Wait(300),
      Event(SessionEvent::Type::kHover, 1800, "https://b.test/"),
      Navigate(Page("b.test"), 2000),
      Wait(2000),
      test::Other(SessionEvent::Type::kStartup, 12 * kHourMs),
      Navigate(Page("a.test"), 12 * kHourMs + 2000),
  };
  for (const char* policy : {"chrome", "learned"}) {
    INFO(policy);
    std::string first = JsonOf(FastConfig(policy), events);
    CHECK(first == JsonOf(FastConfig(policy), events));
    CHECK(first.find("\"policy\":\"" + std::string(policy) + "\"") != std::string::npos);
  }
}

TEST_CASE("predictor keys: values checked, round trip through ToJson", "[replay][predictor]") {
  ReplayConfig c;
  std::string error;
  CHECK_FALSE(c.Set("predictor=clever", &error));
  CHECK(error == "predictor: 'clever' is not off, chrome, loading or learned");
  CHECK(c.predictor.policy == "off");
  REQUIRE(c.Set("predictor=learned", &error));
  REQUIRE(c.Set("predictor_max_in_flight=4", &error));
  CHECK(c.predictor.max_in_flight == 4);
  CHECK_FALSE(c.Set("predictor_max_in_flight=0", &error));
  CHECK(error.rfind("predictor_max_in_flight", 0) == 0);
  CHECK(c.predictor.max_in_flight == 4);
  CHECK_FALSE(c.Set("predictor_nope=1", &error));
  CHECK(error == "unknown key 'predictor_nope' (see docs/replay.md)");

  std::string path = "/tmp/replay_predictor_test_" + std::to_string(::getpid()) + ".json";
  {
    std::ofstream out(path);
    out << c.ToJson().dump();
  }
  ReplayConfig back;
  REQUIRE(back.Apply(path, &error));
  std::remove(path.c_str());
  CHECK(back.ToJson() == c.ToJson());
  CHECK(back.predictor.policy == "learned");
  CHECK(back.predictor.max_in_flight == 4);
}

// A fetch ahead of a page visited before, its connections long closed (past the pool's 300 s
// used-idle timeout), 5 s before the page is navigated to again; the document says
// `cache_control`.
Run FetchAheadThenNavigate(const std::string& cache_control) {
  auto page = MakePage("b.test", {MakeEntry("https://b.test/", 5000, 0, "document",
                                            {{"Cache-Control", cache_control}})});
  std::vector<SessionEvent> events = {Navigate(page, 0), Wait(0),
                                      Hint(400'000, "prefetch", "https://b.test/"),
                                      Navigate(page, 405'000)};
  Run run;
  ReplayEvents(FastConfig("chrome"), events, &run);
  return run;
}

TEST_CASE("A fetched-ahead no-cache document only warmed a connection: wasted and warmed",
          "[replay][predictor]") {
  Run run = FetchAheadThenNavigate("no-cache");
  REQUIRE(run.recorder.pages.size() == 2);
  const RequestRecord& doc = run.recorder.Get(1, 0);
  CHECK(doc.cache != CacheDisposition::kHit);
  CHECK(doc.connection.socket_source == SocketSource::kReused);  // the fetch's connection
  const SpeculationCounts& fa = run.totals.predictor.of(SpeculativeAction::kFetchAhead);
  CHECK(fa.taken == 1);
  CHECK(fa.used == 0);
  CHECK(fa.late == 0);
  CHECK(fa.wasted == 1);
  CHECK(fa.warmed == 1);
  CHECK(run.totals.ToJson()["predictor"]["stats"]["fetch_ahead"]["warmed"] == 1);
}

TEST_CASE("A fetched-ahead document the navigation is served from (max-age) is used",
          "[replay][predictor]") {
  // Stale again when fetched ahead (300 s), fresh when navigated to 5 s later.
  Run run = FetchAheadThenNavigate("max-age=300");
  REQUIRE(run.recorder.pages.size() == 2);
  CHECK(run.recorder.Get(1, 0).cache == CacheDisposition::kHit);
  const SpeculationCounts& fa = run.totals.predictor.of(SpeculativeAction::kFetchAhead);
  CHECK(fa.taken == 1);
  CHECK(fa.used == 1);
  CHECK(fa.wasted == 0);
  CHECK(fa.warmed == 0);
}

// What `replay --internals` serves as /api/predictor (its Monitor's predictor), at the run's end.
class PredictorInfo : public ReplayEngine::Monitor {
 public:
  void OnStackCreated(UrlRequestContext*, Predictor* p, NetLog*, const Clock&) override {
    predictor = p;
  }
  void BeforeEvent(const SessionEvent&, uint64_t, const ReplayTotals&) override {}
  void OnRunEnd(const ReplayTotals&) override {
    if (predictor) info = predictor->GetInfoAsJson();
  }
  void OnStackDestroyed() override { predictor = nullptr; }
  Predictor* predictor = nullptr;
  nlohmann::json info;
};

TEST_CASE("replay --internals shows what learned learns: warm state, origins, budget",
          "[replay][predictor]") {
  // The same Predictor::GetInfoAsJson as the live world's (context_target_test.cc): the page's
  // origins, each origin's warm state on the replay's clock, the adaptive budget.
  PredictorInfo monitor;
  ReplayEngine engine(FastConfig("learned"));
  engine.SetMonitor(&monitor);
  test::VectorSource source({Navigate(Page("a.test"), 0)});
  std::string error;
  REQUIRE(engine.Run(&source, &error));
  const nlohmann::json& tables = monitor.info["tables"];
  REQUIRE(monitor.info["policy"] == "learned");
  std::map<std::string, std::string> states;
  for (const nlohmann::json& row : tables["warm"]) states[row["origin"]] = row["state"];
  CHECK(states["https://a.test:443"] == "warm");
  CHECK(states["https://cdn.a.test:443"] == "warm");
  std::set<std::string> learned;
  for (const nlohmann::json& row : tables["referrers"]) learned.insert(row["origin"]);
  CHECK(learned.count("https://cdn.a.test:443") == 1);
  CHECK(tables["budget"]["budget"] == monitor.info["queue"]["budget"]);
  // The totals carry the same tables.
  CHECK(engine.totals().predictor_tables["warm"] == tables["warm"]);
}

}  // namespace
}  // namespace netstack
