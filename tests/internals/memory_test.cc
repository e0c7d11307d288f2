// MemoryReport (/api/memory): its JSON shape, accounted = the sum of the parts, and parts that
// follow the live stack (over the simulated network) as it fills and empties.
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "net/base/net_log_ring.h"
#include "predictor/predictor.h"
#include "tests/predictor/sim_predictor_env.h"
#include "tools/internals/library_memory.h"
#include "tools/internals/memory_report.h"

namespace netstack {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

const std::vector<std::string> kParts = {
    "socket_pools", "internals_events",     "openssl", "host_cache", "http_cache_index",
    "predictor",    "internals_histograms", "libuv",   "c-ares",     "sqlite"};

const json& FindPart(const json& report, const std::string& name) {
  for (const json& part : report["parts"])
    if (part["name"] == name) return part;
  FAIL("no part " << name);
  static const json none;
  return none;
}

// The checks every report must pass.
void CheckShape(const json& report) {
  REQUIRE(report.is_object());
  REQUIRE(report["parts"].is_array());
  std::set<std::string> names;
  int64_t sum = 0;
  for (const json& part : report["parts"]) {
    INFO(part.dump());
    REQUIRE(part["name"].is_string());
    names.insert(part["name"].get<std::string>());
    CHECK((part["kind"] == "estimate" || part["kind"] == "counted"));
    REQUIRE(part.contains("bytes"));
    REQUIRE(part["detail"].is_object());
    if (part["bytes"].is_null()) {
      CHECK(part["detail"]["unavailable"].is_string());
    } else {
      REQUIRE(part["bytes"].is_number_integer());
      CHECK(part["bytes"].get<int64_t>() >= 0);
      sum += part["bytes"].get<int64_t>();
    }
  }
  CHECK(names == std::set<std::string>(kParts.begin(), kParts.end()));
  CHECK(report["parts"].size() == kParts.size());
  CHECK(report["accounted_bytes"] == sum);
  REQUIRE(report["heap_in_use_bytes"].is_number_integer());
  CHECK(report["heap_in_use_bytes"].get<int64_t>() > 0);
  CHECK(report["resident_bytes"].get<int64_t>() > 0);
  // Reported as is, possibly negative: heap minus accounted.
  CHECK(report["unaccounted_bytes"] ==
        report["heap_in_use_bytes"].get<int64_t>() - report["accounted_bytes"].get<int64_t>());
  CHECK(report["library_counters_installed"].is_boolean());
}

TEST_CASE("memory report without a stack lists every part, stack parts unavailable", "[memory]") {
  const json report = MemoryReport(MemorySources{});
  CheckShape(report);
  for (const char* name : {"socket_pools", "host_cache", "http_cache_index", "predictor",
                           "internals_events", "internals_histograms"}) {
    CHECK(FindPart(report, name)["bytes"].is_null());
    CHECK(FindPart(report, name)["kind"] == "estimate");
  }
  CHECK(FindPart(report, "sqlite")["kind"] == "counted");
  CHECK(FindPart(report, "sqlite")["bytes"].is_number_integer());
  const LibraryMemory libraries = GetLibraryMemory();
  CHECK(FindPart(report, "openssl")["bytes"].is_null() == (libraries.openssl < 0));
  CHECK(report["library_counters_installed"] ==
        (libraries.openssl >= 0 && libraries.libuv >= 0 && libraries.cares >= 0));
}

TEST_CASE("memory report follows the stack's pools, host cache, predictor and events", "[memory]") {
  test::SimPredictorEnv env(test::SimTestEnv::Options(test::SimTestEnv::WorkedExample()), "chrome");
  NetLogRing ring;
  ring.Attach(&env.net_log);
  Predictor& predictor = *env.predictor;
  MemorySources sources{env.context, &predictor, &ring, nullptr};

  const json before = MemoryReport(sources);
  CheckShape(before);
  CHECK(FindPart(before, "host_cache")["detail"]["entries"] == 0);
  CHECK(FindPart(before, "host_cache")["bytes"] == 0);
  CHECK(FindPart(before, "socket_pools")["detail"]["idle_sockets"] == 0);
  CHECK(FindPart(before, "predictor")["detail"]["policy"] == "chrome");
  CHECK(FindPart(before, "http_cache_index")["bytes"].is_null());  // no HTTP cache in the env

  for (int i = 0; i < 5; ++i) {
    const std::string page = "https://site" + std::to_string(i) + ".test/";
    Url url;
    std::string message;
    REQUIRE(Url::Parse(page, &url, &message) == OK);
    predictor.OnNavigation(url);
    predictor.OnResourceRequested(url, url);
    REQUIRE(env.Fetch(page).result == OK);
    predictor.OnNavigationComplete(url);
  }
  env.Advance(1s);

  const json after = MemoryReport(sources);
  CheckShape(after);
  const json& pools = FindPart(after, "socket_pools");
  CHECK(pools["detail"]["idle_sockets"].get<int>() >= 5);
  CHECK(pools["bytes"].get<int64_t>() >=
        5 * static_cast<int64_t>(ClientSocketPool::kEstimatedIdleSocketBytes));
  CHECK(FindPart(after, "host_cache")["detail"]["entries"].get<int>() >= 5);
  CHECK(FindPart(after, "host_cache")["bytes"].get<int64_t>() > 0);
  const json& predictor_part = FindPart(after, "predictor");
  CHECK(predictor_part["bytes"].get<int64_t>() >
        FindPart(before, "predictor")["bytes"].get<int64_t>());
  CHECK(predictor_part["detail"]["rows"]["referrers"].get<int>() >= 5);
  CHECK(FindPart(after, "internals_events")["detail"]["events"].get<int>() > 0);
  CHECK(FindPart(after, "internals_events")["bytes"].get<int64_t>() > 0);

  env.context->socket_pool()->CloseIdleSockets();
  env.context->host_resolver()->GetCache().Clear();
  env.Advance(1s);
  const json cleared = MemoryReport(sources);
  CheckShape(cleared);
  CHECK(FindPart(cleared, "socket_pools")["bytes"].get<int64_t>() <
        static_cast<int64_t>(ClientSocketPool::kEstimatedSocketBytes));
  CHECK(FindPart(cleared, "host_cache")["bytes"] == 0);

  ring.Attach(nullptr);
}

}  // namespace
}  // namespace netstack
