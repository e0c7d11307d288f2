// Predictor facade: events -> policy -> queue -> target, the pool's reports, "off", NetLog,
// Finish, the JSON views, and the config and stats JSON.
#include "predictor/predictor.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "net/base/net_log.h"
#include "net/base/virtual_scheduler.h"
#include "tests/predictor/core_test_util.h"
#include "tests/socket/pool_test_util.h"

using namespace netstack;
using namespace netstack::test;
using namespace std::chrono_literals;

namespace {

class EntryRecorder : public NetLog::Observer {
 public:
  explicit EntryRecorder(NetLog* net_log) : net_log_(net_log) { net_log_->AddObserver(this); }
  ~EntryRecorder() override { net_log_->RemoveObserver(this); }
  void OnAddEntry(const NetLogEntry& entry) override { entries.push_back(entry); }
  std::vector<NetLogEntry> Of(NetLogEventType type) const {
    std::vector<NetLogEntry> out;
    for (const NetLogEntry& e : entries)
      if (e.type == type) out.push_back(e);
    return out;
  }
  std::vector<NetLogEntry> entries;

 private:
  NetLog* net_log_;
};

struct PredictorEnv {
  explicit PredictorEnv(bool with_policy = true) {
    config.policy = with_policy ? "chrome" : "off";
    std::unique_ptr<FakePolicy> owned;
    if (with_policy) {
      owned = std::make_unique<FakePolicy>();
      policy = owned.get();
    }
    predictor = std::make_unique<Predictor>(config, scheduler, &target, &net_log, std::move(owned));
    // The target reports jobs the way the pool does: inside Preconnect.
    target.on_preconnect = [this](const SchemeHostPort& origin, int sockets) {
      for (int i = 0; i < sockets; ++i) predictor->OnPreconnectJobStarted(origin);
    };
  }

  VirtualScheduler scheduler{TimeTicks(1s)};
  NetLog net_log{scheduler};
  EntryRecorder recorder{&net_log};
  PredictorConfig config;
  ScriptedTarget target;
  FakePolicy* policy = nullptr;
  std::unique_ptr<Predictor> predictor;
};

Hint ConnectHint(const std::string& host, int sockets) {
  Hint h = MakeHint(SpeculativeAction::kPreconnect, host);
  h.sockets = sockets;
  return h;
}

ClientSocketPool::Observer::Assignment Assign(SocketSource source) {
  ClientSocketPool::Observer::Assignment a;
  a.source = source;
  return a;
}

}  // namespace

TEST_CASE("predictor: a navigation's hints reach the target before the call returns") {
  PredictorEnv env;
  env.policy->next_hints = {ConnectHint("cdn.test", 2),
                            MakeHint(SpeculativeAction::kPreresolve, "img.test")};
  env.predictor->OnNavigation(U("https://page.test/"));
  REQUIRE(env.target.calls.size() == 2);
  CHECK(env.target.calls[0].action == SpeculativeAction::kPreconnect);
  CHECK(env.target.calls[0].sockets == 2);
  CHECK(env.target.calls[1].origin.host == "img.test");
  CHECK(env.policy->navigations == std::vector<std::string>{"https://page.test/"});
  const PredictorStats& s = env.predictor->stats();
  CHECK(s.hints == 2);
  CHECK(s.hints_started == 2);
  CHECK(s.of(SpeculativeAction::kPreconnect).taken == 2);
  CHECK(s.of(SpeculativeAction::kPreresolve).taken == 1);
  CHECK(env.recorder.Of(NetLogEventType::PREDICTOR_HINT).size() == 2);
  CHECK(env.recorder.Of(NetLogEventType::PREDICTOR_ACTION).size() == 2);
  CHECK(env.recorder.Of(NetLogEventType::PREDICTOR_HINT)[0].source.type ==
        NetLogSourceType::PREDICTOR);
}

TEST_CASE("predictor: each event kind passes the policy's hints on") {
  PredictorEnv env;
  const Url page = U("https://page.test/");
  env.policy->next_hints = {ConnectHint("a.test", 1)};
  env.predictor->OnStartup();
  env.policy->next_hints = {ConnectHint("b.test", 1)};
  env.predictor->OnHover(U("https://b.test/x"));
  env.policy->next_hints = {ConnectHint("c.test", 1)};
  env.predictor->OnOmnibox("c", U("https://c.test/"));
  env.policy->next_hints = {ConnectHint("d.test", 1)};
  env.predictor->OnStaticHint(page, StaticHintKind::kPreconnect, U("https://d.test/"));
  env.predictor->AddHint(ConnectHint("e.test", 1));
  CHECK(env.target.count(SpeculativeAction::kPreconnect) == 5);
}

TEST_CASE("predictor: a preconnect that finishes inside the pool pumps in a posted task") {
  PredictorEnv env;
  env.policy->budget = 1;
  env.predictor->AddHint(ConnectHint("a.test", 1));
  env.predictor->AddHint(ConnectHint("b.test", 1));
  REQUIRE(env.target.calls.size() == 1);
  env.predictor->OnPreconnectJobComplete(Origin("a.test"), OK);
  CHECK(env.target.calls.size() == 1);  // never calls the pool from inside the pool
  env.scheduler.RunUntilIdle();
  REQUIRE(env.target.calls.size() == 2);
  CHECK(env.target.calls[1].origin.host == "b.test");
}

TEST_CASE("predictor: a pre-resolve's callback frees its slot") {
  PredictorEnv env;
  env.policy->budget = 1;
  env.predictor->AddHint(MakeHint(SpeculativeAction::kPreresolve, "a.test"));
  env.predictor->AddHint(MakeHint(SpeculativeAction::kPreresolve, "b.test"));
  REQUIRE(env.target.calls.size() == 1);
  env.target.Complete(0, OK);
  env.scheduler.RunUntilIdle();
  CHECK(env.target.calls.size() == 2);
  // The resolved host is used by a connection a connect job made.
  env.predictor->OnSocketAssigned(Origin("a.test"), Assign(SocketSource::kNew));
  CHECK(env.predictor->stats().of(SpeculativeAction::kPreresolve).used == 1);
  CHECK(env.recorder.Of(NetLogEventType::PREDICTOR_OUTCOME).size() == 1);
}

TEST_CASE("predictor: a fetch ahead is used when the page is served from it") {
  PredictorEnv env;
  Hint h;
  h.action = SpeculativeAction::kFetchAhead;
  h.url = U("https://a.test/app.js");  // origin left empty: taken from the URL
  env.predictor->AddHint(h);
  REQUIRE(env.target.calls.size() == 1);
  env.target.Complete(0, OK);
  env.predictor->OnResourceRequested(U("https://p.test/"), U("https://a.test/app.js"));
  CHECK(env.predictor->stats().of(SpeculativeAction::kFetchAhead).used == 0);
  env.predictor->OnResourceServed(U("https://p.test/"), U("https://a.test/app.js"),
                                  CacheDisposition::kHit, SocketSource::kNone);
  CHECK(env.predictor->stats().of(SpeculativeAction::kFetchAhead).used == 1);
  CHECK(env.predictor->SpeculativeFor(Origin("a.test"))["fetched_ahead"] == 1);
}

TEST_CASE("predictor: invalid hints are counted and dropped") {
  PredictorEnv env;
  Hint h = MakeHint(SpeculativeAction::kPreconnect, "");
  env.predictor->AddHint(h);
  CHECK(env.target.calls.empty());
  CHECK(env.predictor->stats().hints == 1);
  CHECK(env.predictor->stats().hints_invalid == 1);
  CHECK(env.predictor->stats().hints_redundant == 0);
  CHECK(env.predictor->stats().ToJson()["hints"]["invalid"] == 1);
  CHECK(env.recorder.Of(NetLogEventType::PREDICTOR_HINT_DROPPED).size() == 1);
}

TEST_CASE("predictor: Observe registers with the pool, Finish and the destructor unregister") {
  PoolTestEnv pools;
  PoolTestEnv other;
  const SchemeHostPort a = PoolTestEnv::Http("a.test");
  ClientSocketHandle h;
  TestCompletion done;
  {
    PredictorEnv env;
    env.predictor->Observe(pools.pool.get());
    REQUIRE(pools.Request(&h, a, &done) == ERR_IO_PENDING);
    pools.scheduler.RunUntilIdle();
    REQUIRE(h.is_initialized());
    CHECK(env.predictor->stats().connections_needed == 1);
    // Moving to another pool stops observing the first.
    env.predictor->Observe(other.pool.get());
    h.Reset();
    CHECK(pools.pool->RequestSockets(PoolTestEnv::Http("b.test"), 1, pools.NewRequestLog()) == OK);
    pools.scheduler.RunUntilIdle();
    ClientSocketHandle h2;
    REQUIRE(pools.Request(&h2, PoolTestEnv::Http("b.test"), &done) == OK);
    CHECK(env.predictor->stats().connections_needed == 1);
    // Finish stops observing; a caller's own RemoveObserver afterwards is a no-op.
    env.predictor->Finish();
    other.pool->RemoveObserver(env.predictor.get());
    pools.pool->RemoveObserver(env.predictor.get());
    env.predictor->Observe(pools.pool.get());  // observed again, destroyed without Finish
  }
  // The destructor unregistered: the pool's reports reach no freed predictor (ASan checks).
  REQUIRE(pools.Request(&h, PoolTestEnv::Http("c.test"), &done) == ERR_IO_PENDING);
  pools.scheduler.RunUntilIdle();
  CHECK(h.is_initialized());
}

TEST_CASE("predictor: off does nothing speculative but still counts connections") {
  PredictorEnv env(/*with_policy=*/false);
  CHECK(env.predictor->policy() == nullptr);
  env.predictor->OnStartup();
  env.predictor->OnNavigation(U("https://page.test/"));
  env.predictor->AddHint(ConnectHint("a.test", 2));
  CHECK(env.target.calls.empty());
  env.predictor->OnSocketAssigned(Origin("a.test"), Assign(SocketSource::kNew));
  const PredictorStats& s = env.predictor->stats();
  CHECK(s.hints == 0);
  CHECK(s.connections_needed == 1);
  nlohmann::json info = env.predictor->GetInfoAsJson();
  CHECK(info["policy"] == "off");
  CHECK(info["tables"].empty());
}

TEST_CASE("predictor: Finish expires queued hints, wastes pending actions, ignores the rest") {
  PredictorEnv env;
  env.policy->budget = 1;
  env.predictor->AddHint(ConnectHint("a.test", 2));
  env.predictor->AddHint(ConnectHint("b.test", 1));
  env.predictor->Finish();
  const PredictorStats& s = env.predictor->stats();
  CHECK(s.hints_expired == 1);
  CHECK(s.of(SpeculativeAction::kPreconnect).wasted == 2);
  env.predictor->OnSocketAssigned(Origin("a.test"), Assign(SocketSource::kPreconnected));
  env.predictor->AddHint(ConnectHint("c.test", 1));
  CHECK(s.connections_needed == 0);
  CHECK(env.target.calls.size() == 1);
}

TEST_CASE("predictor: a destroyed predictor's posted work and callbacks are harmless") {
  PredictorEnv env;
  env.policy->budget = 1;
  env.predictor->AddHint(MakeHint(SpeculativeAction::kPreresolve, "a.test"));
  env.predictor->AddHint(ConnectHint("b.test", 1));
  env.predictor->AddHint(ConnectHint("c.test", 1));
  env.target.Complete(0, OK);  // posts a pump
  env.predictor.reset();
  env.scheduler.RunUntilIdle();
  CHECK(env.target.calls.size() == 1);
}

TEST_CASE("predictor: GetInfoAsJson has the policy, config, stats, tables and recent actions") {
  PredictorEnv env;
  env.predictor->AddHint(ConnectHint("a.test", 2));
  nlohmann::json info = env.predictor->GetInfoAsJson();
  CHECK(info["policy"] == "fake");
  CHECK(info["config"]["max_in_flight"] == 8);
  CHECK(info["stats"]["preconnect"]["taken"] == 2);
  CHECK(info["tables"]["fake"] == true);
  REQUIRE(info["recent"].size() == 1);
  CHECK(info["recent"][0]["action"] == "preconnect");
  CHECK(info["recent"][0]["motivation"] == "learned-referral");
  CHECK(info["recent"][0]["outcome"] == "pending");
  CHECK(info["recent"][0]["sockets"]["taken"] == 2);
  CHECK(info["queue"]["in_flight"] == 1);
}

TEST_CASE("predictor config: Set checks keys, values and ranges, ToJson lists every key") {
  PredictorConfig c;
  std::string error;
  CHECK(c.Set("predictor", "learned", &error));
  CHECK(c.policy == "learned");
  CHECK(c.Set("max_in_flight", "4", &error));
  CHECK(c.max_in_flight == 4);
  CHECK(c.Set("preresolve_lifetime_s", "1.5", &error));
  CHECK(c.preresolve_lifetime == 1500ms);
  CHECK_FALSE(c.Set("max_in_flight", "0", &error));
  CHECK(error == "max_in_flight: '0' is out of range (1 to 64)");
  CHECK_FALSE(c.Set("max_in_flight", "2.5", &error));
  CHECK(error == "max_in_flight: '2.5' is not an integer");
  CHECK_FALSE(c.Set("learned_waste_cost_ms", "abc", &error));
  CHECK(error == "learned_waste_cost_ms: 'abc' is not a number");
  CHECK_FALSE(c.Set("policy", "magic", &error));
  CHECK(error.find("policy: 'magic'") == 0);
  CHECK_FALSE(c.Set("nope", "1", &error));
  CHECK(error == "unknown predictor key 'nope'");
  CHECK(c.max_in_flight == 4);  // unchanged by the failures
  CHECK(error.find('\n') == std::string::npos);

  nlohmann::json j = c.ToJson();
  CHECK(j.size() == 15);  // with learned_max_origins_per_page
  PredictorConfig copy;
  for (auto& [key, value] : j.items()) {
    std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    INFO(key << "=" << text);
    CHECK(copy.Set(key, text, &error));
  }
  CHECK(copy.ToJson() == j);
}

TEST_CASE("predictor stats: ToJson, precision and recall") {
  PredictorStats s;
  CHECK(s.Recall() == 0);
  CHECK(s.Total().Precision() == 0);
  SpeculationCounts& pc = s.of(SpeculativeAction::kPreconnect);
  pc.taken = 5;
  pc.used = 2;
  pc.late = 1;
  pc.used_background = 1;  // a background use is no critical use: not in precision
  pc.wasted = 1;
  SpeculationCounts& pr = s.of(SpeculativeAction::kPreresolve);
  pr.taken = 3;
  pr.used = 1;
  pr.wasted = 2;
  // Fetch ahead: all four fetches wasted, one warmed a connection. Precision leaves it out.
  SpeculationCounts& fa = s.of(SpeculativeAction::kFetchAhead);
  fa.taken = fa.wasted = 4;
  fa.warmed = 1;
  s.connections_needed = 4;
  s.connections_ready = 1;
  s.connections_needed_background = 3;
  s.connections_ready_background = 2;
  nlohmann::json j = s.ToJson();
  CHECK(j["preconnect"]["precision"] == Approx(0.6));
  CHECK(j["preconnect"]["used_background"] == 1);
  CHECK(j["precision"] == Approx(0.5));  // (3 + 1) / (5 + 3)
  CHECK(j["fetch_ahead"]["precision"] == 0.0);
  CHECK(j["fetch_ahead"]["warmed"] == 1);
  CHECK(j["connections"]["needed_background"] == 3);
  CHECK(j["connections"]["ready_background"] == 2);
  CHECK(j["connections"]["late_background"] == 0);
  // Added up, as sessions and shards are.
  PredictorStats sum = s;
  sum.Add(s);
  CHECK(sum.of(SpeculativeAction::kPreconnect).used_background == 2);
  CHECK(sum.of(SpeculativeAction::kFetchAhead).warmed == 2);
  CHECK(sum.connections_ready_background == 4);
  CHECK(j["connections"]["recall"] == Approx(0.25));
  CHECK(j["hints"].contains("queue_full"));
  CHECK(j.contains("fetch_ahead"));
  CHECK(std::string(HintMotivationName(HintMotivation::kSelfReferral)) == "self-referral");
  CHECK(std::string(SpeculativeActionName(SpeculativeAction::kFetchAhead)) == "fetch-ahead");
}
