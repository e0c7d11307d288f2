// Every HAR of ../shared/traces/har replays without error, as recorded and under the network
// estimated from it (skipped with a message where the directory is absent).
#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/replay/replay_test_util.h"
#include "tests/test_skip.h"
#include "tools/replay/replay_engine.h"
#include "tools/replay/trace/har_estimate.h"
#include "tools/replay/trace/har_reader.h"
#include "tools/replay/trace/session_reader.h"

namespace netstack {
namespace {

std::vector<std::string> HarFiles() { return test::FilesIn(NETSTACK_TRACES_DIR "/har", ".har"); }

void ReplayOne(const std::string& path, bool estimate) {
  INFO(path << (estimate ? " (estimated network)" : ""));
  ReplayConfig config;
  std::string error;
  std::unique_ptr<TraceSource> source;
  if (estimate) {
    HarFile har;
    REQUIRE(ReadHarFile(path, &har, &error));
    HarEstimate e = EstimateNetwork(&har.pages, config.network);
    config.network = e.params;
    source = MakeHarSource(std::move(har), path);
  } else {
    source = OpenTrace(path, &error);
  }
  REQUIRE(source);
  ReplayEngine engine(config);
  struct Failures : ReplayObserver {
    void OnRequest(const RequestRecord& r) override {
      if (r.error != OK && !r.recorded_failure && messages.size() < 5)
        messages.push_back(r.url + ": " + r.error_message);
    }
    std::vector<std::string> messages;
  } failures;
  engine.AddObserver(&failures);
  bool ok = engine.Run(source.get(), &error);
  INFO(error);
  REQUIRE(ok);
  const ReplayTotals& t = engine.totals();
  CHECK(t.pages > 0);
  CHECK(t.requests > 0);
  for (const std::string& m : failures.messages) UNSCOPED_INFO(m);
  CHECK(t.failed == t.recorded_failures);  // only what the recording shows failed
  CHECK(t.unmatched == 0);
}

TEST_CASE("Every bundled HAR replays without error", "[replay][har]") {
  std::vector<std::string> files = HarFiles();
  // The traces live beside the repository (../shared/traces), not in it: a checkout without
  // them skips, even in CI (they are data, not a fixture the test could install).
  if (files.empty()) SKIP_TEST_ALWAYS("no HAR files in " NETSTACK_TRACES_DIR "/har");
  for (const std::string& path : files) {
    ReplayOne(path, false);
    ReplayOne(path, true);
  }
}

}  // namespace
}  // namespace netstack
