// `netstack replay FILE --estimate` on DevTools protocol logs, in-process: the logs in
// ../shared/traces/devtools (third-party recordings, never copied into the repository; skipped
// with a message when the folder is absent) each replay, with every request the reader skipped
// reported in the page's skipped count.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/replay/replay_command_run.h"
#include "tests/replay/replay_test_util.h"
#include "tools/netstack/replay_command.h"
#include "tools/netstack/replay_options.h"
#include "tools/replay/trace/recording_reader.h"

namespace netstack {
namespace {

using CommandRun = test::ReplayCommandRun;

CommandRun Run(const std::vector<std::string>& args) { return test::RunReplayCommandLine(args); }

std::vector<nlohmann::json> PageLines(const std::string& path) {
  std::vector<nlohmann::json> pages;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (j.value("kind", "") == "page") pages.push_back(j);
  }
  return pages;
}

TEST_CASE("replay --estimate: every shared DevTools log replays, its skips reported",
          "[replay][command][devtools][shared]") {
  const char* env = std::getenv("NETSTACK_DEVTOOLS_DIR");
  std::string dir = env && *env ? env : NETSTACK_TRACES_DIR "/devtools";
  std::vector<std::string> files = test::FilesIn(dir, ".json");
  if (files.empty()) {
    WARN("SKIPPED: no DevTools logs in " << dir << " (set NETSTACK_DEVTOOLS_DIR)");
    return;
  }
  std::string json = "/tmp/replay_devtools_test_" + std::to_string(::getpid()) + ".jsonl";
  for (const std::string& path : files) {
    INFO(path);
    HarFile har;
    std::string error;
    REQUIRE(ReadRecordingFile(path, &har, &error));
    CommandRun run = Run({path, "--estimate", "--json", json, "--quiet"});
    INFO(run.err);
    REQUIRE(run.code == 0);
    std::vector<nlohmann::json> pages = PageLines(json);
    REQUIRE(pages.size() == har.pages.size());
    for (size_t i = 0; i < pages.size(); ++i) {
      // The replay adds what it cannot replay to what the reader skipped, never less.
      CHECK(pages[i]["skipped"].get<int>() >= har.pages[i].skipped_entries);
      CHECK(pages[i]["requests"].get<int>() + pages[i]["skipped"].get<int>() ==
            static_cast<int>(har.pages[i].entries.size()) + har.pages[i].skipped_entries);
    }
  }
  std::remove(json.c_str());
}

TEST_CASE("replay --estimate: a session on stdin or a session file is refused with its reason",
          "[replay][command][devtools]") {
  std::string session = "/tmp/replay_devtools_test_" + std::to_string(::getpid()) + ".jsonl";
  std::ofstream(session) << "{\"type\": \"startup\", \"t\": 0}\n";
  CommandRun run = Run({session, "--estimate"});
  CHECK(run.code == 2);
  CHECK(run.err.find(session + ": --estimate needs a HAR file or a DevTools log (this looks like "
                               "a session)") != std::string::npos);
  std::remove(session.c_str());
}

}  // namespace
}  // namespace netstack
