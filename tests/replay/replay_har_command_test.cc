// `netstack replay --har FILE` as users run it (RunReplayCommand in-process): the file holds
// every replayed page and request and reads back with netstack's HAR reader; --compare writes
// both runs, their page ids suffixed -a and -b; an unwritable path is exit 2 before anything
// runs; a replay that fails leaves what was at the path as it was.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "net/http/har_writer.h"
#include "tests/replay/replay_command_run.h"
#include "tools/netstack/replay_command.h"
#include "tools/netstack/replay_options.h"
#include "tools/replay/trace/har_reader.h"

namespace netstack {
namespace {

std::string Temp(const std::string& name) {
  return "/tmp/replay_har_command_test_" + std::to_string(::getpid()) + "_" + name;
}

std::string Write(const std::string& name, const std::string& text) {
  std::string path = Temp(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string ReadFile(const std::string& path) { return test::ReadWholeFile(path); }

// Two pages on two hosts, the second navigated after the first loaded.
const char kSession[] =
    "{\"type\": \"navigate\", \"t\": 0, \"page\": {\"entries\": ["
    "{\"url\": \"https://www.example.com/\", \"bytes\": 20000, \"server_ms\": 100},"
    "{\"url\": \"https://cdn.example.com/a.js\", \"type\": \"script\", \"bytes\": 50000,"
    " \"start_ms\": 200, \"after\": 0, \"gap_ms\": 5}]}}\n"
    "{\"type\": \"wait\", \"t\": 0}\n"
    "{\"type\": \"navigate\", \"t\": 500, \"page\": {\"entries\": ["
    "{\"url\": \"https://www.example.com/next\", \"bytes\": 10000}]}}\n";

using CommandRun = test::ReplayCommandRun;

CommandRun Run(const std::vector<std::string>& args) { return test::RunReplayCommandLine(args); }

TEST_CASE("replay --har writes every page and request, and it reads back", "[replay][har]") {
  std::string session = Write("s.jsonl", kSession);
  std::string har_path = Temp("out.har");
  CommandRun run = Run({session, "--har", har_path, "--quiet"});
  INFO(run.err);
  REQUIRE(run.code == 0);
  nlohmann::json har = nlohmann::json::parse(ReadFile(har_path));
  CHECK(har["log"]["version"] == "1.2");
  CHECK(har["log"]["creator"]["name"] == "netstack");
  REQUIRE(har["log"]["pages"].size() == 2);
  CHECK(har["log"]["pages"][0]["id"] == "page_1");
  CHECK(har["log"]["pages"][1]["id"] == "page_2");
  REQUIRE(har["log"]["entries"].size() == 3);
  HarFile read;
  std::string error;
  REQUIRE(ReadHarFile(har_path, &read, &error));
  REQUIRE(read.pages.size() == 2);
  CHECK(read.pages[0].entries.size() == 2);
  CHECK(read.pages[1].entries.size() == 1);
  CHECK(read.pages[0].skipped_entries == 0);
  // And it replays.
  CommandRun again = Run({har_path, "--quiet"});
  CHECK(again.code == 0);
  for (const auto& p : {session, har_path}) std::remove(p.c_str());
}

TEST_CASE("replay --compare --har writes both runs, ids suffixed -a and -b", "[replay][har]") {
  std::string session = Write("c.jsonl", kSession);
  std::string har_path = Temp("compare.har");
  CommandRun run =
      Run({session, "--compare", "rtt_ms=20", "rtt_ms=200", "--har", har_path, "--quiet"});
  INFO(run.err);
  REQUIRE(run.code == 0);
  nlohmann::json har = nlohmann::json::parse(ReadFile(har_path));
  const nlohmann::json& pages = har["log"]["pages"];
  REQUIRE(pages.size() == 4);
  CHECK(pages[0]["id"] == "page_1-a");
  CHECK(pages[1]["id"] == "page_2-a");
  CHECK(pages[2]["id"] == "page_1-b");
  CHECK(pages[3]["id"] == "page_2-b");
  CHECK(har["log"]["entries"].size() == 6);
  // B's slower network shows in its entries' times.
  double a = 0, b = 0;
  for (const nlohmann::json& e : har["log"]["entries"]) {
    const std::string ref = e["pageref"];
    (ref.back() == 'a' ? a : b) += e["time"].get<double>();
  }
  CHECK(b > a);
  for (const auto& p : {session, har_path}) std::remove(p.c_str());
}

TEST_CASE(
    "replay --har: an unwritable path is exit 2 before the replay, a failed replay "
    "leaves the file as it was",
    "[replay][har]") {
  std::string session = Write("u.jsonl", kSession);
  CommandRun unwritable = Run({session, "--har", "/nonexistent-dir/r.har"});
  CHECK(unwritable.code == 2);
  CHECK(unwritable.out.empty());
  CHECK(unwritable.err ==
        "netstack: cannot write /nonexistent-dir/r.har: No such file or directory\n");

  std::string kept = Write("kept.har", "what was there");
  std::string bad = Write("bad.jsonl", "{\"type\": \"navigate\", \"t\": \n");
  CommandRun failed = Run({bad, "--har", kept});
  CHECK(failed.code == 2);
  CHECK(ReadFile(kept) == "what was there");
  for (const auto& p : {session, kept, bad}) std::remove(p.c_str());
}

// The archive's bound lowered to 5 pages (ReplayOptions::har_max_pages): 10,001 pages took
// minutes under ASan. The same code path meets HarWriter::kMaxPages (checked below).
TEST_CASE("replay --har: more pages than one HAR holds is one line, exit 1, no file",
          "[replay][har]") {
  constexpr size_t kBound = 5;
  std::string text;
  for (size_t i = 0; i <= kBound; ++i) {
    text += "{\"type\": \"navigate\", \"t\": " + std::to_string(i) +
            ", \"page\": {\"entries\": [{\"url\": \"https://a.test/" + std::to_string(i) +
            "\", \"bytes\": 100}]}}\n";
  }
  std::string session = Write("many.jsonl", text);
  std::string kept = Write("many.har", "what was there");
  auto lower = [](ReplayOptions* o) { o->har_max_pages = kBound; };
  CommandRun run = test::RunReplayCommandLine({session, "--har", kept, "--quiet"}, lower);
  CHECK(run.code == 1);
  CHECK(run.err == "netstack: --har " + kept + ": the replay has more than " +
                       std::to_string(kBound) +
                       " pages, more than one HAR holds: replay fewer pages\n");
  CHECK(ReadFile(kept) == "what was there");
  // Exactly the bound fits.
  std::string fits = Write("fits.jsonl", text.substr(0, text.rfind("{\"type\"")));
  CommandRun ok = test::RunReplayCommandLine({fits, "--har", kept, "--quiet"}, lower);
  CHECK(ok.code == 0);
  CHECK(ReadFile(kept) != "what was there");
  // Without a test's bound, the writer holds HarWriter::kMaxPages pages.
  ReplayOptions defaults;
  CHECK(defaults.har_max_pages == HarWriter::kMaxPages);
  HarWriter writer(
      "t", [](std::string_view) {}, HarWriter::kMaxPages + 1);
  CHECK(writer.max_pages() == HarWriter::kMaxPages);
  std::remove(fits.c_str());
  for (const auto& p : {session, kept}) std::remove(p.c_str());
}

}  // namespace
}  // namespace netstack
