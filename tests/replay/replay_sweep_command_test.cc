// `netstack replay --sweep` as users run it: the per-point files against separate replays of
// the same points (byte for byte), the table against each point's summary line, bad inputs
// (exit 2, one line, nothing left behind), and the built binary stopped by a failing point and
// by Ctrl-C.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

#include "tests/replay/replay_command_run.h"
#include "tests/replay/replay_test_util.h"
#include "tools/replay/gen/synthetic_session.h"
#include "tools/replay/report/replay_summary.h"

namespace netstack {
namespace {

using test::ReplayCommandRun;
using test::RunReplayCommandLine;

std::string Temp(const std::string& name) {
  return "/tmp/replay_sweep_command_test_" + std::to_string(::getpid()) + "_" + name;
}

std::string Write(const std::string& name, const std::string& text) {
  std::string path = Temp(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string ReadFile(const std::string& path) { return test::ReadWholeFile(path); }

// A session with the user events the predictor acts on: `pages` navigations.
std::string Session(const std::string& name, uint64_t pages) {
  SyntheticSessionOptions options;
  options.seed = 7;
  options.pages = pages;
  options.sites = 4;
  options.pages_per_site = 4;
  return Write(name, test::Generate(options));
}

// The names in `dir` (without "." and ".."), sorted.
std::vector<std::string> List(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const struct dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

void RemoveTree(const std::string& dir) {
  for (const std::string& name : List(dir)) {
    std::string path = dir + "/" + name;
    if (::unlink(path.c_str()) != 0) ::rmdir(path.c_str());
  }
  ::rmdir(dir.c_str());
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

nlohmann::json LastLine(const std::string& path) {
  std::istringstream in(ReadFile(path));
  std::string line, last;
  while (std::getline(in, line)) last = line;
  return nlohmann::json::parse(last, nullptr, false);
}

std::vector<std::vector<std::string>> Tsv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(ReadFile(path));
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    size_t at = 0;
    while (true) {
      size_t tab = line.find('\t', at);
      cells.push_back(line.substr(at, tab - at));
      if (tab == std::string::npos) break;
      at = tab + 1;
    }
    rows.push_back(cells);
  }
  return rows;
}

std::string PointName(size_t i) {
  char name[24];
  std::snprintf(name, sizeof(name), "%03zu", i);
  return name;
}

TEST_CASE("replay --sweep: each point's files are those of a separate replay of that point",
          "[replay][sweep][command]") {
  std::string session = Session("same.jsonl", 8);
  std::string dir = Temp("same.d");
  RemoveTree(dir);
  // The base options set rtt_ms too: each point's value is applied after them and wins.
  const std::vector<std::string> base = {session,      "--preset", "slow-4g",   "--set",
                                         "cache_mb=5", "--set",    "rtt_ms=300"};
  std::vector<std::string> args = base;
  for (const char* a : {"--sweep", "rtt_ms=20,80", "--sweep", "predictor=off,chrome", "--sweep-dir",
                        "", "--report", "r.html", "--har", "h.har"})
    args.push_back(a);
  args[args.size() - 5] = dir;
  ReplayCommandRun sweep = RunReplayCommandLine(args);
  INFO(sweep.err);
  REQUIRE(sweep.code == 0);
  CHECK(sweep.err.empty());
  CHECK(List(dir) == std::vector<std::string>{"000.h.har", "000.jsonl", "000.r.html", "001.h.har",
                                              "001.jsonl", "001.r.html", "002.h.har", "002.jsonl",
                                              "002.r.html", "003.h.har", "003.jsonl", "003.r.html",
                                              "sweep.json", "sweep.tsv"});
  const char* points[][2] = {{"20", "off"}, {"20", "chrome"}, {"80", "off"}, {"80", "chrome"}};
  for (size_t i = 0; i < 4; ++i) {
    std::string json = Temp("alone.jsonl"), har = Temp("alone.har"), report = Temp("alone.html");
    std::vector<std::string> alone = base;
    for (const std::string& a :
         {std::string("--set"), "rtt_ms=" + std::string(points[i][0]), std::string("--set"),
          "predictor=" + std::string(points[i][1]), std::string("--json"), json,
          std::string("--har"), har, std::string("--report"), report})
      alone.push_back(a);
    ReplayCommandRun run = RunReplayCommandLine(alone);
    REQUIRE(run.code == 0);
    INFO("point " << i);
    std::string point_json = ReadFile(dir + "/" + PointName(i) + ".jsonl");
    CHECK(!point_json.empty());
    CHECK(point_json == ReadFile(json));
    CHECK(ReadFile(dir + "/" + PointName(i) + ".h.har") == ReadFile(har));
    CHECK(ReadFile(dir + "/" + PointName(i) + ".r.html") == ReadFile(report));
    nlohmann::json summary = LastLine(json);
    CHECK(summary["config"]["network"]["rtt_ms"] == std::stod(points[i][0]));
    CHECK(summary["config"]["predictor"] == points[i][1]);
    std::remove(json.c_str());
    std::remove(har.c_str());
    std::remove(report.c_str());
  }
  RemoveTree(dir);
  std::remove(session.c_str());
}

TEST_CASE("replay --sweep: the table's figures are each point's summary line",
          "[replay][sweep][command]") {
  std::string session = Session("table.jsonl", 10);
  std::string dir = Temp("table.d");
  RemoveTree(dir);
  ReplayCommandRun run = RunReplayCommandLine({session, "--sweep", "rtt_ms=20,160", "--sweep",
                                               "predictor=off,learned", "--sweep-dir", dir});
  INFO(run.err);
  REQUIRE(run.code == 0);
  nlohmann::json table = nlohmann::json::parse(ReadFile(dir + "/sweep.json"));
  std::vector<std::vector<std::string>> tsv = Tsv(dir + "/sweep.tsv");
  REQUIRE(table["points"].size() == 4);
  REQUIRE(tsv.size() == 5);
  CHECK(table["keys"] == nlohmann::json{"rtt_ms", "predictor"});
  CHECK(tsv[0][1] == "rtt_ms");
  CHECK(tsv[0][2] == "predictor");
  double first_median = 0;
  bool medians_differ = false;
  for (size_t i = 0; i < 4; ++i) {
    INFO("point " << i);
    nlohmann::json s = LastLine(dir + "/" + PointName(i) + ".jsonl");
    REQUIRE(s["kind"] == "summary");
    const nlohmann::json& p = table["points"][i];
    const nlohmann::json& totals = s["totals"];
    double median = s["page_load"]["median_ms"];
    if (i == 0) first_median = median;
    medians_differ = medians_differ || median != first_median;
    uint64_t pages = totals["pages"];
    CHECK(pages == 10);
    CHECK(p["pages"] == totals["pages"]);
    CHECK(p["requests"] == totals["requests"]);
    CHECK(p["page_load"]["median_ms"] == s["page_load"]["median_ms"]);
    CHECK(p["page_load"]["p90_ms"] == s["page_load"]["p90_ms"]);
    CHECK(p["page_load"]["mean_ms"] == s["page_load"]["mean_ms"]);
    CHECK(p["page_load"]["metric"] == s["page_load"]["metric"]);
    CHECK(p["cache_hits"] == totals["cache"]["hits"]);
    double wait = totals["connect_wait_ms"];
    CHECK(p["connect_wait_ms_per_page"] ==
          std::round(wait / static_cast<double>(pages) * 1000) / 1000);
    CHECK(p["median_ratio"] == std::round(median / first_median * 1e6) / 1e6);
    const nlohmann::json& stats = totals["predictor"]["stats"];
    uint64_t used = 0, wasted = 0;
    for (const char* action : {"preresolve", "preconnect", "fetch_ahead"}) {
      used += stats[action]["used"].get<uint64_t>();
      wasted += stats[action]["wasted"].get<uint64_t>();
    }
    if (totals["predictor"]["policy"] == "off") {
      CHECK(p["predictor"].is_null());
      CHECK(tsv[i + 1][12].empty());
    } else {
      CHECK(p["predictor"]["used"] == used);
      CHECK(p["predictor"]["wasted"] == wasted);
      CHECK(tsv[i + 1][12] == std::to_string(used));
      CHECK(tsv[i + 1][13] == std::to_string(wasted));
    }
    // sweep.tsv: the same numbers as text; the terminal table: as the summary prints them.
    CHECK(tsv[i + 1][0] == std::to_string(i));
    CHECK(tsv[i + 1][3] == totals["pages"].dump());
    CHECK(tsv[i + 1][4] == totals["requests"].dump());
    CHECK(tsv[i + 1][5] == s["page_load"]["median_ms"].dump());
    CHECK(tsv[i + 1][6] == s["page_load"]["p90_ms"].dump());
    CHECK(tsv[i + 1][10] == totals["cache"]["hits"].dump());
    CHECK(tsv[i + 1][15] == PointName(i) + ".jsonl");
    std::regex row("\n +" + std::to_string(i) + " +" + tsv[i + 1][1] + " +" + tsv[i + 1][2] +
                   " +10 +" + FormatThousands(totals["requests"]) + " +" + FormatDuration(median) +
                   " +" + FormatDuration(s["page_load"]["p90_ms"]) + " +" +
                   FormatDuration(s["page_load"]["mean_ms"]) + " ");
    CHECK(std::regex_search(run.out, row));
  }
  CHECK(medians_differ);  // the grid moved the figures: the columns are not all one point's
  RemoveTree(dir);
  std::remove(session.c_str());
}

TEST_CASE("replay --sweep: bad inputs exit 2 with one line and leave nothing behind",
          "[replay][sweep][command]") {
  std::string session = Session("bad.jsonl", 2);
  std::string dir = Temp("bad.d");
  RemoveTree(dir);
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const std::vector<Case> cases = {
      {{session, "--sweep", "rtt_ms=20,abc", "--sweep-dir", dir},
       "netstack: --sweep 'rtt_ms=20,abc': rtt_ms: 'abc' is not a number\n"},
      {{session, "--sweep", "rtt_ms=20,20", "--sweep-dir", dir},
       "netstack: --sweep 'rtt_ms=20,20': '20' is given twice\n"},
      {{session, "--sweep", "rtt_ms=20", "--sweep", "rtt_ms=40", "--sweep-dir", dir},
       "netstack: --sweep 'rtt_ms=40': rtt_ms is already swept by --sweep 'rtt_ms=20'\n"},
      {{session, "--sweep", "rtt_ms", "--sweep-dir", dir},
       "netstack: --sweep 'rtt_ms': not KEY=V1,V2,...\n"},
      {{session, "--sweep", "rtt_ms=20"},
       "netstack: --sweep needs --sweep-dir DIR: each point's results and the table go there\n"},
      {{session, "--sweep", "rtt_ms=20", "--sweep-dir", dir, "--json", "x.jsonl"},
       "netstack: --sweep conflicts with --json: each point's --json lines go to DIR/NNN.jsonl "
       "and the table to DIR/sweep.json\n"},
      {{Temp("missing.jsonl"), "--sweep", "rtt_ms=20,80", "--sweep-dir", dir},
       "netstack: sweep point 0 of 2 (rtt_ms=20): " + Temp("missing.jsonl") +
           ": cannot open: No such file or directory\n"},
  };
  for (const Case& c : cases) {
    ReplayCommandRun run = RunReplayCommandLine(c.args);
    INFO(c.args[2]);
    CHECK(run.code == 2);
    CHECK(run.err == c.err);
    CHECK(run.out.empty());
    CHECK(!Exists(dir));  // not created, or removed with nothing in it
  }

  // The folder: new or empty; a file, a full folder or a missing parent is refused untouched.
  REQUIRE(::mkdir(dir.c_str(), 0777) == 0);
  std::string kept = Write("bad.d/kept.txt", "mine");
  ReplayCommandRun full =
      RunReplayCommandLine({session, "--sweep", "rtt_ms=20", "--sweep-dir", dir});
  CHECK(full.code == 2);
  CHECK(full.err == "netstack: --sweep-dir " + dir +
                        ": not empty (a sweep writes into a new or empty folder)\n");
  CHECK(List(dir) == std::vector<std::string>{"kept.txt"});
  CHECK(ReadFile(kept) == "mine");
  ReplayCommandRun file =
      RunReplayCommandLine({session, "--sweep", "rtt_ms=20", "--sweep-dir", kept});
  CHECK(file.code == 2);
  CHECK(file.err == "netstack: --sweep-dir " + kept + ": not a folder\n");
  ReplayCommandRun parent =
      RunReplayCommandLine({session, "--sweep", "rtt_ms=20", "--sweep-dir", dir + "/no/such"});
  CHECK(parent.code == 2);
  CHECK(parent.err ==
        "netstack: --sweep-dir " + dir + "/no/such: cannot create: No such file or directory\n");
  // An empty folder the user made stays when the first point fails.
  std::remove(kept.c_str());
  ReplayCommandRun missing =
      RunReplayCommandLine({Temp("missing.jsonl"), "--sweep", "rtt_ms=20", "--sweep-dir", dir});
  CHECK(missing.code == 2);
  CHECK(Exists(dir));
  CHECK(List(dir).empty());
  RemoveTree(dir);
  std::remove(session.c_str());
}

#ifdef NETSTACK_BIN
// Starts `netstack replay ARGS` with stdout to /dev/null and stderr to `err_path`.
pid_t Spawn(const std::vector<std::string>& args, const std::string& err_path) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int null = ::open("/dev/null", O_WRONLY);
    ::dup2(err, 2);
    ::dup2(null, 1);
    std::vector<char*> argv{const_cast<char*>(NETSTACK_BIN), const_cast<char*>("replay")};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(NETSTACK_BIN, argv.data());
    ::_exit(127);
  }
  return pid;
}

// Waits (polling; at most a minute, so a broken sweep fails rather than hangs) for `path`.
bool WaitFor(const std::string& path) {
  for (int i = 0; i < 60000; ++i) {
    if (Exists(path)) return true;
    ::usleep(1000);
  }
  return false;
}

// The points whose --json file is complete (ends with a summary line): 0..K-1, contiguous.
size_t FinishedPoints(const std::string& dir) {
  size_t k = 0;
  while (true) {
    nlohmann::json last = LastLine(dir + "/" + PointName(k) + ".jsonl");
    if (!last.is_object() || last.value("kind", "") != "summary") return k;
    ++k;
  }
  return k;
}

TEST_CASE("netstack replay --sweep: a failing point stops the sweep and names it",
          "[replay][sweep][command]") {
  std::string session = Session("fail.jsonl", 60);
  std::string dir = Temp("fail.d"), err = Temp("fail.err");
  RemoveTree(dir);
  pid_t pid = Spawn({session, "--sweep", "rtt_ms=10,20,30,40,50,60", "--sweep-dir", dir}, err);
  REQUIRE(WaitFor(dir + "/000.jsonl"));
  // Stopped, the sweep is in the middle of some point; the one after the last started gets
  // a folder where its --json file should go.
  REQUIRE(::kill(pid, SIGSTOP) == 0);
  size_t next = 0;
  while (Exists(dir + "/" + PointName(next) + ".jsonl")) ++next;
  REQUIRE(next < 6);
  REQUIRE(::mkdir((dir + "/" + PointName(next) + ".jsonl").c_str(), 0777) == 0);
  REQUIRE(::kill(pid, SIGCONT) == 0);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 2);
  std::string kept = next == 1 ? "point 0 is in " + dir
                               : "points 0 to " + std::to_string(next - 1) + " are in " + dir;
  CHECK(ReadFile(err) == "netstack: sweep point " + std::to_string(next) + " of 6 (rtt_ms=" +
                             std::to_string(10 * (next + 1)) + "): cannot write " + dir + "/" +
                             PointName(next) + ".jsonl: Is a directory (" + kept + ")\n");
  CHECK(FinishedPoints(dir) == next);
  std::vector<std::string> expected;
  for (size_t i = 0; i <= next; ++i) expected.push_back(PointName(i) + ".jsonl");
  CHECK(List(dir) == expected);  // no table, nothing of a later point
  RemoveTree(dir);
  std::remove(err.c_str());
  std::remove(session.c_str());
}

TEST_CASE("netstack replay --sweep: Ctrl-C keeps the finished points and removes the running one",
          "[replay][sweep][command]") {
  std::string session = Session("stop.jsonl", 60);
  std::string dir = Temp("stop.d"), err = Temp("stop.err");
  RemoveTree(dir);
  pid_t pid = Spawn({session, "--sweep", "rtt_ms=10,20,30,40,50,60", "--sweep-dir", dir, "--har",
                     "h.har", "--report", "r.html"},
                    err);
  // Point 1 has started (its files are open): interrupt it, or a later point if it was quick.
  REQUIRE(WaitFor(dir + "/001.jsonl"));
  REQUIRE(::kill(pid, SIGINT) == 0);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGINT);
  std::smatch m;
  std::string text = ReadFile(err);
  INFO(text);
  REQUIRE(std::regex_match(
      text, m,
      std::regex("netstack: interrupted at sweep point ([0-9]) of 6 \\(rtt_ms=([0-9]+)\\); "
                 "(point 0 is|points 0 to ([0-9]) are) in (.*)\n")));
  size_t stopped = std::stoul(m[1]);
  CHECK(stopped >= 1);
  CHECK(std::stoul(m[2]) == 10 * (stopped + 1));
  CHECK((stopped == 1 ? m[3] == "point 0 is" : std::stoul(m[4]) == stopped - 1));
  CHECK(m[5] == dir);
  CHECK(FinishedPoints(dir) == stopped);
  std::vector<std::string> expected;
  for (size_t i = 0; i < stopped; ++i) {
    for (const char* suffix : {".h.har", ".jsonl", ".r.html"})
      expected.push_back(PointName(i) + suffix);
  }
  CHECK(List(dir) == expected);  // no file (or HAR temporary) of the stopped point, no table
  RemoveTree(dir);
  std::remove(err.c_str());
  std::remove(session.c_str());
}
#endif

}  // namespace
}  // namespace netstack
