// ClientSocketPool: the backup connect job, flush with generations, timing through the handle,
// the info JSON, and destroying the pool with work outstanding.
#include <catch2/catch.hpp>
#include <memory>

#include "net/socket/client_socket_handle.h"
#include "net/socket/client_socket_pool.h"
#include "tests/socket/pool_test_util.h"

using namespace netstack;
using namespace netstack::test;
using namespace std::chrono_literals;

TEST_CASE("pool: a backup job starts at 250 ms, the winner serves, the loser's socket idles") {
  PoolTestEnv env(PoolTestEnv::WithBackupJobs());
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  env.factory.QueueRule(FakeConnectRule::After(1000ms));  // the first job's SYN is "lost"
  env.factory.QueueRule(FakeConnectRule::After(10ms));    // the backup's
  ClientSocketHandle h;
  TestCompletion done;
  NetLogWithSource log = env.NewRequestLog();
  CHECK(env.Request(&h, g, &done, MEDIUM, log) == ERR_IO_PENDING);
  CHECK(env.pool->IsBackupJobTimerRunning(g));
  env.scheduler.AdvanceBy(249ms);
  CHECK(env.factory.transport_sockets_created() == 1);
  env.scheduler.AdvanceBy(1ms);
  CHECK(env.factory.transport_sockets_created() == 2);
  CHECK(env.pool->NumConnectJobsInGroup(g) == 2);
  auto backup = env.observer.Get(NetLogEventType::SOCKET_BACKUP_CREATED, log.source().id);
  REQUIRE(backup.size() == 1);
  CHECK(backup[0].time == TimeTicks(250ms));

  env.scheduler.AdvanceBy(10ms);
  CHECK(done.result() == OK);  // the backup won
  IPEndPoint peer;
  CHECK(h.socket()->GetPeerAddress(&peer) == OK);
  CHECK(env.pool->NumConnectJobsInGroup(g) == 1);  // the first job goes on...
  env.scheduler.AdvanceBy(740ms);
  CHECK(env.pool->NumConnectJobsInGroup(g) == 0);
  CHECK(env.pool->IdleSocketCountInGroup(g) == 1);  // ...and its socket waits, never used
}

TEST_CASE("pool: no backup job when the group already has a socket") {
  PoolTestEnv env(PoolTestEnv::WithBackupJobs());
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  ClientSocketHandle first, second;
  TestCompletion d1, d2;
  env.Request(&first, g, &d1);
  env.scheduler.RunUntilIdle();
  REQUIRE(first.is_initialized());
  env.factory.set_default_rule(FakeConnectRule::Hang());
  CHECK(env.Request(&second, g, &d2) == ERR_IO_PENDING);
  CHECK_FALSE(env.pool->IsBackupJobTimerRunning(g));
  env.scheduler.AdvanceBy(1s);
  CHECK(env.factory.transport_sockets_created() == 2);
  CHECK(env.observer.Count(NetLogEventType::SOCKET_BACKUP_CREATED) == 0);
}

TEST_CASE("pool: the backup timer waits while the first job resolves, stops once TCP is up") {
  PoolTestEnv env(PoolTestEnv::WithBackupJobs());
  const SchemeHostPort g = PoolTestEnv::Https("a.test");
  const FakeConnectRule hang = FakeConnectRule::Hang();
  SECTION("still resolving at 250 ms: re-armed, the backup starts at 500 ms") {
    FakeResolveRule slow;
    slow.sync = false;
    slow.delay = 400ms;
    env.resolver.set_default_rule(slow);
    env.factory.set_default_rule(hang);
    ClientSocketHandle h;
    TestCompletion done;
    env.Request(&h, g, &done);
    env.scheduler.AdvanceBy(499ms);
    CHECK(env.observer.Count(NetLogEventType::SOCKET_BACKUP_CREATED) == 0);
    CHECK(env.pool->IsBackupJobTimerRunning(g));
    env.scheduler.AdvanceBy(1ms);
    CHECK(env.observer.Count(NetLogEventType::SOCKET_BACKUP_CREATED) == 1);
    CHECK(env.pool->NumConnectJobsInGroup(g) == 2);
  }
  SECTION("TCP connected, TLS slow: no backup") {
    env.factory.set_default_rule(FakeConnectRule::After(100ms));
    env.factory.set_ssl_rule(hang);
    ClientSocketHandle h;
    TestCompletion done;
    env.Request(&h, g, &done);
    env.scheduler.AdvanceBy(2s);
    CHECK(env.observer.Count(NetLogEventType::SOCKET_BACKUP_CREATED) == 0);
    CHECK(env.pool->NumConnectJobsInGroup(g) == 1);
  }
}

TEST_CASE("pool: flush cancels jobs, closes idle sockets, fails requests, old sockets close") {
  PoolTestEnv env;
  const SchemeHostPort a = PoolTestEnv::Http("a.test"), b = PoolTestEnv::Http("b.test");
  ClientSocketHandle held, idle, pending;
  TestCompletion d_held, d_idle, d_pending;
  env.Request(&held, a, &d_held);
  env.Request(&idle, a, &d_idle);
  env.scheduler.RunUntilIdle();
  PoolTestEnv::SocketOf(held)->MarkUsed();
  idle.Reset();
  env.factory.set_default_rule(FakeConnectRule::Hang());
  CHECK(env.Request(&pending, b, &d_pending) == ERR_IO_PENDING);
  REQUIRE(env.pool->IdleSocketCount() == 1);
  REQUIRE(env.pool->connecting_socket_count() == 1);
  const uint32_t held_id = held.socket()->NetLog().source().id;

  env.pool->FlushWithError(ERR_ABORTED);
  CHECK(env.pool->IdleSocketCount() == 0);
  CHECK(env.pool->connecting_socket_count() == 0);
  CHECK(env.pool->generation() == 1);
  CHECK_FALSE(d_pending.have_result());  // posted, never inside the flush
  env.scheduler.RunUntilIdle();
  CHECK(d_pending.result() == ERR_ABORTED);
  CHECK(held.socket()->IsConnected());  // handed-out sockets are not touched...

  held.Reset();  // ...but are dropped when they come back
  CHECK(env.pool->IdleSocketCount() == 0);
  CHECK_FALSE(env.pool->HasGroup(a));
  auto closing = env.observer.Get(NetLogEventType::SOCKET_POOL_CLOSING_SOCKET, held_id);
  REQUIRE(closing.size() == 1);
  CHECK(closing[0].params["reason"] == "Socket generation out of date");

  // Sockets of the new generation are kept.
  env.factory.set_default_rule(FakeConnectRule());
  ClientSocketHandle fresh;
  TestCompletion d_fresh;
  CHECK(env.Request(&fresh, a, &d_fresh) == ERR_IO_PENDING);
  env.scheduler.RunUntilIdle();
  CHECK(fresh.generation() == 1);
  fresh.Reset();
  CHECK(env.pool->IdleSocketCount() == 1);
}

TEST_CASE("pool: the handle reports connect timing and reuse") {
  PoolTestEnv env;
  FakeResolveRule dns;
  dns.sync = false;
  dns.delay = 20ms;
  env.resolver.set_default_rule(dns);
  env.factory.set_default_rule(FakeConnectRule::After(30ms));
  env.factory.set_ssl_rule(FakeConnectRule::After(40ms));
  const SchemeHostPort g = PoolTestEnv::Https("a.test");
  ClientSocketHandle h;
  TestCompletion done;
  env.Request(&h, g, &done);
  env.scheduler.RunAll();
  REQUIRE(done.result() == OK);
  CHECK(h.connect_timing().dns_end == TimeTicks(20ms));
  CHECK(h.connect_timing().connect_start == TimeTicks(20ms));
  CHECK(h.connect_timing().ssl_start == TimeTicks(50ms));
  CHECK(h.connect_timing().connect_end == TimeTicks(90ms));
  CHECK_FALSE(h.dns_from_cache());
  LoadTimingInfo info;
  REQUIRE(h.GetLoadTimingInfo(&info));
  CHECK_FALSE(info.socket_reused);
  CHECK(info.socket_log_id == h.socket()->NetLog().source().id);
  CHECK(info.connect_timing.ssl_end == TimeTicks(90ms));
  CHECK(env.factory.ssl_hosts() == std::vector<std::string>{"a.test:443"});

  h.socket()->Write("x", 1, [](int) {});  // now used
  h.Reset();
  CHECK(env.Request(&h, g, &done) == OK);
  LoadTimingInfo reused;
  REQUIRE(h.GetLoadTimingInfo(&reused));
  CHECK(reused.socket_reused);
  CHECK(reused.connect_timing.connect_start == TimeTicks{});  // no connect for this request
}

TEST_CASE("pool: GetInfoAsJson has the shape of Chrome's socket pool info") {
  PoolTestEnv env;
  const SchemeHostPort g = PoolTestEnv::Https("h.test");
  nlohmann::json empty = env.pool->GetInfoAsJson();
  CHECK(empty["name"] == "transport_socket_pool");
  CHECK(empty["max_socket_count"] == 256);
  CHECK(empty["max_sockets_per_group"] == 6);
  CHECK_FALSE(empty.contains("groups"));

  ClientSocketHandle held, waiting;
  TestCompletion d1, d2;
  env.Request(&held, g, &d1);
  env.scheduler.RunUntilIdle();
  env.pool->RequestSockets(g, 2, env.NewRequestLog());
  env.scheduler.RunUntilIdle();  // one idle socket
  env.factory.set_default_rule(FakeConnectRule::Hang());
  env.pool->RequestSockets(g, 3, env.NewRequestLog());  // one connect job

  nlohmann::json info = env.pool->GetInfoAsJson();
  CHECK(info["handed_out_socket_count"] == 1);
  CHECK(info["idle_socket_count"] == 1);
  CHECK(info["connecting_socket_count"] == 1);
  CHECK(info["pool_generation_number"] == 0);
  const nlohmann::json& group = info["groups"]["https://h.test:443"];
  CHECK(group["pending_request_count"] == 0);
  CHECK(group["active_socket_count"] == 1);
  CHECK(group["idle_sockets"].size() == 1);
  CHECK(group["connect_jobs"].size() == 1);
  CHECK(group["is_stalled"] == false);
  CHECK(group["backup_job_timer_is_running"] == false);
  CHECK_FALSE(group.contains("top_pending_priority"));
}

TEST_CASE("pool: destroying the pool drops pending requests, handed-out sockets stay usable") {
  PoolTestEnv env;
  ClientSocketHandle held, pending;
  TestCompletion d_held, d_pending;
  env.Request(&held, PoolTestEnv::Http("a.test"), &d_held);
  env.scheduler.RunUntilIdle();
  env.factory.set_default_rule(FakeConnectRule::Hang());
  env.Request(&pending, PoolTestEnv::Http("b.test"), &d_pending);
  env.pool.reset();
  env.scheduler.RunAll();
  CHECK(d_pending.count() == 0);
  CHECK(held.socket()->IsConnected());
  CHECK(held.pool() == nullptr);
  held.Reset();
  pending.Reset();
  CHECK(env.factory.live_sockets() == 0);
}
