// The replay starts as the recording started and reports what the recording reports: recorded
// failures replayed at their time, skips counted by reason, warm start (connections the
// recording shows open), cold runs (a fresh stack per recorded run), onLoad in the page, its
// JSON and the summary, and the same bytes twice.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "net/base/net_error.h"
#include "tests/replay/replay_test_util.h"
#include "tools/replay/replay_engine.h"
#include "tools/replay/report/replay_json_writer.h"
#include "tools/replay/report/replay_summary.h"

namespace netstack {
namespace {

using test::MakeEntry;
using test::Recorder;
using test::Replay;

std::string TempPath(const std::string& name) {
  return "/tmp/replay_recording_start_test_" + std::to_string(::getpid()) + "_" + name;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A navigation that replays a recording as recorded (as MakeHarSource's do): its page's new_run
// and warm connections apply.
SessionEvent Navigate(std::shared_ptr<const TracePage> page) {
  SessionEvent event = test::Navigate(std::move(page));
  event.as_recorded = true;
  return event;
}

// A page the test can still change (MakePage's is const).
std::shared_ptr<TracePage> Page(const std::string& id, std::vector<TraceEntry> entries) {
  return std::make_shared<TracePage>(*test::MakePage(id, std::move(entries)));
}

ReplayConfig Config(std::initializer_list<const char*> sets) {
  ReplayConfig config = test::ExampleConfig();
  std::string error;
  for (const char* set : sets) {
    INFO(set);
    REQUIRE(config.Set(set, &error));
  }
  return config;
}

TraceEntry Failed(const std::string& url, double start_ms, double total_ms) {
  TraceEntry e = MakeEntry(url, 0, start_ms, "image");
  e.status = -1;
  e.recorded_total_ms = total_ms;
  e.recorded_error = "net::ERR_ABORTED";
  e.recorded_error_code = ERR_ABORTED;
  return e;
}

TEST_CASE("A recorded failure replays at its recorded time, with its error, without the network",
          "[replay][recorded-failure]") {
  auto page = Page("p", {MakeEntry("https://example.com/", 1000, 0, "document"),
                         Failed("https://other.example/ad.gif", 100, 30)});
  SECTION("offset placement: at its recorded start, costing its recorded duration") {
    Recorder recorder;
    ReplayTotals totals;
    REQUIRE(Replay(Config({"placement=offset"}), {Navigate(page)}, &recorder, nullptr, &totals));
    const RequestRecord& r = recorder.Get(0, 1);
    CHECK(r.error == ERR_ABORTED);
    CHECK(r.recorded_failure);
    CHECK(std::string(r.cache_name()) == "recorded-failure");
    CHECK(r.error_message.find("recorded failure: net::ERR_ABORTED") != std::string::npos);
    CHECK(r.start_ms() == 100);
    CHECK(r.end_ms() == 130);
    CHECK(r.connection.socket_id == 0);
    REQUIRE(recorder.pages.size() == 1);
    CHECK(recorder.pages[0].failed == 1);
    CHECK(recorder.pages[0].recorded_failures == 1);
    CHECK(totals.recorded_failures == 1);
    CHECK(totals.failed == 1);
    // Only the document's host was looked up or asked.
    CHECK(totals.dns_lookups == 1);
    CHECK(totals.unmatched == 0);
  }
  SECTION("dependency placement: after its parent, costing its recorded duration") {
    page->entries[1].parent = 0;
    page->entries[1].gap_ms = 10;
    Recorder recorder;
    REQUIRE(Replay(Config({}), {Navigate(page)}, &recorder));
    const RequestRecord& r = recorder.Get(0, 1);
    CHECK(r.error == ERR_ABORTED);
    CHECK(r.start_ms() == 470 + 10);
    CHECK(r.end_ms() == 470 + 10 + 30);
    CHECK(recorder.pages[0].load_ms == 510);
  }
  SECTION("a negative or unbounded recorded duration is clamped, not trusted") {
    page->entries[1].recorded_total_ms = -5;
    Recorder recorder;
    REQUIRE(Replay(Config({"placement=offset"}), {Navigate(page)}, &recorder));
    CHECK(recorder.Get(0, 1).end_ms() == 100);
  }
  SECTION("a recording that names no known error: ERR_FAILED") {
    page->entries[1].recorded_error_code = 0;
    Recorder recorder;
    REQUIRE(Replay(Config({}), {Navigate(page)}, &recorder));
    CHECK(recorder.Get(0, 1).error == ERR_FAILED);
  }
}

TEST_CASE("Skips are counted by reason: unfinished beside no response", "[replay][skipped]") {
  TraceEntry no_response = MakeEntry("https://example.com/x", 0, 10);
  no_response.status = 0;
  auto page = Page("p", {MakeEntry("https://example.com/", 1000, 0, "document"), no_response});
  // The reader skipped 3 entries that never finished and 1 not http(s).
  page->skipped_entries = 4;
  page->skipped_unfinished = 3;
  page->skipped_not_http = 1;
  Recorder recorder;
  ReplayTotals totals;
  REQUIRE(Replay(Config({}), {Navigate(page)}, &recorder, nullptr, &totals));
  REQUIRE(recorder.pages.size() == 1);
  const PageResult& p = recorder.pages[0];
  CHECK(p.skipped == 5);
  CHECK(p.skipped_unfinished == 3);
  nlohmann::json reasons = p.ToJson()["skipped_reasons"];
  CHECK(reasons["unfinished"] == 3);
  CHECK(reasons["not_http"] == 1);
  CHECK(reasons["no_response"] == 1);
  CHECK(totals.skipped == 5);
  CHECK(totals.skipped_unfinished == 3);
  CHECK(totals.ToJson()["skipped_reasons"]["unfinished"] == 3);
  ReplaySummary summary;
  summary.OnPage(p);
  std::string text = summary.Format(totals, Config({}), -1, -1);
  CHECK(text.find("5 skipped (1 no response recorded, 1 not http(s), 3 unfinished)") !=
        std::string::npos);
}

TEST_CASE("Warm start: a connection the recording shows open is open when the page starts",
          "[replay][warm-start]") {
  auto page = Page("p", {MakeEntry("https://example.com/", 1000, 0, "document")});
  page->entries[0].recorded_warm_connection = true;

  Recorder off;
  REQUIRE(Replay(Config({"warm_start=off"}), {Navigate(page)}, &off));
  CHECK(off.pages[0].load_ms == 470);
  CHECK(off.pages[0].warm_connections == 0);
  CHECK(off.pages[0].start_ms == 0);

  Recorder on;
  ReplayTotals totals;
  REQUIRE(Replay(Config({}), {Navigate(page)}, &on, nullptr, &totals));
  const RequestRecord& r = on.Get(0, 0);
  CHECK(r.phases.dns_ms == 0);
  CHECK(r.phases.connect_ms == 0);
  CHECK(r.phases.tls_ms == 0);
  // Faster by the DNS (50), connect (80) and TLS (160) it no longer pays.
  CHECK(on.pages[0].load_ms == 470 - 50 - 80 - 160);
  CHECK(on.pages[0].warm_connections == 1);
  CHECK(totals.warm_connections == 1);
  // The page starts once the warm-up has finished: its time is not the page's.
  CHECK(on.pages[0].start_ms == 50 + 80 + 160);
  // An idle socket the warm-up left, not a preconnect (the predictor's accounting and the
  // page's preconnect counts leave it out).
  CHECK(r.connection.socket_source == SocketSource::kUnusedIdle);
  CHECK(on.pages[0].preconnected == 0);
  CHECK(on.pages[0].connect_wait_ms == 0);
}

TEST_CASE("Warm start: the predictor does not count warm connections as its preconnects",
          "[replay][warm-start][predictor]") {
  auto page = Page("p", {MakeEntry("https://example.com/", 1000, 0, "document"),
                         MakeEntry("https://cdn.example/a.js", 1000, 10)});
  page->entries[1].recorded_warm_connection = true;
  Recorder on, off;
  ReplayTotals with, without;
  REQUIRE(Replay(Config({"predictor=chrome"}), {Navigate(page)}, &on, nullptr, &with));
  REQUIRE(Replay(Config({"predictor=chrome", "warm_start=off"}), {Navigate(page)}, &off, nullptr,
                 &without));
  CHECK(on.pages[0].warm_connections == 1);
  CHECK(on.Get(0, 1).connection.socket_source == SocketSource::kUnusedIdle);
  // The predictor's own actions (it preconnects the navigated origin) are the same either way,
  // and the warm connection is neither a ready nor a late preconnect.
  CHECK(on.pages[0].preconnected == off.pages[0].preconnected);
  CHECK(on.pages[0].preconnect_late == off.pages[0].preconnect_late);
  CHECK(with.predictor.connections_ready == without.predictor.connections_ready);
  CHECK(with.predictor.connections_late == without.predictor.connections_late);
  CHECK(with.predictor.of(SpeculativeAction::kPreconnect).taken ==
        without.predictor.of(SpeculativeAction::kPreconnect).taken);
}

TEST_CASE("Warm start: one connection per recorded connection id, within the group's limit",
          "[replay][warm-start]") {
  std::vector<TraceEntry> entries;
  for (int i = 0; i < 4; ++i) {
    entries.push_back(MakeEntry("https://example.com/" + std::to_string(i), 1000, 0));
    entries.back().recorded_warm_connection = true;
    entries.back().connection_id = i < 2 ? "7" : std::to_string(i);  // ids 7, 7, 2, 3
  }
  auto page = Page("p", entries);
  SECTION("three distinct ids: three connections, each request on one without setup") {
    Recorder recorder;
    REQUIRE(Replay(Config({"placement=offset"}), {Navigate(page)}, &recorder));
    CHECK(recorder.pages[0].warm_connections == 3);
    int without_setup = 0;
    for (const RequestRecord& r : recorder.requests)
      if (r.phases.connect_wait_ms() == 0) ++without_setup;
    CHECK(without_setup == 3);  // the fourth waits for a free one, or opens its own
  }
  SECTION("max_sockets_per_group bounds them") {
    Recorder recorder;
    REQUIRE(Replay(Config({"placement=offset", "max_sockets_per_group=2"}), {Navigate(page)},
                   &recorder));
    CHECK(recorder.pages[0].warm_connections == 2);
  }
  SECTION("without ids: one per warm entry") {
    for (TraceEntry& e : page->entries) e.connection_id.clear();
    Recorder recorder;
    REQUIRE(Replay(Config({"placement=offset"}), {Navigate(page)}, &recorder));
    CHECK(recorder.pages[0].warm_connections == 4);
  }
}

TEST_CASE("Warm start: an HTTP/2 host gets one open session", "[replay][warm-start][h2]") {
  std::vector<TraceEntry> entries;
  for (int i = 0; i < 3; ++i) {
    entries.push_back(MakeEntry("https://example.com/" + std::to_string(i), 1000, 0));
    entries.back().recorded_warm_connection = true;
    entries.back().connection_id = std::to_string(i);
  }
  auto page = Page("p", entries);
  Recorder recorder;
  ReplayTotals totals;
  REQUIRE(Replay(Config({"placement=offset", "http2=on"}), {Navigate(page)}, &recorder, nullptr,
                 &totals));
  CHECK(recorder.pages[0].warm_connections == 1);
  CHECK(totals.tls_handshakes == 1);
  for (const RequestRecord& r : recorder.requests) {
    CHECK(r.connection.protocol == "h2");
    CHECK(r.connection.socket_source == SocketSource::kHttp2Session);
    CHECK(r.phases.connect_wait_ms() == 0);
    CHECK(r.end_ms() == 180);
  }
}

TEST_CASE("Cold runs: a recorded new run gets a fresh stack", "[replay][cold-runs]") {
  auto first = Page("run1", {MakeEntry("https://example.com/", 1000, 0, "document")});
  auto second = Page("run2", {MakeEntry("https://example.com/", 1000, 0, "document")});
  first->new_run = true;  // a file's first page is a new run too: it changes nothing
  second->new_run = true;
  std::vector<SessionEvent> events = {Navigate(first), test::Wait(), Navigate(second)};

  Recorder on;
  ReplayTotals on_totals;
  REQUIRE(Replay(Config({}), events, &on, nullptr, &on_totals));
  REQUIRE(on.pages.size() == 2);
  const RequestRecord& again = on.Get(1, 0);
  CHECK(again.phases.dns_ms == 50);
  CHECK(again.phases.connect_ms == 80);
  CHECK(again.phases.tls_ms == 160);
  CHECK_FALSE(again.connection.tls_resumed);
  CHECK(on.pages[1].load_ms == 470);
  CHECK(on_totals.cold_runs == 1);
  CHECK(on_totals.dns_lookups == 2);
  CHECK(on_totals.tls_handshakes == 2);

  Recorder off;
  ReplayTotals off_totals;
  REQUIRE(Replay(Config({"cold_runs=off"}), events, &off, nullptr, &off_totals));
  const RequestRecord& reused = off.Get(1, 0);
  CHECK(reused.connection.reused());
  CHECK(off.pages[1].load_ms == 180);
  CHECK(off_totals.cold_runs == 0);
  CHECK(off_totals.dns_lookups == 1);
}

TEST_CASE("A session's navigations keep the session's browser: no cold run, no warm start",
          "[replay][cold-runs][warm-start]") {
  // The same pages as above, navigated by a session (gen-session --har takes pages from HARs,
  // whose first page is a new run and may have warm connections): the session's own browsing
  // decides what is open.
  auto first = Page("run1", {MakeEntry("https://example.com/", 1000, 0, "document")});
  auto second = Page("run2", {MakeEntry("https://example.com/", 1000, 0, "document"),
                              MakeEntry("https://cdn.example/a.js", 1000, 10, "script")});
  first->new_run = true;
  second->new_run = true;
  second->entries[1].recorded_warm_connection = true;
  Recorder recorder;
  ReplayTotals totals;
  REQUIRE(Replay(Config({"placement=offset"}),
                 {test::Navigate(first), test::Wait(), test::Navigate(second)}, &recorder, nullptr,
                 &totals));
  REQUIRE(recorder.pages.size() == 2);
  CHECK(recorder.Get(1, 0).connection.reused());
  CHECK(recorder.Get(1, 1).phases.dns_ms == 50);  // cdn.example was not opened ahead
  CHECK(recorder.pages[1].warm_connections == 0);
  CHECK(totals.cold_runs == 0);
}

TEST_CASE("Time the browser held a request is kept: the navigation, and h2 over an open connection",
          "[replay][placement]") {
  auto page = Page("p", {MakeEntry("https://example.com/", 1000, 0, "document"),
                         MakeEntry("https://example.com/a.png", 1000, 600, "image"),
                         MakeEntry("https://example.com/b.png", 1000, 600, "image")});
  page->entries[0].timings.blocked = 65;  // the browser's navigation work
  for (int i : {1, 2}) {
    TraceEntry& e = page->entries[i];
    e.timings.blocked = 300;                 // held before the network stack saw it
    e.timings.dns = e.timings.connect = -1;  // over a connection already open
  }
  page->entries[1].protocol = TraceProtocol::kHttp2;   // no pool queue: the renderer held it
  page->entries[2].protocol = TraceProtocol::kHttp11;  // a pool queue, which the model produces
  Recorder recorder;
  REQUIRE(Replay(Config({"placement=offset"}), {Navigate(page)}, &recorder));
  CHECK(recorder.Get(0, 0).start_ms() == 65);
  CHECK(recorder.Get(0, 1).start_ms() == 900);
  CHECK(recorder.Get(0, 2).start_ms() == 600);
}

TEST_CASE("Cold runs: the HTTP cache starts empty, and the NetLog stays one valid file",
          "[replay][cold-runs]") {
  HeaderList cacheable = {{"Content-Type", "text/plain"}, {"Cache-Control", "max-age=3600"}};
  auto first = Page("run1", {MakeEntry("https://example.com/a.js", 1000, 0, "script", cacheable)});
  auto second = Page("run2", {MakeEntry("https://example.com/a.js", 1000, 0, "script", cacheable)});
  second->new_run = true;
  std::vector<SessionEvent> events = {Navigate(first), test::Wait(), Navigate(second)};

  ReplayEngine engine(Config({}));
  Recorder recorder;
  engine.AddObserver(&recorder);
  std::string path = TempPath("cold.netlog.json"), error;
  REQUIRE(engine.SetNetLogFile(path, "netstack replay test", &error));
  test::VectorSource source(events);
  REQUIRE(engine.Run(&source, &error));
  CHECK(recorder.Get(1, 0).cache == CacheDisposition::kMiss);
  nlohmann::json log = nlohmann::json::parse(ReadFile(path), nullptr, /*allow_exceptions=*/false);
  REQUIRE_FALSE(log.is_discarded());
  CHECK(log["events"].size() > 0);
  std::remove(path.c_str());

  Recorder warm;
  REQUIRE(Replay(Config({"cold_runs=off"}), events, &warm));
  CHECK(warm.Get(1, 0).cache == CacheDisposition::kHit);
}

// Counts the stacks a Monitor (--internals) sees come and go.
class StackCounter : public ReplayEngine::Monitor {
 public:
  void OnStackCreated(UrlRequestContext* context, Predictor*, NetLog*, const Clock&) override {
    CHECK(context);
    CHECK(live == 0);
    ++created;
    ++live;
  }
  void BeforeEvent(const SessionEvent&, uint64_t, const ReplayTotals&) override {}
  void OnRunEnd(const ReplayTotals&) override { CHECK(live == 1); }
  void OnStackDestroyed() override {
    CHECK(live == 1);
    --live;
  }
  int created = 0, live = 0;
};

TEST_CASE("Cold runs: --internals sees the old stack go before the fresh one comes",
          "[replay][cold-runs]") {
  auto first = Page("run1", {MakeEntry("https://example.com/", 1000, 0, "document")});
  auto second = Page("run2", {MakeEntry("https://example.com/", 1000, 0, "document")});
  second->new_run = true;
  StackCounter counter;
  {
    ReplayEngine engine(Config({}));
    engine.SetMonitor(&counter);
    test::VectorSource source({Navigate(first), test::Wait(), Navigate(second)});
    std::string error;
    REQUIRE(engine.Run(&source, &error));
    CHECK(counter.created == 2);
    CHECK(counter.live == 1);
  }
  CHECK(counter.live == 0);
}

TEST_CASE("onLoad: the page, its JSON and the summary use it as the page load",
          "[replay][onload]") {
  // Recorded: the document ends at 100 (MakeEntry's duration), a late image starts at 500.
  auto page = Page("p", {MakeEntry("https://example.com/", 1000, 0, "document"),
                         MakeEntry("https://example.com/late.png", 1000, 500, "image")});
  page->recorded_onload_ms = 150;
  page->recorded_content_load_ms = 120;
  Recorder recorder;
  ReplayTotals totals;
  REQUIRE(Replay(Config({"placement=offset"}), {Navigate(page)}, &recorder, nullptr, &totals));
  const PageResult& p = recorder.pages[0];
  // The load set is the document (replayed end 470) plus the recorded tail of 50.
  CHECK(p.onload_ms == 470 + 50);
  CHECK(p.content_load_ms == 470 + 20);
  CHECK(p.recorded_onload_ms == 150);
  // The late image (offset 500, on the idle socket: 180 ms) ends after onLoad.
  CHECK(p.load_ms == 680);
  nlohmann::json j = p.ToJson();
  CHECK(j["onload_ms"] == 520.0);
  CHECK(j["recorded_onload_ms"] == 150.0);
  CHECK(j["content_load_ms"] == 490.0);
  CHECK(j["page_load_ms"] == 520.0);
  CHECK(j["page_load_metric"] == "onload");
  CHECK(j["load_ms"] == 680.0);
  CHECK(totals.pages_with_onload == 1);

  ReplaySummary summary;
  summary.OnPage(p);
  std::string text = summary.Format(totals, Config({}), -1, -1);
  CHECK(text.find("page load   median 520 ms, p90 520 ms (onLoad; 1 of 1 pages)") !=
        std::string::npos);
  CHECK(text.find("last end    median 680 ms") != std::string::npos);
  CHECK(summary.PageLoadJson()["metric"] == "onload");

  SECTION("without an onLoad: the last request's end, as before") {
    page->recorded_onload_ms = -1;
    Recorder plain;
    REQUIRE(Replay(Config({"placement=offset"}), {Navigate(page)}, &plain));
    nlohmann::json k = plain.pages[0].ToJson();
    CHECK(k["onload_ms"].is_null());
    CHECK(k["page_load_metric"] == "last_end");
    CHECK(k["page_load_ms"] == 680.0);
    ReplaySummary s;
    s.OnPage(plain.pages[0]);
    std::string t = s.Format(ReplayTotals(), Config({}), -1, -1);
    CHECK(t.find("page load   median 680 ms, p90 680 ms\n") != std::string::npos);
    CHECK(t.find("onLoad") == std::string::npos);
  }
}

TEST_CASE("A replay with failures, warm start and cold runs writes the same bytes twice",
          "[replay][warm-start][cold-runs]") {
  auto first = Page("run1", {MakeEntry("https://example.com/", 1000, 0, "document"),
                             Failed("https://other.example/x", 50, 20),
                             MakeEntry("https://cdn.example/a.js", 1000, 60)});
  first->entries[2].recorded_warm_connection = true;
  first->recorded_onload_ms = 300;
  auto second = std::make_shared<TracePage>(*first);
  second->id = "run2";
  second->new_run = true;
  std::vector<SessionEvent> events = {Navigate(first), test::Wait(), Navigate(second)};
  auto run = [&](const std::string& name) {
    ReplayEngine engine(Config({}));
    ReplayJsonWriter json;
    std::string path = TempPath(name), error;
    REQUIRE(json.Open(path, &error));
    engine.AddObserver(&json);
    test::VectorSource source(events);
    REQUIRE(engine.Run(&source, &error));
    REQUIRE(json.Close(&error));
    std::string bytes = ReadFile(path);
    std::remove(path.c_str());
    return bytes;
  };
  std::string a = run("a.jsonl");
  CHECK(a.find("\"recorded-failure\"") != std::string::npos);
  CHECK(a.find("\"warm_connections\":1") != std::string::npos);
  CHECK(a == run("b.jsonl"));
}

}  // namespace
}  // namespace netstack
