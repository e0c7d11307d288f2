// SpeculativeQueue: order, expiry, budget, the pre-resolve limit, the bound, drops.
#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "net/base/virtual_scheduler.h"
#include "predictor/speculative_queue.h"
#include "tests/predictor/core_test_util.h"

using namespace netstack;
using namespace netstack::test;
using namespace std::chrono_literals;

namespace {

class RecordingDelegate : public SpeculativeQueue::Delegate {
 public:
  bool IsRedundant(const Hint& hint, TimeTicks now) override {
    return redundant && redundant(hint);
  }
  bool StartAction(const Hint& hint) override {
    started.push_back(hint);
    return stays_in_flight;
  }
  void OnHintDropped(const Hint& hint, HintDropReason reason) override {
    dropped.emplace_back(hint, reason);
  }

  std::vector<Hint> started;
  std::vector<std::pair<Hint, HintDropReason>> dropped;
  bool stays_in_flight = true;
  std::function<bool(const Hint&)> redundant;
};

struct QueueEnv {
  QueueEnv() = default;
  SpeculativeQueue& Make() {
    queue =
        std::make_unique<SpeculativeQueue>(config, scheduler, &target, &policy, &stats, &delegate);
    return *queue;
  }
  std::vector<std::string> StartedHosts() const {
    std::vector<std::string> out;
    for (const Hint& h : delegate.started) out.push_back(h.origin.host);
    return out;
  }

  VirtualScheduler scheduler{TimeTicks(1s)};
  PredictorConfig config;
  ScriptedTarget target;
  FakePolicy policy;
  PredictorStats stats;
  RecordingDelegate delegate;
  std::unique_ptr<SpeculativeQueue> queue;
};

const auto kResolve = SpeculativeAction::kPreresolve;
const auto kConnect = SpeculativeAction::kPreconnect;
const auto kFetch = SpeculativeAction::kFetchAhead;

}  // namespace

TEST_CASE("queue: hints start by priority, then likelihood, then first come first served") {
  QueueEnv env;
  env.policy.budget = 0;  // hold everything
  SpeculativeQueue& q = env.Make();
  q.Add(MakeHint(kConnect, "low.test", 1, 0.9));
  q.Add(MakeHint(kConnect, "first.test", 5, 0.5));
  q.Add(MakeHint(kConnect, "likely.test", 5, 0.8));
  q.Add(MakeHint(kConnect, "second.test", 5, 0.5));
  q.Add(MakeHint(kConnect, "top.test", 9, 0.1));
  CHECK(env.delegate.started.empty());
  std::vector<std::string> queued;
  for (const Hint& h : q.QueuedHints()) queued.push_back(h.origin.host);
  CHECK(queued == std::vector<std::string>{"top.test", "likely.test", "first.test", "second.test",
                                           "low.test"});
  env.policy.budget = 8;
  q.Pump();
  CHECK(env.StartedHosts() == queued);
  CHECK(env.stats.hints == 5);
  CHECK(env.stats.hints_started == 5);
  CHECK(q.in_flight() == 5);
}

TEST_CASE("queue: a hint that can start starts inside Add") {
  QueueEnv env;
  SpeculativeQueue& q = env.Make();
  q.Add(MakeHint(kConnect, "a.test"));
  REQUIRE(env.delegate.started.size() == 1);
  CHECK(q.size() == 0);
}

TEST_CASE("queue: expired hints are dropped at the next pump and counted") {
  QueueEnv env;
  env.policy.budget = 0;
  SpeculativeQueue& q = env.Make();
  Hint soon = MakeHint(kConnect, "soon.test");
  soon.expires = env.scheduler.Now() + 100ms;
  Hint later = MakeHint(kConnect, "later.test");
  later.expires = env.scheduler.Now() + 1s;
  Hint never = MakeHint(kConnect, "never.test");  // expires unset: no expiry
  q.Add(soon);
  q.Add(later);
  q.Add(never);
  env.scheduler.AdvanceBy(100ms);  // exactly at soon's expiry: dropped
  env.policy.budget = 8;
  q.Pump();
  CHECK(env.stats.hints_expired == 1);
  REQUIRE(env.delegate.dropped.size() == 1);
  CHECK(env.delegate.dropped[0].first.origin.host == "soon.test");
  CHECK(env.delegate.dropped[0].second == HintDropReason::kExpired);
  CHECK(env.StartedHosts() == std::vector<std::string>{"later.test", "never.test"});

  // A hint already expired when it comes never starts.
  Hint stale = MakeHint(kConnect, "stale.test");
  stale.expires = env.scheduler.Now();
  q.Add(stale);
  CHECK(env.stats.hints_expired == 2);
  CHECK(env.delegate.started.size() == 2);
}

TEST_CASE("queue: the budget bounds actions in flight, a freed slot pumps in a posted task") {
  QueueEnv env;
  env.policy.budget = 2;
  SpeculativeQueue& q = env.Make();
  for (const char* host : {"a.test", "b.test", "c.test", "d.test"}) q.Add(MakeHint(kConnect, host));
  CHECK(env.StartedHosts() == std::vector<std::string>{"a.test", "b.test"});
  CHECK(q.in_flight() == 2);
  CHECK(q.size() == 2);

  q.OnActionDone(kConnect);
  CHECK(env.delegate.started.size() == 2);  // not inside the call (it may be a pool's)
  env.scheduler.RunUntilIdle();
  CHECK(env.StartedHosts() == std::vector<std::string>{"a.test", "b.test", "c.test"});

  // The config's cap wins over a larger policy budget.
  env.policy.budget = 50;
  env.config.max_in_flight = 3;
  q.Pump();
  CHECK(q.in_flight() == 3);
  CHECK(q.size() == 0);
}

TEST_CASE("queue: an action that ends at once does not hold a slot") {
  QueueEnv env;
  env.policy.budget = 1;
  env.delegate.stays_in_flight = false;
  SpeculativeQueue& q = env.Make();
  q.Add(MakeHint(kConnect, "a.test"));
  q.Add(MakeHint(kConnect, "b.test"));
  CHECK(env.delegate.started.size() == 2);
  CHECK(q.in_flight() == 0);
}

TEST_CASE("queue: at most 3 pre-resolves in flight, other kinds pass them") {
  QueueEnv env;
  SpeculativeQueue& q = env.Make();
  for (const char* host : {"r1.test", "r2.test", "r3.test", "r4.test", "r5.test"})
    q.Add(MakeHint(kResolve, host, 5));
  q.Add(MakeHint(kConnect, "c.test", 1));
  CHECK(env.StartedHosts() == std::vector<std::string>{"r1.test", "r2.test", "r3.test", "c.test"});
  CHECK(q.resolves_in_flight() == 3);
  CHECK(q.size() == 2);

  q.OnActionDone(kResolve);
  env.scheduler.RunUntilIdle();
  CHECK(env.delegate.started.back().origin.host == "r4.test");
  CHECK(q.resolves_in_flight() == 3);
  q.OnActionDone(kConnect);  // frees a slot but not a resolve slot
  env.scheduler.RunUntilIdle();
  CHECK(env.delegate.started.size() == 5);
}

TEST_CASE("queue: one hint over the bound drops the lowest-ranked, counted as queue full") {
  QueueEnv env;
  env.config.max_queued_hints = 3;
  env.policy.budget = 0;
  SpeculativeQueue& q = env.Make();
  q.Add(MakeHint(kConnect, "p5.test", 5));
  q.Add(MakeHint(kConnect, "p1.test", 1));
  q.Add(MakeHint(kConnect, "p3.test", 3));
  q.Add(MakeHint(kConnect, "p4.test", 4));  // p1 goes
  CHECK(q.size() == 3);
  CHECK(env.stats.hints_queue_full == 1);
  REQUIRE(env.delegate.dropped.size() == 1);
  CHECK(env.delegate.dropped[0].first.origin.host == "p1.test");
  CHECK(env.delegate.dropped[0].second == HintDropReason::kQueueFull);
  q.Add(MakeHint(kConnect, "p0.test", 0));  // the newcomer is the lowest: it goes itself
  CHECK(env.stats.hints_queue_full == 2);
  CHECK(env.delegate.dropped[1].first.origin.host == "p0.test");
  CHECK(q.size() == 3);
}

TEST_CASE("queue: redundant hints are dropped and counted") {
  QueueEnv env;
  env.target.resolved_hosts.insert("cached.test");
  env.target.socket_counts[Origin("full.test")] = 2;
  env.delegate.redundant = [](const Hint& h) { return h.origin.host == "dup.test"; };
  SpeculativeQueue& q = env.Make();

  q.Add(MakeHint(kResolve, "cached.test"));  // host cache has it
  Hint two = MakeHint(kConnect, "full.test");
  two.sockets = 2;  // the group has 2 already
  q.Add(two);
  Hint three = two;
  three.sockets = 3;  // one more is worth it
  q.Add(three);
  q.Add(MakeHint(kFetch, "dup.test"));  // the delegate knows
  env.target.can_fetch_ahead = false;
  q.Add(MakeHint(kFetch, "nocache.test"));  // no HTTP cache: nothing to do
  CHECK(env.stats.hints_redundant == 4);
  REQUIRE(env.delegate.started.size() == 1);
  CHECK(env.delegate.started[0].sockets == 3);
  for (const auto& [hint, reason] : env.delegate.dropped)
    CHECK(reason == HintDropReason::kRedundant);
}

TEST_CASE("queue: the policy's ShouldStart drops low-value hints") {
  QueueEnv env;
  env.policy.should_start = [](const Hint& h) { return h.likelihood >= 0.5; };
  SpeculativeQueue& q = env.Make();
  q.Add(MakeHint(kConnect, "weak.test", 0, 0.2));
  q.Add(MakeHint(kConnect, "strong.test", 0, 0.7));
  CHECK(env.stats.hints_low_value == 1);
  CHECK(env.StartedHosts() == std::vector<std::string>{"strong.test"});
}

TEST_CASE("queue: DropAll drops every queued hint, a destroyed queue's pump does nothing") {
  QueueEnv env;
  env.policy.budget = 1;
  SpeculativeQueue& q = env.Make();
  q.Add(MakeHint(kConnect, "a.test"));
  q.Add(MakeHint(kConnect, "b.test"));
  q.Add(MakeHint(kConnect, "c.test"));
  q.DropAll(HintDropReason::kExpired);
  CHECK(env.stats.hints_expired == 2);
  CHECK(q.size() == 0);

  q.Add(MakeHint(kConnect, "d.test"));
  q.OnActionDone(kConnect);  // posts a pump
  env.queue.reset();
  env.scheduler.RunUntilIdle();  // harmless
  CHECK(env.delegate.started.size() == 1);
}
