#include "tools/replay/gen/synthetic_session.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/replay/replay_test_util.h"
#include "tools/replay/gen/synthetic_random.h"
#include "tools/replay/trace/session_reader.h"

using namespace netstack;

namespace {

using test::Generate;

struct Counted {
  uint64_t navigations = 0, requests = 0, waits = 0, definitions = 0;
  std::string problem;  // empty when every line is valid as far as this check goes
};

// Counts navigations and the requests they make, checking each entry's parent comes first.
Counted CountSession(const std::string& text) {
  Counted c;
  std::map<std::string, size_t> pages;
  std::istringstream in(text);
  std::string line;
  auto check_entries = [&](const nlohmann::json& entries) {
    for (size_t i = 0; i < entries.size(); ++i) {
      const auto& e = entries[i];
      if (i == 0 && (e.contains("after") || e["type"] != "document")) c.problem = "bad first entry";
      if (i > 0 && !(e["after"].get<int>() >= 0 && e["after"].get<size_t>() < i)) {
        c.problem = "parent after child";
      }
      if (e["bytes"].get<int64_t>() < 0) c.problem = "negative size";
    }
    return entries.size();
  };
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto j = nlohmann::json::parse(line);
    std::string type = j["type"];
    if (type == "page") {
      pages[j["id"]] = check_entries(j["entries"]);
      ++c.definitions;
    } else if (type == "navigate") {
      ++c.navigations;
      if (j["page"].is_string()) {
        if (!pages.count(j["page"])) c.problem = "navigate before its page is defined";
        c.requests += pages[j["page"]];
      } else {
        c.requests += check_entries(j["page"]["entries"]);
      }
    } else if (type == "wait") {
      ++c.waits;
    }
  }
  return c;
}

}  // namespace

TEST_CASE("synthetic random: SplitMix64 reference values") {
  // The published sequence for seed 0 (the xoshiro authors' splitmix64.c).
  SyntheticRandom rng(0);
  CHECK(rng.Next() == 0xE220A8397B1DCDAFull);
  CHECK(rng.Next() == 0x6E789E6AA1B965F4ull);
  CHECK(rng.Next() == 0x06C45D188009454Full);
}

TEST_CASE("synthetic random: draws stay in range") {
  SyntheticRandom rng(42);
  for (int i = 0; i < 10000; ++i) {
    double u = rng.Uniform();
    REQUIRE(u >= 0);
    REQUIRE(u < 1);
    int64_t b = rng.Between(3, 7);
    REQUIRE(b >= 3);
    REQUIRE(b <= 7);
    double z = rng.Normal();
    REQUIRE(std::fabs(z) <= 6);
    double ln = rng.LogNormal(100, 1, 10, 1000);
    REQUIRE(ln >= 10);
    REQUIRE(ln <= 1000);
  }
}

TEST_CASE("synthetic random: the portable exp agrees with libm") {
  for (double x = -20; x <= 20; x += 0.37) {
    CHECK(DeterministicExp(x) == Approx(std::exp(x)).epsilon(1e-14));
  }
  CHECK(DeterministicExp(0) == 1);
}

TEST_CASE("synthetic random: Zipf picks favour low ranks") {
  auto cumulative = ZipfCumulative(10);
  REQUIRE(cumulative.size() == 10);
  CHECK(cumulative[0] == 1);
  SyntheticRandom rng(7);
  int counts[10] = {};
  for (int i = 0; i < 20000; ++i) ++counts[rng.Pick(cumulative)];
  CHECK(counts[0] > counts[1]);
  CHECK(counts[1] > counts[9]);
  CHECK(counts[9] > 0);
}

TEST_CASE("synthetic session: same seed, same bytes, another seed, other bytes") {
  SyntheticSessionOptions options;
  options.requests = 5000;
  options.seed = 11;
  std::string a = Generate(options), b = Generate(options);
  CHECK(a == b);
  options.seed = 12;
  CHECK(Generate(options) != a);
}

TEST_CASE("synthetic session: the request budget is met exactly") {
  for (uint64_t requests : {1ull, 37ull, 1000ull, 12345ull}) {
    SyntheticSessionOptions options;
    options.requests = requests;
    SessionStats stats;
    Counted c = CountSession(Generate(options, &stats));
    INFO("requests " << requests);
    CHECK(c.problem == "");
    CHECK(c.requests == requests);
    CHECK(stats.requests == requests);
    CHECK(c.navigations == stats.navigations);
    CHECK(c.waits == c.navigations);
  }
}

TEST_CASE("synthetic session: the page budget is met, pages are revisited") {
  SyntheticSessionOptions options;
  options.pages = 300;
  options.sites = 5;
  options.pages_per_site = 4;
  SessionStats stats;
  Counted c = CountSession(Generate(options, &stats));
  CHECK(c.problem == "");
  CHECK(c.navigations == 300);
  CHECK(c.definitions == stats.pages_defined);
  CHECK(c.definitions <= 20);    // 5 sites × 4 pages
  CHECK(c.requests > 300 * 10);  // realistic pages have dozens of requests
}

TEST_CASE("synthetic session: bad options are refused with the option's name") {
  SyntheticSessionOptions options;
  std::string error;
  CHECK_FALSE(options.Validate(&error));
  CHECK(error.find("--pages") != std::string::npos);
  options.pages = 1;
  options.sites = 0;
  CHECK_FALSE(options.Validate(&error));
  CHECK(error.find("--sites") != std::string::npos);
  options.sites = 1000;
  options.pages_per_site = 100;
  CHECK_FALSE(options.Validate(&error));
  CHECK(error.find("10000") != std::string::npos);
  options.pages_per_site = 10;
  CHECK(options.Validate(&error));
}

TEST_CASE("synthetic session: the session reader accepts it") {
  SyntheticSessionOptions options;
  options.requests = 3000;
  std::string text = Generate(options);
  auto source =
      OpenSessionStream(std::make_unique<std::istringstream>(text), "synthetic.jsonl", ".");
  REQUIRE(source);
  SessionEvent event;
  std::string error;
  uint64_t navigations = 0, requests = 0;
  while (source->Next(&event, &error)) {
    if (event.type != SessionEvent::Type::kNavigate) continue;
    ++navigations;
    REQUIRE(event.page);
    requests += event.page->entries.size();
    CHECK(event.page->entries[0].resource_type == "document");
  }
  INFO(error);
  CHECK(error.empty());
  CHECK(requests == 3000);
  CHECK(navigations > 10);
}
