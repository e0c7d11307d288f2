// HostResolverManager's dispatcher: concurrency limit, priority order, priority changes, the
// queue bound, and cancellation.
#include <catch2/catch.hpp>

#include "tests/dns/resolver_test_util.h"

using namespace netstack;
using namespace std::chrono_literals;
using Strings = std::vector<std::string>;

namespace {

HostResolverManager::Config Limits(size_t concurrent, size_t queued = 600) {
  HostResolverManager::Config config;
  config.max_concurrent_jobs = concurrent;
  config.max_queued_jobs = queued;
  return config;
}

Strings CallOrder(const ScriptedDnsTransport& transport) {
  Strings order;
  for (const auto& call : transport.calls()) order.push_back(call.hostname);
  return order;
}

}  // namespace

TEST_CASE("dispatcher: at most max_concurrent_jobs lookups run, the rest wait") {
  ResolverEnv env;  // Default: 6, as Chrome.
  std::vector<std::unique_ptr<TestRequest>> requests;
  for (int i = 0; i < 8; ++i) {
    env.transport->SetAddresses("h" + std::to_string(i) + ".test", {"10.0.0.1"}, 60s, 100ms);
    requests.push_back(env.Resolve("h" + std::to_string(i) + ".test"));
  }
  CHECK(env.transport->active() == 6);
  CHECK(env.resolver->num_running_jobs() == 6);
  CHECK(env.resolver->num_queued_jobs() == 2);

  env.scheduler.AdvanceBy(100ms);  // The first six finish; the two queued start at once.
  CHECK(env.transport->active() == 2);
  CHECK(env.resolver->num_queued_jobs() == 0);
  env.scheduler.AdvanceBy(100ms);
  for (auto& r : requests) CHECK(r->result == OK);
  // Start times: six at 0, two at 100 ms.
  const auto& calls = env.transport->calls();
  REQUIRE(calls.size() == 8);
  for (size_t i = 0; i < 8; ++i) CHECK(calls[i].time == TimeTicks(i < 6 ? 0ms : 100ms));
}

TEST_CASE("dispatcher: queued jobs run by priority, then first come first served") {
  ResolverEnv env(Limits(1));
  auto a = env.Resolve("a.test", 80, MEDIUM);  // Runs at once.
  auto b = env.Resolve("b.test", 80, LOW);
  auto c = env.Resolve("c.test", 80, HIGHEST);
  auto d = env.Resolve("d.test", 80, MEDIUM);
  auto e = env.Resolve("e.test", 80, HIGHEST);
  auto f = env.Resolve("f.test", 80, IDLE);
  env.scheduler.RunAll();
  CHECK(CallOrder(*env.transport) ==
        Strings{"a.test", "c.test", "e.test", "d.test", "b.test", "f.test"});
}

TEST_CASE("dispatcher: a job's priority rises with an attached request or ChangePriority") {
  SECTION("a higher-priority request attaches") {
    ResolverEnv env(Limits(1));
    auto a = env.Resolve("a.test", 80, MEDIUM);
    auto b = env.Resolve("b.test", 80, LOW);
    auto c = env.Resolve("c.test", 80, MEDIUM);
    auto b2 = env.Resolve("b.test", 80, HIGHEST);  // Merged into b's job, which now leads.
    env.scheduler.RunAll();
    CHECK(CallOrder(*env.transport) == Strings{"a.test", "b.test", "c.test"});
    CHECK(b->callbacks == 1);  // Both requests completed (unscripted names are NXDOMAIN).
    CHECK(b2->callbacks == 1);
  }
  SECTION("ChangePriority on a queued request") {
    ResolverEnv env(Limits(1));
    auto a = env.Resolve("a.test", 80, MEDIUM);
    auto b = env.Resolve("b.test", 80, LOW);
    auto c = env.Resolve("c.test", 80, MEDIUM);
    b->request->ChangePriority(HIGHEST);
    env.scheduler.RunAll();
    CHECK(CallOrder(*env.transport) == Strings{"a.test", "b.test", "c.test"});
  }
  SECTION("the job's priority falls when its highest request leaves") {
    ResolverEnv env(Limits(1));
    auto a = env.Resolve("a.test", 80, MEDIUM);
    auto b = env.Resolve("b.test", 80, LOW);
    auto b_high = env.Resolve("b.test", 80, HIGHEST);
    auto c = env.Resolve("c.test", 80, MEDIUM);
    b_high.reset();  // b is LOW again: c goes first.
    env.scheduler.RunAll();
    CHECK(CallOrder(*env.transport) == Strings{"a.test", "c.test", "b.test"});
    CHECK(b->callbacks == 1);
  }
}

TEST_CASE("dispatcher: over the queue bound, the oldest lowest-priority job is evicted") {
  ResolverEnv env(Limits(1, 2));
  auto a = env.Resolve("a.test", 80, MEDIUM);  // Running.
  auto b = env.Resolve("b.test", 80, LOW);     // Queued.
  auto b2 = env.Resolve("b.test", 80, LOW);    // Same job.
  auto c = env.Resolve("c.test", 80, MEDIUM);  // Queued (2 of 2).
  auto d = env.Resolve("d.test", 80, HIGHEST);
  // d fits by pushing out b (lowest priority, oldest); b's requests fail asynchronously.
  CHECK(d->start_result == ERR_IO_PENDING);
  CHECK(env.resolver->num_queued_jobs() == 2);
  CHECK_FALSE(b->done());
  env.scheduler.RunUntilIdle();
  CHECK(b->result == ERR_HOST_RESOLVER_QUEUE_TOO_LARGE);
  CHECK(b2->result == ERR_HOST_RESOLVER_QUEUE_TOO_LARGE);
  CHECK(b->callbacks == 1);

  // A new job that is itself the lowest is refused synchronously and never calls back.
  auto e = env.Resolve("e.test", 80, IDLE);
  CHECK(e->start_result == ERR_HOST_RESOLVER_QUEUE_TOO_LARGE);
  CHECK(env.resolver->num_queued_jobs() == 2);
  CHECK(ErrorToMessage(e->start_result) == "too many pending host resolutions");

  env.scheduler.RunAll();
  CHECK(e->callbacks == 0);
  CHECK(CallOrder(*env.transport) == Strings{"a.test", "d.test", "c.test"});
  CHECK(a->result == ERR_NAME_NOT_RESOLVED);  // Unscripted: NXDOMAIN.
}

TEST_CASE("dispatcher: cancelling a request means its callback never runs") {
  SECTION("the last request of a running job, a job waiting: the lookup is cancelled") {
    // A slot is a bounded resource: a lookup of a dead name nobody wants must not hold it (as
    // Chrome's would, until the transport gives up).
    ResolverEnv env(Limits(1));
    env.transport->SetAddresses("a.test", {"10.0.0.1"}, 60s, ScriptedDnsTransport::kHang);
    env.transport->SetAddresses("b.test", {"10.0.0.2"}, 60s);
    auto a = env.Resolve("a.test");
    auto b = env.Resolve("b.test");
    CHECK(env.resolver->num_running_jobs() == 1);
    CHECK(env.resolver->num_queued_jobs() == 1);
    a->request.reset();
    CHECK(env.transport->cancelled() == 1);        // The lookup itself is cancelled.
    CHECK(env.resolver->num_running_jobs() == 1);  // b took the slot at once.
    CHECK(env.resolver->num_queued_jobs() == 0);
    CHECK(env.resolver->num_jobs() == 1);
    CHECK(env.transport->CallCount("b.test") == 1);
    env.scheduler.RunAll();
    CHECK(a->callbacks == 0);
    CHECK(b->result == OK);
    CHECK(env.resolver->num_jobs() == 0);
    // The job's NetLog events are closed: cancelled, DNS_TASK and JOB ended.
    CHECK(
        env.observer.Count(NetLogEventType::HOST_RESOLVER_MANAGER_DNS_TASK,
                           NetLogEventPhase::BEGIN) ==
        env.observer.Count(NetLogEventType::HOST_RESOLVER_MANAGER_DNS_TASK, NetLogEventPhase::END));
    CHECK(env.observer.Count(NetLogEventType::HOST_RESOLVER_MANAGER_JOB, NetLogEventPhase::END) ==
          2);
  }
  SECTION("the last request of a running job, no job waiting: it runs on and fills the cache") {
    ResolverEnv env;
    env.transport->SetAddresses("a.test", {"10.0.0.1"}, 60s);
    auto r = env.Resolve("a.test");
    int callbacks_before = r->callbacks;
    TestRequest* raw = r.get();
    raw->request.reset();
    env.scheduler.RunAll();
    CHECK(raw->callbacks == callbacks_before);
    CHECK(env.transport->cancelled() == 0);
    CHECK(env.Resolve("a.test")->start_result == OK);  // As Chrome.
    CHECK(env.transport->CallCount("a.test") == 1);
  }
  SECTION("an orphaned running job gives its slot to a job that arrives later") {
    ResolverEnv env(Limits(1));
    env.transport->SetAddresses("a.test", {"10.0.0.1"}, 60s, ScriptedDnsTransport::kHang);
    env.transport->SetAddresses("b.test", {"10.0.0.2"}, 60s);
    env.Resolve("a.test");  // Dropped at once: an orphan, still running.
    CHECK(env.resolver->num_running_jobs() == 1);
    CHECK(env.transport->cancelled() == 0);
    auto b = env.Resolve("b.test");
    CHECK(env.transport->cancelled() == 1);
    CHECK(env.resolver->num_running_jobs() == 1);
    CHECK(env.resolver->num_queued_jobs() == 0);
    env.scheduler.RunAll();
    CHECK(b->result == OK);
  }
  SECTION("an orphan a new request attaches to is wanted again") {
    ResolverEnv env(Limits(1));
    env.transport->SetAddresses("a.test", {"10.0.0.1"}, 60s, 100ms);
    env.Resolve("a.test");               // Orphaned.
    auto again = env.Resolve("a.test");  // Attaches to it.
    auto b = env.Resolve("b.test");      // Waits: a is wanted.
    CHECK(env.transport->cancelled() == 0);
    CHECK(env.resolver->num_queued_jobs() == 1);
    env.scheduler.RunAll();
    CHECK(again->result == OK);
    CHECK(env.transport->CallCount("a.test") == 1);
  }
  SECTION("a request leaving a running job others still wait for changes nothing") {
    ResolverEnv env(Limits(1));
    env.transport->SetAddresses("a.test", {"10.0.0.1"}, 60s);
    auto r1 = env.Resolve("a.test");
    auto r2 = env.Resolve("a.test");
    r1->request.reset();
    CHECK(env.transport->cancelled() == 0);
    CHECK(env.resolver->num_running_jobs() == 1);
    env.scheduler.RunAll();
    CHECK(r2->result == OK);
  }
  SECTION("the last request of a queued job: the job leaves the queue") {
    ResolverEnv env(Limits(1));
    auto a = env.Resolve("a.test");
    auto b = env.Resolve("b.test");
    CHECK(env.resolver->num_queued_jobs() == 1);
    b->request.reset();
    CHECK(env.resolver->num_queued_jobs() == 0);
    CHECK(env.resolver->num_jobs() == 1);
    env.scheduler.RunAll();
    CHECK(b->callbacks == 0);
    CHECK(env.transport->CallCount("b.test") == 0);
  }
  SECTION("one of two requests: the other still completes") {
    ResolverEnv env;
    env.transport->SetAddresses("a.test", {"10.0.0.1"}, 60s);
    auto r1 = env.Resolve("a.test");
    auto r2 = env.Resolve("a.test");
    r1->request.reset();
    env.scheduler.RunAll();
    CHECK(r1->callbacks == 0);
    CHECK(r2->result == OK);
  }
  SECTION("NetLog records the cancellation on the request") {
    ResolverEnv env;
    auto r = env.Resolve("a.test");
    uint32_t id = r->net_log.source().id;
    r->request.reset();
    auto events = env.observer.ForSource(id);
    REQUIRE(events.size() == 4);  // Begin, attach, cancelled, end.
    CHECK(events[2].type == NetLogEventType::CANCELLED);
    CHECK(events[3].type == NetLogEventType::HOST_RESOLVER_MANAGER_REQUEST);
    CHECK(events[3].phase == NetLogEventPhase::END);
    env.scheduler.RunAll();
  }
}

TEST_CASE("dispatcher: a job that never hears back ends at its deadline with ERR_DNS_TIMED_OUT") {
  // The transport may retry for hours (--dns-timeout 60000 --dns-tries 10) or lose the answer
  // (out of memory); the slot must come back regardless.
  HostResolverManager::Config config = Limits(1);
  TimeDelta deadline = 30s;  // The default.
  SECTION("default") {}
  SECTION("configured") {
    deadline = 2s;
    config.job_timeout = deadline;
  }
  SECTION("zero means the default, never no deadline") { config.job_timeout = TimeDelta::zero(); }
  ResolverEnv env(config);
  env.transport->SetAddresses("hang.test", {"10.0.0.1"}, 60s, ScriptedDnsTransport::kHang);
  env.transport->SetAddresses("next.test", {"10.0.0.2"}, 60s);
  auto hung = env.Resolve("hang.test");
  auto next = env.Resolve("next.test");
  env.scheduler.AdvanceBy(deadline - 1ms);
  CHECK_FALSE(hung->done());
  CHECK(env.transport->CallCount("next.test") == 0);
  env.scheduler.AdvanceBy(1ms);
  CHECK(hung->result == ERR_DNS_TIMED_OUT);
  CHECK(hung->callbacks == 1);
  CHECK(hung->request->error_detail() == "hang.test: no answer within the resolver's " +
                                             std::to_string(deadline.count() / 1000) +
                                             " ms job deadline");
  CHECK(env.transport->cancelled() == 1);             // The transport's lookup is cancelled.
  CHECK(env.transport->CallCount("next.test") == 1);  // The slot went to the queued job.
  env.scheduler.RunAll();
  CHECK(next->result == OK);
  CHECK(env.resolver->num_jobs() == 0);
  // A timeout is not an answer: nothing cached, the next request asks again.
  auto again = env.Resolve("hang.test");
  CHECK(again->start_result == ERR_IO_PENDING);
}

TEST_CASE("dispatcher: a refresh job has the deadline too") {
  HostResolverManager::Config config;
  config.allow_stale = true;
  ResolverEnv env(config);
  env.transport->SetAddresses("a.test", {"10.0.0.1"}, 1s);
  env.Resolve("a.test");
  env.scheduler.RunAll();
  env.scheduler.AdvanceBy(2s);  // Expired: served stale, refreshed in the background.
  env.transport->SetAddresses("a.test", {"10.0.0.1"}, 1s, ScriptedDnsTransport::kHang);
  auto stale = env.Resolve("a.test");
  CHECK(stale->request->served_stale());
  CHECK(env.resolver->num_running_jobs() == 1);  // The refresh, with no request.
  env.scheduler.AdvanceBy(30s);
  CHECK(env.resolver->num_jobs() == 0);
  CHECK(env.transport->cancelled() == 1);
}
