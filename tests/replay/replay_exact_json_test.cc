// Exact JSON (`replay --shard`'s lines, read back by `netstack merge`): every request, page and
// totals object of real replays (the bundled HARs: HTTP/1.1, h2, redirects, recorded failures;
// a synthetic session under the predictor: cache hits, predictor stats and tables) written
// exact, read back, and written rounded gives the line written rounded directly; written exact
// again, the same exact line. The figures the report and `replay --har` read survive too.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>

#include "net/http/request_record_json.h"
#include "tests/replay/replay_test_util.h"
#include "tools/replay/replay_engine.h"
#include "tools/replay/trace/host_protocol.h"
#include "tools/replay/trace/session_reader.h"

namespace netstack {
namespace {

std::string Line(const RequestRecord& r, JsonNumbers numbers) {
  std::string out;
  AppendRequestRecordJson(r, &out, numbers);
  return out;
}

// Checks every record and page as the engine reports them.
class RoundTripChecker : public ReplayObserver {
 public:
  void OnRequest(const RequestRecord& r) override {
    ++requests;
    const std::string exact = Line(r, JsonNumbers::kExact);
    RequestRecord back;
    std::string error;
    nlohmann::json parsed = nlohmann::json::parse(exact);
    bool ok = RequestRecordFromJson(parsed, &back, &error);
    INFO(exact << "\n" << error);
    REQUIRE(ok);
    CHECK(Line(back, JsonNumbers::kRounded) == Line(r, JsonNumbers::kRounded));
    CHECK(Line(back, JsonNumbers::kExact) == exact);
    // What the report and the HAR writer read besides the JSON's members.
    CHECK(back.start_ms() == r.start_ms());
    CHECK(back.end_ms() == r.end_ms());
    CHECK(back.total_ms() == r.total_ms());
    CHECK(back.entry->parent == r.entry->parent);
    CHECK(back.connection.reused() == r.connection.reused());
    if (r.cache == CacheDisposition::kHit) ++cache_hits;
    if (r.error != OK) ++failures;
    if (!r.redirects.empty()) ++redirects;
    if (r.connection.protocol == "h2") ++h2;
  }
  void OnPage(const PageResult& p) override {
    ++pages;
    const nlohmann::json exact = p.ToJson(JsonNumbers::kExact);
    PageResult back;
    std::string error;
    bool ok = PageResultFromJson(nlohmann::json::parse(exact.dump()), &back, &error);
    INFO(exact.dump() << "\n" << error);
    REQUIRE(ok);
    CHECK(back.ToJson().dump() == p.ToJson().dump());
    CHECK(back.ToJson(JsonNumbers::kExact).dump() == exact.dump());
    CHECK(back.started_epoch_ms == p.started_epoch_ms);
    CHECK(back.page_load_ms() == p.page_load_ms());
  }
  int requests = 0, pages = 0, cache_hits = 0, failures = 0, redirects = 0, h2 = 0;
};

void CheckTotals(const ReplayTotals& t) {
  const std::string exact = t.ToJson(JsonNumbers::kExact).dump();
  ReplayTotals back;
  std::string error;
  bool ok = ReplayTotalsFromJson(nlohmann::json::parse(exact), &back, &error);
  INFO(exact << "\n" << error);
  REQUIRE(ok);
  CHECK(back.ToJson().dump() == t.ToJson().dump());
  CHECK(back.ToJson(JsonNumbers::kExact).dump() == exact);
}

void ReplayFile(const std::string& path, ReplayConfig config, RoundTripChecker* checker) {
  INFO(path);
  std::string error;
  std::unique_ptr<TraceSource> source = OpenTrace(path, &error);
  REQUIRE(source);
  // The protocols the trace records, as `netstack replay` applies them (h2 where recorded).
  HostProtocols protocols;
  REQUIRE(source->ReadHostProtocols(&protocols, &error));
  ApplyHostProtocols(protocols, &config.network);
  ReplayEngine engine(config);
  engine.AddObserver(checker);
  bool ok = engine.Run(source.get(), &error);
  INFO(error);
  REQUIRE(ok);
  CheckTotals(engine.totals());
}

TEST_CASE("Exact request, page and totals lines of real replays read back as written",
          "[replay][output][exact]") {
  RoundTripChecker checker;
  for (const std::string& path : test::FilesIn(NETSTACK_TRACES_DIR "/har", ".har"))
    ReplayFile(path, ReplayConfig(), &checker);
  // A synthetic session under the learned predictor, twice as long as its sites' pages: cache
  // hits, h2 and HTTP/1.1, predictor statistics and tables.
  SyntheticSessionOptions options;
  options.seed = 7;
  options.pages = 120;
  options.sites = 6;
  options.pages_per_site = 8;
  const std::string session = test::Generate(options);
  char path[] = "/tmp/netstack-exact-json-XXXXXX";
  int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  ::close(fd);
  std::ofstream(path, std::ios::binary) << session;
  for (const char* policy : {"off", "chrome", "learned"}) {
    ReplayConfig config;
    std::string error;
    REQUIRE(config.Set(std::string("predictor=") + policy, &error));
    ReplayFile(path, config, &checker);
  }
  std::remove(path);
  CHECK(checker.requests > 1000);
  CHECK(checker.cache_hits > 0);
  CHECK(checker.h2 > 0);
  CHECK(checker.redirects + checker.failures > 0);
}

TEST_CASE("Reading a record names the bad member and never throws", "[replay][output][exact]") {
  RequestRecord r;
  std::string error;
  CHECK_FALSE(RequestRecordFromJson(nlohmann::json::array(), &r, &error));
  CHECK(error == "not a JSON object");
  RequestRecord good;
  good.url = good.final_url = "https://a.example/";
  nlohmann::json j = RequestRecordToJson(good);
  REQUIRE(RequestRecordFromJson(j, &r, &error));
  nlohmann::json bad = j;
  bad["timing"]["dns_ms"] = "x";
  CHECK_FALSE(RequestRecordFromJson(bad, &r, &error));
  CHECK(error == "timing.dns_ms: not a number");
  bad = j;
  bad.erase("status");
  CHECK_FALSE(RequestRecordFromJson(bad, &r, &error));
  CHECK(error == "status: missing");
  bad = j;
  bad["cache"] = "sideways";
  CHECK_FALSE(RequestRecordFromJson(bad, &r, &error));
  CHECK(error == "cache: not a cache outcome");
  bad = j;
  bad["error_code"] = "ERR_NOT_A_THING";
  bad["error"] = "x";
  CHECK_FALSE(RequestRecordFromJson(bad, &r, &error));
  CHECK(error == "error_code: not a net error's name");
  bad = j;
  bad["socket"]["id"] = -1;
  CHECK_FALSE(RequestRecordFromJson(bad, &r, &error));
  CHECK(error == "socket.id: out of range");
  PageResult page;
  nlohmann::json p = PageResult().ToJson();
  p["sockets"]["opened"] = 1.5;
  CHECK_FALSE(PageResultFromJson(p, &page, &error));
  CHECK(error == "sockets.opened: not a whole number");
  ReplayTotals totals;
  nlohmann::json t = ReplayTotals().ToJson();
  t["predictor"]["stats"].erase("hints");
  CHECK_FALSE(ReplayTotalsFromJson(t, &totals, &error));
  CHECK(error == "predictor.stats.hints.produced: missing");
}

}  // namespace
}  // namespace netstack
