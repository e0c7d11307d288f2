// ContextSpeculationTarget and the Predictor over a real UrlRequestContext on the simulated
// network (the worked example: DNS 50 ms, RTT 80 ms, TLS 1.2; an HTTP cache where a test asks).
#include <catch2/catch.hpp>
#include <memory>

#include "net/base/load_timing_phases.h"
#include "predictor/context_speculation_target.h"
#include "predictor/predictor.h"
#include "tests/predictor/core_test_util.h"
#include "tests/predictor/sim_predictor_env.h"

using namespace netstack;
using namespace netstack::test;
using namespace std::chrono_literals;

namespace {

// The predictor of a simulated stack (SimPredictorEnv) with a fake policy.
struct SimPredictor {
  explicit SimPredictor(bool http_cache = false) : env(Options(http_cache), MakePolicy()) {}
  // The worked example, with an HTTP cache over a MemoryBackend when asked.
  static SimStackOptions Options(bool http_cache) {
    SimStackOptions options = SimTestEnv::Options(SimTestEnv::WorkedExample());
    options.http_cache = http_cache;
    return options;
  }
  // The fake, kept in `policy` (so declared before `env`).
  std::unique_ptr<PredictorPolicy> MakePolicy() {
    auto owned = std::make_unique<FakePolicy>();
    policy = owned.get();
    return owned;
  }
  ClientSocketPool* pool() { return env.context->socket_pool(); }
  ContextSpeculationTarget& target() { return env.target(); }
  const SpeculationCounts& of(SpeculativeAction a) { return predictor->stats().of(a); }
  void Preconnect(const std::string& host, int sockets) {
    Hint h = MakeHint(SpeculativeAction::kPreconnect, host);
    h.sockets = sockets;
    predictor->AddHint(h);
  }

  FakePolicy* policy = nullptr;  // env's predictor's
  SimPredictorEnv env;
  Predictor* predictor = env.predictor;
};

}  // namespace

TEST_CASE("context target: a preconnect of 2 leaves 2 idle sockets with TLS done, used in time") {
  SimPredictor p;
  const SchemeHostPort a = Origin("a.test");
  p.Preconnect("a.test", 2);
  CHECK(p.target().SocketCount(a) == 2);  // connecting
  p.env.Advance(1s);
  CHECK(p.pool()->IdleSocketCountInGroup(a) == 2);
  CHECK(p.env.stats().tls_handshakes == 2);
  CHECK(p.of(SpeculativeAction::kPreconnect).taken == 2);
  CHECK(p.of(SpeculativeAction::kPreconnect).pending == 2);

  FetchResult r = p.env.Fetch("https://a.test/");
  REQUIRE(r.result == OK);
  LoadTimingPhases phases = ComputeLoadTimingPhases(r.timing, r.start);
  CHECK(phases.dns_ms == 0);
  CHECK(phases.connect_ms == 0);
  CHECK(phases.tls_ms == 0);
  CHECK(p.env.stats().tls_handshakes == 2);  // no new connection
  CHECK(p.of(SpeculativeAction::kPreconnect).used == 1);
  CHECK(p.predictor->stats().connections_ready == 1);
  CHECK(p.predictor->stats().connections_needed == 1);
  CHECK(p.predictor->SpeculativeFor(a)["outcome"] == "used");
}

TEST_CASE("context target: a request while the preconnect is connecting is late") {
  SimPredictor p;
  p.Preconnect("a.test", 1);
  p.env.Advance(100ms);  // DNS done, TCP under way
  FetchResult r = p.env.Fetch("https://a.test/");
  REQUIRE(r.result == OK);
  CHECK(p.of(SpeculativeAction::kPreconnect).late == 1);
  CHECK(p.predictor->stats().connections_late == 1);
  CHECK(p.env.stats().tcp_connects == 1);
  // It waited only for what was left of the connect (290 ms in all, 100 ms gone).
  LoadTimingPhases phases = ComputeLoadTimingPhases(r.timing, r.start);
  CHECK(phases.connect_wait_ms() < 290);
  CHECK(p.predictor->stats().connect_wait_ms == Approx(190).margin(1));
}

TEST_CASE("context target: an unused preconnect is wasted after the 10 s idle timeout") {
  SimPredictor p;
  p.Preconnect("a.test", 1);
  p.env.Advance(1s);
  CHECK(p.of(SpeculativeAction::kPreconnect).pending == 1);
  p.env.Advance(10s);
  CHECK(p.pool()->IdleSocketCountInGroup(Origin("a.test")) == 0);
  CHECK(p.of(SpeculativeAction::kPreconnect).wasted == 1);
  CHECK(p.of(SpeculativeAction::kPreconnect).pending == 0);
}

TEST_CASE("context target: a pre-resolve warms the host cache and is used by a connection") {
  SimPredictor p;
  const SchemeHostPort b = Origin("b.test");
  CHECK_FALSE(p.target().IsResolved(b));
  p.predictor->AddHint(MakeHint(SpeculativeAction::kPreresolve, "b.test"));
  p.env.Advance(1s);
  CHECK(p.target().IsResolved(b));
  CHECK(p.target().IsResolved(Origin("192.0.2.7")));  // literals need nothing
  FetchResult r = p.env.Fetch("https://b.test/");
  REQUIRE(r.result == OK);
  CHECK(ComputeLoadTimingPhases(r.timing, r.start).dns_ms == 0);
  CHECK(p.of(SpeculativeAction::kPreresolve).used == 1);
  // A second hint for the host is redundant now.
  p.predictor->AddHint(MakeHint(SpeculativeAction::kPreresolve, "b.test"));
  CHECK(p.predictor->stats().hints_redundant == 1);
}

TEST_CASE("context target: fetch ahead needs an HTTP cache") {
  SimPredictor p;
  CHECK_FALSE(p.target().CanFetchAhead());
  bool ran = false;
  CHECK(p.target().FetchAhead(U("https://a.test/x"), NetLogWithSource(),
                              [&](int) { ran = true; }) == -11);  // ERR_NOT_IMPLEMENTED
  p.env.Advance(1s);
  CHECK_FALSE(ran);
}

// The page's request as the page loader makes it: announced, fetched through the stack (its
// HTTP cache included), then its answer reported.
FetchResult PageFetch(SimPredictor& p, const Url& page, const Url& url) {
  p.predictor->OnResourceRequested(page, url);
  FetchResult r = p.env.Fetch(url.spec());
  p.predictor->OnResourceServed(page, url, r.cache, r.connection.socket_source);
  return r;
}

TEST_CASE(
    "context target: a fetch ahead runs at IDLE and is used when the page is served from it") {
  SimPredictor p(/*http_cache=*/true);
  REQUIRE(p.target().CanFetchAhead());
  Hint h;
  h.action = SpeculativeAction::kFetchAhead;
  h.url = U("https://a.test/fresh/5000");  // max-age=600: the cache serves it again
  p.predictor->AddHint(h);
  CHECK(p.predictor->GetInfoAsJson()["queue"]["in_flight"] == 1);
  p.env.Advance(2s);
  CHECK(p.env.responder.requests.size() == 1);
  CHECK(p.env.stats().bytes_down > 5000);
  CHECK(p.predictor->GetInfoAsJson()["queue"]["in_flight"] == 0);
  FetchResult r = PageFetch(p, U("https://p.test/"), h.url);
  REQUIRE(r.cache == CacheDisposition::kHit);
  CHECK(p.of(SpeculativeAction::kFetchAhead).used == 1);
  CHECK(p.of(SpeculativeAction::kFetchAhead).warmed == 0);
}

TEST_CASE("context target: a fetch ahead the cache answers itself stored nothing: wasted") {
  SimPredictor p(/*http_cache=*/true);
  const Url url = U("https://a.test/fresh/5000");
  REQUIRE(p.env.Fetch(url.spec()).result == OK);  // an earlier visit left it fresh
  Hint h;
  h.action = SpeculativeAction::kFetchAhead;
  h.url = url;
  p.predictor->AddHint(h);
  p.env.Advance(2s);
  CHECK(p.env.responder.requests.size() == 1);  // the fetch never reached the network
  CHECK(p.of(SpeculativeAction::kFetchAhead).wasted == 1);
  // The page's hit is the earlier visit's entry, not the fetch's.
  FetchResult r = PageFetch(p, U("https://p.test/"), url);
  REQUIRE(r.cache == CacheDisposition::kHit);
  CHECK(p.of(SpeculativeAction::kFetchAhead).used == 0);
}

TEST_CASE("context target: a fetch ahead the page is not served from only warmed a connection") {
  SimPredictor p(/*http_cache=*/true);
  const Url page = U("https://p.test/");
  p.predictor->OnNavigation(page);
  Hint h;
  h.action = SpeculativeAction::kFetchAhead;
  h.url = U("https://a.test/size/5000");  // no freshness: the page's request goes out again
  p.predictor->AddHint(h);
  p.env.Advance(2s);
  REQUIRE(p.env.responder.requests.size() == 1);
  FetchResult r = PageFetch(p, page, h.url);
  REQUIRE(r.result == OK);
  CHECK(r.cache != CacheDisposition::kHit);
  CHECK(r.connection.socket_source == SocketSource::kReused);  // the fetch's connection
  const SpeculationCounts& fa = p.of(SpeculativeAction::kFetchAhead);
  CHECK(fa.used == 0);
  CHECK(fa.late == 0);
  CHECK(fa.wasted == 1);
  CHECK(fa.warmed == 1);
  // A reused connection is no new one: neither a need nor in recall.
  CHECK(p.predictor->stats().connections_needed == 0);
  CHECK(p.predictor->stats().connections_ready == 0);
}

TEST_CASE("context target: a fetch ahead is not a page's connection and takes no preconnect") {
  SimPredictor p(/*http_cache=*/true);
  p.predictor->OnNavigation(U("https://p.test/"));
  p.Preconnect("a.test", 1);
  p.predictor->AddHint(MakeHint(SpeculativeAction::kPreresolve, "b.test"));
  p.env.Advance(1s);
  REQUIRE(p.pool()->IdleSocketCountInGroup(Origin("a.test")) == 1);
  Hint h;
  h.action = SpeculativeAction::kFetchAhead;
  h.url = U("https://a.test/size/500");
  p.predictor->AddHint(h);
  Hint h2 = h;
  h2.url = U("https://b.test/size/500");
  p.predictor->AddHint(h2);
  p.env.Advance(2s);
  REQUIRE(p.env.responder.requests.size() == 2);
  CHECK(p.predictor->stats().connections_needed == 0);
  CHECK(p.predictor->stats().connections_ready == 0);
  CHECK(p.of(SpeculativeAction::kPreconnect).used == 0);
  CHECK(p.of(SpeculativeAction::kPreresolve).used == 0);
  CHECK(p.policy->connections.empty());
  // A page's own request still counts.
  FetchResult r = p.env.Fetch("https://c.test/");
  REQUIRE(r.result == OK);
  CHECK(p.predictor->stats().connections_needed == 1);
}

TEST_CASE("context target: destroying the target cancels a pre-resolve's callback") {
  SimTestEnv env(SimTestEnv::WorkedExample());
  bool ran = false;
  {
    ContextSpeculationTarget target(env.context);
    CHECK(target.Preresolve(Origin("c.test"), NetLogWithSource(), [&](int) { ran = true; }) ==
          ERR_IO_PENDING);
  }
  env.Advance(1s);
  CHECK_FALSE(ran);
  ContextSpeculationTarget target(env.context);
  CHECK(target.IsResolved(Origin("c.test")));  // the resolver's job went on and cached it
  CHECK(target.Preresolve(Origin("c.test"), NetLogWithSource(), nullptr) == OK);
  int result = 1;
  CHECK(target.Preresolve(Origin("d.test"), NetLogWithSource(), [&](int rv) { result = rv; }) ==
        ERR_IO_PENDING);
  CHECK(result == 1);
  env.Advance(1s);
  CHECK(result == OK);
}

TEST_CASE("context predictor: /api/predictor shows what learned learns: warm state, budget") {
  // The live world's predictor (fetch --page, netstack internals) over the simulated stack:
  // GetInfoAsJson is what the internals page's Predictor view renders.
  SimPredictorEnv env(SimTestEnv::Options(SimTestEnv::WorkedExample()), "learned");
  const Url page = U("https://a.test/");
  env.predictor->OnNavigation(page);
  env.predictor->OnResourceRequested(page, page);
  REQUIRE(env.Fetch("https://a.test/").result == OK);
  env.predictor->OnNavigationComplete(page);
  auto row_of = [&](const nlohmann::json& tables) {
    for (const nlohmann::json& row : tables["warm"])
      if (row["origin"] == "https://a.test:443") return row;
    return nlohmann::json();
  };
  nlohmann::json info = env.predictor->GetInfoAsJson();
  REQUIRE(info["policy"] == "learned");
  nlohmann::json warm = row_of(info["tables"]);
  REQUIRE(warm.is_object());
  CHECK(warm["state"] == "warm");
  CHECK(warm["warm_for_ms"].get<double>() > 0);
  // The page's learned origins and the adaptive budget, as the queue uses it.
  bool learned_row = false;
  for (const nlohmann::json& row : info["tables"]["referrers"])
    learned_row |= row["origin"] == "https://a.test:443";
  CHECK(learned_row);
  CHECK(info["tables"]["budget"]["budget"] == info["queue"]["budget"]);
  CHECK(info["tables"]["budget"]["cap"].get<int>() >= 1);
  // Past the 300 s window the origin is cold: the next load is predicted from the cold rows.
  env.Advance(301s);
  env.predictor->OnNavigation(U("https://b.test/"));
  warm = row_of(env.predictor->GetInfoAsJson()["tables"]);
  CHECK(warm["state"] == "cold");
  CHECK(warm["warm_for_ms"] == 0);
}
