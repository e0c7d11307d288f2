// LearnedPolicy's warm state follows the network, not requests: a request the HTTP cache
// answered leaves the origin's socket idle, so it does not make the origin warm.
#include <catch2/catch.hpp>

#include "predictor/learned_policy.h"
#include "predictor/predictor_config.h"
#include "tests/predictor/policy_test_util.h"

namespace netstack {
namespace {

using namespace policy_test;

PredictorConfig LearnedConfig() {
  PredictorConfig config;
  config.policy = "learned";
  return config;
}

TEST_CASE("learned: a cache hit does not make its origin warm", "[predictor]") {
  LearnedPolicy p(LearnedConfig());
  const Url page = U("https://a.test/");
  const SchemeHostPort cdn = O("https://cdn.test/");
  const Url lib = U("https://cdn.test/lib.js");
  LoadPage(p, page, {{cdn, 1}}, At(0));
  CHECK(p.StateAt(cdn, At(100)) == 1);
  // At 200 s the page requests the script again and the cache answers it.
  std::vector<Hint> hints;
  p.OnNavigation(page, At(200), &hints);
  p.OnResourceRequested(page, lib, At(200));
  p.OnResourceServed(page, lib, /*network=*/false, At(200));
  p.OnNavigationComplete(page, At(201));
  // 350 s after the last network use the pool has closed the socket: cold, whatever the hit.
  CHECK(p.StateAt(cdn, At(350)) == 0);
}

TEST_CASE("learned: a response over the network keeps its origin warm", "[predictor]") {
  LearnedPolicy p(LearnedConfig());
  const Url page = U("https://a.test/");
  const SchemeHostPort cdn = O("https://cdn.test/");
  const Url lib = U("https://cdn.test/lib.js");
  LoadPage(p, page, {{cdn, 1}}, At(0));
  std::vector<Hint> hints;
  p.OnNavigation(page, At(200), &hints);
  p.OnResourceRequested(page, lib, At(200));
  p.OnResourceServed(page, lib, /*network=*/true, At(200));  // a 304 on the kept socket
  p.OnNavigationComplete(page, At(201));
  CHECK(p.StateAt(cdn, At(350)) == 1);
  CHECK(p.StateAt(cdn, At(501)) == 0);  // 300 s after that use
}

TEST_CASE("learned: a request not yet answered does not make its origin warm", "[predictor]") {
  LearnedPolicy p(LearnedConfig());
  const Url page = U("https://a.test/");
  const SchemeHostPort cdn = O("https://cdn.test/");
  std::vector<Hint> hints;
  p.OnNavigation(page, At(0), &hints);
  p.OnResourceRequested(page, U("https://cdn.test/x.css"), At(0));
  CHECK(p.StateAt(cdn, At(1)) == 0);
  p.OnConnectionNeeded(page, cdn, SocketSource::kNew, /*background=*/false, 100, At(1));
  CHECK(p.StateAt(cdn, At(2)) == 1);  // a connection is a network use
}

}  // namespace
}  // namespace netstack
