// `replay --sweep`'s pieces without a replay: the grid's parsing, expansion, bounds and
// messages, the flags' conflicts, and the table built from summary lines.
#include "tools/netstack/replay_sweep.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>

#include "tools/netstack/replay_options.h"
#include "tools/netstack/replay_sweep_table.h"

namespace netstack {
namespace {

std::string ParseError(const std::vector<std::string>& flags) {
  SweepGrid grid;
  std::string message;
  if (grid.Parse(flags, &message)) return "(parsed)";
  return message;
}

std::string ValidateError(const std::vector<std::string>& flags) {
  SweepGrid grid;
  std::string message;
  if (!grid.Parse(flags, &message)) return "(parse) " + message;
  if (grid.Validate(ReplayConfig(), &message)) return "(valid)";
  return message;
}

std::string OptionsError(const std::vector<std::string>& args) {
  ReplayOptions options;
  std::string message;
  if (ParseReplayArgs(args, &options, &message)) return "(valid)";
  return message;
}

TEST_CASE("sweep grid: the cartesian product, the first --sweep varying slowest",
          "[replay][sweep]") {
  SweepGrid grid;
  std::string message;
  REQUIRE(grid.Parse({"rtt_ms=20,80,160", " predictor = off, chrome ,learned"}, &message));
  REQUIRE(grid.size() == 9);
  REQUIRE(grid.axes().size() == 2);
  CHECK(grid.axes()[1].key == "predictor");
  CHECK(grid.Assignments(0) == std::vector<std::string>{"rtt_ms=20", "predictor=off"});
  CHECK(grid.Assignments(1) == std::vector<std::string>{"rtt_ms=20", "predictor=chrome"});
  CHECK(grid.Assignments(3) == std::vector<std::string>{"rtt_ms=80", "predictor=off"});
  CHECK(grid.Assignments(8) == std::vector<std::string>{"rtt_ms=160", "predictor=learned"});
  CHECK(grid.Values(5) == std::vector<std::string>{"80", "learned"});
  CHECK(grid.Describe(4) == "rtt_ms=80 predictor=chrome");
  REQUIRE(grid.Validate(ReplayConfig(), &message));

  // One value is a grid of one point; host keys and values with '=' pass through whole.
  REQUIRE(grid.Parse({"cdn.example.com:rtt_ms=10"}, &message));
  CHECK(grid.size() == 1);
  CHECK(grid.Assignments(0) == std::vector<std::string>{"cdn.example.com:rtt_ms=10"});
  // Exactly the bound is allowed.
  REQUIRE(grid.Parse({"rtt_ms=1,2,3,4,5,6,7,8,9,10", "dns_ms=1,2,3,4,5,6,7,8,9,10",
                      "server_ms=1,2,3,4,5,6,7,8,9,10"},
                     &message));
  CHECK(grid.size() == SweepGrid::kMaxPoints);
  CHECK(grid.Describe(999) == "rtt_ms=10 dns_ms=10 server_ms=10");
  CHECK(grid.Describe(123) == "rtt_ms=2 dns_ms=3 server_ms=4");
}

TEST_CASE("sweep grid: bad --sweep texts are one line naming the --sweep", "[replay][sweep]") {
  CHECK(ParseError({"rtt_ms"}) == "--sweep 'rtt_ms': not KEY=V1,V2,...");
  CHECK(ParseError({" =20"}) == "--sweep ' =20': empty key");
  CHECK(ParseError({"rtt_ms="}) == "--sweep 'rtt_ms=': value 1 is empty");
  CHECK(ParseError({"rtt_ms=20,,80"}) == "--sweep 'rtt_ms=20,,80': value 2 is empty");
  CHECK(ParseError({"rtt_ms=20,80,"}) == "--sweep 'rtt_ms=20,80,': value 3 is empty");
  CHECK(ParseError({"rtt_ms=20, 20"}) == "--sweep 'rtt_ms=20, 20': '20' is given twice");
  CHECK(ParseError({"rtt_ms=20,80", "RTT_MS=5"}) ==
        "--sweep 'RTT_MS=5': RTT_MS is already swept by --sweep 'rtt_ms=20,80'");
  CHECK(ParseError({"rtt_ms=20\t80"}) == "--sweep 'rtt_ms=20?80': a control character");
  std::string many = "rtt_ms=0";
  for (int i = 1; i <= 100; ++i) many += "," + std::to_string(i);
  CHECK(ParseError({many}).find("': more than 100 values") != std::string::npos);
  CHECK(ParseError({"rtt_ms=1,2,3,4,5,6,7,8,9,10", "dns_ms=1,2,3,4,5,6,7,8,9,10",
                    "server_ms=1,2,3,4,5,6,7,8,9,10", "cache=on,off"}) ==
        "--sweep 'cache=on,off': the grid would have 2,000 points or more, at most 1,000: "
        "sweep fewer values (or run the points as shards on a cluster)");
  std::vector<std::string> axes;
  for (int i = 0; i < 33; ++i) axes.push_back("h" + std::to_string(i) + ".example:rtt_ms=1");
  CHECK(ParseError(axes) == "--sweep: 33 given, at most 32 (one per key)");
  std::string huge = "rtt_ms=" + std::string(SweepGrid::kMaxFlagBytes, '1');
  CHECK(ParseError({huge}).find("': longer than 65,536 bytes") != std::string::npos);
  CHECK(ParseError({huge}).size() < 120);  // the text is echoed bounded
}

TEST_CASE("sweep grid: every value is applied to a copy of the configuration first",
          "[replay][sweep]") {
  CHECK(ValidateError({"rtt_ms=20,abc"}) ==
        "--sweep 'rtt_ms=20,abc': rtt_ms: 'abc' is not a number");
  CHECK(ValidateError({"rtt_ms=20", "predictor=off,psychic"})
            .rfind("--sweep 'predictor=off,psychic': ", 0) == 0);
  CHECK(ValidateError({"rtt_ms=20", "predictor=off,psychic"}).find("psychic", 33) !=
        std::string::npos);
  CHECK(ValidateError({"no_such_key=1"}) ==
        "--sweep 'no_such_key=1': unknown key 'no_such_key' (see docs/replay.md)");
  CHECK(ValidateError({"rtt_ms=-1"}) ==
        "--sweep 'rtt_ms=-1': rtt_ms: -1 is out of range (0..60000)");
  CHECK(ValidateError({"preset=desktop,3g,mars"})
            .rfind("--sweep 'preset=desktop,3g,mars': unknown preset 'mars'", 0) == 0);
  // The base configuration is the one --preset/--config/--set built.
  SweepGrid grid;
  std::string message;
  REQUIRE(grid.Parse({"rtt_ms=20,80"}, &message));
  ReplayConfig base;
  REQUIRE(base.Set("rtt_ms=300", &message));
  CHECK(grid.Validate(base, &message));
}

TEST_CASE("sweep options: what --sweep needs and what it refuses", "[replay][sweep]") {
  const std::string t = "t.jsonl";
  CHECK(OptionsError({t, "--sweep", "rtt_ms=20,80", "--sweep-dir", "d"}) == "(valid)");
  CHECK(OptionsError({t, "--sweep", "rtt_ms=20,80"}) ==
        "--sweep needs --sweep-dir DIR: each point's results and the table go there");
  CHECK(OptionsError({t, "--sweep-dir", "d"}) == "--sweep-dir needs --sweep KEY=V1,V2,...");
  CHECK(OptionsError(
            {t, "--sweep", "rtt_ms=20", "--sweep-dir", "d", "--compare", "a.conf", "desktop"})
            .find("--compare") != std::string::npos);
  CHECK(OptionsError(
            {t, "--sweep", "rtt_ms=20", "--sweep-dir", "d", "--compare", "rtt_ms=1", "rtt_ms=2"}) ==
        "--sweep conflicts with --compare: the sweep's table already sets its points side by "
        "side (sweep the compared key instead: --sweep KEY=A,B)");
  CHECK(OptionsError({t, "--sweep", "rtt_ms=20", "--sweep-dir", "d", "--json", "o.jsonl"}) ==
        "--sweep conflicts with --json: each point's --json lines go to DIR/NNN.jsonl and the "
        "table to DIR/sweep.json");
  CHECK(OptionsError({t, "--sweep", "rtt_ms=20", "--sweep-dir", "d", "--shard", "0/2"}) ==
        "--sweep conflicts with --shard: each point's table row would be one shard's (run a "
        "point's shards with its --set assignments, as netstack-dask --sweep does)");
  // --jobs applies to each point.
  CHECK(OptionsError({t, "--sweep", "rtt_ms=20", "--sweep-dir", "d", "--jobs", "2"}) == "(valid)");
  CHECK(OptionsError({t, "--sweep", "rtt_ms=20", "--sweep-dir", "d", "--netlog", "n.json"}) ==
        "--netlog follows one replay and a sweep runs many: replay the point you want alone "
        "with --set");
  CHECK(OptionsError({t, "--sweep", "rtt_ms=20", "--sweep-dir", "d", "--internals", "0"}) ==
        "--internals follows one replay and a sweep runs many: replay the point you want alone "
        "with --set");
  CHECK(OptionsError({"-", "--sweep", "rtt_ms=20", "--sweep-dir", "d"}) ==
        "--sweep replays its traces once per point: a session on stdin (-) is read once");
  CHECK(OptionsError({t, "--sweep", "rtt_ms=20", "--sweep-dir", "d", "--report", "x/r.html"}) ==
        "--report with --sweep names each point's file DIR/NNN.NAME: give a file name without "
        "a folder, not 'x/r.html'");
  CHECK(OptionsError({t, "--sweep", "rtt_ms=20", "--sweep-dir", "d", "--har", "/tmp/h.har"})
            .rfind("--har with --sweep names each point's file", 0) == 0);
  CHECK(OptionsError({t, "--sweep", "rtt_ms=20", "--sweep-dir", "d", "--har", "jsonl"}) ==
        "--har with --sweep: 'jsonl' would be each point's --json file");
  CHECK(OptionsError(
            {t, "--sweep", "rtt_ms=20", "--sweep-dir", "d", "--har", "x", "--report", "x"}) ==
        "--report and --har with --sweep need different names (DIR/NNN.NAME each)");
  CHECK(OptionsError({t, "--sweep", "seed=1,2", "--sweep-dir", "d", "--seed", "3"}) ==
        "--sweep 'seed=1,2' conflicts with --seed, which would override it");
  CHECK(OptionsError({t, "--sweep", "seed=1,2", "--sweep-dir", "d"}) == "(valid)");
  // Values are checked against what --preset, --config and --set built, before anything runs.
  CHECK(OptionsError({t, "--preset", "3g", "--sweep", "rtt_ms=20,x", "--sweep-dir", "d"}) ==
        "--sweep 'rtt_ms=20,x': rtt_ms: 'x' is not a number");
  CHECK(OptionsError({t, "--sweep", "rtt_ms=20", "--sweep", "rtt_ms=40", "--sweep-dir", "d"}) ==
        "--sweep 'rtt_ms=40': rtt_ms is already swept by --sweep 'rtt_ms=20'");
}

nlohmann::json Summary(double median, const std::string& policy) {
  nlohmann::json action = {{"taken", 4}, {"used", 2}, {"late", 1}, {"wasted", 1}};
  return {{"kind", "summary"},
          {"traces", {{{"path", "t.jsonl"}, {"config", {{"rtt_ms", 20}}}}}},
          {"config", {{"rtt_ms", 20}}},
          {"totals",
           {{"pages", 4},
            {"requests", 40},
            {"connect_wait_ms", 250.5},
            {"cache", {{"hits", 7}}},
            {"predictor",
             {{"policy", policy},
              {"stats", {{"preresolve", action}, {"preconnect", action}, {"fetch_ahead", action}}},
              {"tables", {{"referrers", nlohmann::json::array()}}}}}}},
          {"page_load",
           {{"median_ms", median}, {"p90_ms", 900.25}, {"mean_ms", 500}, {"metric", "last_end"}}}};
}

TEST_CASE("sweep table: each row is its point's summary line", "[replay][sweep]") {
  SweepRow a, b;
  std::string error;
  REQUIRE(SweepRowFromSummary(Summary(400, "off"), &a, &error));
  CHECK(a.pages == 4);
  CHECK(a.requests == 40);
  CHECK(a.median_ms == 400);
  CHECK(a.p90_ms == 900.25);
  CHECK(a.mean_ms == 500);
  CHECK(a.cache_hits == 7);
  CHECK(a.ConnectWaitPerPage() == 62.625);
  REQUIRE(SweepRowFromSummary(Summary(300, "chrome"), &b, &error));
  CHECK(b.predictor_used == 6);
  CHECK(b.predictor_wasted == 3);
  a.point = 0;
  a.values = {"20", "off"};
  a.files = {"000.jsonl"};
  b.point = 1;
  b.values = {"20", "chrome"};
  b.files = {"001.jsonl"};
  SweepTable table({"rtt_ms", "predictor"});
  table.Add(a);
  table.Add(b);
  CHECK(table.MedianRatio(1) == 0.75);
  CHECK(table.FormatTsv() ==
        "point\trtt_ms\tpredictor\tpages\trequests\tpage_load_median_ms\tpage_load_p90_ms\t"
        "page_load_mean_ms\tpage_load_metric\tconnect_wait_ms_per_page\tcache_hits\tpredictor\t"
        "predictor_used\tpredictor_wasted\tmedian_ratio\tfile\n"
        "0\t20\toff\t4\t40\t400.0\t900.25\t500.0\tlast_end\t62.625\t7\toff\t\t\t1.0\t000.jsonl\n"
        "1\t20\tchrome\t4\t40\t300.0\t900.25\t500.0\tlast_end\t62.625\t7\tchrome\t6\t3\t0.75\t"
        "001.jsonl\n");
  std::string text = table.FormatText();
  INFO(text);
  CHECK(text.rfind("point  rtt_ms  predictor  pages  requests  load median     p90    mean", 0) ==
        0);
  CHECK(text.find("\n    0  20      off            4        40       400 ms  900 ms  500 ms") !=
        std::string::npos);
  CHECK(text.find("0.75x\n") != std::string::npos);
  nlohmann::json j = table.ToJson();
  CHECK(j["kind"] == "sweep");
  CHECK(j["points"][0]["predictor"].is_null());
  CHECK(j["points"][1]["predictor"]["used"] == 6);
  CHECK(j["points"][1]["set"] == nlohmann::json{"rtt_ms=20", "predictor=chrome"});
  CHECK(j["points"][1]["median_ratio"] == 0.75);

  // A first point with a median of 0 has no ratio; a point without pages no wait per page.
  SweepTable zero({"rtt_ms"});
  SweepRow z;
  REQUIRE(SweepRowFromSummary(Summary(0, "off"), &z, &error));
  z.pages = 0;
  zero.Add(z);
  CHECK(!zero.MedianRatio(0));
  CHECK(zero.ToJson()["points"][0]["median_ratio"].is_null());
  CHECK(zero.ToJson()["points"][0]["connect_wait_ms_per_page"].is_null());

  nlohmann::json broken = Summary(1, "off");
  broken["totals"].erase("requests");
  CHECK(!SweepRowFromSummary(broken, &z, &error));
  CHECK(error == "no count totals.requests");
  broken = Summary(1, "off");
  broken["page_load"]["median_ms"] = "fast";
  CHECK(!SweepRowFromSummary(broken, &z, &error));
  CHECK(error == "no number page_load.median_ms");
  CHECK(!SweepRowFromSummary({{"kind", "page"}}, &z, &error));
  CHECK(error == "not a replay summary line");
}

TEST_CASE("sweep table: the summary is the --json file's last line", "[replay][sweep]") {
  std::string path = "/tmp/replay_sweep_test_" + std::to_string(::getpid()) + ".jsonl";
  auto write = [&](const std::string& text) { std::ofstream(path, std::ios::binary) << text; };
  SweepRow row;
  std::string error;
  write("{\"kind\": \"page\"}\n" + Summary(400, "off").dump() + "\n");
  REQUIRE(ReadSweepRow(path, &row, &error));
  CHECK(row.median_ms == 400);
  write(Summary(300, "off").dump());  // no final newline, one line
  REQUIRE(ReadSweepRow(path, &row, &error));
  CHECK(row.median_ms == 300);
  // A line longer than the reader's 64 KiB chunks.
  nlohmann::json long_summary = Summary(200, "off");
  long_summary["traces"][0]["path"] = std::string(200000, 'x');
  write("{\"kind\": \"page\"}\n" + long_summary.dump() + "\n");
  REQUIRE(ReadSweepRow(path, &row, &error));
  CHECK(row.median_ms == 200);
  write("{\"kind\": \"request\"}\n{\"kind\": \"page\"}\n");
  CHECK(!ReadSweepRow(path, &row, &error));
  CHECK(error == path + ": its last line: not a replay summary line");
  write("{\"kind\": \"request\"}\n{\"kind\": \"pa");
  CHECK(!ReadSweepRow(path, &row, &error));
  CHECK(error == path + ": its last line is not JSON (the replay did not finish)");
  write("");
  CHECK(!ReadSweepRow(path, &row, &error));
  CHECK(error == path + ": its last line is not JSON (the replay did not finish)");
  std::remove(path.c_str());
  CHECK(!ReadSweepRow(path, &row, &error));
  CHECK(error == path + ": cannot open: No such file or directory");
}

}  // namespace
}  // namespace netstack
