// The Memory view's estimates (EstimateMemoryUsage of the stack's parts): each grows with what
// the part holds and falls back once it is cleared. Figures are estimates, so the checks compare
// against lower bounds derived from the content (a string of N bytes costs at least N) rather
// than exact sums.
#include <catch2/catch.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cache/memory_backend.h"
#include "net/base/memory_usage_estimator.h"
#include "net/base/virtual_scheduler.h"
#include "net/dns/host_cache.h"
#include "net/socket/client_socket_pool.h"
#include "predictor/chrome_policy.h"
#include "predictor/learned_policy.h"
#include "predictor/predictor_config.h"
#include "tests/sim/sim_test_env.h"
#include "tests/support/test_url.h"

namespace netstack {
namespace {

using test::U;

using namespace std::chrono_literals;

TEST_CASE("estimator: strings count their heap block only when not inline", "[memory]") {
  const std::string small = "abc";
  CHECK(EstimateMemoryUsage(small) == 0);
  const std::string large(1000, 'x');
  CHECK(EstimateMemoryUsage(large) >= 1001);
  std::vector<std::string> strings(10, large);
  CHECK(EstimateMemoryUsage(strings) >= 10 * sizeof(std::string) + 10 * 1001);
  std::map<std::string, int> map;
  for (int i = 0; i < 100; ++i)
    map[std::string(100, static_cast<char>('a' + i % 26)) + std::to_string(i)] = i;
  CHECK(EstimateMemoryUsage(map) >=
        100 * (101 + TreeNodeBytes<std::pair<const std::string, int>>()));
  map.clear();
  CHECK(EstimateMemoryUsage(map) == 0);
}

TEST_CASE("host cache estimate grows with entries and returns to zero when cleared", "[memory]") {
  HostCache cache(1000);
  CHECK(cache.EstimateMemoryUsage() == 0);
  const TimeTicks now = TimeTicks(TimeDelta(1'000'000));
  for (int i = 0; i < 200; ++i) {
    const std::string host = "host-number-" + std::to_string(i) + ".example.test";
    std::vector<IPAddress> addresses(3);
    cache.Set(HostCache::Key(host, AddressFamily::kUnspecified),
              HostCache::Entry::ForAddresses(std::move(addresses), Seconds(60)), now);
  }
  REQUIRE(cache.size() == 200);
  const size_t full = cache.EstimateMemoryUsage();
  // Each entry: a node, a heap host name (longer than the inline buffer), 3 addresses.
  CHECK(full >= 200 * (TreeNodeBytes<std::pair<const HostCache::Key, HostCache::Entry>>() +
                       3 * sizeof(IPAddress) + 25));
  cache.Clear();
  CHECK(cache.EstimateMemoryUsage() == 0);
}

TEST_CASE("socket pool estimate counts idle sockets and drops after CloseIdleSockets", "[memory]") {
  test::SimTestEnv env(test::SimTestEnv::WorkedExample());
  ClientSocketPool* pool = env.context->socket_pool();
  const size_t empty = pool->EstimateMemoryUsage();
  CHECK(empty < ClientSocketPool::kEstimatedSocketBytes);
  for (const char* url : {"http://a.test/", "http://b.test/", "https://c.test/"})
    REQUIRE(env.Fetch(url).result == OK);
  env.Advance(1s);  // released sockets are idle now, deletion tasks run
  REQUIRE(pool->IdleSocketCount() == 3);
  REQUIRE(pool->handed_out_socket_count() == 0);
  const size_t with_idle = pool->EstimateMemoryUsage();
  // Three idle sockets, one of them TLS.
  CHECK(with_idle >= 3 * ClientSocketPool::kEstimatedIdleSocketBytes +
                         ClientSocketPool::kEstimatedTlsSocketExtraBytes);
  pool->CloseIdleSockets();
  env.Advance(1s);
  REQUIRE(pool->IdleSocketCount() == 0);
  CHECK(pool->EstimateMemoryUsage() < ClientSocketPool::kEstimatedSocketBytes);
  CHECK(pool->EstimateMemoryUsage() <= empty + 1024);
}

TEST_CASE("memory backend estimate holds the stored bodies and drops when doomed", "[memory]") {
  VirtualScheduler scheduler;
  ManualClock clock;
  MemoryBackend backend(scheduler, clock, CacheConfig{});
  const size_t empty = backend.EstimateMemoryUsage();
  // Not one byte repeated: such a body is stored as a run (the next test).
  std::string body(20'000, 'b');
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>('a' + i % 26);
  for (int i = 0; i < 20; ++i) {
    auto entry = backend.CreateEntry("https://a.test/resource/" + std::to_string(i));
    entry->WriteHeaders(std::string(300, 'h'));
    REQUIRE(entry->AppendBody(body.data(), static_cast<int>(body.size())) == OK);
    entry->Commit(nullptr);
  }
  scheduler.RunUntilIdle();
  REQUIRE(backend.GetEntryCount() == 20);
  const size_t full = backend.EstimateMemoryUsage();
  CHECK(full >= empty + 20 * (20'000 + 300));

  // An uncommitted entry's appended bytes count too (pending writes).
  auto pending = backend.CreateEntry("https://a.test/pending");
  REQUIRE(pending->AppendBody(body.data(), static_cast<int>(body.size())) == OK);
  CHECK(backend.EstimateMemoryUsage() >= full + 20'000);
  pending.reset();

  backend.DoomAllEntries(nullptr);
  scheduler.RunUntilIdle();
  REQUIRE(backend.GetEntryCount() == 0);
  // The index arrays keep their capacity (a few KB): far below one body.
  CHECK(backend.EstimateMemoryUsage() < empty + 20'000);
}

TEST_CASE("memory backend keeps a body of one repeated byte as a run, not its bytes", "[memory]") {
  VirtualScheduler scheduler;
  ManualClock clock;
  MemoryBackend backend(scheduler, clock, CacheConfig{});
  const size_t empty = backend.EstimateMemoryUsage();
  const std::string padding(1'000'000, 'x');
  auto entry = backend.CreateEntry("https://a.test/padding");
  entry->WriteHeaders("h");
  for (int i = 0; i < 4; ++i) {  // appended in pieces: one run
    REQUIRE(entry->AppendBody(padding.data(), 250'000) == OK);
  }
  entry->Commit(nullptr);
  scheduler.RunUntilIdle();
  // The size still counts in full against the bound; the memory is a few hundred bytes.
  CHECK(backend.GetSizeOfAllEntries() >= 1'000'000);
  CHECK(backend.EstimateMemoryUsage() < empty + 10'000);
  std::unique_ptr<CacheEntry> opened;
  REQUIRE(backend.OpenEntry("https://a.test/padding", &opened, nullptr) == OK);
  std::string out(300'000, '\0');
  REQUIRE(opened->ReadBody(700'000, out.data(), 300'000, nullptr) == 300'000);
  CHECK(out == padding.substr(0, 300'000));
}

// Page i needs origins cdn-i-0..2: every policy learns rows for them.
template <typename Policy>
void LoadPages(Policy& policy, int pages) {
  TimeTicks now = TimeTicks(TimeDelta(1'000'000'000));
  for (int i = 0; i < pages; ++i) {
    const Url page = U("https://site-" + std::to_string(i) + ".example.test/index.html");
    std::vector<Hint> hints;
    policy.OnNavigation(page, now, &hints);
    policy.OnResourceRequested(page, page, now);
    for (int j = 0; j < 3; ++j) {
      const Url sub =
          U("https://cdn-" + std::to_string(i) + "-" + std::to_string(j) + ".example.test/lib.js");
      policy.OnResourceRequested(page, sub, now);
      policy.OnConnectionNeeded(page, sub.scheme_host_port(), SocketSource::kNew, false, 50.0, now);
    }
    policy.OnNavigationComplete(page, now);
    now += Seconds(1);
  }
}

TEST_CASE("chrome policy estimate grows with the referrer table", "[memory]") {
  PredictorConfig config;
  config.policy = "chrome";
  ChromePolicy policy(config);
  const size_t empty = policy.EstimateMemoryUsage();
  LoadPages(policy, 30);
  REQUIRE(policy.referrers().size() == 30);
  // 30 referrers with 4 origins each (their own and 3 cdns), every key a heap string.
  CHECK(policy.EstimateMemoryUsage() >= empty + 30 * 4 * (TreeNodeBytes<std::string>() + 30));
}

TEST_CASE("learned policy estimate grows with its tables", "[memory]") {
  PredictorConfig config;
  config.policy = "learned";
  LearnedPolicy policy(config);
  const size_t empty = policy.EstimateMemoryUsage();
  LoadPages(policy, 30);
  REQUIRE(policy.pages().size() == 30);
  CHECK(policy.EstimateMemoryUsage() >= empty + 30 * 3 * (TreeNodeBytes<std::string>() + 30));
}

}  // namespace
}  // namespace netstack
