// ClientSocketPool under a long deterministic sequence of mixed operations (requests, cancels,
// priority changes, preconnects, releases, flushes, connect failures, backup jobs): the counts
// stay consistent, the limits hold, cancelled requests never call back, every request ends,
// and nothing leaks.
#include <array>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <random>

#include "net/socket/client_socket_handle.h"
#include "net/socket/client_socket_pool.h"
#include "tests/socket/pool_test_util.h"

using namespace netstack;
using namespace netstack::test;
using namespace std::chrono_literals;

namespace {

struct Slot {
  ClientSocketHandle handle;
  int outstanding = 0;  // callbacks owed: 1 after ERR_IO_PENDING, 0 after it ran or a cancel
  int callbacks = 0;
};

void CheckInvariants(const PoolTestEnv& env, const std::array<Slot, 24>& slots) {
  const ClientSocketPool::Params& p = env.pool->params();
  nlohmann::json info = env.pool->GetInfoAsJson();
  int idle = 0, jobs = 0, active = 0;
  if (info.contains("groups")) {
    for (const auto& [name, g] : info["groups"].items()) {
      const int gi = static_cast<int>(g["idle_sockets"].size());
      const int gj = static_cast<int>(g["connect_jobs"].size());
      const int ga = g["active_socket_count"].get<int>();
      CHECK(gi + gj + ga <= p.max_sockets_per_group);
      // A group exists only while it has something.
      CHECK(gi + gj + ga + g["pending_request_count"].get<int>() > 0);
      idle += gi;
      jobs += gj;
      active += ga;
    }
  }
  CHECK(idle == env.pool->IdleSocketCount());
  CHECK(jobs == env.pool->connecting_socket_count());
  CHECK(active == env.pool->handed_out_socket_count());
  CHECK(idle + jobs + active <= p.max_sockets);
  int initialized = 0;
  for (const Slot& s : slots) {
    CHECK(s.outstanding >= 0);
    CHECK(s.outstanding <= 1);
    if (s.handle.is_initialized()) ++initialized;
  }
  CHECK(initialized <= active);
}

}  // namespace

TEST_CASE("pool: random operations keep counts consistent and limits respected") {
  ClientSocketPool::Params params;  // backup jobs on
  params.max_sockets = 8;
  params.max_sockets_per_group = 3;
  params.connect_timeout = 2s;
  PoolTestEnv env(params);
  // Deterministic; POOL_SEED=n explores another sequence.
  const char* seed_env = std::getenv("POOL_SEED");
  std::mt19937 rng(seed_env ? std::atoi(seed_env) : 20240611);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const std::array<SchemeHostPort, 4> groups = {
      PoolTestEnv::Http("a.test"), PoolTestEnv::Https("b.test"), PoolTestEnv::Http("c.test"),
      PoolTestEnv::Https("d.test")};
  std::array<Slot, 24> slots;
  int last_op = -1;

  for (int step = 0; step < 3000; ++step) {
    // The next sockets' behaviour: mostly quick, some slow (backup jobs), some failing.
    FakeConnectRule rule;
    rule.delay = std::chrono::milliseconds(pick(4) == 0 ? 300 + pick(600) : pick(60));
    rule.result = pick(10) == 0 ? ERR_CONNECTION_REFUSED : OK;
    rule.hang = pick(40) == 0;
    env.factory.set_default_rule(rule);

    Slot& s = slots[pick(static_cast<int>(slots.size()))];
    const int op = pick(10);
    last_op = op;
    switch (op) {
      case 0:
      case 1:
      case 2: {  // request (a handle in use is Reset by RequestSocket: its callback is void)
        s.outstanding = 0;
        Slot* sp = &s;
        int rv = env.pool->RequestSocket(
            groups[pick(4)], static_cast<RequestPriority>(pick(6)), &s.handle,
            [sp](int) {
              --sp->outstanding;
              ++sp->callbacks;
            },
            env.NewRequestLog());
        if (rv == ERR_IO_PENDING) s.outstanding = 1;
        break;
      }
      case 3:
      case 4:  // release, used or not
        if (s.handle.is_initialized() && pick(2)) PoolTestEnv::SocketOf(s.handle)->MarkUsed();
        if (s.handle.is_initialized() && pick(8) == 0) s.handle.MarkUnusable();
        s.handle.Reset();
        s.outstanding = 0;
        break;
      case 5:
        s.handle.SetPriority(static_cast<RequestPriority>(pick(6)));
        break;
      case 6:
        env.pool->RequestSockets(groups[pick(4)], 1 + pick(4), env.NewRequestLog());
        break;
      case 7:
        if (pick(20) == 0) env.pool->FlushWithError(ERR_ABORTED);
        if (pick(20) == 0) env.pool->CloseIdleSockets();
        break;
      case 8:
        s.handle.ResetAndCloseSocket();
        s.outstanding = 0;
        break;
      default:
        env.scheduler.AdvanceBy(std::chrono::milliseconds(pick(400)));
        break;
    }
    INFO("step " << step << " op " << last_op);
    CheckInvariants(env, slots);
  }

  // Drain: every pending request ends (served or failed) once sockets are given back.
  env.factory.set_default_rule(FakeConnectRule());
  for (int round = 0; round < 50; ++round) {
    env.scheduler.RunAll();
    for (Slot& s : slots)
      if (s.handle.is_initialized()) s.handle.Reset();
  }
  for (const Slot& s : slots) CHECK(s.outstanding == 0);
  env.pool->CloseIdleSockets();
  env.scheduler.RunAll();
  CHECK(env.pool->handed_out_socket_count() == 0);
  CHECK(env.pool->connecting_socket_count() == 0);
  CHECK_FALSE(env.pool->GetInfoAsJson().contains("groups"));
  CHECK(env.factory.live_sockets() == 0);
  CHECK(env.factory.destroyed_in_callback() == 0);
  CHECK(env.resolver.destroyed_in_callback() == 0);
}
