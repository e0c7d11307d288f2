// ConnectJob on virtual time with the fake resolver and socket factory: resolve, TCP over the
// address list (address fallback, the 300 ms IPv6->IPv4 race), TLS, timing, timeout.
#include "net/socket/connect_job.h"

#include <catch2/catch.hpp>
#include <memory>

#include "net/base/net_log.h"
#include "net/base/virtual_scheduler.h"
#include "tests/socket/pool_test_util.h"
#include "tests/support/fake_client_socket_factory.h"
#include "tests/support/fake_host_resolver.h"

using namespace netstack;
using namespace netstack::test;
using namespace std::chrono_literals;

namespace {

const IPAddress kV4a = IPAddress::IPv4(192, 0, 2, 1);
const IPAddress kV4b = IPAddress::IPv4(192, 0, 2, 2);
const IPAddress kV6a = *IPAddress::Parse("2001:db8::1");
const IPAddress kV6b = *IPAddress::Parse("2001:db8::2");

struct JobEnv : ConnectJob::Delegate {
  JobEnv() {
    params.scheduler = &scheduler;
    params.host_resolver = &resolver;
    params.socket_factory = &factory;
    params.net_log = &net_log;
  }
  ~JobEnv() override { job.reset(); }

  void OnConnectJobComplete(ConnectJob* j, int result) override {
    ++calls;
    this->result = result;
    socket = j->PassSocket();
  }

  int Start(const SchemeHostPort& endpoint, RequestPriority priority = MEDIUM) {
    job = std::make_unique<ConnectJob>(endpoint, priority, params, this);
    int rv = job->Connect();
    if (rv != ERR_IO_PENDING) {
      result = rv;
      socket = job->PassSocket();
    }
    return rv;
  }
  IPAddress PeerAddress() const {
    IPEndPoint peer;
    REQUIRE(socket);
    REQUIRE(socket->GetPeerAddress(&peer) == OK);
    return peer.address();
  }

  VirtualScheduler scheduler;
  NetLog net_log{scheduler};
  RecordingNetLogObserver observer{&net_log};
  FakeHostResolver resolver{scheduler};
  FakeClientSocketFactory factory{scheduler};
  CommonConnectJobParams params;
  std::unique_ptr<StreamSocket> socket;
  std::unique_ptr<ConnectJob> job;
  int calls = 0;
  int result = ERR_IO_PENDING;
};

FakeResolveRule Answer(std::vector<IPAddress> addresses, TimeDelta delay = {}) {
  FakeResolveRule rule;
  rule.addresses = std::move(addresses);
  rule.sync = delay == TimeDelta::zero();
  rule.delay = delay;
  return rule;
}

FakeConnectRule After(TimeDelta delay, int result = OK) {
  return FakeConnectRule::After(delay, result);
}

FakeConnectRule Hang() {
  FakeConnectRule rule;
  rule.hang = true;
  return rule;
}

}  // namespace

TEST_CASE("connect job: synchronous resolve and connect complete inside Connect") {
  JobEnv env;
  FakeConnectRule sync;
  sync.sync = true;
  env.factory.set_default_rule(sync);
  CHECK(env.Start({"http", "a.test", 80}) == OK);
  REQUIRE(env.socket);
  CHECK(env.calls == 0);  // the delegate hears only about asynchronous completions
  CHECK(env.PeerAddress() == kV4a);
  const uint32_t id = env.job->net_log().source().id;
  CHECK(env.observer.Count(NetLogEventType::CONNECT_JOB, id) == 2);
  CHECK(env.observer.Count(NetLogEventType::TRANSPORT_CONNECT_JOB_CONNECT, id) == 2);
  CHECK(env.observer.Count(NetLogEventType::CONNECT_JOB_SET_SOCKET, id) == 1);
  CHECK(env.observer.Count(NetLogEventType::SSL_CONNECT_JOB_CONNECT, id) == 0);
}

TEST_CASE("connect job: records DNS, TCP and TLS timing for https") {
  JobEnv env;
  FakeResolveRule dns = Answer({kV4a}, 20ms);
  dns.from_cache = true;
  env.resolver.SetRule("secure.test", dns);
  env.factory.set_default_rule(After(30ms));
  env.factory.set_ssl_rule(After(40ms));
  CHECK(env.Start({"https", "secure.test", 8443}) == ERR_IO_PENDING);
  env.scheduler.RunAll();
  CHECK(env.calls == 1);
  CHECK(env.result == OK);
  REQUIRE(env.socket);
  auto* tls = static_cast<FakeStreamSocket*>(env.socket.get());
  CHECK(tls->is_tls());
  CHECK(env.factory.ssl_hosts() == std::vector<std::string>{"secure.test:8443"});

  const ConnectTiming& t = env.job->connect_timing();
  CHECK(t.dns_start == TimeTicks(0ms));
  CHECK(t.dns_end == TimeTicks(20ms));
  CHECK(t.connect_start == TimeTicks(20ms));
  CHECK(t.ssl_start == TimeTicks(50ms));
  CHECK(t.ssl_end == TimeTicks(90ms));
  CHECK(t.connect_end == TimeTicks(90ms));  // includes TLS, like Chrome
  CHECK(env.job->dns_from_cache());
  const uint32_t id = env.job->net_log().source().id;
  CHECK(env.observer.Count(NetLogEventType::SSL_CONNECT_JOB_CONNECT, id) == 2);
}

TEST_CASE("connect job: IPv4 starts in parallel when IPv6 has not connected after 300 ms") {
  JobEnv env;
  env.resolver.SetRule("dual.test", Answer({kV6a, kV4a}));
  env.factory.SetRuleForAddress(kV6a, Hang());
  env.factory.SetRuleForAddress(kV4a, After(10ms));
  CHECK(env.Start({"http", "dual.test", 80}) == ERR_IO_PENDING);
  env.scheduler.AdvanceBy(299ms);
  CHECK(env.factory.transport_sockets_created() == 1);
  env.scheduler.AdvanceBy(1ms);
  REQUIRE(env.factory.transport_sockets_created() == 2);
  CHECK(env.factory.attempts()[1].endpoint.address() == kV4a);
  CHECK(env.factory.attempts()[1].time == TimeTicks(300ms));
  const uint32_t id = env.job->net_log().source().id;
  CHECK(env.observer.Count(NetLogEventType::TRANSPORT_CONNECT_JOB_IPV6_FALLBACK, id) == 1);
  env.scheduler.AdvanceBy(10ms);
  CHECK(env.result == OK);
  CHECK(env.PeerAddress() == kV4a);
  CHECK(env.factory.live_sockets() == 1);  // the IPv6 attempt was cancelled
  CHECK(env.job->connect_timing().connect_start == TimeTicks(300ms));
}

TEST_CASE("connect job: no IPv4 race when IPv6 connects within 300 ms") {
  JobEnv env;
  env.resolver.SetRule("dual.test", Answer({kV6a, kV4a}));
  env.factory.SetRuleForAddress(kV6a, After(200ms));
  CHECK(env.Start({"http", "dual.test", 80}) == ERR_IO_PENDING);
  env.scheduler.RunAll();
  CHECK(env.result == OK);
  CHECK(env.PeerAddress() == kV6a);
  CHECK(env.factory.transport_sockets_created() == 1);
  CHECK(env.observer.Count(NetLogEventType::TRANSPORT_CONNECT_JOB_IPV6_FALLBACK) == 0);
}

TEST_CASE("connect job: a failed address moves on to the next one") {
  JobEnv env;
  env.resolver.SetRule("multi.test", Answer({kV4a, kV4b}));
  env.factory.SetRuleForAddress(kV4a, After(5ms, ERR_CONNECTION_REFUSED));
  env.factory.SetRuleForAddress(kV4b, After(5ms));
  CHECK(env.Start({"http", "multi.test", 80}) == ERR_IO_PENDING);
  env.scheduler.RunAll();
  CHECK(env.result == OK);
  CHECK(env.PeerAddress() == kV4b);
  REQUIRE(env.factory.attempts().size() == 2);
  CHECK(env.factory.attempts()[0].endpoint.address() == kV4a);
  CHECK(env.factory.attempts()[1].endpoint.address() == kV4b);
  CHECK(env.factory.attempts()[1].time == TimeTicks(5ms));
}

TEST_CASE("connect job: IPv6 addresses failing fast go on to IPv4 without waiting 300 ms") {
  JobEnv env;
  env.resolver.SetRule("dual.test", Answer({kV6a, kV6b, kV4a}));
  env.factory.SetRuleForAddress(kV6a, After(1ms, ERR_ADDRESS_UNREACHABLE));
  env.factory.SetRuleForAddress(kV6b, After(1ms, ERR_ADDRESS_UNREACHABLE));
  env.factory.SetRuleForAddress(kV4a, After(1ms));
  CHECK(env.Start({"http", "dual.test", 80}) == ERR_IO_PENDING);
  env.scheduler.RunAll();
  CHECK(env.result == OK);
  CHECK(env.PeerAddress() == kV4a);
  CHECK(env.scheduler.Now() == TimeTicks(3ms));
  CHECK(env.observer.Count(NetLogEventType::TRANSPORT_CONNECT_JOB_IPV6_FALLBACK) == 0);
}

TEST_CASE("connect job: the job fails with the last error when every address fails") {
  JobEnv env;
  env.resolver.SetRule("dual.test", Answer({kV6a, kV4a}));
  env.factory.SetRuleForAddress(kV6a, After(400ms, ERR_CONNECTION_TIMED_OUT));
  env.factory.SetRuleForAddress(kV4a, After(10ms, ERR_CONNECTION_REFUSED));
  CHECK(env.Start({"http", "dual.test", 80}) == ERR_IO_PENDING);
  env.scheduler.AdvanceBy(310ms);
  CHECK(env.calls == 0);  // IPv4 failed; IPv6 is still trying
  env.scheduler.RunAll();
  CHECK(env.calls == 1);
  CHECK(env.result == ERR_CONNECTION_TIMED_OUT);
  CHECK_FALSE(env.socket);
  CHECK(env.factory.live_sockets() == 2);  // failed attempts live until the job goes
  env.job.reset();
  CHECK(env.factory.live_sockets() == 0);
}

TEST_CASE("connect job: resolver errors fail the job before any connect") {
  JobEnv env;
  FakeResolveRule nx;
  nx.error = ERR_NAME_NOT_RESOLVED;
  nx.sync = false;
  nx.delay = 5ms;
  env.resolver.SetRule("nx.test", nx);
  CHECK(env.Start({"http", "nx.test", 80}) == ERR_IO_PENDING);
  env.scheduler.RunAll();
  CHECK(env.result == ERR_NAME_NOT_RESOLVED);
  CHECK(env.factory.transport_sockets_created() == 0);
}

TEST_CASE("connect job: a resolver failure hands on the resolver's error detail") {
  // A resolver whose requests fail asynchronously with a detail, as HostResolverManager's do.
  class DetailResolver : public HostResolver {
   public:
    explicit DetailResolver(Scheduler& scheduler) : scheduler_(scheduler) {}
    class Req : public Request {
     public:
      explicit Req(Scheduler& scheduler) : answer_(scheduler) {}
      int Start(CompletionCallback callback) override {
        answer_.Start(TimeDelta::zero(), [callback] { callback(ERR_DNS_SERVER_FAILED); });
        return ERR_IO_PENDING;
      }
      const AddressList& addresses() const override { return addresses_; }
      bool from_cache() const override { return false; }
      bool served_stale() const override { return false; }
      void ChangePriority(RequestPriority) override {}
      std::string error_detail() const override { return "a.test: SERVFAIL from 127.0.0.1:53"; }

     private:
      OneShotTimer answer_;  // cancelled with the request
      AddressList addresses_;
    };
    std::unique_ptr<Request> CreateRequest(const std::string&, uint16_t, RequestPriority,
                                           const NetLogWithSource&) override {
      return std::make_unique<Req>(scheduler_);
    }

   private:
    Scheduler& scheduler_;
  };
  JobEnv env;
  DetailResolver resolver(env.scheduler);
  env.params.host_resolver = &resolver;
  CHECK(env.Start({"http", "a.test", 80}) == ERR_IO_PENDING);
  env.scheduler.RunAll();
  CHECK(env.result == ERR_DNS_SERVER_FAILED);
  CHECK(env.job->error_detail() == "a.test: SERVFAIL from 127.0.0.1:53");
}

TEST_CASE("connect job: times out with ERR_CONNECTION_TIMED_OUT") {
  JobEnv env;
  SECTION("default 30 s") {}
  SECTION("configured 5 s") { env.params.connect_timeout = 5s; }
  const TimeDelta timeout = env.params.connect_timeout;
  env.factory.set_default_rule(Hang());
  CHECK(env.Start({"http", "slow.test", 80}) == ERR_IO_PENDING);
  env.scheduler.AdvanceBy(timeout - 1ms);
  CHECK(env.calls == 0);
  env.scheduler.AdvanceBy(1ms);
  CHECK(env.calls == 1);
  CHECK(env.result == ERR_CONNECTION_TIMED_OUT);
  CHECK(env.factory.live_sockets() == 0);
  CHECK(env.observer.Count(NetLogEventType::CONNECT_JOB_TIMED_OUT,
                           env.job->net_log().source().id) == 1);
}

TEST_CASE("connect job: a timeout while resolving is a DNS timeout, not a connect timeout") {
  JobEnv env;
  env.params.connect_timeout = 5s;
  FakeResolveRule hang;
  hang.sync = false;
  hang.hang = true;
  env.resolver.SetRule("slow-dns.test", hang);
  CHECK(env.Start({"http", "slow-dns.test", 80}) == ERR_IO_PENDING);
  env.scheduler.AdvanceBy(5s - 1ms);
  CHECK(env.calls == 0);
  CHECK(env.job->IsResolvingHost());
  env.scheduler.AdvanceBy(1ms);
  CHECK(env.calls == 1);
  CHECK(env.result == ERR_DNS_TIMED_OUT);
  // The detail names the host and the limit, so the user sees which lookup was too slow.
  CHECK(env.job->error_detail() ==
        "resolving slow-dns.test took longer than the 5000 ms connect "
        "timeout");
  CHECK(env.resolver.live_requests().empty());  // The resolve request was cancelled.
  CHECK(env.factory.transport_sockets_created() == 0);
  const uint32_t id = env.job->net_log().source().id;
  CHECK(env.observer.Count(NetLogEventType::CONNECT_JOB_TIMED_OUT, id) == 1);
  CHECK(env.observer.Count(NetLogEventType::CONNECT_JOB, id) == 2);
}

TEST_CASE("connect job: a TLS handshake failure fails the job") {
  JobEnv env;
  env.factory.set_default_rule(After(1ms));
  env.factory.set_ssl_rule(After(1ms, ERR_CERT_AUTHORITY_INVALID));
  CHECK(env.Start({"https", "bad.test", 443}) == ERR_IO_PENDING);
  env.scheduler.RunAll();
  CHECK(env.result == ERR_CERT_AUTHORITY_INVALID);
  CHECK_FALSE(env.socket);
}

TEST_CASE("connect job: priority changes reach the host resolution") {
  JobEnv env;
  FakeResolveRule slow = Answer({kV4a}, 50ms);
  env.resolver.SetRule("p.test", slow);
  CHECK(env.Start({"http", "p.test", 80}, LOW) == ERR_IO_PENDING);
  REQUIRE(env.resolver.live_requests().size() == 1);
  CHECK(env.resolver.live_requests()[0]->priority() == LOW);
  env.job->ChangePriority(HIGHEST);
  CHECK(env.job->priority() == HIGHEST);
  CHECK(env.resolver.live_requests()[0]->priority() == HIGHEST);
  CHECK(env.job->IsResolvingHost());
}

TEST_CASE("connect job: destroying a job in flight cancels it silently") {
  JobEnv env;
  env.factory.set_default_rule(After(100ms));
  CHECK(env.Start({"http", "a.test", 80}) == ERR_IO_PENDING);
  env.scheduler.AdvanceBy(50ms);
  CHECK(env.factory.live_sockets() == 1);
  env.job.reset();
  CHECK(env.factory.live_sockets() == 0);
  env.scheduler.RunAll();
  CHECK(env.calls == 0);
  CHECK(env.observer.Count(NetLogEventType::CANCELLED) == 1);
}
