// The network estimate on a HAR made by hand with known timings, and its sanity on the real
// HAR files.
#include "tools/replay/trace/har_estimate.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/trace/trace_test_util.h"

namespace netstack {
namespace {

using nlohmann::json;
using test::HarDocument;
using test::HarEntry;

double Ms(TimeDelta delta) { return ToMilliseconds(delta); }

json Timed(const std::string& url, const std::string& started, json timings, int64_t bytes) {
  double time = 0;
  for (const char* phase : {"blocked", "dns", "connect", "send", "wait", "receive"}) {
    if (timings.contains(phase) && timings[phase].get<double>() > 0)
      time += timings[phase].get<double>();
  }
  json entry = HarEntry(url, started, time);
  entry["timings"] = timings;
  entry["response"]["bodySize"] = bytes;
  return entry;
}

TEST_CASE("EstimateNetwork: per-host RTT, DNS, TLS and server time from timings",
          "[trace][estimate]") {
  // a.test: two new connections, TCP 40 ms each (connect 120 includes ssl 80 = two round
  // trips: TLS 1.2); dns 20 and 30; waits 140, 90 and 60 (server time = wait - rtt).
  // b.test: one connection, TCP 100 ms, ssl 100 (one round trip: TLS 1.3).
  // c.test: a reused connection only: rtt = its smallest wait.
  // d.test: served by the browser's cache: no sample, defaults kept.
  json cached = HarEntry("https://d.test/x", "2024-01-01T00:00:00.900Z", 0);
  cached["response"]["_transferSize"] = 0;
  json doc = HarDocument({
      Timed(
          "https://a.test/", "2024-01-01T00:00:00.000Z",
          {{"dns", 20}, {"connect", 120}, {"ssl", 80}, {"send", 0}, {"wait", 140}, {"receive", 10}},
          5000),
      Timed(
          "https://a.test/1", "2024-01-01T00:00:00.300Z",
          {{"dns", 30}, {"connect", 120}, {"ssl", 80}, {"send", 0}, {"wait", 90}, {"receive", 10}},
          5000),
      Timed("https://a.test/2", "2024-01-01T00:00:00.300Z",
            {{"dns", -1}, {"connect", -1}, {"ssl", -1}, {"send", 0}, {"wait", 60}, {"receive", 10}},
            5000),
      Timed("https://b.test/", "2024-01-01T00:00:00.400Z",
            {{"dns", 10},
             {"connect", 200},
             {"ssl", 100},
             {"send", 0},
             {"wait", 150},
             {"receive", 10}},
            5000),
      Timed("https://c.test/", "2024-01-01T00:00:00.500Z",
            {{"dns", -1}, {"connect", -1}, {"ssl", -1}, {"send", 0}, {"wait", 70}, {"receive", 0}},
            5000),
      Timed("https://c.test/2", "2024-01-01T00:00:00.600Z",
            {{"dns", -1}, {"connect", -1}, {"ssl", -1}, {"send", 0}, {"wait", 45}, {"receive", 0}},
            5000),
      cached,
  });
  HarFile har = test::ParseOrFail(doc);
  NetworkParams base;
  base.defaults.rtt = Milliseconds(33);
  HarEstimate estimate = EstimateNetwork(&har.pages, base);
  const NetworkParams& params = estimate.params;
  CHECK(Ms(params.defaults.rtt) == 33);  // defaults untouched

  REQUIRE(params.trace_hosts.count("a.test"));
  const HostOverrides& a = params.trace_hosts.at("a.test");
  CHECK(Ms(*a.rtt) == 40);
  CHECK(Ms(*a.dns) == 25);
  CHECK(*a.tls == TlsVersion::kTls12);
  CHECK(Ms(*a.server_time) == 50);  // median of 100, 50, 20

  REQUIRE(params.trace_hosts.count("b.test"));
  const HostOverrides& b = params.trace_hosts.at("b.test");
  CHECK(Ms(*b.rtt) == 100);
  CHECK(*b.tls == TlsVersion::kTls13);
  CHECK(Ms(*b.server_time) == 50);

  REQUIRE(params.trace_hosts.count("c.test"));
  const HostOverrides& c = params.trace_hosts.at("c.test");
  CHECK(Ms(*c.rtt) == 45);  // other hosts' median connect RTT (70) is longer: waits win
  // No connect timings: the first wait (70) has no room for a lookup after TCP, TLS 1.3 and
  // the request's round trip (3 x 45): the name was cached.
  CHECK(Ms(*c.dns) == 0);
  CHECK_FALSE(c.tls.has_value());
  CHECK_FALSE(params.trace_hosts.count("d.test"));

  // Each entry's server time: wait - its host's rtt.
  const auto& entries = har.pages[0].entries;
  CHECK(entries[0].server_ms == 100);
  CHECK(entries[1].server_ms == 50);
  CHECK(entries[2].server_ms == 20);
  for (const TraceEntry& entry : entries) {
    if (entry.recorded_from_cache) CHECK(entry.server_ms == -1);
  }
  CHECK(estimate.notes.size() == 4);  // three hosts and the link
}

TEST_CASE("EstimateNetwork: hosts without connect timings", "[trace][estimate]") {
  // a.test measured its connects: TCP 30 ms. b.test (a reused connection in the recording)
  // waited 400 ms at least: an upper bound, so its RTT is the trace's connect RTT (30 ms);
  // its first wait leaves room for the default 40 ms lookup.
  // c.test (http, a writer without setup timings): first wait 150, later 50: rtt 30 (from
  // a.test), DNS = 150 - (TCP + request) 2 x 30 = 90, capped at the default 40 ms; its first
  // request's server time leaves out the modelled setup: 150 - 30 - (40 + 30) = 50.
  json none = {{"dns", -1}, {"connect", -1}, {"ssl", -1}, {"send", 0}, {"receive", 0}};
  json b = none, c1 = none, c2 = none;
  b["wait"] = 400;
  c1["wait"] = 150;
  c2["wait"] = 50;
  json doc = HarDocument({
      Timed("https://a.test/", "2024-01-01T00:00:00.000Z",
            {{"dns", 5}, {"connect", 30}, {"ssl", -1}, {"send", 0}, {"wait", 60}, {"receive", 0}},
            1000),
      Timed("https://b.test/", "2024-01-01T00:00:00.100Z", b, 1000),
      Timed("http://c.test/", "2024-01-01T00:00:00.200Z", c1, 1000),
      Timed("http://c.test/2", "2024-01-01T00:00:00.400Z", c2, 1000),
  });
  HarFile har = test::ParseOrFail(doc);
  NetworkParams base;
  base.defaults.dns = Milliseconds(40);
  HarEstimate estimate = EstimateNetwork(&har.pages, base);
  const NetworkParams& params = estimate.params;
  CHECK(Ms(*params.trace_hosts.at("a.test").rtt) == 30);
  CHECK(Ms(*params.trace_hosts.at("b.test").rtt) == 30);
  CHECK(Ms(*params.trace_hosts.at("c.test").rtt) == 30);
  CHECK(Ms(*params.trace_hosts.at("c.test").dns) == 40);
  const auto& entries = har.pages[0].entries;
  CHECK(entries[1].server_ms == 400 - 30 - (40 + 30 + 30));  // b: wait - rtt - (DNS, TCP, TLS 1.3)
  CHECK(entries[2].server_ms == 50);
  CHECK(entries[3].server_ms == 20);  // a later request on the open connection: wait - rtt
}

TEST_CASE("EstimateNetwork: downlink from the busiest second of receiving", "[trace][estimate]") {
  // Two responses received at the same time over the same 100 ms: 250,000 bytes in 100 ms of
  // receiving = 20 Mbit/s, though each alone ran at 10 Mbit/s.
  json timings = {{"blocked", 0}, {"dns", -1},  {"connect", -1},
                  {"send", 0},    {"wait", 50}, {"receive", 100}};
  json doc = HarDocument({Timed("https://a.test/", "2024-01-01T00:00:00.000Z", timings, 125000),
                          Timed("https://b.test/", "2024-01-01T00:00:00.000Z", timings, 125000)});
  HarFile har = test::ParseOrFail(doc);
  NetworkParams base;
  base.downlink_bps = 1'000'000;
  HarEstimate estimate = EstimateNetwork(&har.pages, base);
  CHECK(estimate.params.downlink_bps == Approx(20'000'000).epsilon(0.02));
  CHECK(estimate.params.uplink_bps == base.uplink_bps);
  CHECK(estimate.params.trace_keys == std::set<std::string>{"down_kbps"});

  // The user's down_kbps is kept, however it was given (--set, --config, a preset).
  std::string error;
  NetworkParams user;
  REQUIRE(user.Set("down_kbps", "1000", &error));
  HarEstimate kept = EstimateNetwork(&har.pages, user);
  CHECK(kept.params.downlink_bps == 1'000'000);
  CHECK(kept.params.trace_keys.empty());
  CHECK(kept.notes.back() == "link: downlink kept (down_kbps is the user's)");

  // A single entry with too short a receive gives neither estimate, but its body arrived 52 ms
  // after it was asked for: the link is at least 125,000 bytes / 52 ms (the delivery floor),
  // above the default. A floor below the default leaves the default.
  json short_receive = {{"wait", 50}, {"receive", 2}};
  HarFile quick = test::ParseOrFail(
      HarDocument({Timed("https://a.test/", "2024-01-01T00:00:00Z", short_receive, 125000)}));
  CHECK(EstimateNetwork(&quick.pages, base).params.downlink_bps ==
        Approx(125000 * 8 * 1000 / 52.0).epsilon(0.01));
  NetworkParams fast;
  fast.downlink_bps = 100'000'000;
  CHECK(EstimateNetwork(&quick.pages, fast).params.downlink_bps == 100'000'000);
}

TEST_CASE("EstimateNetwork: sane numbers on the shared HARs", "[trace][estimate][shared]") {
  std::error_code error;
  std::vector<std::string> files;
  for (const auto& item : std::filesystem::directory_iterator(SHARED_HAR_DIR, error)) {
    if (item.path().extension() == ".har") files.push_back(item.path().string());
  }
  if (files.empty()) {
    WARN("SKIPPED: no HAR files in " SHARED_HAR_DIR);
    return;
  }
  for (const std::string& path : files) {
    INFO(path);
    HarFile har;
    std::string problem;
    REQUIRE(ReadHarFile(path, &har, &problem));
    HarEstimate estimate = EstimateNetwork(&har.pages, NetworkParams());
    CHECK_FALSE(estimate.params.trace_hosts.empty());
    for (const auto& [host, overrides] : estimate.params.trace_hosts) {
      INFO(host);
      REQUIRE(overrides.rtt.has_value());
      CHECK(Ms(*overrides.rtt) > 0);
      CHECK(Ms(*overrides.rtt) < 2000);
      if (overrides.dns) CHECK(Ms(*overrides.dns) < 2000);
    }
    CHECK(estimate.params.downlink_bps >= 500'000);
    CHECK(estimate.params.downlink_bps <= 100'000'000);
    for (const TracePage& page : har.pages) {
      for (const TraceEntry& entry : page.entries) {
        if (!entry.recorded_from_cache && entry.recorded_error.empty() && entry.timings.wait >= 0)
          CHECK(entry.server_ms >= 0);
      }
    }
  }
}

}  // namespace
}  // namespace netstack
