// ClientSocketPool::Observer: where sockets come from and what became of preconnected ones, on
// the pool's own fakes (virtual time).
#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "net/socket/client_socket_handle.h"
#include "net/socket/client_socket_pool.h"
#include "tests/socket/pool_test_util.h"

using namespace netstack;
using namespace netstack::test;
using namespace std::chrono_literals;

namespace {

class RecordingPoolObserver : public ClientSocketPool::Observer {
 public:
  void OnSocketAssigned(const SchemeHostPort& group, const Assignment& assignment) override {
    assigned.push_back(assignment);
    events.push_back("assigned " + group.host);
  }
  void OnPreconnectJobStarted(const SchemeHostPort& group) override {
    events.push_back("started " + group.host);
  }
  void OnPreconnectJobComplete(const SchemeHostPort& group, int result) override {
    results.push_back(result);
    events.push_back("complete " + group.host);
  }
  void OnPreconnectedSocketClosedUnused(const SchemeHostPort& group, const char* reason) override {
    closed.push_back(reason);
    events.push_back("closed " + group.host);
  }
  size_t Count(const std::string& prefix) const {
    size_t n = 0;
    for (const std::string& e : events) n += e.rfind(prefix, 0) == 0;
    return n;
  }

  std::vector<Assignment> assigned;
  std::vector<int> results;
  std::vector<std::string> closed;
  std::vector<std::string> events;
};

struct ObservedPool {
  explicit ObservedPool(ClientSocketPool::Params params = PoolTestEnv::DefaultParams())
      : env(params) {
    env.factory.set_default_rule(FakeConnectRule::After(20ms));
    env.pool->AddObserver(&observer);
    env.scheduler.AdvanceBy(1s);  // TimeTicks{} is "unset" in connect timing
  }
  ~ObservedPool() { env.pool->RemoveObserver(&observer); }
  void Preconnect(const SchemeHostPort& g, int n) {
    REQUIRE(env.pool->RequestSockets(g, n, env.NewRequestLog()) == OK);
  }

  PoolTestEnv env;
  RecordingPoolObserver observer;
};

const SchemeHostPort kA = PoolTestEnv::Http("a.test");

// Runs `cancel` on `h` after its connect job (20 ms) handed it the socket and before the
// request's callback task runs.
void CancelBetween(ObservedPool& p, ClientSocketHandle* h,
                   std::function<void(ClientSocketHandle*)> cancel) {
  p.env.scheduler.AdvanceBy(1ms);  // the connect's timer is armed by now
  bool ran = false;
  p.env.scheduler.PostDelayedTask(19ms, [&] {
    ran = true;
    CHECK(h->is_pending());
    CHECK(p.env.pool->NumActiveSocketsInGroup(kA) == 1);  // handed to `h`
    cancel(h);
  });
  p.env.scheduler.AdvanceBy(19ms);
  p.env.scheduler.RunUntilIdle();
  REQUIRE(ran);
}
const SchemeHostPort kB = PoolTestEnv::Http("b.test");

}  // namespace

TEST_CASE("pool observer: a preconnected idle socket is handed out ready") {
  ObservedPool p;
  p.Preconnect(kA, 2);
  CHECK(p.observer.Count("started") == 2);
  p.env.scheduler.AdvanceBy(20ms);
  CHECK(p.observer.results == std::vector<int>{OK, OK});
  REQUIRE(p.env.pool->IdleSocketCount() == 2);
  p.env.scheduler.AdvanceBy(1s);

  ClientSocketHandle h;
  TestCompletion done;
  REQUIRE(p.env.Request(&h, kA, &done) == OK);
  REQUIRE(p.observer.assigned.size() == 1);
  CHECK(p.observer.assigned[0].source == SocketSource::kPreconnected);
  CHECK(p.observer.assigned[0].connect_wait_ms == 0);
  CHECK(p.observer.closed.empty());
}

TEST_CASE("pool observer: a request that takes a preconnect job still connecting is late") {
  ObservedPool p;
  p.Preconnect(kA, 1);
  p.env.scheduler.AdvanceBy(5ms);
  ClientSocketHandle h;
  TestCompletion done;
  REQUIRE(p.env.Request(&h, kA, &done) == ERR_IO_PENDING);
  p.env.scheduler.AdvanceBy(15ms);
  p.env.scheduler.RunUntilIdle();
  REQUIRE(h.is_initialized());
  REQUIRE(p.observer.assigned.size() == 1);
  CHECK(p.observer.assigned[0].source == SocketSource::kPreconnectedLate);
  CHECK(p.observer.assigned[0].connect_wait_ms == 15.0);  // what was left of its connect
  // Assignments are reported as the request learns of its socket (its callback), after the job
  // completed.
  CHECK(p.observer.events ==
        std::vector<std::string>{"started a.test", "complete a.test", "assigned a.test"});
}

TEST_CASE("pool observer: a request cancelled before its callback ran is not reported") {
  ObservedPool p;
  p.Preconnect(kA, 1);
  ClientSocketHandle h;
  TestCompletion done;
  REQUIRE(p.env.Request(&h, kA, &done) == ERR_IO_PENDING);
  // The job connects at 20 ms: its socket goes to `h` and the callback is posted. Cancel in a
  // task that runs between the two (same due time, posted after the connect's timer).
  CancelBetween(p, &h, [](ClientSocketHandle* h) { h->Reset(); });
  CHECK(p.observer.assigned.empty());
  CHECK(p.observer.Count("assigned") == 0);
  // The socket is back as a preconnected, never-used idle one.
  REQUIRE(p.env.pool->IdleSocketCount() == 1);
  ClientSocketHandle h2;
  REQUIRE(p.env.Request(&h2, kA, &done) == OK);
  REQUIRE(p.observer.assigned.size() == 1);
  CHECK(p.observer.assigned[0].source == SocketSource::kPreconnected);
}

TEST_CASE("pool observer: a cancelled request closing a preconnected socket reports it unused") {
  ObservedPool p;
  p.Preconnect(kA, 1);
  ClientSocketHandle h;
  TestCompletion done;
  REQUIRE(p.env.Request(&h, kA, &done) == ERR_IO_PENDING);
  // No other request waits: the socket is closed.
  CancelBetween(p, &h, [](ClientSocketHandle* h) { h->ResetAndCloseSocket(); });
  CHECK(p.observer.assigned.empty());
  CHECK(p.observer.closed == std::vector<std::string>{"unusable"});
  CHECK(p.env.pool->IdleSocketCount() == 0);
}

TEST_CASE("pool observer: a speculative request is reported as such") {
  ObservedPool p;
  ClientSocketHandle h;
  TestCompletion done;
  REQUIRE(p.env.pool->RequestSocket(kA, IDLE, &h, done.callback(), p.env.NewRequestLog(),
                                    /*speculative=*/true) == ERR_IO_PENDING);
  p.env.scheduler.AdvanceBy(20ms);
  p.env.scheduler.RunUntilIdle();
  REQUIRE(p.observer.assigned.size() == 1);
  CHECK(p.observer.assigned[0].speculative);
  h.Reset();
  ClientSocketHandle h2;
  REQUIRE(p.env.Request(&h2, kA, &done) == OK);  // a normal request
  REQUIRE(p.observer.assigned.size() == 2);
  CHECK_FALSE(p.observer.assigned[1].speculative);
}

TEST_CASE("pool observer: an IDLE request is reported as background, others not") {
  ObservedPool p;
  ClientSocketHandle idle;
  TestCompletion done;
  // A beacon, ping or background revalidation: IDLE priority, not speculative.
  REQUIRE(p.env.Request(&idle, kA, &done, IDLE) == ERR_IO_PENDING);
  p.env.scheduler.AdvanceBy(20ms);
  p.env.scheduler.RunUntilIdle();
  REQUIRE(p.observer.assigned.size() == 1);
  CHECK(p.observer.assigned[0].background);
  CHECK_FALSE(p.observer.assigned[0].speculative);
  ClientSocketHandle lowest;
  TestCompletion done2;
  REQUIRE(p.env.Request(&lowest, kA, &done2, LOWEST) == ERR_IO_PENDING);
  p.env.scheduler.AdvanceBy(20ms);
  p.env.scheduler.RunUntilIdle();
  REQUIRE(p.observer.assigned.size() == 2);
  CHECK_FALSE(p.observer.assigned[1].background);
}

TEST_CASE("pool observer: a request's own connect and a reused socket are not preconnects") {
  ObservedPool p;
  ClientSocketHandle h;
  TestCompletion done;
  REQUIRE(p.env.Request(&h, kA, &done) == ERR_IO_PENDING);
  p.env.scheduler.AdvanceBy(20ms);
  p.env.scheduler.RunUntilIdle();
  REQUIRE(p.observer.assigned.size() == 1);
  CHECK(p.observer.assigned[0].source == SocketSource::kNew);
  CHECK(p.observer.assigned[0].connect_wait_ms == 20.0);
  PoolTestEnv::SocketOf(h)->MarkUsed();
  h.Reset();
  REQUIRE(p.env.Request(&h, kA, &done) == OK);
  REQUIRE(p.observer.assigned.size() == 2);
  CHECK(p.observer.assigned[1].source == SocketSource::kReused);
  CHECK(p.observer.Count("started") == 0);
}

TEST_CASE("pool observer: failed and synchronous preconnect jobs are reported") {
  ObservedPool p;
  SECTION("asynchronous failure") {
    p.env.factory.QueueRule(FakeConnectRule::After(10ms, ERR_CONNECTION_REFUSED));
    p.Preconnect(kA, 1);
    p.env.scheduler.AdvanceBy(10ms);
    CHECK(p.observer.results == std::vector<int>{ERR_CONNECTION_REFUSED});
  }
  SECTION("synchronous success") {
    p.env.factory.QueueRule(FakeConnectRule::Sync(OK));
    p.Preconnect(kA, 1);
    CHECK(p.observer.events == std::vector<std::string>{"started a.test", "complete a.test"});
    CHECK(p.observer.results == std::vector<int>{OK});
    CHECK(p.env.pool->IdleSocketCount() == 1);
    ClientSocketHandle h;
    TestCompletion done;
    REQUIRE(p.env.Request(&h, kA, &done) == OK);
    CHECK(p.observer.assigned[0].source == SocketSource::kPreconnected);
  }
}

TEST_CASE("pool observer: preconnected sockets closed unused say why") {
  ObservedPool p;
  p.Preconnect(kA, 1);
  p.env.scheduler.AdvanceBy(20ms);
  REQUIRE(p.env.pool->IdleSocketCount() == 1);

  SECTION("unused idle timeout") {
    p.env.scheduler.AdvanceBy(10s);
    CHECK(p.observer.closed == std::vector<std::string>{"unused idle timeout"});
  }
  SECTION("close idle sockets") {
    p.env.pool->CloseIdleSockets();
    CHECK(p.observer.closed == std::vector<std::string>{"close idle sockets"});
  }
  SECTION("flush") {
    p.Preconnect(kA, 2);  // one more job, still connecting
    p.env.pool->FlushWithError(ERR_FAILED);
    CHECK(p.observer.closed == std::vector<std::string>{"flush"});
    CHECK(p.observer.results == std::vector<int>{OK, ERR_ABORTED});
  }
  SECTION("found broken") {
    p.env.factory.connection(0).script->Disconnect();
    ClientSocketHandle h;
    TestCompletion done;
    CHECK(p.env.Request(&h, kA, &done) == ERR_IO_PENDING);
    CHECK(p.observer.closed == std::vector<std::string>{"broken"});
  }
  SECTION("a used socket closing is not reported") {
    ClientSocketHandle h;
    TestCompletion done;
    REQUIRE(p.env.Request(&h, kA, &done) == OK);
    h.Reset();  // back idle, never used: no longer a preconnect's to report
    p.env.pool->CloseIdleSockets();
    CHECK(p.observer.closed.empty());
  }
}

TEST_CASE("pool observer: a preconnected socket closed for the pool limit") {
  ObservedPool p(PoolTestEnv::WithMaxSockets(1));
  p.Preconnect(kA, 1);
  p.env.scheduler.AdvanceBy(20ms);
  ClientSocketHandle h;
  TestCompletion done;
  CHECK(p.env.Request(&h, kB, &done) == ERR_IO_PENDING);
  CHECK(p.observer.closed == std::vector<std::string>{"pool limit"});
}

TEST_CASE("pool observer: a cancelled preconnect job reports ERR_ABORTED") {
  ObservedPool p(PoolTestEnv::WithMaxSockets(2));
  p.Preconnect(kA, 2);
  // A request claims one preconnect job, then gives up with the pool at its limit: the
  // newest job is cancelled.
  ClientSocketHandle h;
  TestCompletion done;
  REQUIRE(p.env.Request(&h, kA, &done) == ERR_IO_PENDING);
  h.Reset();
  CHECK(p.observer.results == std::vector<int>{ERR_ABORTED});
}

TEST_CASE("pool observer: nothing is reported from the destructor, or after removal") {
  ObservedPool p;
  p.Preconnect(kA, 1);
  p.env.scheduler.AdvanceBy(20ms);
  p.Preconnect(kA, 2);
  const size_t before = p.observer.events.size();
  p.env.pool.reset();
  CHECK(p.observer.events.size() == before);
  p.env.pool = std::make_unique<ClientSocketPool>(PoolTestEnv::DefaultParams(), p.env.scheduler,
                                                  &p.env.resolver, &p.env.factory, &p.env.net_log);
  p.env.pool->AddObserver(&p.observer);
  p.env.pool->RemoveObserver(&p.observer);
  p.Preconnect(kB, 1);
  CHECK(p.observer.events.size() == before);
}
