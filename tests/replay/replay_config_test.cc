#include "tools/replay/replay_config.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

namespace netstack {
namespace {

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = "/tmp/replay_config_test_" + std::to_string(::getpid()) + "_" + name;
  std::ofstream(path) << text;
  return path;
}

TEST_CASE("ReplayConfig::Set sets stack keys and checks their values", "[replay][config]") {
  ReplayConfig c;
  std::string error;
  REQUIRE(c.Set("max_sockets_per_group=4", &error));
  REQUIRE(c.Set(" max_sockets = 32 ", &error));
  REQUIRE(c.Set("cache=off", &error));
  REQUIRE(c.Set("cache_mb=20", &error));
  REQUIRE(c.Set("placement=offset", &error));
  REQUIRE(c.Set("seed=7", &error));
  REQUIRE(c.Set("server_ms_from_trace=off", &error));
  REQUIRE(c.Set("predictor=off", &error));
  CHECK(c.max_sockets_per_group == 4);
  CHECK(c.max_sockets == 32);
  CHECK_FALSE(c.cache);
  CHECK(c.cache_bytes == 20 * 1024 * 1024);
  CHECK(c.placement == Placement::kOffset);
  CHECK(c.seed == 7);
  CHECK_FALSE(c.server_ms_from_trace);

  CHECK_FALSE(c.Set("max_sockets_per_group=0", &error));
  CHECK(error == "max_sockets_per_group: 0 is out of range (1..256)");
  CHECK(c.max_sockets_per_group == 4);
  CHECK_FALSE(c.Set("cache=maybe", &error));
  CHECK(error == "cache: 'maybe' is not on or off");
  CHECK_FALSE(c.Set("placement=random", &error));
  CHECK(error.find("placement") == 0);
  CHECK_FALSE(c.Set("seed=-1", &error));
  CHECK_FALSE(c.Set("seed=abc", &error));
  CHECK(error == "seed: 'abc' is not an integer");
  CHECK_FALSE(c.Set("predictor=smart", &error));
  CHECK(error == "predictor: 'smart' is not off, chrome, loading or learned");
  CHECK_FALSE(c.Set("rt_ms=80", &error));
  CHECK(error == "unknown key 'rt_ms' (see docs/replay.md)");
  CHECK_FALSE(c.Set("rtt_ms", &error));
  CHECK(error == "'rtt_ms' is not KEY=VALUE");
  CHECK_FALSE(c.Set("=5", &error));
}

TEST_CASE("ReplayConfig::Set passes network keys to NetworkParams", "[replay][config]") {
  ReplayConfig c;
  std::string error;
  REQUIRE(c.Set("rtt_ms=80", &error));
  REQUIRE(c.Set("tls=1.2", &error));
  REQUIRE(c.Set("cdn.example:rtt_ms=20", &error));
  CHECK(c.network.defaults.rtt == Milliseconds(80));
  CHECK(c.network.defaults.tls == TlsVersion::kTls12);
  CHECK(c.network.ForHost("cdn.example").rtt == Milliseconds(20));
  CHECK_FALSE(c.Set("rtt_ms=abc", &error));
  CHECK(error.find("rtt_ms") != std::string::npos);
  REQUIRE(c.Set("preset=slow-4g", &error));
  CHECK(c.network.defaults.rtt == Milliseconds(150));
  CHECK_FALSE(c.Set("preset=warp-speed", &error));
  CHECK(error.find("unknown preset 'warp-speed'") == 0);
}

TEST_CASE("ReplayConfig::Apply reads KEY=VALUE files with line numbers", "[replay][config]") {
  std::string path = WriteTemp("a.conf", "# a comment\nrtt_ms=60  # trailing\n\ncache=off\n");
  ReplayConfig c;
  std::string error;
  REQUIRE(c.Apply(path, &error));
  CHECK(c.network.defaults.rtt == Milliseconds(60));
  CHECK_FALSE(c.cache);

  std::string bad = WriteTemp("b.conf", "rtt_ms=60\n\nwhat=ever\n");
  CHECK_FALSE(c.Apply(bad, &error));
  CHECK(error == bad + ":3: unknown key 'what' (see docs/replay.md)");
  std::remove(path.c_str());
  std::remove(bad.c_str());
}

TEST_CASE("ReplayConfig::Apply reads JSON objects, host objects and presets", "[replay][config]") {
  std::string path = WriteTemp(
      "c.json",
      "{\"rtt_ms\": 30, \"preset\": \"desktop\", \"cache\": false, \"max_sockets_per_group\": 4,\n"
      " \"cdn.example\": {\"rtt_ms\": 10.5}}");
  ReplayConfig c;
  std::string error;
  REQUIRE(c.Apply(path, &error));
  // The preset is applied first, whatever the keys' order.
  CHECK(c.network.defaults.rtt == Milliseconds(30));
  CHECK_FALSE(c.cache);
  CHECK(c.max_sockets_per_group == 4);
  CHECK(c.network.ForHost("cdn.example").rtt == TimeDelta(10'500));

  std::string syntax = WriteTemp("d.json", "{\"rtt_ms\": 30,\n \"x\": }\n");
  CHECK_FALSE(c.Apply(syntax, &error));
  CHECK(error == syntax +
                     ":2:7: JSON syntax error: syntax error while parsing value - unexpected '}'; "
                     "expected '[', '{', or a literal");
  std::string wrong = WriteTemp("e.json", "{\"rtt_ms\": [1]}");
  CHECK_FALSE(c.Apply(wrong, &error));
  CHECK(error == wrong + ": rtt_ms: expected a string, a number or a boolean");
  for (const auto& p : {path, syntax, wrong}) std::remove(p.c_str());
}

TEST_CASE("ReplayConfig::Apply reads ToJson's output back", "[replay][config]") {
  ReplayConfig original;
  std::string error;
  REQUIRE(original.Apply("lte", &error));
  REQUIRE(original.Set("cdn.example:rtt_ms=12.5", &error));
  REQUIRE(original.Set("cdn.example:tls=1.2", &error));
  REQUIRE(original.Set("max_sockets=100", &error));
  REQUIRE(original.Set("cache=off", &error));
  REQUIRE(original.Set("placement=offset", &error));
  REQUIRE(original.Set("seed=7", &error));
  std::string path = WriteTemp("roundtrip.json", original.ToJson().dump(2));
  ReplayConfig back;
  INFO(error);
  REQUIRE(back.Apply(path, &error));
  CHECK(back.ToJson() == original.ToJson());
  CHECK(back.network.ForHost("cdn.example").rtt == TimeDelta(12'500));
  CHECK_FALSE(back.network.hosts.count("network"));

  std::string wrong = WriteTemp("hosts.json", "{\"network\": {\"hosts\": {\"a.test\": 5}}}");
  CHECK_FALSE(back.Apply(wrong, &error));
  CHECK(error == wrong + ": network.hosts.a.test: expected an object of KEY: value");
  for (const auto& p : {path, wrong}) std::remove(p.c_str());
}

TEST_CASE("ReplayConfig::Apply takes inline lists and preset names", "[replay][config]") {
  ReplayConfig c;
  std::string error;
  REQUIRE(c.Apply("rtt_ms=100,cache=off", &error));
  CHECK(c.network.defaults.rtt == Milliseconds(100));
  CHECK_FALSE(c.cache);
  REQUIRE(c.Apply("3g", &error));
  CHECK(c.network.defaults.rtt == Milliseconds(300));
  CHECK_FALSE(c.Apply("no-such-thing", &error));
  CHECK(error.find("'no-such-thing' is not a config file, a KEY=VALUE list or a preset") == 0);
  CHECK_FALSE(c.Apply("rtt_ms=1,bogus=2", &error));
  CHECK(error == "unknown key 'bogus' (see docs/replay.md)");
}

TEST_CASE("ReplayConfig::Apply: a number too large for a double is an error, not a crash",
          "[replay][config]") {
  // The repro: nlohmann throws out_of_range (not parse_error) for 1e400.
  std::string path = WriteTemp("overflow.json", "{\n  \"rtt_ms\": 1e400\n}\n");
  ReplayConfig c;
  std::string error;
  CHECK_FALSE(c.Apply(path, &error));
  CHECK(error == path + ":2:13: JSON syntax error: number overflow parsing '1e400'");
  CHECK(c.network.defaults.rtt == Milliseconds(40));
  std::remove(path.c_str());
}

TEST_CASE("ReplayConfig::Apply: negative and huge JSON numbers are out of range",
          "[replay][config]") {
  std::string error;
  std::string negative = WriteTemp("negative.json", "{\"rtt_ms\": -1.5}");
  ReplayConfig c;
  CHECK_FALSE(c.Apply(negative, &error));
  CHECK(error == negative + ": rtt_ms: -1.5 is out of range (0..60000)");
  std::string huge = WriteTemp("huge.json", "{\"dns_ms\": 1e300}");
  CHECK_FALSE(c.Apply(huge, &error));
  // 1e300 as its digits (printf's), of which 64 are echoed.
  CHECK(error.rfind(huge + ": dns_ms: 10000000000000000525", 0) == 0);
  CHECK(error.find("... is out of range (0..60000)") != std::string::npos);
  CHECK(error.size() < huge.size() + 120);
  // A fraction keeps its digits: 62.5 ms is 62,500 µs.
  std::string fraction = WriteTemp("fraction.json", "{\"rtt_ms\": 62.5, \"server_ms\": 0.001}");
  REQUIRE(c.Apply(fraction, &error));
  CHECK(c.network.defaults.rtt == TimeDelta(62'500));
  CHECK(c.network.defaults.server_time == TimeDelta(1));
  for (const std::string& p : {negative, huge, fraction}) std::remove(p.c_str());
}

TEST_CASE("ReplayConfig::Apply: deep nesting and long lines give a short error",
          "[replay][config]") {
  ReplayConfig c;
  std::string error;
  // 100,000 levels of '[': once read as KEY=VALUE lines and echoed whole (200 KB).
  std::string arrays =
      WriteTemp("deep.json", std::string(100'000, '[') + std::string(100'000, ']'));
  CHECK_FALSE(c.Apply(arrays, &error));
  CHECK(error == arrays + ":1:1: JSON syntax error: nested deeper than 256 levels");
  std::string objects;
  for (int i = 0; i < 1000; ++i) objects += "{\"a\":";
  std::string deep = WriteTemp("deep2.json", objects + "1" + std::string(1000, '}'));
  CHECK_FALSE(c.Apply(deep, &error));
  CHECK(error == deep + ":1:1: JSON syntax error: nested deeper than 256 levels");
  // A 200 KB KEY=VALUE line echoes 64 bytes of it.
  std::string line = WriteTemp("long.conf", std::string(200'000, 'x') + "\n");
  CHECK_FALSE(c.Apply(line, &error));
  CHECK(error == line + ":1: '" + std::string(64, 'x') + "...' is not KEY=VALUE");
  std::string value = WriteTemp("value.conf", "rtt_ms=" + std::string(200'000, '9') + "\n");
  CHECK_FALSE(c.Apply(value, &error));
  CHECK(error == value + ":1: rtt_ms: the value is longer than 400 bytes ('" +
                     std::string(64, '9') + "...')");
  for (const std::string& p : {arrays, deep, line, value}) std::remove(p.c_str());
}

TEST_CASE("ReplayConfig::Apply: control bytes and invalid UTF-8 are echoed as '?'",
          "[replay][config]") {
  ReplayConfig c;
  std::string error;
  std::string path = WriteTemp("c1.conf",
                               "placement=a\x9b[2J\x1b]0;x\x07"
                               "b\n");
  CHECK_FALSE(c.Apply(path, &error));
  CHECK(error == path + ":1: placement: 'a?[2J?]0;x?b' is not dependency or offset");
  // A NUL in a JSON config is where it is, not the end of the text.
  std::string nul = WriteTemp("nul.json", std::string("{\"rtt_ms\": 10}") + '\0' + "{");
  CHECK_FALSE(c.Apply(nul, &error));
  CHECK(error == nul + ":1:15: JSON syntax error: a NUL byte (0x00) in the text");
  std::remove(path.c_str());
  std::remove(nul.c_str());
}

TEST_CASE("ReplayConfig::Set: a negative value is out of range, giving the range",
          "[replay][config]") {
  ReplayConfig c;
  std::string error;
  CHECK_FALSE(c.Set("rtt_ms=-1", &error));
  CHECK(error == "rtt_ms: -1 is out of range (0..60000)");
  CHECK_FALSE(c.Set("cdn.test:server_ms=-0.5", &error));
  CHECK(error == "cdn.test:server_ms: -0.5 is out of range (0..600000)");
  CHECK_FALSE(c.Set("max_sockets=99999999999999999999999", &error));
  CHECK(error == "max_sockets: 99999999999999999999999 is out of range (1..65536)");
  CHECK_FALSE(c.Set(std::string(400, 'k') + "=1", &error));
  CHECK(error == "key '" + std::string(64, 'k') + "...' is longer than 300 bytes");
}

TEST_CASE("ReplayConfig::ToJson and Describe show every setting", "[replay][config]") {
  ReplayConfig c;
  std::string error;
  REQUIRE(c.Set("placement=offset", &error));
  nlohmann::json j = c.ToJson();
  CHECK(j["max_sockets_per_group"] == 6);
  CHECK(j["max_sockets"] == 256);
  CHECK(j["cache"] == "on");
  CHECK(j["cache_mb"] == 10);
  CHECK(j["placement"] == "offset");
  CHECK(j["seed"] == 0);
  CHECK(j["predictor"] == "off");
  CHECK(j["server_ms_from_trace"] == "on");
  CHECK(j["network"].is_object());
  std::string d = c.Describe();
  CHECK(d.find("rtt 40 ms") == 0);
  CHECK(d.find("6/group, cache on, offset") != std::string::npos);
}

}  // namespace
}  // namespace netstack

namespace netstack {
namespace {

TEST_CASE("ReplayConfig: warm_start and cold_runs are on by default, switched, shown and read back",
          "[replay][config]") {
  ReplayConfig c;
  std::string error;
  CHECK(c.warm_start);
  CHECK(c.cold_runs);
  CHECK(c.ToJson()["warm_start"] == "on");
  CHECK(c.ToJson()["cold_runs"] == "on");
  // Defaults are not named in the summary's network line.
  CHECK(c.Describe().find("warm start") == std::string::npos);
  REQUIRE(c.Set("warm_start=off", &error));
  REQUIRE(c.Set("cold_runs=off", &error));
  CHECK_FALSE(c.warm_start);
  CHECK_FALSE(c.cold_runs);
  CHECK(c.Describe().find(", warm start off, cold runs off") != std::string::npos);
  CHECK_FALSE(c.Set("warm_start=maybe", &error));
  CHECK(error == "warm_start: 'maybe' is not on or off");
  CHECK_FALSE(c.Set("cold_runs=2", &error));
  CHECK(error == "cold_runs: '2' is not on or off");
  CHECK_FALSE(c.warm_start);

  // ToJson's form reads back through --config (a file) and an inline list.
  std::string path = "/tmp/replay_config_test_warm_" + std::to_string(::getpid()) + ".json";
  {
    std::ofstream out(path);
    out << c.ToJson().dump();
  }
  ReplayConfig back;
  REQUIRE(back.Apply(path, &error));
  std::remove(path.c_str());
  CHECK_FALSE(back.warm_start);
  CHECK_FALSE(back.cold_runs);
  ReplayConfig inline_list;
  REQUIRE(inline_list.Apply("warm_start=off,cold_runs=on", &error));
  CHECK_FALSE(inline_list.warm_start);
  CHECK(inline_list.cold_runs);
}

}  // namespace
}  // namespace netstack
