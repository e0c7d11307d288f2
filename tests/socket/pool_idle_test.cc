// ClientSocketPool idle sockets: reuse order, timeouts, discarding dead ones, closing, preconnect.
#include <array>
#include <catch2/catch.hpp>

#include "net/socket/client_socket_handle.h"
#include "net/socket/client_socket_pool.h"
#include "tests/socket/pool_test_util.h"

using namespace netstack;
using namespace netstack::test;
using namespace std::chrono_literals;

namespace {

uint32_t SocketId(const ClientSocketHandle& h) { return h.socket()->NetLog().source().id; }

std::vector<uint32_t> IdleIds(PoolTestEnv& env, const SchemeHostPort& g) {
  return env.pool->GetInfoAsJson()["groups"][g.ToString()]["idle_sockets"]
      .get<std::vector<uint32_t>>();
}

// Gets a used socket into the group's idle list at the current time.
void MakeUsedIdleSocket(PoolTestEnv& env, const SchemeHostPort& g) {
  ClientSocketHandle h;
  TestCompletion done;
  if (env.Request(&h, g, &done) == ERR_IO_PENDING) env.scheduler.RunUntilIdle();
  REQUIRE(h.is_initialized());
  PoolTestEnv::SocketOf(h)->MarkUsed();
}

}  // namespace

TEST_CASE("pool: idle reuse takes the most recently used socket, then the oldest unused one") {
  PoolTestEnv env;
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  ClientSocketHandle used1, used2;
  TestCompletion d1, d2;
  env.Request(&used1, g, &d1);
  env.Request(&used2, g, &d2);
  env.scheduler.RunUntilIdle();
  PoolTestEnv::SocketOf(used1)->MarkUsed();
  PoolTestEnv::SocketOf(used2)->MarkUsed();
  const uint32_t s1 = SocketId(used1), s2 = SocketId(used2);

  CHECK(env.pool->RequestSockets(g, 3, env.NewRequestLog()) == OK);  // unused U1 at t = 0
  env.scheduler.RunUntilIdle();
  env.scheduler.AdvanceBy(1s);
  CHECK(env.pool->RequestSockets(g, 4, env.NewRequestLog()) == OK);  // unused U2 at t = 1 s
  env.scheduler.RunUntilIdle();
  const std::vector<uint32_t> unused = IdleIds(env, g);
  REQUIRE(unused.size() == 2);
  env.scheduler.AdvanceBy(1s);
  used1.Reset();  // t = 2 s
  env.scheduler.AdvanceBy(1s);
  used2.Reset();  // t = 3 s: the most recently used
  env.scheduler.AdvanceBy(1s);
  REQUIRE(env.pool->IdleSocketCount() == 4);

  std::array<ClientSocketHandle, 4> h;
  std::array<TestCompletion, 4> done;
  std::array<NetLogWithSource, 4> logs;
  for (int i = 0; i < 4; ++i) {
    logs[i] = env.NewRequestLog();
    REQUIRE(env.Request(&h[i], g, &done[i], MEDIUM, logs[i]) == OK);  // idle: synchronous
  }
  CHECK(SocketId(h[0]) == s2);
  CHECK(SocketId(h[1]) == s1);
  CHECK(SocketId(h[2]) == unused[0]);
  CHECK(SocketId(h[3]) == unused[1]);
  CHECK(h[0].is_reused());
  CHECK(h[0].idle_time() == 1s);
  CHECK(h[1].idle_time() == 2s);
  CHECK(h[2].socket_source() == SocketSource::kPreconnected);
  CHECK_FALSE(h[2].is_reused());
  CHECK(env.observer.Count(NetLogEventType::SOCKET_POOL_REUSED_AN_EXISTING_SOCKET,
                           logs[0].source().id) == 1);
  CHECK(env.observer.Count(NetLogEventType::SOCKET_POOL_REUSED_AN_EXISTING_SOCKET,
                           logs[2].source().id) == 0);
  CHECK(env.factory.transport_sockets_created() == 4);
}

TEST_CASE("pool: idle sockets found closed or with unread data are discarded") {
  PoolTestEnv env;
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  FakeStreamSocket* socket = nullptr;
  {
    ClientSocketHandle h;
    TestCompletion done;
    env.Request(&h, g, &done);
    env.scheduler.RunUntilIdle();
    socket = PoolTestEnv::SocketOf(h);
    socket->MarkUsed();
  }
  REQUIRE(env.pool->IdleSocketCount() == 1);
  const uint32_t id = socket->NetLog().source().id;
  SECTION("closed by the peer") { socket->SimulateRemoteClose(); }
  SECTION("used, with unread data") { socket->SetUnreadData(true); }

  ClientSocketHandle h;
  TestCompletion done;
  CHECK(env.Request(&h, g, &done) == ERR_IO_PENDING);  // a new connect
  CHECK(env.pool->IdleSocketCount() == 0);
  CHECK(env.observer.Count(NetLogEventType::SOCKET_POOL_CLOSING_SOCKET, id) == 1);
}

TEST_CASE("pool: a socket released with unread data, closed, or marked unusable is not kept") {
  PoolTestEnv env;
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  ClientSocketHandle h;
  TestCompletion done;
  env.Request(&h, g, &done);
  env.scheduler.RunUntilIdle();
  const uint32_t id = SocketId(h);
  SECTION("unread data") { PoolTestEnv::SocketOf(h)->SetUnreadData(true); }
  SECTION("closed") { PoolTestEnv::SocketOf(h)->SimulateRemoteClose(); }
  SECTION("marked unusable") { h.MarkUnusable(); }
  h.Reset();
  CHECK(env.pool->IdleSocketCount() == 0);
  CHECK_FALSE(env.pool->HasGroup(g));
  CHECK(env.observer.Count(NetLogEventType::SOCKET_POOL_SOCKET_RELEASED, id) == 1);
  CHECK(env.observer.Count(NetLogEventType::SOCKET_POOL_CLOSING_SOCKET, id) == 1);
  CHECK(env.factory.live_sockets() == 0);
}

TEST_CASE("pool: an unused idle socket closes after 10 s") {
  PoolTestEnv env;
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  CHECK(env.pool->RequestSockets(g, 1, env.NewRequestLog()) == OK);
  env.scheduler.RunUntilIdle();
  REQUIRE(env.pool->IdleSocketCount() == 1);
  const uint32_t id = IdleIds(env, g)[0];
  env.scheduler.AdvanceBy(9999ms);
  CHECK(env.pool->IdleSocketCount() == 1);
  env.scheduler.AdvanceBy(1ms);
  CHECK(env.pool->IdleSocketCount() == 0);
  CHECK_FALSE(env.pool->HasGroup(g));
  auto closing = env.observer.Get(NetLogEventType::SOCKET_POOL_CLOSING_SOCKET, id);
  REQUIRE(closing.size() == 1);
  CHECK(closing[0].params["reason"] == "Idle time limit expired");
  CHECK(closing[0].time == TimeTicks(10s));
}

TEST_CASE("pool: a used idle socket closes after 300 s, an unused one beside it after 10 s") {
  PoolTestEnv env;
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  MakeUsedIdleSocket(env, g);  // idle at t = 0
  CHECK(env.pool->RequestSockets(g, 2, env.NewRequestLog()) == OK);
  env.scheduler.RunUntilIdle();
  REQUIRE(env.pool->IdleSocketCount() == 2);
  env.scheduler.AdvanceBy(10s);
  CHECK(env.pool->IdleSocketCount() == 1);
  env.scheduler.AdvanceBy(289s + 999ms);
  CHECK(env.pool->IdleSocketCount() == 1);
  env.scheduler.AdvanceBy(1ms);
  CHECK(env.pool->IdleSocketCount() == 0);
  CHECK(env.scheduler.pending_tasks() == 0);  // no cleanup timer left behind
}

TEST_CASE("pool: idle timeouts are configurable") {
  ClientSocketPool::Params params = PoolTestEnv::DefaultParams();
  params.unused_idle_socket_timeout = 60s;  // a later Chrome's value
  PoolTestEnv env(params);
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  env.pool->RequestSockets(g, 1, env.NewRequestLog());
  env.scheduler.RunUntilIdle();
  env.scheduler.AdvanceBy(59s);
  CHECK(env.pool->IdleSocketCount() == 1);
  env.scheduler.AdvanceBy(1s);
  CHECK(env.pool->IdleSocketCount() == 0);
}

TEST_CASE("pool: CloseIdleSockets and CloseIdleSocketsInGroup leave handed-out sockets alone") {
  PoolTestEnv env;
  const SchemeHostPort a = PoolTestEnv::Http("a.test"), b = PoolTestEnv::Http("b.test");
  MakeUsedIdleSocket(env, a);
  MakeUsedIdleSocket(env, b);
  ClientSocketHandle held;
  TestCompletion done;
  env.Request(&held, PoolTestEnv::Http("c.test"), &done);
  env.scheduler.RunUntilIdle();
  REQUIRE(env.pool->IdleSocketCount() == 2);

  env.pool->CloseIdleSocketsInGroup(a);
  CHECK_FALSE(env.pool->HasGroup(a));
  CHECK(env.pool->IdleSocketCountInGroup(b) == 1);
  env.pool->CloseIdleSockets();
  CHECK(env.pool->IdleSocketCount() == 0);
  CHECK(env.pool->handed_out_socket_count() == 1);
  CHECK(held.socket()->IsConnected());
}

TEST_CASE("pool: preconnect leaves N idle never-used sockets, and a request reuses one") {
  PoolTestEnv env;
  const SchemeHostPort g = PoolTestEnv::Https("a.test");
  NetLogWithSource log = env.NewRequestLog();
  CHECK(env.pool->RequestSockets(g, 3, log) == OK);
  CHECK(env.pool->NumConnectJobsInGroup(g) == 3);
  CHECK(env.observer.Count(NetLogEventType::SOCKET_POOL_CONNECTING_N_SOCKETS, log.source().id) ==
        2);
  env.scheduler.RunUntilIdle();
  CHECK(env.pool->IdleSocketCountInGroup(g) == 3);
  CHECK(env.pool->RequestSockets(g, 3, env.NewRequestLog()) == OK);  // already there
  CHECK(env.factory.transport_sockets_created() == 3);

  ClientSocketHandle h;
  TestCompletion done;
  CHECK(env.Request(&h, g, &done) == OK);
  CHECK(h.socket_source() == SocketSource::kPreconnected);
  CHECK_FALSE(h.is_reused());
  CHECK_FALSE(h.socket()->WasEverUsed());
  CHECK(env.pool->IdleSocketCountInGroup(g) == 2);
  CHECK(env.factory.transport_sockets_created() == 3);
}

TEST_CASE("pool: preconnect stops at the group limit") {
  PoolTestEnv env;
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  CHECK(env.pool->RequestSockets(g, 10, env.NewRequestLog()) == OK);
  CHECK(env.pool->NumConnectJobsInGroup(g) == 6);
}

TEST_CASE("pool: a request waits for a preconnect still connecting instead of starting a job") {
  PoolTestEnv env;
  env.factory.set_default_rule(FakeConnectRule::After(50ms));
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  env.pool->RequestSockets(g, 2, env.NewRequestLog());
  ClientSocketHandle h;
  TestCompletion done;
  CHECK(env.Request(&h, g, &done) == ERR_IO_PENDING);
  CHECK(env.pool->NumConnectJobsInGroup(g) == 2);
  env.scheduler.RunAll();
  CHECK(done.result() == OK);
  CHECK(env.scheduler.Now() >= TimeTicks(50ms));
  CHECK(env.factory.transport_sockets_created() == 2);
  CHECK(env.pool->IdleSocketCountInGroup(g) == 0);  // the other one timed out after 10 s
}
