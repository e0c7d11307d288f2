#include "tools/netstack/gen_session_command.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace netstack;

namespace {

// Parses `args` (after "netstack") as the real main does; returns the options.
GenSessionOptions Parse(std::vector<std::string> args) {
  CLI::App app;
  GenSessionOptions options;
  AddGenSessionCommand(&app, &options);
  args.insert(args.begin(), "netstack");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  app.parse(static_cast<int>(argv.size()), const_cast<char**>(argv.data()));
  return options;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("gen-session: flags reach the model, and the file is what the seed makes") {
  std::string path = "gen_session_test.jsonl";
  GenSessionOptions options =
      Parse({"gen-session", "--synthetic", "--requests", "500", "--sites", "4", "--pages-per-site",
             "3", "--seed", "9", "-o", path, "--quiet"});
  CHECK(options.synthetic);
  CHECK(options.model.requests == 500);
  CHECK(options.model.sites == 4);
  CHECK(options.model.pages_per_site == 3);
  CHECK(options.model.seed == 9);
  REQUIRE(RunGenSessionCommand(options) == 0);
  std::string first = ReadFile(path);
  CHECK(first.rfind("# netstack gen-session --synthetic --seed 9 --requests 500 --sites 4", 0) ==
        0);
  REQUIRE(RunGenSessionCommand(options) == 0);
  CHECK(ReadFile(path) == first);
  std::remove(path.c_str());
}

TEST_CASE("gen-session: usage errors and output errors exit 2") {
  CHECK(RunGenSessionCommand(Parse({"gen-session", "--pages", "3", "--quiet"})) == 2);
  CHECK(RunGenSessionCommand(Parse({"gen-session", "--synthetic", "--quiet"})) == 2);
  CHECK(RunGenSessionCommand(
            Parse({"gen-session", "--synthetic", "--pages", "3", "--sites", "0", "--quiet"})) == 2);
  CHECK(RunGenSessionCommand(Parse({"gen-session", "--synthetic", "--pages", "3", "-o",
                                    "/nonexistent-dir/s.jsonl", "--quiet"})) == 2);
}
