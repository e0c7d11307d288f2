// One scripted scenario, run twice on virtual time: "live-shaped" (the stack over tests/support's
// socket factory and ScriptedDnsTransport, as tests/request does) and simulated (over SimNetwork,
// as tests/sim does), with matching delays (DNS 50 ms, TCP connect one 80 ms round trip, plain
// HTTP so no TLS). Every request must get the same SocketSource and the same connect wait in
// both worlds, and in each world the predictor's accounting and the internals histograms must
// agree with the request records (issue 15's "done when").
//
// The script (times after T0):
//   a.test  0 ms: a preconnect of 1 socket (ready at 130 ms); 1 s: a1 takes it (preconnected);
//           2 s: a2 takes it again (reused).
//   b.test  3 s: a preconnect; 3.030 s: b1 comes while it resolves (preconnected-late, waits
//           20 ms of DNS and the 80 ms connect).
//   c.test  4 s: c1 (LOW) starts job J1; 4.060 s: c2 (HIGHEST) starts J2 (DNS from the cache).
//           J1 connects first (4.130 s) and serves c2, the top request (late binding: new, 70 ms
//           left of J1's connect); J2 then serves c1 (new, 80 ms).
//   d.test  5 s: d1 starts a job and is cancelled 10 ms later; the job leaves an idle socket
//           nobody used; 6 s: d2 takes it (unused-idle).
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "net/base/stack_histograms.h"
#include "net/http/request_record.h"
#include "net/http/url_request.h"
#include "predictor/context_predictor.h"
#include "predictor/predictor.h"
#include "tests/predictor/core_test_util.h"
#include "tests/request/request_test_env.h"
#include "tests/sim/sim_test_env.h"

namespace netstack::test {
namespace {

const TimeDelta kDns = Milliseconds(50);
const TimeDelta kRtt = Milliseconds(80);

// One request of the script: its UrlRequest and, once it ended, its record.
struct ScenarioRequest : public UrlRequest::Delegate {
  void OnReadData(UrlRequest*, const char*, int) override {}
  void OnComplete(UrlRequest* r, int) override {
    FillRequestRecord(*r, /*with_headers=*/false, &record);
    done = true;
  }
  std::unique_ptr<UrlRequest> request;
  RequestRecord record;
  bool done = false;
};

// What one world's run left.
struct ScenarioResult {
  std::map<std::string, RequestRecord> records;  // by the script's name (a1, a2, ...)
  PredictorStats stats;
  std::vector<FakePolicy::ConnectionCall> policy_connections;
  nlohmann::json histograms;
};

// Runs the script over `context` (its NetLog `net_log`, time from `scheduler`).
ScenarioResult RunScenario(VirtualScheduler& scheduler, NetLog& net_log,
                           UrlRequestContext* context) {
  StackHistograms histograms;
  histograms.Attach(&net_log);
  auto owned_policy = std::make_unique<FakePolicy>();
  FakePolicy* policy = owned_policy.get();
  ContextPredictor context_predictor(PredictorConfig(), context, &net_log, std::move(owned_policy));
  Predictor& predictor = *context_predictor.predictor();
  const Url page = U("http://a.test/");
  predictor.OnNavigation(page);  // the policy hears the connections as this page's

  const TimeTicks t0 = scheduler.Now() + Seconds(1);
  auto at = [&](TimeDelta offset) {
    const TimeTicks when = t0 + offset;
    REQUIRE(when >= scheduler.Now());
    scheduler.AdvanceBy(when - scheduler.Now());
  };
  auto preconnect = [&](const std::string& host) {
    Hint hint = MakeHint(SpeculativeAction::kPreconnect, host);
    hint.origin = Origin(host, "http");
    predictor.AddHint(hint);
  };
  std::map<std::string, std::unique_ptr<ScenarioRequest>> requests;
  auto start = [&](const std::string& name, const std::string& url, RequestPriority priority) {
    auto r = std::make_unique<ScenarioRequest>();
    UrlRequest::Params params;
    params.request.url = U(url);
    params.priority = priority;
    r->request = std::make_unique<UrlRequest>(context, params, r.get());
    r->request->Start();
    requests[name] = std::move(r);
  };

  at(Milliseconds(0));
  preconnect("a.test");
  at(Seconds(1));
  start("a1", "http://a.test/1", MEDIUM);
  at(Seconds(2));
  start("a2", "http://a.test/2", MEDIUM);
  at(Seconds(3));
  preconnect("b.test");
  at(Seconds(3) + Milliseconds(30));
  start("b1", "http://b.test/1", MEDIUM);
  at(Seconds(4));
  start("c1", "http://c.test/1", LOW);
  at(Seconds(4) + Milliseconds(60));
  start("c2", "http://c.test/2", HIGHEST);
  at(Seconds(5));
  start("d1", "http://d.test/1", MEDIUM);
  at(Seconds(5) + Milliseconds(10));
  requests.erase("d1");  // cancelled: its job goes on and leaves an unused idle socket
  at(Seconds(6));
  start("d2", "http://d.test/2", MEDIUM);
  at(Seconds(7));

  ScenarioResult result;
  for (auto& [name, r] : requests) {
    INFO(name);
    CHECK(r->done);
    CHECK(r->record.error == OK);
    result.records[name] = r->record;
  }
  predictor.Finish();
  result.stats = predictor.stats();
  result.policy_connections = policy->connections;
  result.histograms = histograms.ToJson();
  return result;
}

nlohmann::json Histogram(const ScenarioResult& r, const std::string& name) {
  for (const auto& h : r.histograms["histograms"])
    if (h["name"] == name) return h;
  FAIL("no histogram " << name);
  return nullptr;
}

// The accounting and the histograms of one world agree with its records.
void CheckAgreesWithRecords(const ScenarioResult& r) {
  uint64_t needed = 0, ready = 0, late = 0, waited = 0, with_ttfb = 0;
  double wait_ms = 0, ttfb_ms = 0;
  for (const auto& [name, rec] : r.records) {
    const SocketSource source = rec.connection.socket_source;
    if (source != SocketSource::kNone && source != SocketSource::kReused) ++needed;
    ready += source == SocketSource::kPreconnected;
    late += source == SocketSource::kPreconnectedLate;
    if (IsConnectJobSocket(source)) {
      ++waited;
      wait_ms += rec.phases.connect_wait_ms();
    }
    ++with_ttfb;  // every request of the script got its response over the network
    ttfb_ms += rec.phases.ttfb_ms;
  }
  CHECK(r.stats.connections_needed == needed);
  CHECK(r.stats.connections_ready == ready);
  CHECK(r.stats.connections_late == late);
  CHECK(r.stats.connect_wait_ms == Approx(wait_ms).margin(1e-9));
  // The policy heard each needed connection with the record's source and wait.
  REQUIRE(r.policy_connections.size() == needed);
  double policy_wait_ms = 0;
  for (const auto& c : r.policy_connections) policy_wait_ms += c.connect_wait_ms;
  CHECK(policy_wait_ms == Approx(wait_ms).margin(1e-9));

  const nlohmann::json wait = Histogram(r, "connect_wait");
  CHECK(wait["count"] == waited);
  CHECK(wait["sum"].get<double>() == Approx(wait_ms).margin(1e-9));
  CHECK(wait["errors"] == 0);
  const nlohmann::json ttfb = Histogram(r, "ttfb");
  CHECK(ttfb["count"] == with_ttfb);
  CHECK(ttfb["sum"].get<double>() == Approx(ttfb_ms).margin(1e-9));
  // Connect jobs: the two preconnects, J1, J2 and d1's.
  CHECK(Histogram(r, "connect_job")["count"] == 5);
}

ScenarioResult RunLiveShaped() {
  RequestTestEnv env;
  for (const char* host : {"a.test", "b.test", "c.test", "d.test"}) env.AddHost(host, kDns);
  // One connection per connect job, in the order the jobs start: a's preconnect (two
  // responses), b's preconnect, c's J1 and J2, d's job. Each connects one round trip after its
  // DNS answer and answers 10 ms after a request.
  auto response = [] {
    return ScriptedRead::Data(Response("200 OK", "hello"), IoMode::kAsync, Milliseconds(10));
  };
  env.factory->AddSocket({response(), response()}, {}, FakeConnectRule::After(kRtt));
  for (int i = 0; i < 4; ++i)
    env.factory->AddSocket({response()}, {}, FakeConnectRule::After(kRtt));
  ScenarioResult result = RunScenario(env.scheduler, env.net_log, env.context.get());
  CHECK(env.factory->transport_sockets_created() == 5);
  return result;
}

ScenarioResult RunSimulated() {
  NetworkParams params = SimTestEnv::WorkedExample();
  params.defaults.dns = kDns;
  params.defaults.rtt = kRtt;
  params.defaults.server_time = Milliseconds(10);
  SimTestEnv env(params);
  ScenarioResult result = RunScenario(env.scheduler, env.net_log, env.context);
  CHECK(env.stats().tcp_connects == 5);
  return result;
}

TEST_CASE("scenario: the same SocketSource and connect wait live-shaped and simulated",
          "[scenario]") {
  const ScenarioResult live = RunLiveShaped();
  const ScenarioResult sim = RunSimulated();

  struct Expected {
    const char* name;
    SocketSource source;
    double connect_wait_ms;
  };
  const std::vector<Expected> expected = {
      {"a1", SocketSource::kPreconnected, 0},
      {"a2", SocketSource::kReused, 0},
      {"b1", SocketSource::kPreconnectedLate, 20 + 80},  // DNS left from 3.030 s, then connect
      {"c1", SocketSource::kNew, 80},                    // J2: cached DNS, connect
      {"c2", SocketSource::kNew, 70},                    // J1, from 4.060 s to 4.130 s
      {"d2", SocketSource::kUnusedIdle, 0},
  };
  REQUIRE(live.records.size() == expected.size());
  REQUIRE(sim.records.size() == expected.size());
  for (const Expected& e : expected) {
    INFO(e.name);
    const RequestRecord& l = live.records.at(e.name);
    const RequestRecord& s = sim.records.at(e.name);
    CHECK(l.connection.socket_source == e.source);
    CHECK(s.connection.socket_source == e.source);
    CHECK(l.phases.connect_wait_ms() == e.connect_wait_ms);
    CHECK(s.phases.connect_wait_ms() == e.connect_wait_ms);
    // The phases' split too (no TLS: plain HTTP).
    CHECK(l.phases.dns_ms == s.phases.dns_ms);
    CHECK(l.phases.connect_ms == s.phases.connect_ms);
    CHECK(l.phases.tls_ms == 0);
    CHECK(s.phases.tls_ms == 0);
  }
  // c2 was served by the job c1 started, c1 by the one c2 started.
  CHECK(live.records.at("c2").connection.socket_id < live.records.at("c1").connection.socket_id);
  CHECK(sim.records.at("c2").connection.socket_id < sim.records.at("c1").connection.socket_id);

  SECTION("live-shaped: accounting and histograms agree with the records") {
    CheckAgreesWithRecords(live);
  }
  SECTION("simulated: accounting and histograms agree with the records") {
    CheckAgreesWithRecords(sim);
  }
  SECTION("both worlds count the same") {
    CHECK(live.stats.connections_needed == sim.stats.connections_needed);
    CHECK(live.stats.connections_ready == sim.stats.connections_ready);
    CHECK(live.stats.connections_late == sim.stats.connections_late);
    CHECK(live.stats.connect_wait_ms == sim.stats.connect_wait_ms);
    CHECK(live.stats.connect_wait_ms == 250);
    CHECK(Histogram(live, "connect_wait")["sum"] == Histogram(sim, "connect_wait")["sum"]);
    CHECK(Histogram(live, "connect_wait")["count"] == Histogram(sim, "connect_wait")["count"]);
  }
}

}  // namespace
}  // namespace netstack::test
