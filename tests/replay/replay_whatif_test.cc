// Every what-if example of docs/replay.md and README.md, run as the command line runs it
// (ParseReplayArgs, then RunReplayCommand) on a recording from ../shared/traces/har and on a
// small inline session, checking that the result moves the way the example says. Directions
// only: no figure is hard-coded.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "tests/replay/replay_test_util.h"
#include "tests/test_skip.h"
#include "tools/netstack/replay_command.h"
#include "tools/netstack/replay_options.h"

namespace netstack {
namespace {

using json = nlohmann::json;

std::string Temp(const std::string& name) {
  return "/tmp/replay_whatif_test_" + std::to_string(::getpid()) + "_" + name;
}

std::string Write(const std::string& name, const std::string& text) {
  std::string path = Temp(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// A recording of ../shared/traces/har.
std::string SharedHar(const std::string& name) {
  return std::string(NETSTACK_TRACES_DIR) + "/har/" + name;
}

// Two pages on two hosts, with recorded server times, the second navigated after the first.
const char kSession[] =
    "{\"type\": \"navigate\", \"t\": 0, \"page\": {\"entries\": ["
    "{\"url\": \"https://www.example.com/\", \"bytes\": 20000, \"server_ms\": 100},"
    "{\"url\": \"https://cdn.example.com/a.js\", \"type\": \"script\", \"bytes\": 50000,"
    " \"server_ms\": 40, \"start_ms\": 200, \"after\": 0, \"gap_ms\": 5}]}}\n"
    "{\"type\": \"wait\", \"t\": 0}\n"
    "{\"type\": \"navigate\", \"t\": 500, \"page\": {\"entries\": ["
    "{\"url\": \"https://www.example.com/next\", \"bytes\": 10000, \"server_ms\": 80}]}}\n";

// One run of `netstack replay ARGS --json FILE --quiet`: its JSON lines, split by kind.
struct WhatIf {
  int code = -1;
  std::string err;
  std::vector<json> requests, pages;
  json summary;

  double load_ms() const { return summary["page_load"]["mean_ms"].get<double>(); }
  // Sum over pages of a figure ("timing", "queued_ms").
  double PageSum(const char* group, const char* key) const {
    double sum = 0;
    for (const json& p : pages) sum += p[group][key].get<double>();
    return sum;
  }
  // Sum over `host`'s requests of their duration.
  double HostMs(const std::string& host) const {
    double sum = 0;
    for (const json& r : requests) {
      if (r["host"] == host) sum += r["end_ms"].get<double>() - r["start_ms"].get<double>();
    }
    return sum;
  }
  // The host with the most requests that used the network.
  std::string BusiestHost() const {
    std::map<std::string, int> counts;
    for (const json& r : requests) {
      if (r["protocol"].is_string()) ++counts[r["host"].get<std::string>()];
    }
    std::string best;
    for (const auto& [host, n] : counts) {
      if (best.empty() || n > counts[best]) best = host;
    }
    return best;
  }
};

WhatIf Replay(std::vector<std::string> args) {
  WhatIf run;
  std::string json_path = Temp("out.jsonl");
  args.insert(args.end(), {"--json", json_path, "--quiet"});
  ReplayOptions options;
  std::string message;
  if (!ParseReplayArgs(args, &options, &message)) {
    run.code = 2;
    run.err = message;
    return run;
  }
  char* err_buf = nullptr;
  size_t err_size = 0;
  FILE* err = open_memstream(&err_buf, &err_size);
  run.code = RunReplayCommand(options, "netstack replay (test)", stdout, err);
  std::fclose(err);
  run.err.assign(err_buf, err_size);
  std::free(err_buf);
  std::ifstream in(json_path);
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line);
    if (j["kind"] == "request") run.requests.push_back(j);
    if (j["kind"] == "page") run.pages.push_back(j);
    if (j["kind"] == "summary") run.summary = j;
  }
  std::remove(json_path.c_str());
  return run;
}

#define REQUIRE_RAN(run)                    \
  do {                                      \
    INFO((run).err);                        \
    REQUIRE((run).code == 0);               \
    REQUIRE_FALSE((run).summary.is_null()); \
  } while (0)

#define REQUIRE_HAR(path)                                                \
  do {                                                                   \
    if (!std::filesystem::exists(path)) SKIP_TEST("no HAR at " << path); \
  } while (0)

// A page with dependencies, many hosts, HTTP/1.1 and h2 hosts, one page.
const char kBusyHar[] = "chrome_enorm-magazin.de.har";
// Several pages of one site: later pages hit the cache.
const char kRepeatHar[] = "browsertime_sitespeed.io.har";

TEST_CASE("What-if: --estimate --set rtt_ms=20 lowers page load, in either order",
          "[replay][whatif]") {
  const std::string har = SharedHar(kBusyHar);
  REQUIRE_HAR(har);
  WhatIf recorded = Replay({har, "--estimate"});
  WhatIf faster = Replay({har, "--estimate", "--set", "rtt_ms=20"});
  WhatIf set_first = Replay({har, "--set", "rtt_ms=20", "--estimate"});
  REQUIRE_RAN(recorded);
  REQUIRE_RAN(faster);
  REQUIRE_RAN(set_first);
  CHECK(faster.load_ms() < recorded.load_ms());
  CHECK(set_first.summary == faster.summary);  // options are not ordered
  // The configuration says so: no estimated RTT is left in effect, rtt_ms is the user's.
  const json& network = faster.summary["traces"][0]["config"]["network"];
  CHECK(network["user_keys"] == json::array({"rtt_ms"}));
  REQUIRE_FALSE(network["trace_hosts"].empty());
  for (const auto& [host, keys] : network["trace_hosts"].items()) {
    INFO(host);
    CHECK_FALSE(keys.contains("rtt_ms"));
  }
  const json& estimated = recorded.summary["traces"][0]["config"]["network"]["trace_hosts"];
  size_t with_rtt = 0;
  for (const auto& [host, keys] : estimated.items()) with_rtt += keys.contains("rtt_ms");
  CHECK(with_rtt > 0);

  // Without --estimate: from the default 40 ms.
  WhatIf plain = Replay({har});
  WhatIf plain_faster = Replay({har, "--set", "rtt_ms=20"});
  REQUIRE_RAN(plain);
  REQUIRE_RAN(plain_faster);
  CHECK(plain_faster.load_ms() < plain.load_ms());
}

TEST_CASE("What-if: --config and --compare specs override the estimate too", "[replay][whatif]") {
  const std::string har = SharedHar(kBusyHar);
  REQUIRE_HAR(har);
  std::string conf = Write("rtt.conf", "rtt_ms=20\n");
  WhatIf by_set = Replay({har, "--estimate", "--set", "rtt_ms=20"});
  WhatIf by_config = Replay({har, "--estimate", "--config", conf});
  WhatIf compared = Replay({har, "--estimate", "--compare", "rtt_ms=200", "rtt_ms=20"});
  REQUIRE_RAN(by_set);
  REQUIRE_RAN(by_config);
  REQUIRE_RAN(compared);
  CHECK(by_config.load_ms() == by_set.load_ms());
  CHECK(compared.summary["b"]["page_load"]["mean_ms"] == by_set.summary["page_load"]["mean_ms"]);
  CHECK(compared.summary["compare"]["b_faster"] == 1);
  std::remove(conf.c_str());
}

TEST_CASE("What-if: slow-4g raises page load, desktop vs slow-4g pairs pages", "[replay][whatif]") {
  const std::string har = SharedHar(kBusyHar);
  REQUIRE_HAR(har);
  WhatIf plain = Replay({har});
  WhatIf plain_slow = Replay({har, "--preset", "slow-4g"});
  REQUIRE_RAN(plain);
  REQUIRE_RAN(plain_slow);
  CHECK(plain_slow.load_ms() > plain.load_ms());
  // On the recording's own network: the preset's round trips and link replace the estimated
  // ones (this recording's were slower than slow-4g's), its server times stay.
  WhatIf recorded = Replay({har, "--estimate"});
  WhatIf slow = Replay({har, "--estimate", "--preset", "slow-4g"});
  WhatIf desktop = Replay({har, "--estimate", "--preset", "desktop"});
  REQUIRE_RAN(recorded);
  REQUIRE_RAN(slow);
  REQUIRE_RAN(desktop);
  CHECK(slow.load_ms() != recorded.load_ms());
  CHECK(slow.load_ms() > desktop.load_ms());
  const json& network = slow.summary["traces"][0]["config"]["network"];
  CHECK(network["down_kbps"] == 1638.4);
  bool server_kept = false;
  for (const auto& [host, keys] : network["trace_hosts"].items()) {
    CHECK_FALSE(keys.contains("rtt_ms"));
    server_kept |= keys.contains("server_ms");
  }
  CHECK(server_kept);

  // docs/replay.md: `--compare desktop slow-4g`, and README's `--compare slow-4g desktop`.
  WhatIf compared = Replay({har, "--compare", "desktop", "slow-4g"});
  REQUIRE_RAN(compared);
  CHECK(compared.summary["compare"]["b_slower"] == 1);
  std::string session = Write("presets.jsonl", kSession);
  WhatIf reversed = Replay({session, "--compare", "slow-4g", "desktop"});
  REQUIRE_RAN(reversed);
  CHECK(reversed.summary["compare"]["b_faster"] == 2);
  // docs/replay.md: `session.jsonl --preset slow-4g --json out.jsonl`.
  WhatIf session_default = Replay({session});
  WhatIf session_slow = Replay({session, "--preset", "slow-4g"});
  REQUIRE_RAN(session_default);
  REQUIRE_RAN(session_slow);
  CHECK(session_slow.load_ms() > session_default.load_ms());
  std::remove(session.c_str());
}

TEST_CASE("What-if: a host's rtt lowers that host's requests, and wins over the global key",
          "[replay][whatif]") {
  const std::string har = SharedHar(kBusyHar);
  REQUIRE_HAR(har);
  WhatIf recorded = Replay({har, "--estimate"});
  REQUIRE_RAN(recorded);
  const std::string host = recorded.BusiestHost();
  REQUIRE_FALSE(host.empty());
  WhatIf near = Replay({har, "--estimate", "--set", host + ":rtt_ms=1"});
  REQUIRE_RAN(near);
  CHECK(near.HostMs(host) < recorded.HostMs(host));

  // The user's host key wins over their global key, in either order.
  WhatIf global = Replay({har, "--estimate", "--set", "rtt_ms=20"});
  WhatIf host_far =
      Replay({har, "--estimate", "--set", "rtt_ms=20", "--set", host + ":rtt_ms=300"});
  WhatIf host_first =
      Replay({har, "--estimate", "--set", host + ":rtt_ms=300", "--set", "rtt_ms=20"});
  REQUIRE_RAN(global);
  REQUIRE_RAN(host_far);
  REQUIRE_RAN(host_first);
  CHECK(host_far.HostMs(host) > global.HostMs(host));
  CHECK(host_first.summary == host_far.summary);
  CHECK(host_far.summary["traces"][0]["config"]["network"]["hosts"][host]["rtt_ms"] == 300);

  // docs/replay.md: `--set cdn.example.com:rtt_ms=10 --set max_sockets_per_group=2`, on an
  // HTTP/1.1 page: fewer sockets per host, more queueing.
  WhatIf h1 = Replay({har, "--set", "http2=off"});
  WhatIf two = Replay({har, "--set", "http2=off", "--set", host + ":rtt_ms=10", "--set",
                       "max_sockets_per_group=2"});
  REQUIRE_RAN(h1);
  REQUIRE_RAN(two);
  CHECK(two.PageSum("timing", "queued_ms") > h1.PageSum("timing", "queued_ms"));
  CHECK(two.load_ms() > h1.load_ms());
}

TEST_CASE("What-if: http2=off vs auto, and cache=off", "[replay][whatif]") {
  const std::string har = SharedHar(kBusyHar);
  REQUIRE_HAR(har);
  // docs/replay.md, "HTTP/2": `--compare http2=off http2=auto`.
  WhatIf compared = Replay({har, "--compare", "http2=off", "http2=auto"});
  REQUIRE_RAN(compared);
  size_t h2_a = 0, h2_b = 0;
  for (const json& r : compared.requests) {
    (r["run"] == "a" ? h2_a : h2_b) += r["protocol"] == "h2";
  }
  CHECK(h2_a == 0);
  CHECK(h2_b > 0);
  CHECK(compared.summary["compare"]["b_faster"] == 1);  // as recorded beats all-HTTP/1.1 here

  const std::string repeat = SharedHar(kRepeatHar);
  REQUIRE_HAR(repeat);
  // The recording's runs each began on a fresh browser (cold_runs); sharing one browser across
  // them (cold_runs=off), the cache serves the later runs unless it is off.
  WhatIf cached = Replay({repeat, "--set", "cold_runs=off"});
  WhatIf uncached = Replay({repeat, "--set", "cold_runs=off", "--set", "cache=off"});
  REQUIRE_RAN(cached);
  REQUIRE_RAN(uncached);
  CHECK(cached.PageSum("cache", "hits") > 0);
  CHECK(uncached.PageSum("cache", "hits") == 0);
  CHECK(uncached.load_ms() > cached.load_ms());
}

TEST_CASE("What-if: the scale keys move an estimated network", "[replay][whatif][scale]") {
  const std::string har = SharedHar(kBusyHar);
  REQUIRE_HAR(har);
  // `--compare rtt_scale=1 rtt_scale=0.5`: every estimated RTT halved.
  WhatIf rtt = Replay({har, "--estimate", "--compare", "rtt_scale=1", "rtt_scale=0.5"});
  REQUIRE_RAN(rtt);
  CHECK(rtt.summary["compare"]["b_faster"] == 1);
  WhatIf recorded = Replay({har, "--estimate"});
  REQUIRE_RAN(recorded);
  WhatIf thin = Replay({har, "--estimate", "--set", "bandwidth_scale=0.1"});
  WhatIf quick = Replay({har, "--estimate", "--set", "server_scale=0.1"});
  WhatIf dns = Replay({har, "--estimate", "--set", "dns_scale=10"});
  for (const WhatIf* run : {&thin, &quick, &dns}) REQUIRE_RAN(*run);
  CHECK(thin.load_ms() > recorded.load_ms());
  CHECK(quick.load_ms() < recorded.load_ms());
  CHECK(dns.PageSum("timing", "dns_ms") > recorded.PageSum("timing", "dns_ms"));
  CHECK(thin.summary["traces"][0]["config"]["network"]["bandwidth_scale"] == 0.1);
}

TEST_CASE("What-if: server_ms overrides a trace's per-entry server times", "[replay][whatif]") {
  const std::string har = SharedHar(kBusyHar);
  REQUIRE_HAR(har);
  WhatIf recorded = Replay({har, "--estimate"});
  WhatIf instant = Replay({har, "--estimate", "--set", "server_ms=0"});
  REQUIRE_RAN(recorded);
  REQUIRE_RAN(instant);
  CHECK(instant.load_ms() < recorded.load_ms());
  for (const json& r : instant.requests) {
    if (r["model"]["server_ms"].is_number()) CHECK(r["model"]["server_ms"] == 0);
  }
  // A session's recorded server times too.
  std::string session = Write("server.jsonl", kSession);
  WhatIf as_recorded = Replay({session});
  WhatIf slow_servers = Replay({session, "--set", "server_ms=500"});
  REQUIRE_RAN(as_recorded);
  REQUIRE_RAN(slow_servers);
  CHECK(slow_servers.load_ms() > as_recorded.load_ms());
  std::remove(session.c_str());
}

TEST_CASE("What-if: README's rtt_ms=80 with tls=1.2 raises page load", "[replay][whatif]") {
  std::string session = Write("readme.jsonl", kSession);
  WhatIf base = Replay({session});
  WhatIf slower = Replay({session, "--set", "rtt_ms=80", "--set", "tls=1.2"});
  REQUIRE_RAN(base);
  REQUIRE_RAN(slower);
  CHECK(slower.load_ms() > base.load_ms());
  CHECK(slower.PageSum("timing", "tls_ms") > base.PageSum("timing", "tls_ms"));
  std::remove(session.c_str());
}

#ifdef NETSTACK_BIN
// The page-load mean of `netstack replay ARGS --json -`, run as the built binary (-1 on failure).
double BinaryLoadMs(const std::string& args) {
  std::string out = Temp("bin.jsonl");
  std::string command =
      std::string(NETSTACK_BIN) + " replay " + args + " --quiet --json - >" + out + " 2>/dev/null";
  int status = std::system(command.c_str());
  std::ifstream in(out);
  std::string line, last;
  while (std::getline(in, line)) last = line;
  std::remove(out.c_str());
  if (status != 0 || last.empty()) return -1;
  json summary = json::parse(last, nullptr, /*allow_exceptions=*/false);
  if (!summary.is_object() || !summary.contains("page_load")) return -1;
  return summary["page_load"]["mean_ms"].get<double>();
}

TEST_CASE("What-if: the binary runs docs/replay.md's --estimate --set rtt_ms=20",
          "[replay][whatif]") {
  const std::string har = SharedHar(kBusyHar);
  REQUIRE_HAR(har);
  double recorded = BinaryLoadMs(har + " --estimate");
  double faster = BinaryLoadMs(har + " --estimate --set rtt_ms=20");
  REQUIRE(recorded > 0);
  REQUIRE(faster > 0);
  CHECK(faster < recorded);
}
#endif

TEST_CASE("What-if: the predictor examples save time and report their figures",
          "[replay][whatif][predictor]") {
  // docs/replay.md, "The predictor", on a generated session (a small one: 30 navigations).
  SyntheticSessionOptions options;
  options.pages = 30;
  options.seed = 3;
  std::string session = Write("predictor.jsonl", test::Generate(options));
  WhatIf learned =
      Replay({session, "--preset", "slow-4g", "--compare", "predictor=off", "predictor=learned"});
  REQUIRE_RAN(learned);
  CHECK(learned.summary["compare"]["b_slower"] == 0);
  CHECK(learned.summary["compare"]["b_faster"].get<int>() > 0);
  CHECK(learned.summary["compare"]["saved_ms"]["total"].get<double>() > 0);
  WhatIf chrome = Replay({session, "--set", "predictor=chrome"});
  REQUIRE_RAN(chrome);
  const json& predictor = chrome.summary["totals"]["predictor"];
  CHECK(predictor["policy"] == "chrome");
  CHECK(predictor["stats"]["hints"]["produced"].get<int>() > 0);
  CHECK(predictor["tables"].is_object());
  std::remove(session.c_str());
}

}  // namespace
}  // namespace netstack
