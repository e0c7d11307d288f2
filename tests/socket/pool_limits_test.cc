// ClientSocketPool limits: per group, per pool, the pool-limit stall and how it resolves.
#include <array>
#include <catch2/catch.hpp>

#include "net/socket/client_socket_handle.h"
#include "net/socket/client_socket_pool.h"
#include "tests/socket/pool_test_util.h"

using namespace netstack;
using namespace netstack::test;
using namespace std::chrono_literals;

namespace {

uint32_t SourceDependency(const NetLogEntry& entry) {
  return entry.params["source_dependency"]["id"].get<uint32_t>();
}

}  // namespace

TEST_CASE("pool: the 7th request to a group waits for one of the 6 sockets") {
  PoolTestEnv env;
  env.factory.set_default_rule(FakeConnectRule::After(10ms));
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  std::array<ClientSocketHandle, 7> h;
  std::array<TestCompletion, 7> done;
  for (int i = 0; i < 6; ++i) CHECK(env.Request(&h[i], g, &done[i]) == ERR_IO_PENDING);
  NetLogWithSource log7 = env.NewRequestLog();
  CHECK(env.Request(&h[6], g, &done[6], MEDIUM, log7) == ERR_IO_PENDING);
  CHECK(env.pool->NumConnectJobsInGroup(g) == 6);
  CHECK(env.pool->NumPendingRequestsInGroup(g) == 7);
  CHECK(env.observer.Count(NetLogEventType::SOCKET_POOL_STALLED_MAX_SOCKETS_PER_GROUP,
                           log7.source().id) == 1);

  env.scheduler.RunAll();
  for (int i = 0; i < 6; ++i) CHECK(done[i].result() == OK);
  CHECK_FALSE(done[6].have_result());
  CHECK(env.pool->NumActiveSocketsInGroup(g) == 6);
  CHECK(env.factory.transport_sockets_created() == 6);

  PoolTestEnv::SocketOf(h[0])->MarkUsed();
  h[0].Reset();  // the socket goes idle and straight to the waiting request
  env.scheduler.RunUntilIdle();
  CHECK(done[6].result() == OK);
  CHECK(h[6].is_reused());
  CHECK(env.factory.transport_sockets_created() == 6);
}

TEST_CASE("pool: requests beyond max_sockets wait, counting every group") {
  PoolTestEnv env(PoolTestEnv::WithMaxSockets(4));
  env.factory.set_default_rule(FakeConnectRule::After(10ms));
  std::array<ClientSocketHandle, 5> h;
  std::array<TestCompletion, 5> done;
  const SchemeHostPort a = PoolTestEnv::Http("a.test"), b = PoolTestEnv::Http("b.test");
  const SchemeHostPort c = PoolTestEnv::Http("c.test");
  CHECK(env.Request(&h[0], a, &done[0]) == ERR_IO_PENDING);
  CHECK(env.Request(&h[1], a, &done[1]) == ERR_IO_PENDING);
  CHECK(env.Request(&h[2], b, &done[2]) == ERR_IO_PENDING);
  CHECK(env.Request(&h[3], b, &done[3]) == ERR_IO_PENDING);
  NetLogWithSource log = env.NewRequestLog();
  CHECK(env.Request(&h[4], c, &done[4], MEDIUM, log) == ERR_IO_PENDING);
  CHECK(env.pool->connecting_socket_count() == 4);
  CHECK(env.pool->NumConnectJobsInGroup(c) == 0);
  CHECK(env.pool->IsStalled());
  CHECK(env.observer.Count(NetLogEventType::SOCKET_POOL_STALLED_MAX_SOCKETS, log.source().id) == 1);
  // A preconnect finds no room either.
  CHECK(env.pool->RequestSockets(PoolTestEnv::Http("d.test"), 1, env.NewRequestLog()) ==
        ERR_INSUFFICIENT_RESOURCES);

  env.scheduler.RunAll();
  CHECK(env.pool->handed_out_socket_count() == 4);
  CHECK_FALSE(done[4].have_result());
  CHECK(env.factory.transport_sockets_created() == 4);
}

TEST_CASE("pool: at the pool limit the least recently used idle socket of another group closes") {
  PoolTestEnv env(PoolTestEnv::WithMaxSockets(2));
  const SchemeHostPort a = PoolTestEnv::Http("a.test"), b = PoolTestEnv::Http("b.test");
  const SchemeHostPort c = PoolTestEnv::Http("c.test");
  ClientSocketHandle ha, hb, hc;
  TestCompletion da, db, dc;
  env.Request(&ha, a, &da);
  env.Request(&hb, b, &db);
  env.scheduler.RunUntilIdle();
  REQUIRE(da.result() == OK);
  REQUIRE(db.result() == OK);
  const uint32_t a_socket = ha.socket()->NetLog().source().id;
  const uint32_t b_socket = hb.socket()->NetLog().source().id;
  ha.Reset();  // idle since t = 0
  env.scheduler.AdvanceBy(1s);
  hb.Reset();  // idle since t = 1 s: more recently used
  CHECK(env.pool->IdleSocketCount() == 2);

  CHECK(env.Request(&hc, c, &dc) == ERR_IO_PENDING);
  CHECK_FALSE(env.pool->HasGroup(a));
  CHECK(env.pool->IdleSocketCountInGroup(b) == 1);
  CHECK(env.pool->NumConnectJobsInGroup(c) == 1);
  CHECK(env.observer.Count(NetLogEventType::SOCKET_POOL_CLOSING_SOCKET, a_socket) == 1);
  CHECK(env.observer.Count(NetLogEventType::SOCKET_POOL_CLOSING_SOCKET, b_socket) == 0);
  env.scheduler.RunUntilIdle();
  CHECK(dc.result() == OK);
}

TEST_CASE("pool: when a slot frees, the stalled group with the top request is served first") {
  PoolTestEnv env(PoolTestEnv::WithMaxSockets(2));
  const SchemeHostPort a = PoolTestEnv::Http("a.test");
  const SchemeHostPort low = PoolTestEnv::Http("low.test");
  // Named so that the groups' key order is the reverse of their arrival order.
  const SchemeHostPort high1 = PoolTestEnv::Http("z-high1.test");
  const SchemeHostPort high2 = PoolTestEnv::Http("a-high2.test");
  ClientSocketHandle a1, a2, hl, hh1, hh2;
  TestCompletion da1, da2, dl, dh1, dh2;
  env.Request(&a1, a, &da1);
  env.Request(&a2, a, &da2);
  env.scheduler.RunUntilIdle();
  REQUIRE(env.pool->handed_out_socket_count() == 2);

  // All three stall; high1 and high2 tie on priority, high1 came first.
  CHECK(env.Request(&hl, low, &dl, LOW) == ERR_IO_PENDING);
  CHECK(env.Request(&hh1, high1, &dh1, HIGHEST) == ERR_IO_PENDING);
  CHECK(env.Request(&hh2, high2, &dh2, HIGHEST) == ERR_IO_PENDING);
  CHECK(env.pool->IsStalled());
  CHECK(env.pool->GetInfoAsJson()["groups"]["http://low.test:80"]["is_stalled"] == true);

  // The released socket goes idle in its group, then is closed for the stalled group.
  a1.Reset();
  CHECK(env.pool->NumConnectJobsInGroup(high1) == 1);
  CHECK(env.pool->NumConnectJobsInGroup(high2) == 0);
  CHECK(env.pool->NumConnectJobsInGroup(low) == 0);
  CHECK(env.pool->IdleSocketCount() == 0);
  env.scheduler.RunUntilIdle();
  CHECK(dh1.result() == OK);

  a2.Reset();
  CHECK(env.pool->NumConnectJobsInGroup(high2) == 1);
  env.scheduler.RunUntilIdle();
  CHECK(dh2.result() == OK);
  CHECK_FALSE(dl.have_result());

  hh1.Reset();
  env.scheduler.RunUntilIdle();
  CHECK(dl.result() == OK);
  CHECK_FALSE(env.pool->IsStalled());
}

TEST_CASE("pool: cancelling a request at the pool limit cancels a spare job for a stalled group") {
  PoolTestEnv env(PoolTestEnv::WithMaxSockets(2));
  env.factory.set_default_rule(FakeConnectRule::After(100ms));
  const SchemeHostPort a = PoolTestEnv::Http("a.test"), b = PoolTestEnv::Http("b.test");
  ClientSocketHandle a1, a2, hb;
  TestCompletion da1, da2, db;
  env.Request(&a1, a, &da1);
  env.Request(&a2, a, &da2);
  CHECK(env.Request(&hb, b, &db) == ERR_IO_PENDING);
  CHECK(env.pool->NumConnectJobsInGroup(b) == 0);

  a2.Reset();  // group a now has 2 jobs for 1 request, and the pool is full
  CHECK(env.pool->NumConnectJobsInGroup(a) == 1);
  CHECK(env.pool->NumConnectJobsInGroup(b) == 1);
  env.scheduler.RunAll();
  CHECK(da1.result() == OK);
  CHECK(db.result() == OK);
  CHECK_FALSE(da2.have_result());
  CHECK(env.factory.transport_sockets_created() == 3);
}

TEST_CASE("pool: the request log shows the binding to its connect job and socket") {
  PoolTestEnv env;
  ClientSocketHandle h;
  TestCompletion done;
  NetLogWithSource log = env.NewRequestLog();
  CHECK(env.Request(&h, PoolTestEnv::Http("a.test"), &done, MEDIUM, log) == ERR_IO_PENDING);
  env.scheduler.RunUntilIdle();
  REQUIRE(done.result() == OK);
  auto bound_job =
      env.observer.Get(NetLogEventType::SOCKET_POOL_BOUND_TO_CONNECT_JOB, log.source().id);
  auto bound_socket =
      env.observer.Get(NetLogEventType::SOCKET_POOL_BOUND_TO_SOCKET, log.source().id);
  REQUIRE(bound_job.size() == 1);
  REQUIRE(bound_socket.size() == 1);
  CHECK(SourceDependency(bound_socket[0]) == h.socket()->NetLog().source().id);
  CHECK(env.observer.Count(NetLogEventType::CONNECT_JOB, SourceDependency(bound_job[0])) == 2);
  CHECK(env.observer.Count(NetLogEventType::SOCKET_POOL, log.source().id) == 2);
}

TEST_CASE("pool: the number of waiting requests is bounded") {
  ClientSocketPool::Params params = PoolTestEnv::DefaultParams();
  params.max_sockets_per_group = 1;
  params.max_pending_requests = 2;
  PoolTestEnv env(params);
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  std::array<ClientSocketHandle, 4> h;
  std::array<TestCompletion, 4> done;
  CHECK(env.Request(&h[0], g, &done[0]) == ERR_IO_PENDING);
  CHECK(env.Request(&h[1], g, &done[1]) == ERR_IO_PENDING);
  CHECK(env.Request(&h[2], g, &done[2]) == ERR_INSUFFICIENT_RESOURCES);
  env.scheduler.RunUntilIdle();  // h[0] served: one request waits
  CHECK(env.Request(&h[3], g, &done[3]) == ERR_IO_PENDING);
  CHECK(env.pool->NumPendingRequestsInGroup(g) == 2);
}

TEST_CASE("pool: cancelling a request stalled at the pool limit removes its empty group") {
  PoolTestEnv env(PoolTestEnv::WithMaxSockets(1));
  ClientSocketHandle holder, stalled;
  TestCompletion d1, d2;
  env.Request(&holder, PoolTestEnv::Http("a.test"), &d1);
  env.scheduler.RunUntilIdle();
  const SchemeHostPort b = PoolTestEnv::Http("b.test");
  CHECK(env.Request(&stalled, b, &d2) == ERR_IO_PENDING);
  CHECK(env.pool->HasGroup(b));
  stalled.Reset();
  CHECK_FALSE(env.pool->HasGroup(b));
  CHECK_FALSE(env.pool->IsStalled());
}

TEST_CASE(
    "pool: a preconnected socket closed for a stalled group is not destroyed in its callback") {
  PoolTestEnv env(PoolTestEnv::WithMaxSockets(1));
  env.factory.set_default_rule(FakeConnectRule::After(10ms));
  const SchemeHostPort a = PoolTestEnv::Http("a.test"), b = PoolTestEnv::Http("b.test");
  CHECK(env.pool->RequestSockets(a, 1, env.NewRequestLog()) == OK);
  ClientSocketHandle h;
  TestCompletion done;
  CHECK(env.Request(&h, b, &done) == ERR_IO_PENDING);  // stalled: the preconnect holds the slot
  // The preconnect connects with nobody waiting in its group: its socket goes idle and is
  // closed at once for the stalled group, while its connect callback is still running.
  env.scheduler.AdvanceBy(10ms);
  CHECK_FALSE(env.pool->HasGroup(a));
  CHECK(env.pool->NumConnectJobsInGroup(b) == 1);
  env.scheduler.AdvanceBy(10ms);
  CHECK(done.result() == OK);
  CHECK(env.factory.destroyed_in_callback() == 0);
}
