// StackHistograms: BEGIN/END pairs at chosen virtual times become durations; errors, cancels and
// ENDs without a BEGIN are not counted; open BEGINs are bounded. Then the real stack over the
// simulated network fills dns.resolve, dns.preresolve, connect_job, connect_wait and ttfb.
#include "net/base/stack_histograms.h"

#include <catch2/catch.hpp>
#include <string>

#include "net/base/load_timing_phases.h"
#include "net/base/net_error.h"
#include "net/base/net_log.h"
#include "net/base/virtual_scheduler.h"
#include "predictor/context_speculation_target.h"
#include "tests/sim/sim_test_env.h"

namespace netstack {
namespace {

using Type = NetLogEventType;

struct Env {
  Env() { histograms.Attach(&net_log); }
  NetLogWithSource Make(NetLogSourceType type) { return NetLogWithSource::Make(&net_log, type); }
  void Advance(int ms) { scheduler.AdvanceBy(Milliseconds(ms)); }
  nlohmann::json Get(const std::string& name) const {
    nlohmann::json all = histograms.ToJson();
    for (const auto& h : all["histograms"])
      if (h["name"] == name) return h;
    FAIL("no histogram " << name);
    return nullptr;
  }

  VirtualScheduler scheduler;
  NetLog net_log{scheduler};
  StackHistograms histograms;
};

TEST_CASE("StackHistograms lists the five histograms in order", "[stack_histograms]") {
  StackHistograms h;
  nlohmann::json j = h.ToJson();
  REQUIRE(j["histograms"].size() == 5);
  CHECK(j["histograms"][0]["name"] == "dns.resolve");
  CHECK(j["histograms"][1]["name"] == "dns.preresolve");
  CHECK(j["histograms"][2]["name"] == "connect_job");
  CHECK(j["histograms"][3]["name"] == "connect_wait");
  CHECK(j["histograms"][4]["name"] == "ttfb");
  for (const auto& one : j["histograms"]) {
    CHECK(one["count"] == 0);
    CHECK(one["unit"] == "ms");
    CHECK(one["buckets"].empty());
    CHECK(one["errors"] == 0);
  }
}

TEST_CASE("StackHistograms times connect jobs and skips errors and cancels", "[stack_histograms]") {
  Env env;
  auto ok = env.Make(NetLogSourceType::CONNECT_JOB);
  auto failed = env.Make(NetLogSourceType::CONNECT_JOB);
  auto cancelled = env.Make(NetLogSourceType::CONNECT_JOB);
  ok.BeginEvent(Type::CONNECT_JOB);
  failed.BeginEvent(Type::CONNECT_JOB);
  cancelled.BeginEvent(Type::CONNECT_JOB);
  env.Advance(30);
  ok.EndEventWithNetErrorCode(Type::CONNECT_JOB, OK);
  failed.EndEventWithNetErrorCode(Type::CONNECT_JOB, ERR_CONNECTION_REFUSED);
  cancelled.AddEvent(Type::CANCELLED);
  cancelled.EndEventWithNetErrorCode(Type::CONNECT_JOB, ERR_ABORTED);

  nlohmann::json connect = env.Get("connect_job");
  CHECK(connect["count"] == 1);
  CHECK(connect["sum"] == 30.0);
  CHECK(connect["errors"] == 1);
  CHECK(env.histograms.open_count() == 0);

  // An END without its BEGIN is ignored.
  env.Make(NetLogSourceType::CONNECT_JOB).EndEventWithNetErrorCode(Type::CONNECT_JOB, OK);
  CHECK(env.Get("connect_job")["count"] == 1);
}

TEST_CASE("StackHistograms times resolver jobs", "[stack_histograms]") {
  Env env;
  auto job = env.Make(NetLogSourceType::HOST_RESOLVER_MANAGER_JOB);
  auto cancelled = env.Make(NetLogSourceType::HOST_RESOLVER_MANAGER_JOB);
  auto request = env.Make(NetLogSourceType::URL_REQUEST);
  job.BeginEvent(Type::HOST_RESOLVER_MANAGER_JOB);
  cancelled.BeginEvent(Type::HOST_RESOLVER_MANAGER_JOB);
  env.Advance(50);
  // A request leaving the job (CANCELLED naming it) does not cancel the job.
  job.AddEventReferencingSource(Type::CANCELLED, request.source());
  job.EndEventWithNetErrorCode(Type::HOST_RESOLVER_MANAGER_JOB, OK);
  cancelled.AddEvent(Type::CANCELLED);
  cancelled.EndEvent(Type::HOST_RESOLVER_MANAGER_JOB);

  nlohmann::json dns = env.Get("dns.resolve");
  CHECK(dns["count"] == 1);
  CHECK(dns["sum"] == 50.0);
  CHECK(env.histograms.open_count() == 0);
}

TEST_CASE("StackHistograms counts the phases finished requests log", "[stack_histograms]") {
  Env env;
  auto log = [&](nlohmann::json params) {
    env.Make(NetLogSourceType::URL_REQUEST).AddEvent(Type::URL_REQUEST_PHASES, [params] {
      return params;
    });
  };
  // A new connection and a late preconnect waited; a preconnected, reused or unused-idle socket
  // (0 ms) and a cache hit (no socket, no ttfb) did not.
  log({{"socket_source", "new"}, {"connect_wait_ms", 90.0}, {"ttfb_ms", 80.0}});
  log({{"socket_source", "preconnected-late"}, {"connect_wait_ms", 30.0}, {"ttfb_ms", 40.0}});
  log({{"socket_source", "preconnected"}, {"connect_wait_ms", 0.0}, {"ttfb_ms", 40.0}});
  log({{"socket_source", "reused"}, {"connect_wait_ms", 0.0}, {"ttfb_ms", 40.0}});
  log({{"socket_source", "unused-idle"}, {"connect_wait_ms", 0.0}, {"ttfb_ms", 40.0}});
  log({{"socket_source", nullptr}, {"connect_wait_ms", 0.0}, {"ttfb_ms", nullptr}});
  // Failures: without a socket (a connect error), after getting one (its wait counts), and in
  // the body after the headers (an error of neither phase: both times count).
  log({{"socket_source", nullptr},
       {"connect_wait_ms", 0.0},
       {"ttfb_ms", nullptr},
       {"net_error", ERR_NAME_NOT_RESOLVED}});
  log({{"socket_source", "new"},
       {"connect_wait_ms", 50.0},
       {"ttfb_ms", nullptr},
       {"net_error", ERR_CONNECTION_RESET}});
  log({{"socket_source", "new"},
       {"connect_wait_ms", 20.0},
       {"ttfb_ms", 60.0},
       {"net_error", ERR_CONTENT_DECODING_FAILED}});

  nlohmann::json wait = env.Get("connect_wait");
  CHECK(wait["count"] == 4);
  CHECK(wait["sum"] == 190.0);
  CHECK(wait["errors"] == 1);
  nlohmann::json ttfb = env.Get("ttfb");
  CHECK(ttfb["count"] == 6);
  CHECK(ttfb["sum"] == 300.0);
  CHECK(ttfb["errors"] == 1);
  CHECK(env.histograms.open_count() == 0);
}

TEST_CASE("StackHistograms tells concurrent pre-resolves apart by their jobs",
          "[stack_histograms]") {
  Env env;
  auto predictor = env.Make(NetLogSourceType::PREDICTOR);
  auto job1 = env.Make(NetLogSourceType::HOST_RESOLVER_MANAGER_JOB);
  auto job2 = env.Make(NetLogSourceType::HOST_RESOLVER_MANAGER_JOB);
  auto host = [](const char* h) { return [h] { return nlohmann::json{{"host", h}}; }; };
  auto from = [](const char* s) { return [s] { return nlohmann::json{{"source", s}}; }; };

  // t=0: a.test goes to job 1.
  predictor.BeginEvent(Type::HOST_RESOLVER_MANAGER_REQUEST, host("a.test"));
  job1.BeginEvent(Type::HOST_RESOLVER_MANAGER_JOB);
  predictor.AddEventReferencingSource(Type::HOST_RESOLVER_MANAGER_JOB_ATTACH, job1.source());
  env.Advance(10);
  // t=10: b.test goes to job 2; c.test is a cache hit (ends at once, not counted).
  predictor.BeginEvent(Type::HOST_RESOLVER_MANAGER_REQUEST, host("b.test"));
  job2.BeginEvent(Type::HOST_RESOLVER_MANAGER_JOB);
  predictor.AddEventReferencingSource(Type::HOST_RESOLVER_MANAGER_JOB_ATTACH, job2.source());
  predictor.BeginEvent(Type::HOST_RESOLVER_MANAGER_REQUEST, host("c.test"));
  predictor.AddEvent(Type::HOST_RESOLVER_MANAGER_CACHE_HIT);
  predictor.EndEvent(Type::HOST_RESOLVER_MANAGER_REQUEST, from("cache"));
  env.Advance(30);
  // t=40: job 2 (b.test) answers first.
  job2.EndEventWithNetErrorCode(Type::HOST_RESOLVER_MANAGER_JOB, OK);
  predictor.EndEvent(Type::HOST_RESOLVER_MANAGER_REQUEST, from("job"));
  env.Advance(60);
  // t=100: job 1 (a.test).
  job1.EndEventWithNetErrorCode(Type::HOST_RESOLVER_MANAGER_JOB, OK);
  predictor.EndEvent(Type::HOST_RESOLVER_MANAGER_REQUEST, from("job"));

  nlohmann::json pre = env.Get("dns.preresolve");
  CHECK(pre["count"] == 2);
  CHECK(pre["min"] == 30.0);   // b.test: 10 -> 40
  CHECK(pre["max"] == 100.0);  // a.test: 0 -> 100
  nlohmann::json dns = env.Get("dns.resolve");
  CHECK(dns["count"] == 2);
  CHECK(dns["sum"] == 130.0);
  CHECK(env.histograms.open_count() == 0);

  // A resolve on a request's source is not a pre-resolve.
  auto request = env.Make(NetLogSourceType::URL_REQUEST);
  request.BeginEvent(Type::HOST_RESOLVER_MANAGER_REQUEST, host("d.test"));
  env.Advance(5);
  request.EndEvent(Type::HOST_RESOLVER_MANAGER_REQUEST, from("job"));
  CHECK(env.Get("dns.preresolve")["count"] == 2);
}

TEST_CASE("StackHistograms bounds the BEGINs it waits on", "[stack_histograms]") {
  VirtualScheduler scheduler;
  NetLog net_log(scheduler);
  VirtualScheduler other_scheduler;
  NetLog other(other_scheduler);  // outlives the histograms, which detach on destruction
  StackHistograms histograms(4);
  histograms.Attach(&net_log);
  std::vector<NetLogWithSource> jobs;
  for (int i = 0; i < 10; ++i) {
    jobs.push_back(NetLogWithSource::Make(&net_log, NetLogSourceType::CONNECT_JOB));
    jobs.back().BeginEvent(Type::CONNECT_JOB);
  }
  CHECK(histograms.open_count() == 4);
  CHECK(histograms.ToJson()["forgotten_open"] == 6);
  scheduler.AdvanceBy(Milliseconds(12));
  jobs[0].EndEventWithNetErrorCode(Type::CONNECT_JOB, OK);  // forgotten: not counted
  jobs[9].EndEventWithNetErrorCode(Type::CONNECT_JOB, OK);
  nlohmann::json connect = histograms.ToJson()["histograms"][2];
  CHECK(connect["count"] == 1);
  CHECK(connect["sum"] == 12.0);
  CHECK(histograms.open_count() == 3);

  // Reset forgets the counts; a new NetLog forgets the open BEGINs (its ids start again).
  histograms.Reset();
  CHECK(histograms.ToJson()["histograms"][2]["count"] == 0);
  CHECK(histograms.ToJson()["forgotten_open"] == 0);
  histograms.Attach(&other);
  CHECK(histograms.open_count() == 0);
  CHECK_FALSE(net_log.IsCapturing());
  CHECK(other.IsCapturing());
  CHECK(histograms.EstimateMemoryUsage() > 0);
}

TEST_CASE("StackHistograms measures the simulated stack", "[stack_histograms][sim]") {
  // dns 50 ms, rtt 80 ms, TLS 1.2 (two round trips), server 100 ms.
  test::SimTestEnv env(test::SimTestEnv::WorkedExample());
  StackHistograms histograms;
  histograms.Attach(&env.net_log);
  test::FetchResult result = env.Fetch("https://a.test/size/1000");
  REQUIRE(result.result == OK);

  ContextSpeculationTarget target(env.context);
  int preresolved = ERR_IO_PENDING;
  int rv = target.Preresolve({"https", "b.test", 443},
                             NetLogWithSource::Make(&env.net_log, NetLogSourceType::PREDICTOR),
                             [&](int r) { preresolved = r; });
  REQUIRE(rv == ERR_IO_PENDING);
  env.Advance(Seconds(1));
  REQUIRE(preresolved == OK);

  auto get = [&](const std::string& name) {
    nlohmann::json all = histograms.ToJson();
    for (const auto& h : all["histograms"])
      if (h["name"] == name) return h;
    return nlohmann::json();
  };
  nlohmann::json dns = get("dns.resolve");
  nlohmann::json pre = get("dns.preresolve");
  nlohmann::json connect = get("connect_job");
  nlohmann::json wait = get("connect_wait");
  nlohmann::json ttfb = get("ttfb");
  INFO(histograms.ToJson().dump());
  CHECK(dns["count"] == 2);  // a.test, then b.test
  CHECK(pre["count"] == 1);
  CHECK(connect["count"] == 1);
  CHECK(ttfb["count"] == 1);
  // The request's own phases, as its record has them.
  const LoadTimingPhases phases = ComputeLoadTimingPhases(result.timing, result.start);
  CHECK(wait["count"] == 1);
  CHECK(wait["sum"].get<double>() == phases.connect_wait_ms());
  CHECK(ttfb["sum"].get<double>() == phases.ttfb_ms);
  // The lookups take the modelled DNS latency; the fetch's own timing agrees.
  CHECK(dns["min"].get<double>() == Approx(ToMilliseconds(result.dns())).margin(1));
  CHECK(dns["min"].get<double>() == Approx(50).margin(5));
  CHECK(pre["min"].get<double>() == Approx(50).margin(5));
  // Resolve, the TCP handshake (1 RTT) and TLS 1.2 (2 RTTs).
  CHECK(connect["min"].get<double>() >= 50 + 3 * 80);
  CHECK(connect["min"].get<double>() < 50 + 5 * 80);
  // One round trip plus the server's time.
  CHECK(ttfb["min"].get<double>() >= 80 + 100);
  CHECK(ttfb["min"].get<double>() < 80 + 100 + 80);
  CHECK(histograms.open_count() == 0);
}

}  // namespace
}  // namespace netstack
