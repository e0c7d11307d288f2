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
  CHECK(error == "predictor: 'smart' is not off, chrome or learned");
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
  CHECK(error == syntax + ":2: JSON syntax error");
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
