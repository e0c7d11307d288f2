// ClientSocketPool requests: late binding, priorities, cancellation, failures, re-entrancy.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "net/socket/client_socket_handle.h"
#include "net/socket/client_socket_pool.h"
#include "tests/socket/pool_test_util.h"

using namespace netstack;
using namespace netstack::test;
using namespace std::chrono_literals;

TEST_CASE("pool: late binding gives a finished job's socket to the top request") {
  PoolTestEnv env;
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  env.factory.QueueRule(FakeConnectRule::After(100ms));  // the LOW request's job
  env.factory.QueueRule(FakeConnectRule::After(200ms));  // the HIGHEST request's job
  ClientSocketHandle low, high;
  TestCompletion low_done, high_done;
  NetLogWithSource high_log = env.NewRequestLog();
  CHECK(env.Request(&low, g, &low_done, LOW) == ERR_IO_PENDING);
  CHECK(env.Request(&high, g, &high_done, HIGHEST, high_log) == ERR_IO_PENDING);
  const auto jobs = env.pool->GetInfoAsJson()["groups"][g.ToString()]["connect_jobs"];
  REQUIRE(jobs.size() == 2);
  const uint32_t first_job = jobs[0].get<uint32_t>();

  env.scheduler.AdvanceBy(100ms);   // the job the LOW request started finishes first...
  CHECK(high_done.result() == OK);  // ...and serves the HIGHEST one
  CHECK_FALSE(low_done.have_result());
  auto bound =
      env.observer.Get(NetLogEventType::SOCKET_POOL_BOUND_TO_CONNECT_JOB, high_log.source().id);
  REQUIRE(bound.size() == 1);
  CHECK(bound[0].params["source_dependency"]["id"] == first_job);

  env.scheduler.AdvanceBy(100ms);
  CHECK(low_done.result() == OK);
}

TEST_CASE("pool: waiting requests are served by priority, FIFO among equals") {
  PoolTestEnv env(PoolTestEnv::WithMaxSocketsPerGroup(1));
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  ClientSocketHandle first;
  TestCompletion first_done;
  env.Request(&first, g, &first_done);
  env.scheduler.RunUntilIdle();
  REQUIRE(first.is_initialized());

  struct Waiter {
    const char* name;
    RequestPriority priority;
    ClientSocketHandle handle{};
    TestCompletion done{};
  };
  std::array<Waiter, 6> w{{{"L", LOW, {}, {}},
                           {"H1", HIGHEST, {}, {}},
                           {"M", MEDIUM, {}, {}},
                           {"H2", HIGHEST, {}, {}},
                           {"I", IDLE, {}, {}},
                           {"T", THROTTLED, {}, {}}}};
  for (Waiter& x : w) REQUIRE(env.Request(&x.handle, g, &x.done, x.priority) == ERR_IO_PENDING);
  CHECK(env.pool->GetInfoAsJson()["groups"][g.ToString()]["top_pending_priority"] == "HIGHEST");

  std::vector<std::string> order;
  ClientSocketHandle* holder = &first;
  for (size_t n = 0; n < w.size(); ++n) {
    holder->Reset();
    env.scheduler.RunUntilIdle();
    for (Waiter& x : w) {
      if (x.handle.is_initialized() && &x.handle != holder &&
          std::find(order.begin(), order.end(), x.name) == order.end()) {
        order.push_back(x.name);
        holder = &x.handle;
      }
    }
  }
  CHECK(order == std::vector<std::string>{"H1", "H2", "M", "L", "I", "T"});
}

TEST_CASE("pool: SetPriority reorders the waiting requests") {
  PoolTestEnv env(PoolTestEnv::WithMaxSocketsPerGroup(1));
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  ClientSocketHandle holder, a, b, c;
  TestCompletion dh, da, db, dc;
  env.Request(&holder, g, &dh);
  env.scheduler.RunUntilIdle();
  env.Request(&a, g, &da, LOW);
  env.Request(&b, g, &db, LOW);
  env.Request(&c, g, &dc, MEDIUM);
  b.SetPriority(HIGHEST);  // b first
  a.SetPriority(MEDIUM);   // a behind c, which was at MEDIUM before it

  holder.Reset();
  env.scheduler.RunUntilIdle();
  CHECK(db.have_result());
  CHECK_FALSE(da.have_result());
  b.Reset();
  env.scheduler.RunUntilIdle();
  CHECK(dc.have_result());
  CHECK_FALSE(da.have_result());
  c.Reset();
  env.scheduler.RunUntilIdle();
  CHECK(da.have_result());
}

TEST_CASE("pool: connect job priorities follow the requests down to the host resolver") {
  PoolTestEnv env;
  FakeResolveRule hang;
  hang.sync = false;
  hang.hang = true;
  env.resolver.set_default_rule(hang);
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  ClientSocketHandle h;
  TestCompletion done;
  env.Request(&h, g, &done, LOW);
  REQUIRE(env.resolver.live_requests().size() == 1);
  CHECK(env.resolver.live_requests()[0]->priority() == LOW);
  h.SetPriority(HIGHEST);
  CHECK(env.resolver.live_requests()[0]->priority() == HIGHEST);

  // A preconnect job (IDLE) claimed by a request takes the request's priority.
  const SchemeHostPort p = PoolTestEnv::Http("pre.test");
  env.pool->RequestSockets(p, 1, env.NewRequestLog());
  REQUIRE(env.resolver.live_requests().size() == 2);
  CHECK(env.resolver.live_requests()[1]->priority() == IDLE);
  ClientSocketHandle h2;
  TestCompletion done2;
  CHECK(env.Request(&h2, p, &done2, MEDIUM) == ERR_IO_PENDING);
  CHECK(env.pool->NumConnectJobsInGroup(p) == 1);
  CHECK(env.resolver.live_requests()[1]->priority() == MEDIUM);
}

TEST_CASE("pool: a request cancelled while pending never calls back, its job goes on") {
  PoolTestEnv env;
  env.factory.set_default_rule(FakeConnectRule::After(10ms));
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  TestCompletion done;
  NetLogWithSource log = env.NewRequestLog();
  SECTION("Reset") {
    ClientSocketHandle h;
    CHECK(env.Request(&h, g, &done, MEDIUM, log) == ERR_IO_PENDING);
    h.Reset();
    CHECK_FALSE(h.is_pending());
  }
  SECTION("destroying the handle") {
    auto h = std::make_unique<ClientSocketHandle>();
    CHECK(env.Request(h.get(), g, &done, MEDIUM, log) == ERR_IO_PENDING);
    h.reset();
  }
  CHECK(env.pool->NumPendingRequestsInGroup(g) == 0);
  CHECK(env.pool->NumConnectJobsInGroup(g) == 1);  // kept: the socket will likely be wanted
  CHECK(env.observer.Count(NetLogEventType::CANCELLED, log.source().id) == 1);
  env.scheduler.AdvanceBy(10ms);
  CHECK(done.count() == 0);
  CHECK(env.pool->IdleSocketCountInGroup(g) == 1);  // an idle never-used socket
}

TEST_CASE("pool: ResetAndCloseSocket cancels the job nobody else waits for") {
  PoolTestEnv env;
  env.factory.set_default_rule(FakeConnectRule::After(10ms));
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  ClientSocketHandle h;
  TestCompletion done;
  env.Request(&h, g, &done);
  h.ResetAndCloseSocket();
  CHECK_FALSE(env.pool->HasGroup(g));
  CHECK(env.factory.live_sockets() == 0);
  env.scheduler.RunAll();
  CHECK(done.count() == 0);
}

TEST_CASE("pool: a callback may destroy other handles and request again (re-entrancy)") {
  PoolTestEnv env;
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  auto first = std::make_unique<ClientSocketHandle>();
  auto second = std::make_unique<ClientSocketHandle>();
  ClientSocketHandle again;
  TestCompletion second_done, again_done;
  int again_rv = ERR_IO_PENDING;
  // Both jobs finish at the same instant; both callbacks are posted. The first callback
  // destroys itself and the second handle (whose callback must then never run), and asks again.
  REQUIRE(env.pool->RequestSocket(
              g, MEDIUM, first.get(),
              [&](int rv) {
                REQUIRE(rv == OK);
                PoolTestEnv::SocketOf(*first)->MarkUsed();
                first.reset();
                second.reset();
                again_rv = env.Request(&again, g, &again_done);
              },
              env.NewRequestLog()) == ERR_IO_PENDING);
  REQUIRE(env.Request(second.get(), g, &second_done) == ERR_IO_PENDING);
  env.scheduler.RunUntilIdle();
  CHECK(second_done.count() == 0);
  CHECK(again_rv == OK);  // the socket the first handle gave back
  CHECK(again.is_reused());
  CHECK(env.pool->IdleSocketCountInGroup(g) == 1);  // the second handle's socket went idle
  CHECK(env.pool->handed_out_socket_count() == 1);
}

TEST_CASE("pool: connect failures reach the request") {
  PoolTestEnv env;
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  ClientSocketHandle h;
  TestCompletion done;
  NetLogWithSource log = env.NewRequestLog();
  int expected = OK;
  SECTION("TCP refused, asynchronously") {
    env.factory.set_default_rule(FakeConnectRule::After(5ms, ERR_CONNECTION_REFUSED));
    expected = ERR_CONNECTION_REFUSED;
  }
  SECTION("DNS: no such name") {
    FakeResolveRule nx;
    nx.error = ERR_NAME_NOT_RESOLVED;
    nx.sync = false;
    env.resolver.set_default_rule(nx);
    expected = ERR_NAME_NOT_RESOLVED;
  }
  CHECK(env.Request(&h, g, &done, MEDIUM, log) == ERR_IO_PENDING);
  env.scheduler.RunAll();
  CHECK(done.result() == expected);
  CHECK_FALSE(h.is_initialized());
  CHECK_FALSE(h.socket());
  CHECK_FALSE(env.pool->HasGroup(g));
  auto ends = env.observer.Get(NetLogEventType::SOCKET_POOL, log.source().id);
  REQUIRE(ends.size() == 2);
  CHECK(ends[1].params["net_error"] == expected);
}

TEST_CASE("pool: a synchronous connect failure is returned synchronously") {
  PoolTestEnv env;
  env.factory.set_default_rule(FakeConnectRule::Sync(ERR_CONNECTION_REFUSED));
  ClientSocketHandle h;
  TestCompletion done;
  CHECK(env.Request(&h, PoolTestEnv::Http("a.test"), &done) == ERR_CONNECTION_REFUSED);
  CHECK_FALSE(h.is_pending());
  env.scheduler.RunAll();
  CHECK(done.count() == 0);
  CHECK(env.pool->connecting_socket_count() == 0);
}

TEST_CASE("pool: a failed job fails the top request, the others keep waiting for theirs") {
  PoolTestEnv env;
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  env.factory.QueueRule(FakeConnectRule::After(5ms, ERR_CONNECTION_RESET));
  env.factory.QueueRule(FakeConnectRule::After(10ms));
  ClientSocketHandle a, b;
  TestCompletion da, db;
  env.Request(&a, g, &da, LOW);
  env.Request(&b, g, &db, HIGHEST);
  env.scheduler.AdvanceBy(5ms);
  CHECK(db.result() == ERR_CONNECTION_RESET);  // late binding: errors go to the top request
  CHECK_FALSE(da.have_result());
  env.scheduler.AdvanceBy(5ms);
  CHECK(da.result() == OK);
}
