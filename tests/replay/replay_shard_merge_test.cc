// --shard plus `netstack merge`, and --jobs N, against one replay of the same traces: every
// output (--json, --report, --har, the summary but its time lines, --compare's statistics)
// byte for byte; and every error of the shard contract (docs/replay.md, "Shards and merge").
// Runs the built binary: --jobs forks.
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/replay/replay_command_run.h"
#include "tests/replay/replay_test_util.h"
#include "tools/replay/gen/synthetic_session.h"
#include "tools/replay/report/shard_set.h"

#ifdef NETSTACK_BIN
namespace netstack {
namespace {

struct Run {
  int code = -1;
  std::string out, err;
};

// A fresh folder for one test's files, removed with them.
class TempDir {
 public:
  TempDir() {
    char path[] = "/tmp/netstack-shard-test-XXXXXX";
    REQUIRE(::mkdtemp(path));
    dir_ = path;
  }
  ~TempDir() { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string operator/(const std::string& name) const { return dir_ + "/" + name; }
  const std::string& path() const { return dir_; }

 private:
  std::string dir_;
};

Run Netstack(const std::string& args, const TempDir& dir) {
  Run run;
  const std::string out = dir / "cmd.out", err = dir / "cmd.err";
  int status =
      std::system((std::string(NETSTACK_BIN) + " " + args + " >" + out + " 2>" + err).c_str());
  run.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = test::ReadWholeFile(out);
  run.err = test::ReadWholeFile(err);
  return run;
}

// The summary without its time lines (wall and CPU time, and CPU per event).
std::string WithoutTimes(const std::string& summary) {
  std::istringstream in(summary);
  std::string line, kept;
  while (std::getline(in, line)) {
    if (line.rfind("  time ", 0) == 0 || line.rfind("  events ", 0) == 0) continue;
    kept += line + "\n";
  }
  return kept;
}

// Several traces: three synthetic sessions and, where the shared recordings are, two HARs.
std::string Traces(const TempDir& dir) {
  std::string traces;
  for (int seed : {1, 2, 3}) {
    SyntheticSessionOptions options;
    options.seed = static_cast<uint64_t>(seed);
    options.pages = 25;
    options.sites = 5;
    options.pages_per_site = 6;
    const std::string path = dir / ("s" + std::to_string(seed) + ".jsonl");
    std::ofstream(path, std::ios::binary) << test::Generate(options);
    traces += path + " ";
    if (seed == 1 || seed == 2) {
      std::vector<std::string> hars = test::FilesIn(NETSTACK_TRACES_DIR "/har", ".har");
      if (hars.size() > static_cast<size_t>(seed)) traces += hars[static_cast<size_t>(seed)] + " ";
    }
  }
  return traces;
}

// One replay's outputs under `flags` and `tag`, checked equal to the reference's.
void CheckSame(const TempDir& dir, const std::string& reference, const std::string& tag,
               const Run& reference_run, const Run& run) {
  INFO(tag << ": " << run.err);
  REQUIRE(run.code == 0);
  CHECK(WithoutTimes(run.out) == WithoutTimes(reference_run.out));
  for (const char* ext : {".jsonl", ".html", ".har"}) {
    INFO(ext);
    std::string want = test::ReadWholeFile(dir / (reference + ext));
    CHECK(!want.empty());
    CHECK(test::ReadWholeFile(dir / (tag + ext)) == want);
  }
}

std::string Outputs(const TempDir& dir, const std::string& tag) {
  return " --json " + dir / (tag + ".jsonl") + " --report " + dir / (tag + ".html") + " --har " +
         dir / (tag + ".har");
}

TEST_CASE("replay --jobs 1, 2 and 3 and --shard plus merge write one replay's bytes",
          "[replay][shard][jobs]") {
  TempDir dir;
  const std::string traces = Traces(dir);
  for (const std::string& flags :
       {std::string(""), std::string("--compare predictor=off predictor=learned")}) {
    INFO(flags);
    const Run one = Netstack("replay " + traces + flags + Outputs(dir, "one"), dir);
    INFO(one.err);
    REQUIRE(one.code == 0);
    for (int jobs : {1, 2, 3}) {
      const std::string tag = "jobs" + std::to_string(jobs);
      CheckSame(dir, "one", tag, one,
                Netstack("replay " + traces + flags + " --jobs " + std::to_string(jobs) +
                             Outputs(dir, tag),
                         dir));
    }
    std::string shards;
    for (int i : {2, 0, 1}) {
      const std::string shard = dir / ("shard" + std::to_string(i) + ".jsonl");
      Run run = Netstack("replay " + traces + flags + " --quiet --shard " + std::to_string(i) +
                             "/3 --json " + shard,
                         dir);
      INFO(run.err);
      REQUIRE(run.code == 0);
      shards += shard + " ";
    }
    CheckSame(dir, "one", "merged", one, Netstack("merge " + shards + Outputs(dir, "merged"), dir));
  }
}

TEST_CASE("A shard file: exact numbers, trace lines, the summary's shard member",
          "[replay][shard]") {
  TempDir dir;
  const std::string traces = Traces(dir);
  Run run = Netstack(
      "replay " + traces + " --quiet --shard 1/2 --json-pages --json " + dir / "s.jsonl", dir);
  REQUIRE(run.code == 0);
  std::ifstream in(dir / "s.jsonl");
  std::string line;
  int trace_lines = 0, request_lines = 0;
  nlohmann::json summary;
  while (std::getline(in, line)) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (j["kind"] == "trace") {
      CHECK(j["trace"].get<int>() % 2 == 1);
      CHECK(j.contains("totals"));
      CHECK(j.contains("config"));
      ++trace_lines;
    }
    request_lines += j["kind"] == "request";
    if (j["kind"] == "summary") summary = j;
  }
  CHECK(trace_lines > 0);
  CHECK(request_lines == 0);
  CHECK(summary["shard"]["index"] == 1);
  CHECK(summary["shard"]["count"] == 2);
  CHECK(summary["shard"]["request_lines"] == false);
}

TEST_CASE("merge refuses an incomplete or inconsistent set, naming the file", "[replay][shard]") {
  TempDir dir;
  const std::string traces = Traces(dir);
  auto shard = [&](const std::string& name, const std::string& flags) {
    Run run = Netstack("replay " + traces + " --quiet --json " + dir / name + " " + flags, dir);
    INFO(run.err);
    REQUIRE(run.code == 0);
    return dir / name;
  };
  const std::string a = shard("a.jsonl", "--shard 0/4");
  const std::string b = shard("b.jsonl", "--shard 1/4");
  const std::string c = shard("c.jsonl", "--shard 2/4 --set rtt_ms=99");
  const std::string pages = shard("p.jsonl", "--shard 2/4 --json-pages");
  const std::string whole = shard("whole.jsonl", "");
  auto merge = [&](const std::string& args) { return Netstack("merge " + args, dir); };
  Run twice = merge(a + " " + b + " " + b);
  CHECK(twice.code == 2);
  CHECK(twice.err == "netstack: " + b + ": shard 1/4 given twice\n");
  Run missing = merge(a + " " + b);
  CHECK(missing.code == 2);
  CHECK(missing.err == "netstack: shards 2/4, 3/4 missing\n");
  Run differs = merge(a + " " + c);
  CHECK(differs.code == 2);
  CHECK(differs.err == "netstack: " + c + ": its configuration differs from " + a + "'s\n");
  Run not_shard = merge(whole);
  CHECK(not_shard.code == 2);
  CHECK(not_shard.err.find(whole + ": not a shard file") != std::string::npos);
  // A run that did not finish: the file cut after its first lines.
  std::string text = test::ReadWholeFile(a);
  size_t cut = 0;
  for (int i = 0; i < 3; ++i) cut = text.find('\n', cut) + 1;
  std::ofstream(dir / "cut.jsonl", std::ios::binary) << text.substr(0, cut);
  Run unfinished = merge(dir / "cut.jsonl");
  CHECK(unfinished.code == 2);
  CHECK(unfinished.err ==
        "netstack: " + dir / "cut.jsonl" + ": no summary line (the run did not finish)\n");
  std::ofstream(dir / "bad.jsonl", std::ios::binary) << text.substr(0, cut) << "{\"x\": 1}\n";
  Run bad_line = merge(dir / "bad.jsonl");
  CHECK(bad_line.code == 2);
  CHECK(bad_line.err == "netstack: " + dir / "bad.jsonl:4: not a replay line\n");
  Run no_file = merge(dir / "nothere.jsonl");
  CHECK(no_file.code == 2);
  CHECK(no_file.err.find("nothere.jsonl: cannot open") != std::string::npos);
  const std::string d = shard("d.jsonl", "--shard 3/4");
  Run no_requests = merge(a + " " + b + " " + pages + " " + d + " --har " + dir / "x.har");
  CHECK(no_requests.code == 2);
  CHECK(no_requests.err.find(pages + ": has no request lines") != std::string::npos);
  Run pages_only = merge(a + " " + b + " " + pages + " " + d + " --quiet --json-pages --json " +
                         dir / "m.jsonl");
  CHECK(pages_only.code == 0);
  Run usage = merge(a + " --json-pages");
  CHECK(usage.code == 2);
  CHECK(usage.err == "netstack: --json-pages needs --json FILE\n");
}

TEST_CASE("replay --shard and --jobs: bad values and refused combinations",
          "[replay][shard][jobs]") {
  TempDir dir;
  const std::string traces = Traces(dir);
  for (const char* shard : {"3/3", "1", "a/2", "-1/2", "0/100001", "1/0"}) {
    Run run = Netstack("replay " + traces + " --shard " + shard, dir);
    CHECK(run.code == 2);
    CHECK(run.err == std::string("netstack: --shard '") + shard +
                         "': want I/N, whole numbers with 0 <= I < N <= 100000\n");
  }
  CHECK(Netstack("replay " + traces + " --jobs 0", dir).code == 2);
  CHECK(Netstack("replay " + traces + " --jobs 257", dir).code == 2);
  Run netlog = Netstack("replay " + dir / "s1.jsonl --jobs 2 --netlog " + dir / "n.json", dir);
  CHECK(netlog.code == 2);
  CHECK(netlog.err ==
        "netstack: --jobs 2 replays in worker processes: it cannot take --netlog (give --jobs "
        "1)\n");
  Run stdin_trace = Netstack("replay - --jobs 2 < " + dir / "s1.jsonl", dir);
  CHECK(stdin_trace.code == 2);
  CHECK(stdin_trace.err.find("cannot take a session on stdin") != std::string::npos);
}

TEST_CASE("replay --jobs: a failing trace gives --jobs 1's error and status, and no files are left",
          "[replay][jobs]") {
  TempDir dir;
  const std::string traces = Traces(dir);
  const std::string tmp = dir / "tmp";
  REQUIRE(::mkdir(tmp.c_str(), 0700) == 0);
  std::ofstream(dir / "broken.jsonl") << "{\"type\": \"navigate\", \"t\": 0}\n";
  const std::string args = "replay " + dir / "s1.jsonl " + dir / "nothere.jsonl " +
                           dir / "broken.jsonl " + dir / "s2.jsonl";
  Run one = Netstack(args, dir);
  REQUIRE(one.code == 2);
  for (int jobs : {2, 3, 4}) {
    Run run = Netstack("replay " + args.substr(7) + " --jobs " + std::to_string(jobs), dir);
    INFO(jobs);
    CHECK(run.code == one.code);
    CHECK(run.err == one.err);
  }
  // The workers' files go to $TMPDIR and are removed.
  Run ok = Netstack("replay " + traces + " --jobs 2 --json " + dir / "j.jsonl", dir);
  CHECK(ok.code == 0);
  Run failed = Netstack(args + " --jobs 2", dir);
  CHECK(failed.code == 2);
  std::system(("TMPDIR=" + tmp + " " + NETSTACK_BIN + " " + args + " --jobs 2 2>/dev/null; " +
               "TMPDIR=" + tmp + " " + NETSTACK_BIN + " replay " + traces + " --jobs 2 --quiet")
                  .c_str());
  CHECK(std::system(("rmdir " + tmp).c_str()) == 0);  // empty
}

TEST_CASE("replay --jobs --progress: a line counts the traces done", "[replay][jobs]") {
  TempDir dir;
  const std::string traces = Traces(dir);
  const size_t count = static_cast<size_t>(std::count(traces.begin(), traces.end(), ' '));
  Run run = Netstack("replay " + traces + " --jobs 2 --progress --json " + dir / "j.jsonl", dir);
  REQUIRE(run.code == 0);
  const std::string last = "netstack: --jobs 2: " + std::to_string(count) + " of " +
                           std::to_string(count) + " traces replayed\n";
  INFO(run.err);
  CHECK(run.err.find(last) != std::string::npos);
}

// Waits (polling, bounded) until `dir` holds an entry whose name starts with `prefix`; its path
// or "" when none came.
std::string AwaitEntry(const std::string& dir, const std::string& prefix) {
  for (int i = 0; i < 60'000; ++i) {
    if (DIR* d = ::opendir(dir.c_str())) {
      std::string found;
      while (const dirent* e = ::readdir(d)) {
        if (std::string(e->d_name).rfind(prefix, 0) == 0) found = dir + "/" + e->d_name;
      }
      ::closedir(d);
      if (!found.empty()) return found;
    }
    ::usleep(1000);
  }
  return "";
}

TEST_CASE("replay --jobs: SIGINT to the parent kills the workers and removes their files",
          "[replay][jobs]") {
  TempDir dir;
  const std::string tmp = dir / "tmp";
  REQUIRE(::mkdir(tmp.c_str(), 0700) == 0);
  // Two traces long enough (seconds each) that the signal comes while the workers run.
  for (int seed : {1, 2}) {
    SyntheticSessionOptions options;
    options.seed = static_cast<uint64_t>(seed);
    options.requests = 100'000;
    std::ofstream(dir / ("big" + std::to_string(seed) + ".jsonl"), std::ios::binary)
        << test::Generate(options);
  }
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::setenv("TMPDIR", tmp.c_str(), 1);
    const std::string a = dir / "big1.jsonl", b = dir / "big2.jsonl", j = dir / "j.jsonl";
    ::execl(NETSTACK_BIN, NETSTACK_BIN, "replay", a.c_str(), b.c_str(), "--jobs", "2", "--quiet",
            "--json", j.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // The workers have started once a worker's error file is there.
  const std::string folder = AwaitEntry(tmp, "netstack-jobs-");
  const bool started = !folder.empty() && !AwaitEntry(folder, "worker").empty();
  ::kill(pid, SIGINT);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(started);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGINT);
  CHECK(std::system(("rmdir " + tmp).c_str()) == 0);  // empty: the folder and files are gone
}

// Past ReplayOptions::jobs_max_units traces (100,000, ShardSet::kMaxFiles), a unit of work is a
// round-robin share of the traces: lowered here to 2 units for 5 traces.
TEST_CASE("replay --jobs: units of several traces write one replay's bytes too", "[replay][jobs]") {
  TempDir dir;
  std::istringstream list(Traces(dir));
  std::vector<std::string> traces;
  for (std::string t; list >> t;) traces.push_back(t);
  REQUIRE(traces.size() >= 3);
  auto args = [&](const std::string& jobs, const std::string& json) {
    std::vector<std::string> a = traces;
    for (const char* f : {"--quiet", "--jobs"}) a.push_back(f);
    a.push_back(jobs);
    a.push_back("--json");
    a.push_back(json);
    return a;
  };
  auto two_units = [](ReplayOptions* o) { o->jobs_max_units = 2; };
  test::ReplayCommandRun one = test::RunReplayCommandLine(args("1", dir / "one.jsonl"));
  REQUIRE(one.code == 0);
  test::ReplayCommandRun shares =
      test::RunReplayCommandLine(args("2", dir / "two.jsonl"), two_units);
  INFO(shares.err);
  REQUIRE(shares.code == 0);
  const std::string want = test::ReadWholeFile(dir / "one.jsonl");
  CHECK(!want.empty());
  CHECK(test::ReadWholeFile(dir / "two.jsonl") == want);
  ReplayOptions defaults;
  CHECK(defaults.jobs_max_units == ShardSet::kMaxFiles);
}

}  // namespace
}  // namespace netstack
#endif  // NETSTACK_BIN
