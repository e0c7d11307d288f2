// ActionAccounting's issue-21 rules: a fetch ahead is used only when the page was served from
// what it stored (else wasted, and warmed when it only warmed a connection); a background
// request's use of a preconnect or pre-resolve is counted apart and stays out of recall.
#include <catch2/catch.hpp>
#include <vector>

#include "net/base/virtual_scheduler.h"
#include "predictor/action_accounting.h"
#include "tests/predictor/core_test_util.h"

using namespace netstack;
using namespace netstack::test;
using namespace std::chrono_literals;

namespace {

using Assignment = ClientSocketPool::Observer::Assignment;

const auto kResolve = SpeculativeAction::kPreresolve;
const auto kConnect = SpeculativeAction::kPreconnect;
const auto kFetch = SpeculativeAction::kFetchAhead;

Assignment Assign(SocketSource source, bool background = false, bool speculative = false) {
  Assignment a;
  a.source = source;
  a.background = background;
  a.speculative = speculative;
  return a;
}

struct Env {
  Env() : accounting(config, &stats, &policy, NetLogWithSource(), nullptr) {
    accounting.OnNavigation(page, Now());
  }
  TimeTicks Now() const { return scheduler.Now(); }
  // A fetch ahead of https://`host`/r that took a new connection of its own and completed.
  uint64_t CompletedFetch(const std::string& host) {
    uint64_t id = accounting.OnActionStarted(MakeHint(kFetch, host), Now());
    accounting.OnSocketAssigned(Origin(host), Assign(SocketSource::kNew, true, true), Now());
    accounting.OnFetchDone(id, OK, Now());
    return id;
  }
  // A preconnect of one socket to `host` that connected: an idle preconnected socket.
  void PreconnectedSocket(const std::string& host) {
    Hint hint = MakeHint(kConnect, host);
    hint.sockets = 1;
    uint64_t id = accounting.OnActionStarted(hint, Now());
    accounting.OnPreconnectJobStarted(Origin(host), Now());
    accounting.OnPreconnectJobComplete(Origin(host), OK, Now());
    accounting.EndPreconnect(id, OK, Now());
  }
  // The page's request for `url`, announced then answered.
  void PageRequest(const Url& url, CacheDisposition cache, SocketSource connection) {
    accounting.OnResourceRequested(page, url, Now());
    accounting.OnResourceServed(page, url, cache, connection, Now());
  }
  const SpeculationCounts& of(SpeculativeAction a) const { return stats.of(a); }

  VirtualScheduler scheduler{TimeTicks(1s)};
  PredictorConfig config;
  PredictorStats stats;
  FakePolicy policy;
  const Url page = U("https://p.test/");
  ActionAccounting accounting;
};

}  // namespace

TEST_CASE("accounting: a fetch ahead that only warmed a connection is wasted and warmed") {
  Env env;
  env.CompletedFetch("a.test");
  // The document is no-cache: the navigation went to the network, on the fetch's connection.
  env.PageRequest(U("https://a.test/r"), CacheDisposition::kMiss, SocketSource::kReused);
  const SpeculationCounts& fa = env.of(kFetch);
  CHECK(fa.taken == 1);
  CHECK(fa.used == 0);
  CHECK(fa.late == 0);
  CHECK(fa.wasted == 1);
  CHECK(fa.warmed == 1);
  CHECK(fa.pending == 0);
  CHECK(fa.Precision() == 0);
  // The reuse is no new connection: not a need, not in recall.
  CHECK(env.stats.connections_needed == 0);
  CHECK(env.policy.outcomes.back().outcome == PredictorPolicy::Outcome::kWasted);
  CHECK(env.stats.ToJson()["fetch_ahead"]["warmed"] == 1);
}

TEST_CASE("accounting: a fetch ahead not served from is not warmed without its connection") {
  Env env;
  // Its connection was not reused (the page's request needed a new one): merely wasted.
  env.CompletedFetch("a.test");
  env.PageRequest(U("https://a.test/r"), CacheDisposition::kMiss, SocketSource::kNew);
  CHECK(env.of(kFetch).wasted == 1);
  CHECK(env.of(kFetch).warmed == 0);
  // A fetch that rode an existing connection opened none: a reuse does not make it warmed.
  uint64_t id = env.accounting.OnActionStarted(MakeHint(kFetch, "b.test"), env.Now());
  env.accounting.OnFetchDone(id, OK, env.Now());
  env.PageRequest(U("https://b.test/r"), CacheDisposition::kMiss, SocketSource::kHttp2Session);
  CHECK(env.of(kFetch).wasted == 2);
  CHECK(env.of(kFetch).warmed == 0);
}

TEST_CASE("accounting: an unclaimed fetch ahead whose connection a page used expires warmed") {
  Env env;
  env.CompletedFetch("a.test");
  // Another URL of the origin rides the fetch's connection (an h2 session here).
  env.PageRequest(U("https://a.test/other.css"), CacheDisposition::kMiss,
                  SocketSource::kHttp2Session);
  CHECK(env.of(kFetch).pending == 1);
  env.scheduler.AdvanceBy(env.config.fetch_ahead_lifetime);
  env.accounting.ExpireLifetimes(env.Now());
  CHECK(env.of(kFetch).wasted == 1);
  CHECK(env.of(kFetch).warmed == 1);
}

TEST_CASE("accounting: a fetch ahead served from the cache is used, late while it ran") {
  Env env;
  env.CompletedFetch("a.test");
  env.PageRequest(U("https://a.test/r"), CacheDisposition::kHit, SocketSource::kNone);
  CHECK(env.of(kFetch).used == 1);
  CHECK(env.of(kFetch).warmed == 0);
  // A revalidation of the stored entry is served from it as well.
  env.CompletedFetch("b.test");
  env.PageRequest(U("https://b.test/r"), CacheDisposition::kRevalidated, SocketSource::kReused);
  CHECK(env.of(kFetch).used == 2);
  // Requested while the fetch still ran, then served from its entry: late.
  uint64_t c = env.accounting.OnActionStarted(MakeHint(kFetch, "c.test"), env.Now());
  env.accounting.OnResourceRequested(env.page, U("https://c.test/r"), env.Now());
  env.accounting.OnFetchDone(c, OK, env.Now());
  env.accounting.OnResourceServed(env.page, U("https://c.test/r"), CacheDisposition::kHit,
                                  SocketSource::kNone, env.Now());
  CHECK(env.of(kFetch).late == 1);
  CHECK(env.of(kFetch).wasted == 0);
  CHECK(env.of(kFetch).Precision() == Approx(1.0));
  // A claimed fetch waits for its answer past its lifetime; Finish wastes it if none comes.
  env.CompletedFetch("d.test");
  env.accounting.OnResourceRequested(env.page, U("https://d.test/r"), env.Now());
  env.scheduler.AdvanceBy(env.config.fetch_ahead_lifetime + 1s);
  env.accounting.ExpireLifetimes(env.Now());
  CHECK(env.of(kFetch).pending == 1);
  env.accounting.Finish(env.Now());
  CHECK(env.of(kFetch).wasted == 1);
}

TEST_CASE("accounting: a background request on a preconnected socket is used_background") {
  Env env;
  env.PreconnectedSocket("a.test");
  // A beacon (IDLE priority) takes the socket.
  env.accounting.OnSocketAssigned(Origin("a.test"), Assign(SocketSource::kPreconnected, true),
                                  env.Now());
  const SpeculationCounts& pc = env.of(kConnect);
  CHECK(pc.taken == 1);
  CHECK(pc.used == 0);
  CHECK(pc.late == 0);
  CHECK(pc.used_background == 1);
  CHECK(pc.pending == 0);
  CHECK(pc.Precision() == 0);
  // Not in recall: no critical need at all.
  CHECK(env.stats.connections_needed == 0);
  CHECK(env.stats.connections_ready == 0);
  CHECK(env.stats.connections_needed_background == 1);
  CHECK(env.stats.connections_ready_background == 1);
  CHECK(env.stats.Recall() == 0);
  // The policy still hears of the need, marked background.
  REQUIRE(env.policy.connections.size() == 1);
  CHECK(env.policy.connections[0].background);
  const nlohmann::json j = env.stats.ToJson();
  CHECK(j["preconnect"]["used_background"] == 1);
  CHECK(j["preconnect"]["used"] == 0);
  CHECK(j["connections"]["needed_background"] == 1);
  CHECK(j["connections"]["ready_background"] == 1);
  CHECK(j["precision"] == 0.0);
}

TEST_CASE("accounting: a critical request on a preconnected socket is used and in recall") {
  Env env;
  env.PreconnectedSocket("a.test");
  env.accounting.OnSocketAssigned(Origin("a.test"), Assign(SocketSource::kPreconnected), env.Now());
  CHECK(env.of(kConnect).used == 1);
  CHECK(env.of(kConnect).used_background == 0);
  CHECK(env.stats.connections_needed == 1);
  CHECK(env.stats.connections_ready == 1);
  CHECK(env.stats.connections_needed_background == 0);
  CHECK(env.stats.Recall() == Approx(1.0));
  REQUIRE(env.policy.connections.size() == 1);
  CHECK_FALSE(env.policy.connections[0].background);
}

TEST_CASE("accounting: background and critical uses split late preconnects and pre-resolves") {
  Env env;
  // A preconnect still connecting, taken by a background revalidation: late_background.
  Hint hint = MakeHint(kConnect, "a.test");
  hint.sockets = 1;
  uint64_t id = env.accounting.OnActionStarted(hint, env.Now());
  env.accounting.OnPreconnectJobStarted(Origin("a.test"), env.Now());
  env.accounting.EndPreconnect(id, OK, env.Now());
  env.accounting.OnSocketAssigned(Origin("a.test"), Assign(SocketSource::kPreconnectedLate, true),
                                  env.Now());
  CHECK(env.of(kConnect).late_background == 1);
  CHECK(env.of(kConnect).late == 0);
  CHECK(env.stats.connections_late_background == 1);
  CHECK(env.stats.connections_late == 0);
  // Pre-resolves: one used by a background request's new connection, one by a critical one.
  uint64_t r1 = env.accounting.OnActionStarted(MakeHint(kResolve, "b.test"), env.Now());
  uint64_t r2 = env.accounting.OnActionStarted(MakeHint(kResolve, "c.test"), env.Now());
  env.accounting.OnResolveDone(r1, OK, env.Now());
  env.accounting.OnResolveDone(r2, OK, env.Now());
  env.accounting.OnSocketAssigned(Origin("b.test"), Assign(SocketSource::kNew, true), env.Now());
  env.accounting.OnSocketAssigned(Origin("c.test"), Assign(SocketSource::kNew), env.Now());
  const SpeculationCounts& pr = env.of(kResolve);
  CHECK(pr.used_background == 1);
  CHECK(pr.used == 1);
  CHECK(pr.pending == 0);
  // Precision over preconnect and pre-resolve together counts the critical use only: 1 of 3.
  CHECK(env.stats.ConnectionTotal().taken == 3);
  CHECK(env.stats.ToJson()["precision"] == Approx(1.0 / 3));
  CHECK(env.stats.connections_needed == 1);
  CHECK(env.stats.connections_needed_background == 2);
}
