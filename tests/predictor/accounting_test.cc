// ActionAccounting: used / late / wasted for each action, recall, Finish, the policy's view.
#include <catch2/catch.hpp>
#include <vector>

#include "net/base/virtual_scheduler.h"
#include "predictor/action_accounting.h"
#include "tests/predictor/core_test_util.h"

using namespace netstack;
using namespace netstack::test;
using namespace std::chrono_literals;

namespace {

using Outcome = PredictorPolicy::Outcome;
using Assignment = ClientSocketPool::Observer::Assignment;

Assignment Assign(SocketSource source, double connect_wait_ms = 0) {
  Assignment a;
  a.source = source;
  a.connect_wait_ms = connect_wait_ms;
  return a;
}

struct AccountingEnv {
  AccountingEnv()
      : accounting(config, &stats, &policy, NetLogWithSource(),
                   [this](uint64_t id) { done.push_back(id); }) {}

  TimeTicks Now() const { return scheduler.Now(); }
  // Starts a preconnect whose pool starts `jobs` jobs.
  uint64_t Preconnect(const SchemeHostPort& group, int jobs, int sync_ok = 0) {
    Hint hint = MakeHint(SpeculativeAction::kPreconnect, group.host);
    hint.origin = group;
    hint.sockets = jobs;
    uint64_t id = accounting.OnActionStarted(hint, Now());
    for (int i = 0; i < jobs; ++i) accounting.OnPreconnectJobStarted(group, Now());
    for (int i = 0; i < sync_ok; ++i) accounting.OnPreconnectJobComplete(group, OK, Now());
    in_flight = accounting.EndPreconnect(id, OK, Now());
    return id;
  }
  uint64_t Start(SpeculativeAction action, const std::string& host) {
    return accounting.OnActionStarted(MakeHint(action, host), Now());
  }
  const SpeculationCounts& of(SpeculativeAction a) const { return stats.of(a); }

  VirtualScheduler scheduler{TimeTicks(1s)};
  PredictorConfig config;
  PredictorStats stats;
  FakePolicy policy;
  std::vector<uint64_t> done;
  bool in_flight = false;
  ActionAccounting accounting;
};

const auto kResolve = SpeculativeAction::kPreresolve;
const auto kConnect = SpeculativeAction::kPreconnect;
const auto kFetch = SpeculativeAction::kFetchAhead;

}  // namespace

TEST_CASE("accounting: preconnected sockets end used, late or wasted") {
  AccountingEnv env;
  const SchemeHostPort g = Origin("a.test");
  env.Preconnect(g, 4);
  CHECK(env.in_flight);
  CHECK(env.of(kConnect).taken == 4);
  CHECK(env.of(kConnect).pending == 4);

  // A request takes a job's socket as it connects: late.
  env.accounting.OnSocketAssigned(g, Assign(SocketSource::kPreconnectedLate, 30), env.Now());
  env.accounting.OnPreconnectJobComplete(g, OK, env.Now());
  // Two jobs leave idle sockets; one job fails.
  env.accounting.OnPreconnectJobComplete(g, OK, env.Now());
  env.accounting.OnPreconnectJobComplete(g, OK, env.Now());
  CHECK(env.done.empty());
  env.accounting.OnPreconnectJobComplete(g, ERR_CONNECTION_REFUSED, env.Now());
  CHECK(env.done.size() == 1);  // all 4 jobs done: the action leaves the budget
  // One idle socket is used, the other times out.
  env.accounting.OnSocketAssigned(g, Assign(SocketSource::kPreconnected), env.Now());
  env.accounting.OnPreconnectedSocketClosedUnused(g, "unused idle timeout", env.Now());

  const SpeculationCounts& c = env.of(kConnect);
  CHECK(c.used == 1);
  CHECK(c.late == 1);
  CHECK(c.wasted == 2);
  CHECK(c.pending == 0);
  CHECK(c.Precision() == Approx(0.5));
  CHECK(env.accounting.pending_actions() == 0);
  REQUIRE(env.policy.outcomes.size() == 4);
  CHECK(env.policy.outcomes[0].outcome == Outcome::kLate);
  CHECK(env.policy.outcomes[1].outcome == Outcome::kWasted);
  CHECK(env.policy.outcomes[2].outcome == Outcome::kUsed);
  CHECK(env.policy.outcomes[3].outcome == Outcome::kWasted);
  CHECK(env.stats.connections_needed == 2);
  CHECK(env.stats.connections_ready == 1);
  CHECK(env.stats.connections_late == 1);
  CHECK(env.stats.connect_wait_ms == Approx(30));
}

TEST_CASE("accounting: preconnect outcomes go to the oldest action of the group first") {
  AccountingEnv env;
  const SchemeHostPort g = Origin("a.test");
  Hint first = MakeHint(kConnect, "a.test");
  first.motivation = HintMotivation::kMouseOver;
  first.sockets = 1;
  uint64_t id1 = env.accounting.OnActionStarted(first, env.Now());
  env.accounting.OnPreconnectJobStarted(g, env.Now());
  REQUIRE(env.accounting.EndPreconnect(id1, OK, env.Now()));
  env.Preconnect(g, 1);  // learned-referral
  env.Preconnect(Origin("b.test"), 1);
  env.accounting.OnPreconnectJobComplete(g, OK, env.Now());
  CHECK(env.done == std::vector<uint64_t>{id1});
  env.accounting.OnSocketAssigned(g, Assign(SocketSource::kPreconnected), env.Now());
  REQUIRE(env.policy.outcomes.size() == 1);
  CHECK(env.policy.outcomes[0].motivation == HintMotivation::kMouseOver);
  CHECK(env.accounting.SpeculativeFor(g)["preconnected"] == 2);
  CHECK(env.accounting.SpeculativeFor(g)["outcome"] == "used");
  CHECK(env.accounting.SpeculativeFor(Origin("c.test"))["outcome"].is_null());
}

TEST_CASE("accounting: a failed preconnect job is charged to the action that owns the job") {
  AccountingEnv env;
  const SchemeHostPort g = Origin("a.test");
  Hint first = MakeHint(kConnect, "a.test");
  first.motivation = HintMotivation::kMouseOver;
  uint64_t id1 = env.accounting.OnActionStarted(first, env.Now());
  env.accounting.OnPreconnectJobStarted(g, env.Now());
  REQUIRE(env.accounting.EndPreconnect(id1, OK, env.Now()));
  env.accounting.OnPreconnectJobComplete(g, OK, env.Now());  // idle, undecided
  env.Preconnect(g, 1);                                      // learned-referral, one more job
  env.accounting.OnPreconnectJobComplete(g, ERR_CONNECTION_REFUSED, env.Now());
  REQUIRE(env.policy.outcomes.size() == 1);
  CHECK(env.policy.outcomes[0].motivation == HintMotivation::kLearnedReferral);
  CHECK(env.policy.outcomes[0].outcome == Outcome::kWasted);
  nlohmann::json recent = env.accounting.RecentToJson();
  REQUIRE(recent.size() == 2);
  CHECK(recent[0]["outcome"] == "pending");  // the mouse-over's socket still waits idle
  CHECK(recent[1]["outcome"] == "wasted");
  // The first action's socket can still be used.
  env.accounting.OnSocketAssigned(g, Assign(SocketSource::kPreconnected), env.Now());
  REQUIRE(env.policy.outcomes.size() == 2);
  CHECK(env.policy.outcomes[1].motivation == HintMotivation::kMouseOver);
  CHECK(env.policy.outcomes[1].outcome == Outcome::kUsed);
  CHECK(env.accounting.pending_actions() == 0);
}

TEST_CASE("accounting: speculative requests are not a page's need") {
  AccountingEnv env;
  const SchemeHostPort g = Origin("a.test");
  env.accounting.OnNavigation(U("https://p.test/"), env.Now());
  env.Start(kResolve, "a.test");
  env.Preconnect(g, 1);
  env.accounting.OnPreconnectJobComplete(g, OK, env.Now());
  Assignment own = Assign(SocketSource::kNew);
  own.speculative = true;
  env.accounting.OnSocketAssigned(g, own, env.Now());
  Assignment preconnected = Assign(SocketSource::kPreconnected);
  preconnected.speculative = true;
  env.accounting.OnSocketAssigned(g, preconnected, env.Now());
  CHECK(env.stats.connections_needed == 0);
  CHECK(env.stats.connections_ready == 0);
  CHECK(env.policy.connections.empty());
  CHECK(env.of(kResolve).used == 0);
  CHECK(env.of(kResolve).pending == 1);
  CHECK(env.of(kConnect).used == 0);
  CHECK(env.of(kConnect).wasted == 1);  // its socket served no page
}

TEST_CASE("accounting: a preconnect whose jobs all completed synchronously is not in flight") {
  AccountingEnv env;
  env.Preconnect(Origin("a.test"), 2, /*sync_ok=*/2);
  CHECK_FALSE(env.in_flight);
  CHECK(env.done.empty());
  env.Preconnect(Origin("b.test"), 0);  // the pool started nothing
  CHECK_FALSE(env.in_flight);
  CHECK(env.of(kConnect).taken == 2);
  CHECK(env.accounting.RecentToJson().back()["outcome"] == "none");
}

TEST_CASE("accounting: a pre-resolve is used, late, or wasted after its lifetime") {
  AccountingEnv env;
  const SchemeHostPort a = Origin("a.test"), b = Origin("b.test"), c = Origin("c.test");
  uint64_t ra = env.Start(kResolve, "a.test");
  uint64_t rb = env.Start(kResolve, "b.test");
  env.Start(kResolve, "c.test");
  env.accounting.OnResolveDone(ra, OK, env.Now());
  env.scheduler.AdvanceBy(1s);
  // a: resolved before the connection: used. b: still resolving: late.
  env.accounting.OnSocketAssigned(a, Assign(SocketSource::kNew, 100), env.Now());
  env.accounting.OnSocketAssigned(b, Assign(SocketSource::kNew, 40), env.Now());
  env.accounting.OnResolveDone(rb, OK, env.Now());
  CHECK(env.of(kResolve).used == 1);
  CHECK(env.of(kResolve).late == 1);
  CHECK(env.of(kResolve).pending == 1);
  // c's connection came from a preconnect: that one resolved by itself, c's resolve is unused.
  env.accounting.OnSocketAssigned(c, Assign(SocketSource::kPreconnected), env.Now());
  CHECK(env.of(kResolve).pending == 1);
  // The lifetime (60 s from the start) passes: wasted at the next event.
  env.scheduler.AdvanceBy(59s);
  env.accounting.OnNavigation(U("https://x.test/"), env.Now());
  CHECK(env.of(kResolve).wasted == 1);
  CHECK(env.of(kResolve).pending == 0);
  CHECK(env.stats.connect_wait_ms == Approx(140));
}

TEST_CASE("accounting: a failed pre-resolve is wasted, reused sockets need no connection") {
  AccountingEnv env;
  uint64_t r = env.Start(kResolve, "a.test");
  env.accounting.OnResolveDone(r, ERR_NAME_NOT_RESOLVED, env.Now());
  CHECK(env.of(kResolve).wasted == 1);
  env.accounting.OnSocketAssigned(Origin("a.test"), Assign(SocketSource::kReused), env.Now());
  CHECK(env.stats.connections_needed == 0);
  CHECK(env.accounting.pending_actions() == 0);
}

TEST_CASE("accounting: a fetch ahead is used, late, or wasted") {
  AccountingEnv env;
  const Url page = U("https://p.test/");
  uint64_t fa = env.Start(kFetch, "a.test");
  uint64_t fb = env.Start(kFetch, "b.test");
  uint64_t fc = env.Start(kFetch, "c.test");
  env.Start(kFetch, "d.test");
  env.accounting.OnFetchDone(fa, OK, env.Now());
  env.accounting.OnFetchDone(fc, ERR_CONNECTION_RESET, env.Now());
  env.accounting.OnResourceRequested(page, U("https://a.test/r"), env.Now());
  env.accounting.OnResourceRequested(page, U("https://b.test/r"), env.Now());
  env.accounting.OnResourceRequested(page, U("https://b.test/other"), env.Now());
  env.accounting.OnFetchDone(fb, OK, env.Now());
  // Requested, but nothing is decided before the requests' answers.
  CHECK(env.of(kFetch).pending == 3);
  // Both served from what the fetches stored; b's request came while its fetch ran: late.
  env.accounting.OnResourceServed(page, U("https://a.test/r"), CacheDisposition::kHit,
                                  SocketSource::kNone, env.Now());
  env.accounting.OnResourceServed(page, U("https://b.test/other"), CacheDisposition::kMiss,
                                  SocketSource::kNew, env.Now());
  env.accounting.OnResourceServed(page, U("https://b.test/r"), CacheDisposition::kRevalidated,
                                  SocketSource::kReused, env.Now());
  CHECK(env.of(kFetch).used == 1);
  CHECK(env.of(kFetch).late == 1);
  CHECK(env.of(kFetch).wasted == 1);
  CHECK(env.of(kFetch).pending == 1);
  // A second fetch of d is redundant while the first has not expired.
  Hint again = MakeHint(kFetch, "d.test");
  CHECK(env.accounting.IsRedundant(again, env.Now()));
  env.scheduler.AdvanceBy(300s);
  env.accounting.ExpireLifetimes(env.Now());
  CHECK(env.of(kFetch).wasted == 2);
  CHECK_FALSE(env.accounting.IsRedundant(again, env.Now()));
}

TEST_CASE("accounting: a pre-resolve of a host being resolved is redundant") {
  AccountingEnv env;
  uint64_t r = env.Start(kResolve, "a.test");
  CHECK(env.accounting.IsRedundant(MakeHint(kResolve, "a.test"), env.Now()));
  CHECK_FALSE(env.accounting.IsRedundant(MakeHint(kResolve, "b.test"), env.Now()));
  env.accounting.OnResolveDone(r, OK, env.Now());
  CHECK_FALSE(env.accounting.IsRedundant(MakeHint(kResolve, "a.test"), env.Now()));
}

TEST_CASE("accounting: recall counts every new connection, with or without a policy") {
  PredictorConfig config;
  PredictorStats stats;
  ActionAccounting accounting(config, &stats, nullptr, NetLogWithSource(), nullptr);
  const SchemeHostPort g = Origin("a.test");
  const TimeTicks now{};
  accounting.OnSocketAssigned(g, Assign(SocketSource::kNew, 120), now);
  accounting.OnSocketAssigned(g, Assign(SocketSource::kPreconnectedLate, 50), now);
  accounting.OnSocketAssigned(g, Assign(SocketSource::kPreconnected), now);
  accounting.OnSocketAssigned(g, Assign(SocketSource::kUnusedIdle), now);
  accounting.OnSocketAssigned(g, Assign(SocketSource::kReused), now);
  CHECK(stats.connections_needed == 4);
  CHECK(stats.connections_ready == 1);
  CHECK(stats.connections_late == 1);
  CHECK(stats.connect_wait_ms == Approx(170));
  CHECK(stats.Recall() == Approx(0.25));
}

TEST_CASE("accounting: connections are reported for the newest page still loading") {
  AccountingEnv env;
  const Url p1 = U("https://one.test/"), p2 = U("https://two.test/");
  const SchemeHostPort g = Origin("cdn.test");
  env.accounting.OnSocketAssigned(g, Assign(SocketSource::kNew), env.Now());
  CHECK(env.policy.connections.empty());  // no page yet: counted, not reported
  CHECK(env.stats.connections_needed == 1);
  env.accounting.OnNavigation(p1, env.Now());
  env.accounting.OnNavigation(p2, env.Now());
  env.accounting.OnSocketAssigned(g, Assign(SocketSource::kPreconnected), env.Now());
  env.accounting.OnNavigationComplete(p2, env.Now());
  env.accounting.OnSocketAssigned(g, Assign(SocketSource::kPreconnectedLate, 10), env.Now());
  env.accounting.OnNavigationComplete(p1, env.Now());
  env.accounting.OnSocketAssigned(g, Assign(SocketSource::kNew, 20), env.Now());
  REQUIRE(env.policy.connections.size() == 3);
  CHECK(env.policy.connections[0].page == p2.spec());
  CHECK(env.policy.connections[0].source == SocketSource::kPreconnected);
  CHECK(env.policy.connections[1].page == p1.spec());
  CHECK(env.policy.connections[1].source == SocketSource::kPreconnectedLate);
  CHECK(env.policy.connections[2].page == p2.spec());  // none loading: the last one
  CHECK(env.policy.connections[2].source == SocketSource::kNew);
  CHECK(env.policy.connections[2].connect_wait_ms == 20);
}

TEST_CASE("accounting: Finish makes every pending action wasted and ignores what follows") {
  AccountingEnv env;
  const SchemeHostPort g = Origin("a.test");
  env.Preconnect(g, 2);
  env.Start(kResolve, "b.test");
  env.Start(kFetch, "c.test");
  env.accounting.Finish(env.Now());
  CHECK(env.stats.Total().wasted == 4);
  CHECK(env.stats.Total().pending == 0);
  CHECK(env.accounting.pending_actions() == 0);
  env.accounting.OnSocketAssigned(g, Assign(SocketSource::kPreconnected), env.Now());
  CHECK(env.stats.connections_needed == 0);
  CHECK(env.stats.Total().used == 0);
}

TEST_CASE("accounting: the recent ring keeps the last 100 actions, the origins 1000") {
  AccountingEnv env;
  for (int i = 0; i < 1500; ++i) {
    uint64_t id = env.Start(kResolve, "h" + std::to_string(i) + ".test");
    env.accounting.OnResolveDone(id, OK, env.Now());
    env.accounting.OnSocketAssigned(Origin("h" + std::to_string(i) + ".test"),
                                    Assign(SocketSource::kNew), env.Now());
  }
  nlohmann::json recent = env.accounting.RecentToJson();
  REQUIRE(recent.size() == ActionAccounting::kRecentActions);
  CHECK(recent.back()["origin"] == "https://h1499.test:443");
  CHECK(recent.back()["outcome"] == "used");
  CHECK(recent.back()["action"] == "preresolve");
  CHECK(env.accounting.SpeculativeFor(Origin("h1499.test"))["preresolved"] == true);
  CHECK(env.accounting.SpeculativeFor(Origin("h0.test"))["preresolved"] == false);  // evicted
  CHECK(env.accounting.SpeculativeFor(Origin("h500.test"))["preresolved"] == true);
}

TEST_CASE("accounting: pending actions are bounded") {
  AccountingEnv env;
  for (size_t i = 0; i < ActionAccounting::kMaxPendingActions + 10; ++i)
    env.Start(kFetch, "f" + std::to_string(i) + ".test");
  CHECK(env.accounting.pending_actions() == ActionAccounting::kMaxPendingActions);
  CHECK(env.of(kFetch).wasted == 10);
}
