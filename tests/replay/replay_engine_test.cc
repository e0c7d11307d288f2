// Whole replays through ReplayEngine on the simulated network (virtual time): the worked
// example's breakdown, determinism, placement, pool limits, recorded hits, session events.
#include "tools/replay/replay_engine.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "tests/replay/replay_test_util.h"
#include "tools/replay/report/replay_json_writer.h"

namespace netstack {
namespace {

using test::MakeEntry;
using test::MakePage;
using test::Navigate;
using test::Recorder;
using test::Replay;

std::string TempPath(const std::string& name) {
  return "/tmp/replay_engine_test_" + std::to_string(::getpid()) + "_" + name;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST_CASE("The worked example takes 470 ms with its breakdown", "[replay][engine]") {
  auto page = MakePage("example", {MakeEntry("https://example.com/", 1000, 0, "document")});
  ReplayEngine engine(test::ExampleConfig());
  Recorder recorder;
  ReplayJsonWriter json;
  std::string path = TempPath("470.jsonl"), error;
  REQUIRE(json.Open(path, &error));
  engine.AddObserver(&recorder);
  engine.AddObserver(&json);
  test::VectorSource source({Navigate(page)});
  REQUIRE(engine.Run(&source, &error));
  REQUIRE(json.Close(&error));

  REQUIRE(recorder.requests.size() == 1);
  const RequestRecord& r = recorder.requests[0];
  CHECK(r.error == OK);
  CHECK(r.status == 200);
  CHECK(r.phases.queued_ms == 0);
  CHECK(r.phases.dns_ms == 50);
  CHECK(r.phases.connect_ms == 80);
  CHECK(r.phases.tls_ms == 160);
  CHECK(r.model->request_ms == 40);
  CHECK(r.model->server_ms == 100);
  CHECK(r.model->response_ms == 40);
  CHECK(r.phases.ttfb_ms == 180);
  CHECK(r.start_ms() == 0);
  CHECK(r.end_ms() == 470);
  CHECK(r.placement->priority == HIGHEST);
  CHECK_FALSE(r.connection.reused());
  CHECK(r.transfer_bytes == 1000);
  REQUIRE(recorder.pages.size() == 1);
  CHECK(recorder.pages[0].load_ms == 470);
  CHECK(recorder.pages[0].sockets_opened == 1);

  std::istringstream lines(ReadFile(path));
  std::string line;
  REQUIRE(std::getline(lines, line));
  nlohmann::json j = nlohmann::json::parse(line);
  CHECK(j["kind"] == "request");
  const nlohmann::json& t = j["timing"];
  CHECK(t["dns_ms"] == 50.0);
  CHECK(t["connect_ms"] == 80.0);
  CHECK(t["tls_ms"] == 160.0);
  CHECK(t["total_ms"] == 470.0);
  const nlohmann::json& model = j["model"];  // the model's split of the ttfb
  CHECK(model["request_ms"] == 40.0);
  CHECK(model["server_ms"] == 100.0);
  CHECK(model["response_ms"] == 40.0);
  CHECK(j["socket"]["source"] == "new");
  CHECK(j["bytes"] == 1000);  // decoded (the modelled server sends no content coding)
  CHECK(j["transfer_bytes"] == 1000);
  REQUIRE(std::getline(lines, line));
  CHECK(nlohmann::json::parse(line)["kind"] == "page");
  std::remove(path.c_str());

  const ReplayTotals& totals = engine.totals();
  CHECK(totals.requests == 1);
  CHECK(totals.pages == 1);
  CHECK(totals.dns_lookups == 1);
  CHECK(totals.tls_handshakes == 1);
  CHECK(totals.virtual_ms == 470);
}

// A session touching several hosts, redirects, dependencies, a wait and a revisit.
std::vector<SessionEvent> BusySession() {
  std::vector<TraceEntry> entries;
  entries.push_back(MakeEntry("https://www.site.example/", 30'000, 0, "document"));
  for (int i = 0; i < 24; ++i) {
    std::string host = i % 3 == 0   ? "cdn.site.example"
                       : i % 3 == 1 ? "img.site.example"
                                    : "www.site.example";
    TraceEntry e = MakeEntry("https://" + host + "/r" + std::to_string(i), 2'000 + 7'000 * i,
                             20.0 + 5 * i, i % 2 ? "image" : "script");
    e.parent = i < 6 ? 0 : 1 + (i % 6);
    e.gap_ms = 3;
    entries.push_back(e);
  }
  auto home = MakePage("home", entries);
  auto other = MakePage("other", {MakeEntry("http://plain.example/", 4'000, 0, "document")});
  return {Navigate(home, 0), test::Other(SessionEvent::Type::kHover, 10), test::Wait(10),
          Navigate(other, 100), Navigate(home, 150)};
}

std::string RunToJson(const ReplayConfig& config, const std::string& name) {
  std::string path = TempPath(name), error;
  ReplayEngine engine(config);
  ReplayJsonWriter json;
  REQUIRE(json.Open(path, &error));
  engine.AddObserver(&json);
  test::VectorSource source(BusySession());
  REQUIRE(engine.Run(&source, &error));
  REQUIRE(json.Close(&error));
  std::string bytes = ReadFile(path);
  std::remove(path.c_str());
  return bytes;
}

TEST_CASE("Two replays of the same session give identical bytes", "[replay][engine]") {
  ReplayConfig config;
  std::string error;
  REQUIRE(config.Set("down_kbps=5000", &error));
  std::string first = RunToJson(config, "a.jsonl");
  std::string second = RunToJson(config, "b.jsonl");
  CHECK(first.size() > 1000);
  CHECK(first == second);
  REQUIRE(config.Set("rtt_ms=100", &error));
  CHECK(RunToJson(config, "c.jsonl") != first);
}

TEST_CASE("Dependency placement moves children with their parent, offsets do not",
          "[replay][engine]") {
  auto make = [](int64_t parent_bytes) {
    TraceEntry parent = MakeEntry("https://a.example/", parent_bytes, 0, "document");
    TraceEntry child = MakeEntry("https://a.example/child.js", 1000, 300, "script");
    child.parent = 0;
    child.gap_ms = 10;
    return MakePage("p", {parent, child});
  };
  ReplayConfig config = test::ExampleConfig();
  std::string error;
  REQUIRE(config.Set("down_kbps=1000", &error));
  auto child_start = [&](Placement placement, int64_t parent_bytes, double* parent_end) {
    ReplayConfig c = config;
    c.placement = placement;
    Recorder recorder;
    REQUIRE(Replay(c, {Navigate(make(parent_bytes))}, &recorder));
    *parent_end = recorder.Get(0, 0).end_ms();
    return recorder.Get(0, 1).start_ms();
  };
  double fast_end = 0, slow_end = 0;
  double offset_fast = child_start(Placement::kOffset, 1'000, &fast_end);
  double offset_slow = child_start(Placement::kOffset, 200'000, &slow_end);
  CHECK(offset_fast == 300);
  CHECK(offset_slow == 300);
  CHECK(slow_end > fast_end + 1000);
  double dep_fast = child_start(Placement::kDependency, 1'000, &fast_end);
  double dep_slow = child_start(Placement::kDependency, 200'000, &slow_end);
  CHECK(dep_fast == fast_end + 10);
  CHECK(dep_slow == slow_end + 10);
}

TEST_CASE("A pushed entry is issued at its recorded start and counted", "[replay][engine]") {
  // Its parent (the document) ends near 470 ms; the pushed stylesheet was claimed at 100 ms.
  TraceEntry doc = MakeEntry("https://a.example/", 1000, 0, "document");
  TraceEntry pushed = MakeEntry("https://a.example/a.css", 1000, 100, "stylesheet");
  pushed.parent = 0;
  pushed.gap_ms = 5;
  pushed.pushed = true;
  TraceEntry child = MakeEntry("https://a.example/b.js", 1000, 200, "script");
  child.parent = 0;
  child.gap_ms = 5;
  Recorder recorder;
  ReplayTotals totals;
  REQUIRE(Replay(test::ExampleConfig(), {Navigate(MakePage("p", {doc, pushed, child}))}, &recorder,
                 nullptr, &totals));
  const double doc_end = recorder.Get(0, 0).end_ms();
  CHECK(recorder.Get(0, 1).start_ms() == 100);
  CHECK(recorder.Get(0, 2).start_ms() == doc_end + 5);
  REQUIRE(recorder.pages.size() == 1);
  CHECK(recorder.pages[0].pushed == 1);
  CHECK(recorder.pages[0].ToJson()["pushed"] == 1);
  CHECK(totals.pushed == 1);
  CHECK(totals.ToJson()["pushed"] == 1);
}

TEST_CASE("A seventh request to one host waits for a socket", "[replay][engine]") {
  std::vector<TraceEntry> entries;
  for (int i = 0; i < 7; ++i)
    entries.push_back(MakeEntry("https://one.example/" + std::to_string(i), 50'000, 0, "image"));
  ReplayConfig config = test::ExampleConfig();
  std::string error;
  REQUIRE(config.Set("down_kbps=10000", &error));
  config.placement = Placement::kOffset;
  Recorder recorder;
  ReplayTotals totals;
  REQUIRE(Replay(config, {Navigate(MakePage("p", entries))}, &recorder, &error, &totals));
  REQUIRE(recorder.requests.size() == 7);
  int queued = 0, reused = 0;
  for (const RequestRecord& r : recorder.requests) {
    INFO(r.url << " queued " << r.phases.queued_ms);
    CHECK(r.error == OK);
    queued += r.phases.queued_ms > 0;
    reused += r.connection.reused();
  }
  CHECK(queued == 1);
  CHECK(reused == 1);
  const RequestRecord& seventh = recorder.Get(0, 6);
  CHECK(seventh.connection.reused());
  CHECK(seventh.phases.queued_ms > 300);
  CHECK(totals.sockets_opened == 6);
  CHECK(totals.sockets_reused == 1);
  CHECK(recorder.pages[0].sockets_opened == 6);

  // With 7 sockets per group nobody waits.
  REQUIRE(config.Set("max_sockets_per_group=7", &error));
  Recorder wide;
  REQUIRE(Replay(config, {Navigate(MakePage("p", entries))}, &wide));
  for (const RequestRecord& r : wide.requests) CHECK(r.phases.queued_ms == 0);
}

TEST_CASE("Recorded cache hits cost their recorded time and no network", "[replay][engine]") {
  TraceEntry timed = MakeEntry("https://a.example/small.js", 1000, 0, "script");
  timed.recorded_from_cache = true;
  timed.recorded_total_ms = 3;
  Recorder timed_recorder;
  std::string timed_error;
  REQUIRE(Replay(test::ExampleConfig(), {Navigate(MakePage("p", {timed}))}, &timed_recorder,
                 &timed_error));
  REQUIRE(timed_recorder.requests.size() == 1);
  CHECK(timed_recorder.requests[0].end_ms() - timed_recorder.requests[0].start_ms() == 3);
}

TEST_CASE("A recorded cache hit's cost cannot overflow, whatever page it is given",
          "[replay][engine]") {
  // Past the readers' 1 GiB bound (a page built in code): the cost is that of 1 GiB, 20.488 s,
  // and a recorded time past 1e10 ms is that bound.
  TraceEntry huge = MakeEntry("https://a.example/huge.js", int64_t{1'000'000'000'000'000}, 0);
  huge.recorded_from_cache = true;
  huge.recorded_total_ms = 0;
  TraceEntry slow = MakeEntry("https://a.example/slow.js", 10, 0);
  slow.recorded_from_cache = true;
  slow.recorded_total_ms = 1e300;
  Recorder recorder;
  std::string error;
  REQUIRE(
      Replay(test::ExampleConfig(), {Navigate(MakePage("p", {huge, slow}))}, &recorder, &error));
  REQUIRE(recorder.requests.size() == 2);
  for (const RequestRecord& r : recorder.requests) {
    if (r.url == "https://a.example/huge.js") {
      CHECK(r.end_ms() - r.start_ms() == Approx(8 + 20 * 1024));
    } else {
      CHECK(r.end_ms() - r.start_ms() == Approx(1e10));
    }
  }
}

TEST_CASE("Untimed recorded cache hits cost Lantern's disk time and no network",
          "[replay][engine]") {
  TraceEntry hit = MakeEntry("https://a.example/big.js", 1024 * 1024, 0, "script");
  hit.recorded_from_cache = true;
  hit.recorded_total_ms = 0;  // the recording did not time it
  TraceEntry skipped = MakeEntry("https://a.example/blocked", 0, 5);
  skipped.status = 0;
  Recorder recorder;
  ReplayTotals totals;
  std::string error;
  REQUIRE(Replay(test::ExampleConfig(), {Navigate(MakePage("p", {hit, skipped}))}, &recorder,
                 &error, &totals));
  REQUIRE(recorder.requests.size() == 1);
  const RequestRecord& r = recorder.requests[0];
  CHECK(r.recorded_hit);
  CHECK(r.end_ms() - r.start_ms() == 28);  // 8 ms + 20 ms per MiB
  CHECK(r.connection.socket_id == 0);
  CHECK(r.transfer_bytes == 1024 * 1024);
  CHECK(totals.recorded_hits == 1);
  CHECK(totals.dns_lookups == 0);
  CHECK(totals.skipped == 1);
  REQUIRE(recorder.pages.size() == 1);
  CHECK(recorder.pages[0].recorded_hits == 1);
  CHECK(recorder.pages[0].skipped == 1);
  CHECK(recorder.pages[0].requests == 1);
}

TEST_CASE("Entries the reader skipped are reported with their page, by reason",
          "[replay][engine][skipped]") {
  TraceEntry blocked = MakeEntry("https://a.example/blocked", 0, 5);
  blocked.status = 0;
  TracePage page = *MakePage("p", {MakeEntry("https://a.example/", 1000, 0, "document"), blocked});
  page.skipped_entries = 3;
  page.skipped_not_http = 1;
  page.skipped_invalid_url = 2;
  page.first_invalid_url = "a.har: log.entries[7].request.url: URL longer than 2 MiB";
  Recorder recorder;
  ReplayTotals totals;
  std::string error;
  auto shared = std::make_shared<const TracePage>(page);
  REQUIRE(Replay(test::ExampleConfig(), {Navigate(shared), Navigate(shared, 10'000)}, &recorder,
                 &error, &totals));
  REQUIRE(recorder.pages.size() == 2);
  CHECK(recorder.pages[0].skipped == 4);  // the reader's 3 and the entry without a response
  CHECK(recorder.pages[0].skipped_not_http == 1);
  CHECK(recorder.pages[0].skipped_invalid_url == 2);
  CHECK(totals.skipped == 8);
  CHECK(totals.skipped_not_http == 2);
  CHECK(totals.skipped_invalid_url == 4);
  CHECK(totals.first_invalid_url == page.first_invalid_url);
  nlohmann::json reasons = totals.ToJson()["skipped_reasons"];
  CHECK(reasons["no_response"] == 2);
  CHECK(reasons["not_http"] == 2);
  CHECK(reasons["invalid_url"] == 4);
  CHECK(reasons["first_invalid_url"] == page.first_invalid_url);
  CHECK(recorder.pages[0].ToJson()["skipped_reasons"]["invalid_url"] == 2);
}

TEST_CASE("Waits shift later events by the time pages took", "[replay][engine]") {
  auto page = MakePage("p", {MakeEntry("https://example.com/", 1000, 0, "document")});
  Recorder recorder;
  ReplayTotals totals;
  std::string error;
  REQUIRE(Replay(test::ExampleConfig(),
                 {Navigate(page, 0), test::Wait(0), test::Other(SessionEvent::Type::kStartup, 50),
                  Navigate(page, 100), test::Other(SessionEvent::Type::kOmnibox, 100),
                  test::Other(SessionEvent::Type::kHint, 100)},
                 &recorder, &error, &totals));
  REQUIRE(recorder.pages.size() == 2);
  CHECK(recorder.pages[0].start_ms == 0);
  // The first page loaded at 470 ms; the second navigation keeps its 100 ms after the wait.
  CHECK(recorder.pages[1].start_ms == 570);
  CHECK(recorder.pages[1].page_index == 1);
  // Its request reuses the connection (no DNS, connect or TLS).
  const RequestRecord& again = recorder.Get(1, 0);
  CHECK(again.connection.reused());
  CHECK(again.phases.dns_ms == 0);
  CHECK(again.end_ms() - again.start_ms() == 180);
  CHECK(totals.other_events == 3);
  CHECK(totals.pages == 2);
}

TEST_CASE("A source error is reported after the pages navigated before it", "[replay][engine]") {
  auto page = MakePage("p", {MakeEntry("https://example.com/", 1000, 0, "document")});
  ReplayEngine engine(test::ExampleConfig());
  Recorder recorder;
  engine.AddObserver(&recorder);
  engine.SetFirstPageIndex(10);
  test::VectorSource source({Navigate(page)}, "s.jsonl:2: unknown event type 'hoover'");
  std::string error;
  CHECK_FALSE(engine.Run(&source, &error));
  CHECK(error == "s.jsonl:2: unknown event type 'hoover'");
  CHECK(engine.input_error());
  REQUIRE(recorder.pages.size() == 1);
  CHECK(recorder.pages[0].page_index == 10);
}

TEST_CASE("Pages without entries and invalid URLs complete", "[replay][engine]") {
  TraceEntry bad = MakeEntry("notaurl", 10);
  Recorder recorder;
  ReplayTotals totals;
  std::string error;
  REQUIRE(Replay(ReplayConfig{},
                 {Navigate(MakePage("empty", {})), Navigate(MakePage("bad", {bad}))}, &recorder,
                 &error, &totals));
  REQUIRE(recorder.pages.size() == 2);
  CHECK(recorder.pages[0].load_ms == 0);
  REQUIRE(recorder.requests.size() == 1);
  CHECK(recorder.requests[0].error == ERR_INVALID_URL);
  CHECK(totals.failed == 1);
}

TEST_CASE("NetLog capture writes Chrome's NetLog JSON of the replay", "[replay][engine]") {
  auto page = MakePage("p", {MakeEntry("https://example.com/", 1000, 0, "document")});
  ReplayEngine engine(test::ExampleConfig());
  std::string path = TempPath("netlog.json"), error;
  REQUIRE(engine.SetNetLogFile(path, "netstack replay test", &error));
  test::VectorSource source({Navigate(page)});
  REQUIRE(engine.Run(&source, &error));
  nlohmann::json log = nlohmann::json::parse(ReadFile(path));
  CHECK(log["constants"].is_object());
  CHECK(log["events"].size() > 5);
  CHECK(log["polledData"].is_object());
  std::remove(path.c_str());
  ReplayEngine other(ReplayConfig{});
  CHECK_FALSE(other.SetNetLogFile("/nonexistent-dir/n.json", "", &error));
  CHECK(error.find("cannot write netlog /nonexistent-dir/n.json") == 0);
}

}  // namespace
}  // namespace netstack
