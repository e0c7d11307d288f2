// The outputs' formats: --json objects, the terminal summary, the distribution behind its
// quantiles, the progress line, the JSON Lines writer.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "net/http/request_record_json.h"
#include "tools/replay/report/replay_json_writer.h"
#include "tools/replay/report/replay_progress.h"
#include "tools/replay/report/replay_summary.h"

namespace netstack {
namespace {

TEST_CASE("a replay's request record carries the documented schema", "[replay][output]") {
  const TimeTicks page_start = TimeTicks(TimeDelta(1'000'000));
  RequestRecord r;
  r.url = "https://a.example/x.js";
  r.method = "GET";
  r.status = 200;
  r.cache = CacheDisposition::kMiss;
  r.body_bytes = r.transfer_bytes = 1234;
  r.start = page_start + Milliseconds(10);
  r.end = page_start + TimeDelta(480'000);
  r.phases.dns_ms = 50;
  r.phases.connect_ms = 80;
  r.phases.tls_ms = 160;
  r.connection.socket_id = 3;
  r.connection.socket_source = SocketSource::kNew;
  r.placement = RequestPlacement{"script", MEDIUM, page_start};
  r.entry = ReplayEntryRef{2, 5, "a.example"};
  r.model = RequestModel{40, 100, 40, 12.5, -1};
  nlohmann::json j = RequestRecordToJson(r);
  CHECK(j["kind"] == "request");
  CHECK(j["page"] == 2);
  CHECK(j["entry"] == 5);
  CHECK(j["host"] == "a.example");
  CHECK(j["type"] == "script");
  CHECK(j["priority"] == "MEDIUM");
  CHECK(j["error"].is_null());
  CHECK(j["timing"]["total_ms"] == 470.0);
  CHECK(j["start_ms"] == 10.0);
  CHECK(j["end_ms"] == 480.0);
  CHECK(j["timing"]["dns_ms"] == 50.0);
  CHECK(j["model"]["request_ms"] == 40.0);
  CHECK(j["bytes"] == 1234);
  CHECK(j["transfer_bytes"] == 1234);
  CHECK(j["socket"]["id"] == 3);
  CHECK(j["socket"]["reused"] == false);
  CHECK(j["socket"]["source"] == "new");
  CHECK(j["model"]["recorded"]["start_ms"] == 12.5);
  CHECK(j["model"]["recorded"]["end_ms"].is_null());
  r.error = ERR_TIMED_OUT;
  r.error_message = ErrorToMessage(ERR_TIMED_OUT);
  CHECK(RequestRecordToJson(r)["error_code"] == "ERR_TIMED_OUT");
  CHECK(RequestRecordToJson(r)["error"] == ErrorToMessage(ERR_TIMED_OUT));
}

TEST_CASE("PageResult and ReplayTotals serialize and add up", "[replay][output]") {
  PageResult p;
  p.page_index = 1;
  p.url = "https://a.example/";
  p.load_ms = 1234.5;
  p.requests = 10;
  p.sockets_opened = 2;
  nlohmann::json j = p.ToJson();
  CHECK(j["kind"] == "page");
  CHECK(j["load_ms"] == 1234.5);
  CHECK(j["recorded_load_ms"].is_null());
  CHECK(j["sockets"]["opened"] == 2);
  ReplayTotals a, b;
  a.requests = 3;
  a.dns_ms = 1.5;
  b.requests = 4;
  b.dns_ms = 2;
  b.virtual_ms = 10;
  a.Add(b);
  CHECK(a.requests == 7);
  CHECK(a.dns_ms == 3.5);
  CHECK(a.ToJson()["virtual_ms"] == 10.0);
}

TEST_CASE("Distribution quantiles: exact, then from the histogram", "[replay][output]") {
  Distribution exact;
  for (double v : {5.0, 1.0, 3.0, 2.0, 4.0}) exact.Add(v);
  CHECK(exact.Quantile(0.5) == 3);
  CHECK(exact.Quantile(0.9) == Approx(4.6));
  CHECK(exact.mean() == 3);
  Distribution small(4);
  for (int i = 1; i <= 1000; ++i) small.Add(i);  // past 4 values: histogram of 1 ms buckets
  CHECK(small.count() == 1000);
  CHECK(small.Quantile(0.5) == Approx(500.5));
  CHECK(small.Quantile(0.9) == Approx(900.5));
  Distribution empty;
  CHECK(empty.Quantile(0.5) == 0);
}

TEST_CASE("Distribution holds a bounded number of slots however many values it gets",
          "[replay][output][soak]") {
  Distribution d;
  size_t bound = std::max(Distribution::kDefaultExactLimit, Distribution::kHistogramBuckets);
  for (size_t i = 0; i < Distribution::kDefaultExactLimit; ++i) d.Add(static_cast<double>(i % 997));
  CHECK(d.slots() == Distribution::kDefaultExactLimit);  // exact, not doubled past the limit
  d.Add(1);
  size_t after_switch = d.slots();
  CHECK(after_switch == Distribution::kHistogramBuckets);
  for (int i = 0; i < 1'000'000; ++i) d.Add(static_cast<double>(i % 200'000) * 0.37);
  CHECK(d.slots() == after_switch);
  CHECK(d.slots() <= bound);
  CHECK(d.count() == Distribution::kDefaultExactLimit + 1 + 1'000'000);
}

TEST_CASE("ReplaySummary prints pages up to its bound, then the totals", "[replay][output]") {
  ReplaySummary summary(2);
  for (int i = 0; i < 5; ++i) {
    PageResult p;
    p.page_index = static_cast<uint64_t>(i);
    p.url = "https://site.example/\x1b[31mpage" + std::to_string(i);
    p.load_ms = 100.0 * (i + 1);
    p.requests = 3;
    summary.OnPage(p);
  }
  ReplayTotals t;
  t.pages = 5;
  t.requests = 15;
  t.failed = 1;
  t.sockets_opened = 4;
  t.sockets_reused = 11;
  t.cache_hits = 2;
  t.dns_ms = 100;
  t.ttfb_ms = 300;
  t.virtual_ms = 12345;
  t.scheduler_tasks = 2500;
  ReplayConfig config;
  std::string text = summary.Format(t, config, 0.5, 0.25);
  // 0.25 s of CPU over 2,500 events.
  CHECK(text.find("events      2,500 simulated (scheduler tasks), 100000 ns of cpu per event") !=
        std::string::npos);
  CHECK(text.find("https://site.example/?[31mpage0") != std::string::npos);  // no escape byte
  CHECK(text.find("page4") == std::string::npos);
  CHECK(text.find("... 3 more pages") != std::string::npos);
  CHECK(text.find("5 pages, 15 requests, 1 failed") != std::string::npos);
  CHECK(text.find("median 300 ms, p90 460 ms") != std::string::npos);
  CHECK(text.find("dns 100 ms (25%)") != std::string::npos);
  CHECK(text.find("waiting 300 ms (75%)") != std::string::npos);
  CHECK(text.find("4 opened, 11 reused") != std::string::npos);
  CHECK(text.find("2 hits") != std::string::npos);
  CHECK(text.find("network     rtt 40 ms") != std::string::npos);
  CHECK(text.find("virtual 12.3 s, wall 0.50 s, cpu 0.25 s (60 requests per cpu-second)") !=
        std::string::npos);
  nlohmann::json loads = summary.PageLoadJson();
  CHECK(loads["median_ms"] == 300.0);
  CHECK(text.find("skipped") == std::string::npos);  // nothing skipped, nothing said
}

TEST_CASE("ReplaySummary says how many entries were skipped and why", "[replay][output]") {
  ReplaySummary summary(0);
  ReplayTotals t;
  t.pages = 1;
  t.requests = 2;
  t.skipped = 4;
  t.skipped_not_http = 1;
  t.skipped_invalid_url = 2;
  t.first_invalid_url = "a.har: log.entries[3].request.url: invalid URL \"http://a\x01\"";
  ReplayConfig config;
  std::string text = summary.Format(t, config, -1, -1);
  CHECK(text.find("1 pages, 2 requests, 0 failed, 4 skipped (1 no response recorded, 1 not "
                  "http(s), 2 invalid URL)") != std::string::npos);
  CHECK(text.find("  skipped     first invalid URL: a.har: log.entries[3].request.url: invalid "
                  "URL \"http://a?\"\n") != std::string::npos);
  t.skipped = 1;
  t.skipped_not_http = 1;
  t.skipped_invalid_url = 0;
  t.first_invalid_url.clear();
  text = summary.Format(t, config, -1, -1);
  CHECK(text.find("0 failed, 1 skipped (1 not http(s))\n") != std::string::npos);
  CHECK(text.find("first invalid URL") == std::string::npos);
}

TEST_CASE("FormatDuration and FormatThousands", "[replay][output]") {
  CHECK(FormatThousands(0) == "0");
  CHECK(FormatThousands(1234567) == "1,234,567");
  CHECK(FormatDuration(470) == "470 ms");
  CHECK(FormatDuration(1234.4) == "1,234 ms");
  CHECK(FormatDuration(2.5) == "2.5 ms");
  CHECK(FormatDuration(-20) == "-20 ms");
  CHECK(FormatDuration(12345) == "12.3 s");
  CHECK(FormatDuration(314'992'900) == "314,993 s");
}

TEST_CASE("ReplayProgress writes a rewritten line and ends it", "[replay][output]") {
  CHECK(ReplayProgress::Line("A", 1000, 3, 2500, 0.5) ==
        "A: 1,000 requests, 3 pages, 2,500 ms virtual, 2,000 requests/s");
  char* buffer = nullptr;
  size_t size = 0;
  FILE* f = open_memstream(&buffer, &size);
  {
    ReplayProgress progress(f, true);
    ReplayTotals t;
    t.requests = 10;
    progress.Update(t, ReplayTotals{}, "x");
    progress.Update(t, ReplayTotals{}, "x");  // within the interval: not printed
    progress.Finish();
  }
  std::fclose(f);
  std::string out(buffer, size);
  free(buffer);
  CHECK(out.rfind("\rx: 10 requests", 0) == 0);
  CHECK(out.back() == '\n');
  CHECK(std::count(out.begin(), out.end(), '\r') == 1);

  buffer = nullptr;
  f = open_memstream(&buffer, &size);
  {
    ReplayProgress quiet(f, false);
    quiet.Update(ReplayTotals{}, ReplayTotals{}, "x");
    quiet.Finish();
  }
  std::fclose(f);
  CHECK(size == 0);
  free(buffer);
}

TEST_CASE("ReplayJsonWriter writes one object per line, with the run label", "[replay][output]") {
  std::string path = "/tmp/replay_output_test_" + std::to_string(::getpid()) + ".jsonl";
  ReplayJsonWriter writer;
  std::string error;
  REQUIRE(writer.Open(path, &error));
  RequestRecord r;
  r.url = "https://a/";
  r.placement = RequestPlacement();  // a replay's records always have one
  writer.OnRequest(r);
  writer.SetRunLabel("b");
  PageResult p;
  writer.OnPage(p);
  writer.WriteLine({{"kind", "summary"}});
  REQUIRE(writer.Close(&error));
  std::ifstream in(path);
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  REQUIRE(lines.size() == 3);
  CHECK(lines[0]["kind"] == "request");
  CHECK_FALSE(lines[0].contains("run"));
  CHECK(lines[1]["kind"] == "page");
  CHECK(lines[1]["run"] == "b");
  CHECK(lines[2]["kind"] == "summary");
  std::remove(path.c_str());

  ReplayJsonWriter bad;
  CHECK_FALSE(bad.Open("/nonexistent-dir/x.jsonl", &error));
  CHECK(error == "cannot write /nonexistent-dir/x.jsonl: No such file or directory");
}

}  // namespace
}  // namespace netstack
