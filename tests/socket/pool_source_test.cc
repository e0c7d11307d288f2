// ClientSocketPool's SocketSource: decided once when a socket is handed out, on the handle and in
// the observers' Assignment alike, for each way a request can get a socket.
#include <catch2/catch.hpp>
#include <vector>

#include "net/base/load_timing_phases.h"
#include "net/socket/client_socket_handle.h"
#include "net/socket/client_socket_pool.h"
#include "tests/socket/pool_test_util.h"

using namespace netstack;
using namespace netstack::test;
using namespace std::chrono_literals;

namespace {

class AssignmentRecorder : public ClientSocketPool::Observer {
 public:
  void OnSocketAssigned(const SchemeHostPort&, const Assignment& assignment) override {
    assigned.push_back(assignment);
  }
  std::vector<Assignment> assigned;
};

// A pool whose connects take 20 ms, with an observer.
struct SourceEnv {
  SourceEnv() {
    env.factory.set_default_rule(FakeConnectRule::After(20ms));
    env.pool->AddObserver(&recorder);
    env.scheduler.AdvanceBy(1s);  // TimeTicks{} is "unset" in load timing
  }
  ~SourceEnv() { env.pool->RemoveObserver(&recorder); }
  // Requests a socket of `g` and runs until the handle holds one.
  void Get(ClientSocketHandle* h) {
    TestCompletion done;
    if (env.Request(h, g, &done) == ERR_IO_PENDING) env.scheduler.AdvanceBy(100ms);
    REQUIRE(h->is_initialized());
  }
  SocketSource LastAssigned() const {
    REQUIRE_FALSE(recorder.assigned.empty());
    return recorder.assigned.back().source;
  }

  PoolTestEnv env;
  AssignmentRecorder recorder;
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
};

}  // namespace

TEST_CASE("pool source: none before a socket, new for a connect job started for the request") {
  SourceEnv s;
  ClientSocketHandle h;
  CHECK(h.socket_source() == SocketSource::kNone);
  s.Get(&h);
  CHECK(h.socket_source() == SocketSource::kNew);
  CHECK(s.LastAssigned() == SocketSource::kNew);
  LoadTimingInfo timing;
  REQUIRE(h.GetLoadTimingInfo(&timing));
  CHECK(timing.connect_timing.connect_start != TimeTicks{});  // a job's socket keeps its timing
  h.Reset();
  CHECK(h.socket_source() == SocketSource::kNone);
}

TEST_CASE("pool source: an idle socket used before is reused") {
  SourceEnv s;
  ClientSocketHandle h;
  s.Get(&h);
  PoolTestEnv::SocketOf(h)->MarkUsed();
  h.Reset();
  s.Get(&h);
  CHECK(h.socket_source() == SocketSource::kReused);
  CHECK(h.is_reused());
  CHECK(s.LastAssigned() == SocketSource::kReused);
  LoadTimingInfo timing;
  REQUIRE(h.GetLoadTimingInfo(&timing));
  CHECK(timing.socket_reused);
  CHECK(timing.connect_timing.connect_start == TimeTicks{});  // idle: no connect timing
}

TEST_CASE("pool source: a preconnect's idle socket is preconnected, its job's socket late") {
  SourceEnv s;
  SECTION("ready: the preconnect finished before the request") {
    CHECK(s.env.pool->RequestSockets(s.g, 1, s.env.NewRequestLog()) == OK);
    s.env.scheduler.AdvanceBy(30ms);
    REQUIRE(s.env.pool->IdleSocketCountInGroup(s.g) == 1);
    ClientSocketHandle h;
    TestCompletion done;
    CHECK(s.env.Request(&h, s.g, &done) == OK);
    CHECK(h.socket_source() == SocketSource::kPreconnected);
    CHECK(s.LastAssigned() == SocketSource::kPreconnected);
    LoadTimingInfo timing;
    REQUIRE(h.GetLoadTimingInfo(&timing));
    CHECK(timing.connect_timing.connect_start == TimeTicks{});
  }
  SECTION("late: the request came while the preconnect job was connecting") {
    CHECK(s.env.pool->RequestSockets(s.g, 1, s.env.NewRequestLog()) == OK);
    s.env.scheduler.AdvanceBy(5ms);
    ClientSocketHandle h;
    TestCompletion done;
    CHECK(s.env.Request(&h, s.g, &done) == ERR_IO_PENDING);
    CHECK(s.env.pool->NumConnectJobsInGroup(s.g) == 1);  // it waits for the preconnect's job
    s.env.scheduler.AdvanceBy(15ms);
    REQUIRE(h.is_initialized());
    CHECK(h.socket_source() == SocketSource::kPreconnectedLate);
    CHECK(s.LastAssigned() == SocketSource::kPreconnectedLate);
  }
  // A request cancelled before its callback ran: pool_observer_test.cc.
}

TEST_CASE("pool source: a job another request started is new for the one it serves") {
  SourceEnv s;
  // a's job is slower than b's: b's job serves a (the top request), a's job then serves b.
  s.env.factory.QueueRule(FakeConnectRule::After(50ms));
  s.env.factory.QueueRule(FakeConnectRule::After(10ms));
  ClientSocketHandle a, b;
  TestCompletion da, db;
  CHECK(s.env.Request(&a, s.g, &da, HIGHEST) == ERR_IO_PENDING);
  CHECK(s.env.Request(&b, s.g, &db, LOW) == ERR_IO_PENDING);
  s.env.scheduler.AdvanceBy(10ms);
  s.env.scheduler.RunUntilIdle();
  REQUIRE(a.is_initialized());
  CHECK_FALSE(b.is_initialized());
  CHECK(a.socket_source() == SocketSource::kNew);  // late binding: b's job, still "new"
  s.env.scheduler.AdvanceBy(40ms);
  REQUIRE(b.is_initialized());
  CHECK(b.socket_source() == SocketSource::kNew);
}

TEST_CASE("pool source: a never-used socket a request left is unused-idle") {
  SourceEnv s;
  ClientSocketHandle first;
  TestCompletion done;
  CHECK(s.env.Request(&first, s.g, &done) == ERR_IO_PENDING);
  first.Reset();  // the request goes away; its job goes on and leaves an idle socket
  s.env.scheduler.AdvanceBy(20ms);
  REQUIRE(s.env.pool->IdleSocketCountInGroup(s.g) == 1);
  ClientSocketHandle h;
  CHECK(s.env.Request(&h, s.g, &done) == OK);
  CHECK(h.socket_source() == SocketSource::kUnusedIdle);
  CHECK(s.LastAssigned() == SocketSource::kUnusedIdle);
  CHECK_FALSE(h.is_reused());
}

TEST_CASE("pool source: names") {
  CHECK(std::string(SocketSourceName(SocketSource::kNone)) == "none");
  CHECK(std::string(SocketSourceName(SocketSource::kNew)) == "new");
  CHECK(std::string(SocketSourceName(SocketSource::kReused)) == "reused");
  CHECK(std::string(SocketSourceName(SocketSource::kPreconnected)) == "preconnected");
  CHECK(std::string(SocketSourceName(SocketSource::kPreconnectedLate)) == "preconnected-late");
  CHECK(std::string(SocketSourceName(SocketSource::kUnusedIdle)) == "unused-idle");
}

TEST_CASE("pool connect wait: the job's setup from the request's start, the record's number") {
  SourceEnv s;
  SECTION("a job started for the request: all of its setup") {
    ClientSocketHandle h;
    s.Get(&h);
    REQUIRE(s.recorder.assigned.size() == 1);
    LoadTimingInfo timing;
    REQUIRE(h.GetLoadTimingInfo(&timing));
    CHECK(s.recorder.assigned[0].connect_wait_ms == 20.0);  // the fake connect's 20 ms
    CHECK(s.recorder.assigned[0].connect_wait_ms ==
          ConnectWaitMs(timing.connect_timing, timing.connect_timing.connect_start));
  }
  SECTION("a preconnect job still connecting: only what was left from the request's start") {
    CHECK(s.env.pool->RequestSockets(s.g, 1, s.env.NewRequestLog()) == OK);
    s.env.scheduler.AdvanceBy(5ms);
    ClientSocketHandle h;
    s.Get(&h);
    CHECK(h.socket_source() == SocketSource::kPreconnectedLate);
    CHECK(s.recorder.assigned[0].connect_wait_ms == 15.0);
  }
  SECTION("the request's start comes from the caller when given (its record's start)") {
    const TimeTicks record_start = s.env.scheduler.Now();
    CHECK(s.env.pool->RequestSockets(s.g, 1, s.env.NewRequestLog()) == OK);
    s.env.scheduler.AdvanceBy(5ms);
    ClientSocketHandle h;
    TestCompletion done;
    CHECK(s.env.pool->RequestSocket(s.g, MEDIUM, &h, done.callback(), s.env.NewRequestLog(),
                                    /*speculative=*/false, record_start) == ERR_IO_PENDING);
    s.env.scheduler.AdvanceBy(100ms);
    REQUIRE(h.is_initialized());
    CHECK(s.recorder.assigned[0].connect_wait_ms == 20.0);  // counted from record_start
  }
  SECTION("an idle socket: no wait, whatever the request waited in the queue") {
    CHECK(s.env.pool->RequestSockets(s.g, 1, s.env.NewRequestLog()) == OK);
    s.env.scheduler.AdvanceBy(30ms);
    ClientSocketHandle h;
    s.Get(&h);
    CHECK(s.recorder.assigned[0].connect_wait_ms == 0);
  }
}

TEST_CASE("pool connect wait: time queued behind the group limit is not connect wait") {
  PoolTestEnv env(PoolTestEnv::WithMaxSocketsPerGroup(1));
  env.factory.set_default_rule(FakeConnectRule::After(20ms));
  env.scheduler.AdvanceBy(1s);
  AssignmentRecorder recorder;
  env.pool->AddObserver(&recorder);
  const SchemeHostPort g = PoolTestEnv::Http("a.test");
  ClientSocketHandle a, b;
  TestCompletion da, db;
  CHECK(env.Request(&a, g, &da) == ERR_IO_PENDING);
  CHECK(env.Request(&b, g, &db) == ERR_IO_PENDING);  // over the limit: waits for a slot
  env.scheduler.AdvanceBy(50ms);
  REQUIRE(a.is_initialized());
  a.ResetAndCloseSocket();  // the slot frees at 50 ms; b's own job starts then
  env.scheduler.AdvanceBy(50ms);
  REQUIRE(b.is_initialized());
  REQUIRE(recorder.assigned.size() == 2);
  CHECK(recorder.assigned[0].connect_wait_ms == 20.0);
  CHECK(recorder.assigned[1].connect_wait_ms == 20.0);  // not the 50 ms it queued
  env.pool->RemoveObserver(&recorder);
}
