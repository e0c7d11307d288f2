// SimStack, the simulated edge set, through SimTestEnv (tests/sim): the modelled network's DNS
// and sockets on virtual time, a memory HTTP cache when asked, the wall clock following virtual
// time, a DNS decorator; bad settings.
#include "net/http/sim_stack.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "tests/sim/sim_test_env.h"

namespace netstack::test {
namespace {

TEST_CASE("sim stack: a request through the modelled network, no cache", "[stack][sim]") {
  SimTestEnv env(SimTestEnv::WorkedExample());
  CHECK(env.context->http_cache() == nullptr);
  FetchResult r = env.Fetch("https://a.test/size/1000");
  CHECK(r.result == OK);
  CHECK(r.body_bytes == 1000);
  CHECK(r.cache == CacheDisposition::kBypass);
  // dns 50 + TCP 80 + TLS 160 + request 40 + server 100 + response 40 (the worked example).
  CHECK(r.total() == Milliseconds(470));
  CHECK(env.stats().tls_handshakes == 1);
  CHECK(env.responder.requests.size() == 1);
}

TEST_CASE("sim stack: with a memory cache the second request is a hit", "[stack][sim]") {
  SimStackOptions options = SimTestEnv::Options(SimTestEnv::WorkedExample());
  options.http_cache = true;
  options.cache.max_bytes = 0;  // MemoryBackend's default
  SimTestEnv env(options);
  REQUIRE(env.context->http_cache() != nullptr);
  CHECK(&env.context->http_cache()->clock() == &env.clock());
  FetchResult first = env.Fetch("https://a.test/fresh/1000");
  CHECK(first.cache == CacheDisposition::kMiss);
  FetchResult second = env.Fetch("https://a.test/fresh/1000");
  CHECK(second.result == OK);
  CHECK(second.body_bytes == 1000);
  CHECK(second.cache == CacheDisposition::kHit);
  CHECK(second.connection.socket_id == 0);  // no connection used
  CHECK(env.responder.requests.size() == 1);
}

TEST_CASE("sim stack: the wall clock follows virtual time and can be moved", "[stack][sim]") {
  SimTestEnv env(SimTestEnv::WorkedExample());
  SchedulerClock& clock = env.clock();
  CHECK(clock.Now() == TimeFromUnixSeconds(1'700'000'000));  // at kEpoch (SimTestEnv::Options)
  env.Advance(Seconds(5));
  CHECK(clock.Now() == TimeFromUnixSeconds(1'700'000'005));
  clock.SetOrigin(TimeFromUnixSeconds(1'800'000'000), env.scheduler.Now());
  env.Advance(Seconds(1));
  CHECK(clock.Now() == TimeFromUnixSeconds(1'800'000'001));
}

TEST_CASE("sim stack: the DNS decorator wraps the modelled transport", "[stack][sim]") {
  // Counts lookups on their way to the modelled DNS.
  class Counting : public DnsTransport {
   public:
    Counting(std::unique_ptr<DnsTransport> inner, int* count)
        : inner_(std::move(inner)), count_(count) {}
    std::unique_ptr<DnsTransaction> StartLookup(const std::string& hostname, AddressFamily family,
                                                Callback callback) override {
      ++*count_;
      return inner_->StartLookup(hostname, family, std::move(callback));
    }

   private:
    std::unique_ptr<DnsTransport> inner_;
    int* count_;
  };
  int lookups = 0;
  SimStackOptions options = SimTestEnv::Options(SimTestEnv::WorkedExample());
  options.wrap_dns = [&lookups](std::unique_ptr<DnsTransport> sim) {
    return std::make_unique<Counting>(std::move(sim), &lookups);
  };
  SimTestEnv env(options);
  CHECK(env.Fetch("http://b.test/").result == OK);
  CHECK(lookups >= 1);
  CHECK(env.stats().dns_lookups == static_cast<uint64_t>(lookups));
}

TEST_CASE("sim stack: bad settings give the builder's one-line error", "[stack][sim]") {
  VirtualScheduler scheduler(SimTestEnv::kEpoch);
  TestResponder responder;
  SimStackOptions options = SimTestEnv::Options(SimTestEnv::WorkedExample());
  options.context.pool.max_sockets_per_group = 0;
  std::string error;
  CHECK(SimStack::Create(scheduler, nullptr, &responder, options, &error) == nullptr);
  CHECK(error == "stack settings: max_sockets_per_group is 0 (at least 1)");
}

}  // namespace
}  // namespace netstack::test
