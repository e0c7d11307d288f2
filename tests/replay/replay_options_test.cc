#include "tools/netstack/replay_options.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>

namespace netstack {
namespace {

bool Parse(const std::vector<std::string>& args, ReplayOptions* o, std::string* message) {
  return ParseReplayArgs(args, o, message);
}

TEST_CASE("replay options: traces, --set in order, --seed, outputs", "[replay][options]") {
  ReplayOptions o;
  std::string message;
  REQUIRE(Parse({"a.har", "--set", "rtt_ms=80", "b.jsonl", "--set", "rtt_ms=90", "--seed", "3",
                 "--json", "out.jsonl", "--report", "r.html", "--quiet"},
                &o, &message));
  CHECK(o.traces == std::vector<std::string>{"a.har", "b.jsonl"});
  CHECK(o.config.network.defaults.rtt == Milliseconds(90));
  CHECK(o.config.seed == 3);
  CHECK(o.json_path == "out.jsonl");
  CHECK(o.report_path == "r.html");
  CHECK(o.quiet);
}

TEST_CASE("replay options: preset, then config files, then --set", "[replay][options]") {
  std::string path = "/tmp/replay_options_test_" + std::to_string(::getpid()) + ".conf";
  std::ofstream(path) << "rtt_ms=70\ncache=off\n";
  ReplayOptions o;
  std::string message;
  REQUIRE(Parse({"t.har", "--set", "dns_ms=5", "--config", path, "--preset", "3g"}, &o, &message));
  CHECK(o.config.network.defaults.rtt == Milliseconds(70));  // the file over the preset
  CHECK(o.config.network.defaults.dns == Milliseconds(5));   // --set over both
  CHECK_FALSE(o.config.cache);
  std::remove(path.c_str());
}

TEST_CASE("replay options: --compare takes two valid specs", "[replay][options]") {
  ReplayOptions o;
  std::string message;
  REQUIRE(Parse({"t.har", "--compare", "rtt_ms=40", "slow-4g"}, &o, &message));
  CHECK(o.compare == std::vector<std::string>{"rtt_ms=40", "slow-4g"});
  ReplayOptions bad;
  CHECK_FALSE(Parse({"t.har", "--compare", "rtt_ms=40", "nope"}, &bad, &message));
  CHECK(message.find("--compare: 'nope' is not a config file") == 0);
  ReplayOptions one;
  CHECK_FALSE(Parse({"t.har", "--compare", "rtt_ms=40"}, &one, &message));
}

TEST_CASE("replay options: every bad value is one message naming it", "[replay][options]") {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  std::vector<Case> cases = {
      {{"t.har", "--set", "rtt_ms=abc"}, "--set 'rtt_ms=abc': rtt_ms: 'abc' is not a number"},
      {{"t.har", "--set", "bogus=1"}, "--set 'bogus=1': unknown key 'bogus' (see docs/replay.md)"},
      {{"t.har", "--set", "novalue"}, "--set 'novalue': 'novalue' is not KEY=VALUE"},
      {{"t.har", "--preset", "warp"}, "--preset: unknown preset 'warp'"},
      {{"t.har", "--config", "/nonexistent/x.conf"}, "'/nonexistent/x.conf' is not a config file"},
      {{"t.har", "--progress", "--quiet"}, "--progress conflicts with --quiet"},
      {{"a.har", "b.har", "--netlog", "n.json"}, "--netlog records one replay"},
      {{"-", "b.har"}, "a session on stdin (-) is read once"},
      {{"t.har", "--har", "-"}, "--har needs a file name, not -"},
      // Numbers are checked as text: no wrap-around, no NaN (issue 17).
      {{"t.har", "--seed", "-1"}, "--seed: '-1' is out of range (0 to 18,446,744,073,709,551,615)"},
      {{"t.har", "--summary-pages", "-1"}, "--summary-pages: '-1' is out of range (0 to 100,000)"},
      {{"t.har", "--summary-pages", "1e9"},
       "--summary-pages: '1e9' is not a whole number (0 to 100,000)"},
      {{"t.har", "--internals", "nan"}, "--internals: 'nan' is not a whole number (0 to 65,535)"},
      {{"t.har", "--internals", "65536"}, "--internals: '65536' is out of range (0 to 65,535)"},
      {{"t.har", "--set", "rtt_ms=-1"}, "--set 'rtt_ms=-1': rtt_ms: -1 is out of range (0..60000)"},
  };
  for (const Case& c : cases) {
    INFO(c.args[1] << " " << (c.args.size() > 2 ? c.args[2] : ""));
    ReplayOptions o;
    std::string message;
    CHECK_FALSE(Parse(c.args, &o, &message));
    CHECK(message.find(c.message) == 0);
    CHECK(message.find('\n') == std::string::npos);
  }
  ReplayOptions none;
  std::string message;
  CHECK_FALSE(Parse({}, &none, &message));  // a trace is required
}

}  // namespace
}  // namespace netstack
