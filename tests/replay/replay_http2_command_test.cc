// `netstack replay`'s HTTP/2 plumbing as users run it: each host's recorded protocol (a HAR's
// versions, a session's host lines, gen-session's share) reaches the replay's network as the
// per-host http2 override, --set and --config win over it, `--set http2=on|off` and `--compare
// http2=off http2=auto` change what every host speaks, pushed entries are counted. The
// simulated h2 server is not asserted on: these check which hosts get http2, not timings.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "tests/replay/replay_command_run.h"
#include "tests/replay/replay_test_util.h"
#include "tools/netstack/replay_command.h"
#include "tools/netstack/replay_options.h"

namespace netstack {
namespace {

using nlohmann::json;

std::string Temp(const std::string& name) {
  return "/tmp/replay_http2_test_" + std::to_string(::getpid()) + "_" + name;
}

std::string Write(const std::string& name, const std::string& text) {
  std::string path = Temp(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

struct CommandRun {
  int code = -1;
  std::string out, err;
  json summary;                // the --json summary line
  std::vector<json> requests;  // the --json request records
};

// Runs `netstack replay TRACE ARGS... --json FILE` in-process.
CommandRun Run(const std::string& trace, std::vector<std::string> args) {
  CommandRun run;
  std::string json_path = Temp("out.jsonl");
  args.insert(args.begin(), trace);
  args.insert(args.end(), {"--json", json_path});
  test::ReplayCommandRun command = test::RunReplayCommandLine(args);
  run.code = command.code;
  run.out = std::move(command.out);
  run.err = std::move(command.err);
  std::ifstream in(json_path);
  std::string line, last;
  while (std::getline(in, line)) {
    last = line;
    json record = json::parse(line, nullptr, false);
    if (record.is_object() && record.value("kind", "") == "request") run.requests.push_back(record);
  }
  if (!last.empty()) run.summary = json::parse(last);
  std::remove(json_path.c_str());
  return run;
}

// Whether `host` speaks h2 under a configuration the --json summary wrote (the traces[]
// "config"), read back as --config reads it: NetworkParams::ForHost, what the simulator uses.
bool SpeaksH2(const json& config, const std::string& host) {
  std::string path = Write("config.json", config.dump());
  ReplayConfig read;
  std::string error;
  bool ok = read.Apply(path, &error);
  std::remove(path.c_str());
  INFO(error);
  REQUIRE(ok);
  return read.network.ForHost(host).http2;
}

json HarEntry(const std::string& url, const std::string& version, int ms) {
  return {
      {"pageref", "page_1"},
      {"startedDateTime", "2024-01-01T00:00:00." + std::to_string(100 + ms) + "Z"},
      {"time", 50},
      {"request", {{"method", "GET"}, {"url", url}, {"httpVersion", version}}},
      {"response",
       {{"status", 200}, {"httpVersion", version}, {"bodySize", 2000}, {"headers", json::array()}}},
      {"timings", {{"send", 0}, {"wait", 30}, {"receive", 20}}}};
}

// One page: h2.test over h2 (its stylesheet pushed), old.test over HTTP/1.1.
std::string H2Har() {
  json pushed = HarEntry("https://h2.test/a.css", "h2", 20);
  pushed["_was_pushed"] = 1;
  json har = {{"log",
               {{"version", "1.2"},
                {"creator", {{"name", "test"}, {"version", "1"}}},
                {"pages", json::array({{{"id", "page_1"},
                                        {"startedDateTime", "2024-01-01T00:00:00.100Z"},
                                        {"title", "h2"}}})},
                {"entries", json::array({HarEntry("https://h2.test/", "h2", 0), pushed,
                                         HarEntry("https://old.test/x.js", "HTTP/1.1", 40)})}}}};
  return Write("h2.har", har.dump());
}

TEST_CASE("HTTP/2: a HAR's h2 hosts replay with http2 on, --set and --config win",
          "[replay][command][http2]") {
  std::string har = H2Har();
  CommandRun run = Run(har, {});
  INFO(run.err);
  REQUIRE(run.code == 0);
  const json& config = run.summary["traces"][0]["config"];
  CHECK(config["network"]["http2"] == "auto");
  // The recorded protocols are the trace's values, not the user's host overrides.
  CHECK(config["network"]["trace_hosts"]["h2.test"]["http2"] == "on");
  CHECK_FALSE(config["network"]["trace_hosts"].contains("old.test"));
  CHECK(config["network"]["hosts"].empty());
  CHECK(SpeaksH2(config, "h2.test"));
  CHECK_FALSE(SpeaksH2(config, "old.test"));
  // The options' own configuration does not carry the trace's hosts.
  CHECK(run.summary["config"]["network"]["trace_hosts"].empty());

  // What if: every host on HTTP/1.1, or every host on h2.
  CommandRun off = Run(har, {"--set", "http2=off"});
  REQUIRE(off.code == 0);
  const json& off_config = off.summary["traces"][0]["config"];
  CHECK(off_config["network"]["http2"] == "off");
  CHECK(off.out.find(", dependency, http2 off\n") != std::string::npos);  // the network line
  CHECK_FALSE(SpeaksH2(off_config, "h2.test"));
  CHECK_FALSE(SpeaksH2(off_config, "old.test"));
  CommandRun on = Run(har, {"--set", "http2=on"});
  REQUIRE(on.code == 0);
  CHECK(SpeaksH2(on.summary["traces"][0]["config"], "h2.test"));
  CHECK(SpeaksH2(on.summary["traces"][0]["config"], "old.test"));

  // One host's explicit setting wins over the recording, either way.
  CommandRun host_off = Run(har, {"--set", "h2.test:http2=off", "--set", "old.test:http2=on"});
  REQUIRE(host_off.code == 0);
  const json& host_config = host_off.summary["traces"][0]["config"];
  CHECK(host_config["network"]["hosts"]["h2.test"]["http2"] == "off");
  CHECK_FALSE(SpeaksH2(host_config, "h2.test"));
  CHECK(SpeaksH2(host_config, "old.test"));
  std::string conf = Write("net.conf", "h2.test:http2=off\n");
  CommandRun from_file = Run(har, {"--config", conf});
  REQUIRE(from_file.code == 0);
  CHECK_FALSE(SpeaksH2(from_file.summary["traces"][0]["config"], "h2.test"));

  // --estimate: the estimated hosts keep their recorded protocol.
  CommandRun estimate = Run(har, {"--estimate"});
  REQUIRE(estimate.code == 0);
  const json& estimated =
      estimate.summary["traces"][0]["config"]["network"]["trace_hosts"]["h2.test"];
  CHECK(estimated["http2"] == "on");
  CHECK(estimated.contains("server_ms"));
  for (const auto& p : {har, conf}) std::remove(p.c_str());
}

// One page: the document and then eight images, all from h2.test over h2.
std::string ManyImagesHar() {
  json entries = json::array({HarEntry("https://h2.test/", "h2", 0)});
  for (int i = 0; i < 8; ++i) {
    entries.push_back(HarEntry("https://h2.test/i" + std::to_string(i) + ".png", "h2", 60));
  }
  json har = {{"log",
               {{"version", "1.2"},
                {"creator", {{"name", "test"}, {"version", "1"}}},
                {"pages", json::array({{{"id", "page_1"},
                                        {"startedDateTime", "2024-01-01T00:00:00.100Z"},
                                        {"title", "images"}}})},
                {"entries", entries}}}};
  return Write("images.har", har.dump());
}

TEST_CASE("HTTP/2: an h2 HAR replays on one connection per origin, http2=off on several",
          "[replay][command][http2]") {
  std::string har = ManyImagesHar();
  CommandRun h2 = Run(har, {});
  INFO(h2.err);
  REQUIRE(h2.code == 0);
  REQUIRE(h2.requests.size() == 9);
  std::set<int64_t> sockets, sessions;
  for (const json& r : h2.requests) {
    CHECK(r["error"].is_null());
    CHECK(r["protocol"] == "h2");
    sockets.insert(r["socket"]["id"].get<int64_t>());
    sessions.insert(r["h2_session_id"].get<int64_t>());
  }
  CHECK(sockets.size() == 1);
  CHECK(sessions.size() == 1);

  CommandRun h1 = Run(har, {"--set", "http2=off"});
  REQUIRE(h1.code == 0);
  REQUIRE(h1.requests.size() == 9);
  std::set<int64_t> h1_sockets;
  for (const json& r : h1.requests) {
    CHECK(r["protocol"] == "http/1.1");
    CHECK(r["h2_session_id"].is_null());
    h1_sockets.insert(r["socket"]["id"].get<int64_t>());
  }
  // Eight images at once over HTTP/1.1: the group's six connections.
  CHECK(h1_sockets.size() == 6);
}

TEST_CASE("HTTP/2: pushed entries are replayed as requests and counted",
          "[replay][command][http2]") {
  std::string har = H2Har();
  CommandRun run = Run(har, {});
  REQUIRE(run.code == 0);
  CHECK(run.summary["totals"]["pushed"] == 1);
  CHECK(run.summary["totals"]["requests"] == 3);
  CHECK(run.out.find("3 requests, 0 failed, 1 pushed (replayed as requests)") != std::string::npos);
  std::remove(har.c_str());
}

TEST_CASE("HTTP/2: --compare http2=off http2=auto", "[replay][command][http2]") {
  std::string har = H2Har();
  CommandRun run = Run(har, {"--compare", "http2=off", "http2=auto"});
  INFO(run.err);
  REQUIRE(run.code == 0);
  CHECK(run.out.find("A: http2=off\nB: http2=auto\n") == 0);
  const json& a = run.summary["a"]["traces"][0]["config"];
  const json& b = run.summary["b"]["traces"][0]["config"];
  CHECK(a["network"]["http2"] == "off");
  CHECK(b["network"]["http2"] == "auto");
  CHECK_FALSE(SpeaksH2(a, "h2.test"));
  CHECK(SpeaksH2(b, "h2.test"));
  CHECK_FALSE(SpeaksH2(b, "old.test"));
  CHECK(run.summary["compare"]["pages"] == 1);

  // A preset in a spec replaces the network (host overrides too): the recorded protocols are
  // applied after it, so they survive.
  CommandRun presets = Run(har, {"--compare", "slow-4g", "desktop"});
  REQUIRE(presets.code == 0);
  CHECK(SpeaksH2(presets.summary["a"]["traces"][0]["config"], "h2.test"));
  CHECK(SpeaksH2(presets.summary["b"]["traces"][0]["config"], "h2.test"));
  std::remove(har.c_str());
}

TEST_CASE("HTTP/2: a session's host lines, and gen-session's", "[replay][command][http2]") {
  std::string session =
      Write("hosts.jsonl",
            "{\"type\": \"host\", \"host\": \"www.example.com\", \"protocol\": \"h2\"}\n"
            "{\"type\": \"host\", \"host\": \"cdn.example.com\", \"protocol\": \"h3\"}\n"
            "{\"type\": \"host\", \"host\": \"old.example.com\", \"protocol\": \"http/1.1\"}\n"
            "{\"type\": \"navigate\", \"t\": 0, \"page\": {\"entries\": ["
            "{\"url\": \"https://www.example.com/\", \"bytes\": 2000},"
            "{\"url\": \"https://cdn.example.com/a.js\", \"bytes\": 5000},"
            "{\"url\": \"https://old.example.com/b.js\", \"bytes\": 5000}]}}\n");
  CommandRun run = Run(session, {});
  INFO(run.err);
  REQUIRE(run.code == 0);
  const json& config = run.summary["traces"][0]["config"];
  CHECK(SpeaksH2(config, "www.example.com"));
  CHECK(SpeaksH2(config, "cdn.example.com"));  // h3: replayed as h2
  CHECK_FALSE(SpeaksH2(config, "old.example.com"));
  CHECK(run.summary["totals"]["requests"] == 3);

  // A generated session: its h2 hosts are the replay's.
  SyntheticSessionOptions options;
  options.pages = 3;
  options.sites = 4;
  options.pages_per_site = 2;
  std::string text = test::Generate(options);
  std::string generated = Write("gen.jsonl", text);
  CommandRun gen = Run(generated, {});
  INFO(gen.err);
  REQUIRE(gen.code == 0);
  size_t h2_lines = 0, pos = 0;
  while ((pos = text.find("\"protocol\":\"h2\"", pos)) != std::string::npos) ++h2_lines, ++pos;
  CHECK(h2_lines > 0);
  CHECK(gen.summary["traces"][0]["config"]["network"]["trace_hosts"].size() == h2_lines);
  for (const auto& p : {session, generated}) std::remove(p.c_str());
}

TEST_CASE("HTTP/2: a malformed host line is one line naming the file and line, exit 2",
          "[replay][command][http2][errors]") {
  std::string session = Write("bad-host.jsonl",
                              "{\"type\": \"host\", \"host\": \"a.test\", \"protocol\": \"h2\"}\n"
                              "{\"type\": \"host\", \"host\": \"b.test\", \"protocol\": true}\n"
                              "{\"type\": \"navigate\", \"t\": 0, \"url\": \"https://a.test/\"}\n");
  CommandRun run = Run(session, {});
  CHECK(run.code == 2);
  CHECK(run.out.empty());
  CHECK(run.err == "netstack: " + session + ":2: protocol: expected a string, got a boolean\n");
  std::string late = Write("late-host.jsonl",
                           "{\"type\": \"navigate\", \"t\": 0, \"url\": \"https://a.test/\"}\n"
                           "{\"type\": \"host\", \"host\": \"a.test\", \"protocol\": \"h2\"}\n");
  CommandRun late_run = Run(late, {});
  CHECK(late_run.code == 2);
  CHECK(late_run.err == "netstack: " + late +
                            ":2: a host line must come before the session's first event or page "
                            "line\n");
  for (const auto& p : {session, late}) std::remove(p.c_str());
}

}  // namespace
}  // namespace netstack
