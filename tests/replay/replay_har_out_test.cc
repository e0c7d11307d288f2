// `replay --har`'s writer (tools/replay/report/replay_har_writer.h) over whole replays: the HAR a
// replay writes reads back with netstack's HAR reader and replays again with the same pages,
// the same requests and the same statuses, nothing skipped; its dates follow the replay's
// virtual clock (the recording's start), so two runs write the same bytes; initiators name the
// entry that revealed a request; --compare's runs are told apart by their page ids.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/replay/replay_test_util.h"
#include "tests/test_skip.h"
#include "tools/replay/replay_engine.h"
#include "tools/replay/report/replay_har_writer.h"
#include "tools/replay/trace/har_reader.h"
#include "tools/replay/trace/session_reader.h"

namespace netstack {
namespace {

std::vector<std::string> HarFiles() { return test::FilesIn(NETSTACK_TRACES_DIR "/har", ".har"); }

// What one replay did, per page: its requests' (URL, status), sorted.
struct Replayed {
  std::vector<std::vector<std::pair<std::string, int>>> pages;
  // failed: requests the replay itself failed (not the recording's own failures, which replay
  // as recorded: recorded_failures).
  uint64_t requests = 0, failed = 0, recorded_failures = 0;
  std::string har;  // what ReplayHarWriter wrote
};

class Collector : public ReplayObserver {
 public:
  explicit Collector(Replayed* out) : out_(out) {}
  void OnRequest(const RequestRecord& r) override {
    current_[r.entry->page].emplace_back(r.url, r.status);
  }
  void OnPage(const PageResult& page) override {
    auto& list = current_[page.page_index];
    std::sort(list.begin(), list.end());
    out_->pages.push_back(std::move(list));
    current_.erase(page.page_index);
  }

 private:
  Replayed* out_;
  std::map<uint64_t, std::vector<std::pair<std::string, int>>> current_;
};

Replayed Replay(std::unique_ptr<TraceSource> source, const std::string& label = "") {
  Replayed out;
  ReplayConfig config;
  ReplayEngine engine(config);
  Collector collector(&out);
  ReplayHarWriter har("test", [&out](std::string_view text) { out.har += text; });
  har.SetRunLabel(label);
  engine.AddObserver(&collector);
  engine.AddObserver(&har);
  std::string error;
  bool ok = engine.Run(source.get(), &error);
  INFO(error);
  REQUIRE(ok);
  har.Finish();
  CHECK_FALSE(har.overflowed());
  out.requests = engine.totals().requests;
  out.failed = engine.totals().failed - engine.totals().recorded_failures;
  out.recorded_failures = engine.totals().recorded_failures;
  return out;
}

TEST_CASE("replay --har: what a replay writes replays again the same", "[replay][har]") {
  std::vector<std::string> files = HarFiles();
  if (files.empty()) SKIP_TEST_ALWAYS("no HAR files in " NETSTACK_TRACES_DIR "/har");
  for (const std::string& path : files) {
    INFO(path);
    std::string error;
    std::unique_ptr<TraceSource> source = OpenTrace(path, &error);
    INFO(error);
    REQUIRE(source);
    Replayed first = Replay(std::move(source));
    // Deterministic: a second run writes the same bytes.
    CHECK(Replay(OpenTrace(path, &error)).har == first.har);

    // Valid JSON with every page and every request; netstack's reader takes it whole.
    nlohmann::json har = nlohmann::json::parse(first.har);
    CHECK(har["log"]["pages"].size() == first.pages.size());
    CHECK(har["log"]["entries"].size() == first.requests);
    HarFile read;
    REQUIRE(ParseHar(first.har, "written.har", &read, &error));
    REQUIRE(read.pages.size() == first.pages.size());
    for (const TracePage& page : read.pages) CHECK(page.skipped_entries == 0);

    // Replayed again: the same pages, requests and statuses.
    REQUIRE(first.failed == 0);
    Replayed second = Replay(MakeHarSource(std::move(read), "written.har"));
    CHECK(second.requests == first.requests);
    CHECK(second.failed == 0);
    CHECK(second.recorded_failures == first.recorded_failures);
    CHECK(second.pages == first.pages);
  }
}

// One page on two hosts: the document reveals a script that reveals an image.
const char kHar[] = R"({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"},
  "pages": [{"id": "p", "title": "t", "startedDateTime": "2024-03-01T10:00:00.000Z",
             "pageTimings": {"onLoad": 300}}],
  "entries": [
    {"pageref": "p", "startedDateTime": "2024-03-01T10:00:00.000Z", "time": 100,
     "request": {"method": "GET", "url": "https://a.test/", "headers": []},
     "response": {"status": 200, "headers": [], "content": {"size": 1000}, "bodySize": 1000},
     "timings": {"dns": 10, "connect": 20, "ssl": 10, "send": 0, "wait": 60, "receive": 10}},
    {"pageref": "p", "startedDateTime": "2024-03-01T10:00:00.110Z", "time": 50,
     "request": {"method": "GET", "url": "https://b.test/app.js", "headers": []},
     "response": {"status": 200, "headers": [], "content": {"size": 500}, "bodySize": 500},
     "_resourceType": "script", "_initiator": {"type": "parser", "url": "https://a.test/"},
     "timings": {"dns": 5, "connect": 10, "send": 0, "wait": 30, "receive": 5}},
    {"pageref": "p", "startedDateTime": "2024-03-01T10:00:00.170Z", "time": 20,
     "request": {"method": "GET", "url": "https://b.test/i.png", "headers": []},
     "response": {"status": 404, "headers": [], "content": {"size": 10}, "bodySize": 10},
     "_resourceType": "image", "_initiator": {"type": "script", "url": "https://b.test/app.js"},
     "timings": {"send": 0, "wait": 15, "receive": 5}}]}})";

TEST_CASE("replay --har: dates on the virtual clock, initiators, model timings", "[replay][har]") {
  HarFile har;
  std::string error;
  REQUIRE(ParseHar(kHar, "t.har", &har, &error));
  Replayed run = Replay(MakeHarSource(std::move(har), "t.har"));
  nlohmann::json out = nlohmann::json::parse(run.har);
  const nlohmann::json& pages = out["log"]["pages"];
  REQUIRE(pages.size() == 1);
  CHECK(pages[0]["id"] == "page_1");
  CHECK(pages[0]["title"] == "https://a.test/");
  // The replay's wall clock starts at the recording's start.
  CHECK(pages[0]["startedDateTime"] == "2024-03-01T10:00:00.000Z");
  const nlohmann::json& entries = out["log"]["entries"];
  REQUIRE(entries.size() == 3);
  CHECK(entries[0]["startedDateTime"] == "2024-03-01T10:00:00.000Z");
  CHECK(entries[0]["_initiator"]["type"] == "other");
  CHECK(entries[1]["_initiator"] == nlohmann::json{{"type", "parser"}, {"url", "https://a.test/"}});
  CHECK(entries[2]["_initiator"] ==
        nlohmann::json{{"type", "script"}, {"url", "https://b.test/app.js"}});
  CHECK(entries[2]["response"]["status"] == 404);
  for (const nlohmann::json& e : entries) {
    INFO(e.dump());
    CHECK(e["pageref"] == "page_1");
    // The model's timings: a new connection's setup on each host's first request, and time
    // the sum of the phases.
    double sum = 0;
    for (const char* k : {"blocked", "dns", "connect", "send", "wait", "receive"}) {
      double v = e["timings"][k].get<double>();
      CHECK(v >= -1);
      if (v > 0) sum += v;
    }
    CHECK(e["time"].get<double>() == Approx(sum).margin(0.01));
    CHECK(e["timings"]["wait"].get<double>() > 0);
  }
  CHECK(entries[0]["timings"]["connect"].get<double>() > 0);
  CHECK(entries[0]["timings"]["ssl"].get<double>() > 0);
  CHECK(entries[0]["connection"].is_string());
  // Later entries start later on the same clock.
  CHECK(entries[1]["startedDateTime"].get<std::string>() >
        entries[0]["startedDateTime"].get<std::string>());
}

TEST_CASE("replay --har: a run label suffixes the page ids (compare's a and b)", "[replay][har]") {
  HarFile har;
  std::string error;
  REQUIRE(ParseHar(kHar, "t.har", &har, &error));
  Replayed run = Replay(MakeHarSource(std::move(har), "t.har"), "b");
  nlohmann::json out = nlohmann::json::parse(run.har);
  CHECK(out["log"]["pages"][0]["id"] == "page_1-b");
  CHECK(out["log"]["entries"][0]["pageref"] == "page_1-b");
}

}  // namespace
}  // namespace netstack
