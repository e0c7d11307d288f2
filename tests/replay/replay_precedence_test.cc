// The what-if precedence (net/sim/network_params.h, "Where a value comes from") and the scale
// keys: the user's keys win over what the trace gave, whatever the order they were applied in;
// --json's configuration shows which values are the trace's and which keys are the user's.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>

#include "net/sim/network_params.h"
#include "tests/replay/replay_test_util.h"
#include "tools/replay/replay_config.h"
#include "tools/replay/replay_prepared_page.h"

namespace netstack {
namespace {

// A network whose trace layer gave host a.test an RTT, a server time and HTTP/2, and the
// downlink, as --estimate and the recorded protocols do.
void AddTraceValues(NetworkParams* p) {
  HostOverrides& a = p->trace_hosts["a.test"];
  a.rtt = Milliseconds(80);
  a.server_time = Milliseconds(5);
  a.http2 = true;
  p->downlink_bps = 3'000'000;
  p->trace_keys.insert("down_kbps");
}

TEST_CASE("A user's global key overrides the trace's host values, in either order",
          "[replay][config][precedence]") {
  std::string error;
  NetworkParams trace_first;
  AddTraceValues(&trace_first);
  CHECK(trace_first.ForHost("a.test").rtt == Milliseconds(80));  // the trace's, unchallenged
  REQUIRE(trace_first.Set("rtt_ms", "20", &error));
  REQUIRE(trace_first.Set("down_kbps", "5000", &error));

  NetworkParams user_first;
  REQUIRE(user_first.Set("rtt_ms", "20", &error));
  REQUIRE(user_first.Set("down_kbps", "5000", &error));
  HostOverrides& a = user_first.trace_hosts["a.test"];
  a.rtt = Milliseconds(80);
  a.server_time = Milliseconds(5);
  a.http2 = true;

  for (const NetworkParams* p : {&trace_first, &user_first}) {
    HostParams host = p->ForHost("a.test");
    CHECK(host.rtt == Milliseconds(20));         // yields to the user's rtt_ms
    CHECK(host.server_time == Milliseconds(5));  // the user did not set server_ms
    CHECK(host.http2);
    CHECK(p->downlink_bps == 5'000'000);
    CHECK(p->trace_keys.empty());
    CHECK(p->user_keys == std::set<std::string>{"down_kbps", "rtt_ms"});
  }
}

TEST_CASE("A user's host key wins over their global key and over the trace",
          "[replay][config][precedence]") {
  std::string error;
  NetworkParams p;
  AddTraceValues(&p);
  REQUIRE(p.Set("a.test:rtt_ms", "100", &error));
  REQUIRE(p.Set("rtt_ms", "20", &error));  // later, but global
  CHECK(p.ForHost("a.test").rtt == Milliseconds(100));
  CHECK(p.ForHost("b.test").rtt == Milliseconds(20));
  // http2 without a host: auto leaves the trace's protocol, on and off force every host.
  REQUIRE(p.Set("http2", "auto", &error));
  CHECK(p.ForHost("a.test").http2);
  REQUIRE(p.Set("http2", "off", &error));
  CHECK_FALSE(p.ForHost("a.test").http2);
}

TEST_CASE("ToJson shows the trace's values in effect and the user's keys",
          "[replay][config][precedence]") {
  std::string error;
  NetworkParams p;
  AddTraceValues(&p);
  nlohmann::json before = p.ToJson();
  CHECK(before["trace_hosts"]["a.test"]["rtt_ms"] == 80);
  CHECK(before["trace_keys"] == nlohmann::json::array({"down_kbps"}));
  CHECK(before["user_keys"].empty());
  CHECK(before["hosts"].empty());

  REQUIRE(p.Set("rtt_ms", "20", &error));
  REQUIRE(p.Set("a.test:server_ms", "7", &error));
  nlohmann::json after = p.ToJson();
  // The overridden values are left out; what stays is in effect.
  CHECK(after["trace_hosts"]["a.test"] == nlohmann::json({{"http2", "on"}}));
  CHECK(after["user_keys"] == nlohmann::json::array({"rtt_ms"}));
  CHECK(after["hosts"]["a.test"]["server_ms"] == 7);
  REQUIRE(p.Set("http2", "off", &error));
  CHECK_FALSE(p.ToJson()["trace_hosts"].contains("a.test"));
}

TEST_CASE("A preset keeps the trace's values and counts as the user's for its keys",
          "[replay][config][precedence]") {
  std::string error;
  ReplayConfig config;
  AddTraceValues(&config.network);
  REQUIRE(config.Set("b.test:rtt_ms=9", &error));
  REQUIRE(config.Set("rtt_scale=2", &error));
  REQUIRE(config.Set("preset=slow-4g", &error));
  const NetworkParams& p = config.network;
  CHECK(p.user_keys == std::set<std::string>{"dns_ms", "down_kbps", "rtt_ms", "up_kbps"});
  CHECK(p.hosts.empty());  // the user's host overrides go, as documented
  CHECK(p.rtt_scale == 1);
  CHECK(p.trace_hosts.count("a.test"));
  CHECK(p.trace_keys.empty());
  HostParams a = p.ForHost("a.test");
  CHECK(a.rtt == Milliseconds(150));        // the preset's
  CHECK(a.server_time == Milliseconds(5));  // still the trace's
  CHECK(p.downlink_bps == 1'638'400);       // the preset's
  CHECK(NetworkParams::PresetKeys("unlimited") == std::vector<std::string>{"down_kbps", "up_kbps"});
  CHECK(NetworkParams::PresetKeys("lte").size() == 9);
  CHECK(NetworkParams::PresetKeys("nope").empty());

  ReplayConfig by_name;
  AddTraceValues(&by_name.network);
  REQUIRE(by_name.Apply("3g", &error));  // a --compare spec that is a preset
  CHECK(by_name.network.ForHost("a.test").rtt == Milliseconds(300));
  CHECK(by_name.network.ForHost("a.test").server_time == Milliseconds(5));
}

TEST_CASE("Scale keys multiply every host, the defaults and the link, last",
          "[replay][config][scale]") {
  std::string error;
  ReplayConfig config;
  AddTraceValues(&config.network);
  REQUIRE(config.Set("b.test:rtt_ms=100", &error));
  REQUIRE(config.Set("rtt_scale=0.5", &error));
  REQUIRE(config.Set("dns_scale=2", &error));
  REQUIRE(config.Set("server_scale=3", &error));
  REQUIRE(config.Set("bandwidth_scale=0.25", &error));
  const NetworkParams& p = config.network;
  CHECK(p.ForHost("a.test").rtt == Milliseconds(40));  // the trace's 80
  CHECK(p.ForHost("b.test").rtt == Milliseconds(50));  // the user's 100
  CHECK(p.ForHost("c.test").rtt == Milliseconds(20));  // the default 40
  CHECK(p.ForHost("c.test").dns == Milliseconds(80));
  CHECK(p.ForHost("a.test").server_time == Milliseconds(15));
  CHECK(p.ForHost("c.test").server_time == Milliseconds(90));
  CHECK(p.user_keys.count("rtt_scale"));

  // What the simulator gets: the same hosts, the link scaled, the scales spent.
  NetworkParams resolved = p.Resolved();
  for (const char* host : {"a.test", "b.test", "c.test"}) {
    INFO(host);
    HostParams want = p.ForHost(host), got = resolved.ForHost(host);
    CHECK(got.rtt == want.rtt);
    CHECK(got.dns == want.dns);
    CHECK(got.server_time == want.server_time);
    CHECK(got.http2 == want.http2);
    CHECK(got.tls == want.tls);
  }
  CHECK(resolved.downlink_bps == 750'000);
  CHECK(resolved.uplink_bps == 2'500'000);
  CHECK(resolved.rtt_scale == 1);
  CHECK(resolved.trace_hosts.empty());
  REQUIRE(config.Set("down_kbps=0", &error));
  CHECK(config.network.Resolved().downlink_bps == 0);  // unlimited stays unlimited

  nlohmann::json j = config.ToJson()["network"];
  CHECK(j["rtt_scale"] == 0.5);
  CHECK(j["dns_scale"] == 2);
  CHECK(j["bandwidth_scale"] == 0.25);
  CHECK(config.Describe().find(", rtt x0.5, dns x2, server x3, bandwidth x0.25") !=
        std::string::npos);
}

TEST_CASE("Scale keys: bad values are one-line errors, the config unchanged",
          "[replay][config][scale]") {
  ReplayConfig config;
  std::string error;
  CHECK_FALSE(config.Set("rtt_scale=0.001", &error));
  CHECK(error == "rtt_scale: 0.001 is out of range (0.01..100)");
  CHECK_FALSE(config.Set("bandwidth_scale=101", &error));
  CHECK(error == "bandwidth_scale: 101 is out of range (0.01..100)");
  CHECK_FALSE(config.Set("server_scale=-1", &error));
  CHECK(error == "server_scale: -1 is out of range (0.01..100)");
  CHECK_FALSE(config.Set("dns_scale=half", &error));
  CHECK(error == "dns_scale: 'half' is not a number");
  CHECK_FALSE(config.Set("a.test:rtt_scale=2", &error));
  CHECK(error ==
        "'rtt_scale' applies to the whole network and takes no host prefix "
        "('a.test:rtt_scale')");
  CHECK(config.network.rtt_scale == 1);
  CHECK(config.network.user_keys.empty());
  REQUIRE(config.Set("rtt_scale=0.01", &error));
  REQUIRE(config.Set("rtt_scale=100", &error));
  CHECK(config.network.rtt_scale == 100);
}

TEST_CASE("A trace's per-entry server times yield to the user's server_ms and scale",
          "[replay][config][precedence]") {
  TraceEntry a = test::MakeEntry("https://a.test/", 1000, 0, "document");
  a.server_ms = 200;
  TraceEntry b = test::MakeEntry("https://b.test/x.js", 1000, 10, "script");
  b.server_ms = 100;
  auto page = test::MakePage("p", {a, b});
  ReplayConfig config;
  std::string error;
  auto as_recorded = PreparePage(page, config);
  CHECK(as_recorded->entries[0].server_time == Milliseconds(200));
  CHECK(as_recorded->entries[1].server_time == Milliseconds(100));

  REQUIRE(config.Set("server_scale=0.5", &error));
  auto scaled = PreparePage(page, config);
  CHECK(scaled->entries[0].server_time == Milliseconds(100));
  CHECK(scaled->entries[1].server_time == Milliseconds(50));

  REQUIRE(config.Set("b.test:server_ms=10", &error));  // that host only
  auto host_set = PreparePage(page, config);
  CHECK(host_set->entries[0].server_time == Milliseconds(100));
  CHECK_FALSE(host_set->entries[1].server_time);  // the host's (scaled) server time
  CHECK(config.network.ForHost("b.test").server_time == Milliseconds(5));

  REQUIRE(config.Set("server_ms=0", &error));  // every host
  auto global_set = PreparePage(page, config);
  CHECK_FALSE(global_set->entries[0].server_time);
  CHECK(config.network.UserSetServerTime("a.test"));
  CHECK_FALSE(ReplayConfig().network.UserSetServerTime("a.test"));
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = "/tmp/replay_precedence_test_" + std::to_string(::getpid()) + "_" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST_CASE("A --json configuration read back keeps where each value came from",
          "[replay][config][precedence]") {
  std::string error;
  ReplayConfig run;
  REQUIRE(run.Set("server_ms=50", &error));
  REQUIRE(run.Set("rtt_scale=0.5", &error));
  AddTraceValues(&run.network);  // as --estimate adds them, after the options
  std::string path = WriteTemp("config.json", run.ToJson().dump());
  ReplayConfig back;
  REQUIRE(back.Apply(path, &error));
  // The same keys the user's, the same values the trace's (still yielding to the user's).
  CHECK(back.ToJson() == run.ToJson());
  CHECK(back.network.user_keys == std::set<std::string>{"rtt_scale", "server_ms"});
  CHECK(back.network.trace_keys == std::set<std::string>{"down_kbps"});
  CHECK(back.network.hosts.empty());
  CHECK(back.network.trace_hosts.at("a.test").rtt == Milliseconds(80));
  CHECK_FALSE(back.network.trace_hosts.at("a.test").server_time);  // overridden: not written
  CHECK(back.network.downlink_bps == 3'000'000);
  for (const char* host : {"a.test", "c.test"}) {
    CHECK(back.network.ForHost(host).rtt == run.network.ForHost(host).rtt);
    CHECK(back.network.ForHost(host).server_time == Milliseconds(50));
  }

  std::string bad = WriteTemp("bad.json",
                              "{\"network\": {\"trace_hosts\": {\"a.test\": "
                              "{\"rtt_ms\": -1}}}}");
  CHECK_FALSE(back.Apply(bad, &error));
  CHECK(error == bad + ": network.trace_hosts: a.test:rtt_ms: -1 is out of range (0..60000)");

  // A value edited in the file is the user's, listed or not.
  nlohmann::json edited = run.ToJson();
  edited["network"]["mss"] = 1200;
  std::string edited_path = WriteTemp("edited.json", edited.dump());
  ReplayConfig again;
  REQUIRE(again.Apply(edited_path, &error));
  CHECK(again.network.mss == 1200);
  CHECK(again.network.user_keys.count("mss"));
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : {
           Case{R"({"network": {"trace_hosts": 5}})",
                "network.trace_hosts: expected an object of HOST: {KEY: value}"},
           Case{R"({"network": {"trace_hosts": {"a.test": 5}}})",
                "network.trace_hosts.a.test: expected an object of KEY: value"},
           Case{R"({"network": {"trace_hosts": {"a.test": {"rtt_ms": [1]}}}})",
                "network.trace_hosts.a.test.rtt_ms: expected a string or a number"},
           Case{R"({"network": {"trace_hosts": {"a.test": {"mss": 1000}}}})",
                "network.trace_hosts: 'mss' applies to the whole network and takes no host "
                "prefix ('a.test:mss')"},
           Case{R"({"network": {"trace_keys": ["down_kbps"], "down_kbps": [1]}})",
                "network.down_kbps: expected a string, a number or a boolean"},
           Case{R"({"network": {"trace_keys": ["down_kbps"], "down_kbps": -1}})",
                "down_kbps: -1 is out of range (0..100000000)"},
       }) {
    INFO(c.text);
    std::string file = WriteTemp("case.json", c.text);
    ReplayConfig fresh;
    CHECK_FALSE(fresh.Apply(file, &error));
    CHECK(error == file + ": " + c.message);
    std::remove(file.c_str());
  }
  // What the fuzzer (fuzz_replay_config) checks: an applied config round-trips, composite keys
  // (radio=3g sets four times) and listed trace keys that are not network keys included.
  for (const char* text : {R"({"network": {"user_keys": [], "radio": "3g", "radio_tail_ms": 9}})",
                           R"({"network": {"trace_keys": ["cache"], "cache": "off"}})",
                           R"({"network": {"trace_keys": ["rtt_ms"], "rtt_ms": 5}})",
                           R"({"network": {"trace_keys": ["a.test:rtt_ms"], "a.test:rtt_ms": 5}})",
                           R"({"network": {"user_keys": [], "mss": 1460, "init_cwnd": 4}})"}) {
    INFO(text);
    std::string file = WriteTemp("roundtrip.json", text);
    ReplayConfig first;
    REQUIRE(first.Apply(file, &error));
    std::string written = WriteTemp("written.json", first.ToJson().dump());
    ReplayConfig second;
    REQUIRE(second.Apply(written, &error));
    CHECK(second.ToJson() == first.ToJson());
    for (const auto& p : {file, written}) std::remove(p.c_str());
  }
  for (const auto& p : {path, edited_path, bad}) std::remove(p.c_str());
}

}  // namespace
}  // namespace netstack
