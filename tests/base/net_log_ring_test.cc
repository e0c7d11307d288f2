// NetLogRing: the Events view's buffer. Sequence numbers, eviction by count and bytes, the
// filter, the limit, one source's timeline, the NetLog export and a change of NetLog.
#include "net/base/net_log_ring.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "net/base/net_log.h"
#include "net/base/virtual_scheduler.h"

namespace netstack {
namespace {

struct Env {
  VirtualScheduler scheduler;
  NetLog net_log{scheduler};
};

void AddHost(const NetLogWithSource& log, const std::string& host) {
  log.AddEvent(NetLogEventType::HOST_RESOLVER_MANAGER_CACHE_HIT, [&] {
    return nlohmann::json{{"host", host}};
  });
}

TEST_CASE("NetLogRing numbers entries in arrival order", "[net_log_ring]") {
  Env env;
  NetLogRing ring;
  ring.Attach(&env.net_log);
  auto request = NetLogWithSource::Make(&env.net_log, NetLogSourceType::URL_REQUEST);
  request.BeginEvent(NetLogEventType::REQUEST_ALIVE);
  AddHost(request, "a.test");
  request.EndEvent(NetLogEventType::REQUEST_ALIVE);

  nlohmann::json j = ring.EventsAfter(0, 100, "");
  CHECK(j["first_seq"] == 1);
  CHECK(j["next_seq"] == 4);
  CHECK(j["dropped"] == 0);
  CHECK(j["more"] == false);
  REQUIRE(j["events"].size() == 3);
  for (int i = 0; i < 3; ++i) CHECK(j["events"][i]["seq"] == i + 1);
  const nlohmann::json& first = j["events"][0];
  CHECK(first["type_name"] == "REQUEST_ALIVE");
  CHECK(first["type"] == static_cast<int>(NetLogEventType::REQUEST_ALIVE));
  CHECK(first["source_type_name"] == "URL_REQUEST");
  CHECK(first["source"]["id"] == request.source().id);
  CHECK(first["phase"] == 1);
  CHECK(first["time"] == "0");
  CHECK_FALSE(first.contains("params"));
  CHECK(j["events"][1]["params"]["host"] == "a.test");

  // Only what came after.
  nlohmann::json later = ring.EventsAfter(2, 100, "");
  REQUIRE(later["events"].size() == 1);
  CHECK(later["events"][0]["seq"] == 3);
  CHECK(ring.EventsAfter(3, 100, "")["events"].empty());
  CHECK(ring.EventsAfter(3, 100, "")["next_seq"] == 4);
}

TEST_CASE("NetLogRing evicts the oldest past its entry count", "[net_log_ring]") {
  Env env;
  NetLogRing ring({.max_entries = 3, .max_bytes = 1 << 20});
  ring.Attach(&env.net_log);
  auto log = NetLogWithSource::Make(&env.net_log, NetLogSourceType::URL_REQUEST);
  for (int i = 0; i < 5; ++i) AddHost(log, "h" + std::to_string(i));
  CHECK(ring.size() == 3);
  CHECK(ring.dropped() == 2);
  nlohmann::json j = ring.EventsAfter(0, 100, "");
  CHECK(j["first_seq"] == 3);
  CHECK(j["dropped"] == 2);
  REQUIRE(j["events"].size() == 3);
  CHECK(j["events"][0]["params"]["host"] == "h2");
}

TEST_CASE("NetLogRing evicts the oldest past its byte budget", "[net_log_ring]") {
  Env env;
  auto log = NetLogWithSource::Make(&env.net_log, NetLogSourceType::URL_REQUEST);
  size_t one = 0;
  {
    NetLogRing probe;
    probe.Attach(&env.net_log);
    AddHost(log, "h0");
    one = probe.bytes();
  }
  REQUIRE(one > 0);
  NetLogRing ring({.max_entries = 1000, .max_bytes = one * 5 / 2});
  ring.Attach(&env.net_log);
  for (int i = 0; i < 6; ++i) AddHost(log, "h" + std::to_string(i));  // same size each
  CHECK(ring.size() == 2);
  CHECK(ring.bytes() <= one * 5 / 2);
  CHECK(ring.dropped() == 4);
  CHECK(ring.EstimateMemoryUsage() >= ring.bytes());

  // An entry larger than the whole budget is dropped at once, keeping the others.
  AddHost(log, std::string(one * 3, 'x'));
  CHECK(ring.size() == 2);
  CHECK(ring.dropped() == 5);
  CHECK(ring.EventsAfter(0, 10, "")["next_seq"] == 8);  // its number is used up
}

TEST_CASE("NetLogRing filters on names, params and source id", "[net_log_ring]") {
  Env env;
  NetLogRing ring;
  ring.Attach(&env.net_log);
  std::vector<NetLogWithSource> sources;
  for (int i = 0; i < 12; ++i)
    sources.push_back(NetLogWithSource::Make(&env.net_log, NetLogSourceType::CONNECT_JOB));
  auto request = NetLogWithSource::Make(&env.net_log, NetLogSourceType::URL_REQUEST);  // id 13
  AddHost(request, "Example.COM");
  sources[0].BeginEvent(NetLogEventType::CONNECT_JOB);   // id 1
  sources[11].BeginEvent(NetLogEventType::CONNECT_JOB);  // id 12

  auto count = [&](const std::string& filter) {
    return ring.EventsAfter(0, 100, filter)["events"].size();
  };
  CHECK(count("") == 3);
  CHECK(count("example.com") == 1);  // params, any case
  CHECK(count("EXAMPLE") == 1);
  CHECK(count("url_request") == 1);  // source type name
  CHECK(count("cache_hit") == 1);    // event type name
  CHECK(count("connect_job") == 2);
  CHECK(count("id:1") == 1);  // exactly source 1, not 12 or 13
  CHECK(count("id:12") == 1);
  CHECK(count("ID:13") == 1);
  CHECK(count("id:99") == 0);
  CHECK(count("nothing-like-it") == 0);
  // The filter does not look at the stored JSON's own keys.
  CHECK(count("source_type_name") == 0);
}

TEST_CASE("NetLogRing clamps the limit and says where to go on", "[net_log_ring]") {
  Env env;
  NetLogRing ring;
  ring.Attach(&env.net_log);
  auto log = NetLogWithSource::Make(&env.net_log, NetLogSourceType::URL_REQUEST);
  for (int i = 0; i < 6000; ++i) log.AddEvent(NetLogEventType::SOCKET_BYTES_SENT);

  nlohmann::json zero = ring.EventsAfter(0, 0, "");
  REQUIRE(zero["events"].size() == 1);  // at least one
  CHECK(zero["more"] == true);
  CHECK(zero["next_seq"] == 2);

  nlohmann::json big = ring.EventsAfter(0, 1'000'000, "");
  CHECK(big["events"].size() == 5000);
  CHECK(big["more"] == true);
  CHECK(big["next_seq"] == 5001);
  nlohmann::json rest = ring.EventsAfter(big["next_seq"].get<uint64_t>() - 1, 5000, "");
  CHECK(rest["events"].size() == 1000);
  CHECK(rest["events"][0]["seq"] == 5001);
  CHECK(rest["more"] == false);
  CHECK(rest["next_seq"] == 6001);
}

TEST_CASE("NetLogRing gives one source's events with offsets", "[net_log_ring]") {
  Env env;
  NetLogRing ring;
  ring.Attach(&env.net_log);
  env.scheduler.AdvanceBy(Milliseconds(100));
  auto a = NetLogWithSource::Make(&env.net_log, NetLogSourceType::URL_REQUEST);
  auto b = NetLogWithSource::Make(&env.net_log, NetLogSourceType::SOCKET);
  a.BeginEvent(NetLogEventType::REQUEST_ALIVE);
  env.scheduler.AdvanceBy(Milliseconds(5));
  b.AddEvent(NetLogEventType::SOCKET_ALIVE);
  env.scheduler.AdvanceBy(TimeDelta(2500));
  a.EndEvent(NetLogEventType::REQUEST_ALIVE);

  nlohmann::json j = ring.SourceEvents(a.source().id);
  CHECK(j["source_id"] == a.source().id);
  CHECK(j["truncated"] == false);
  REQUIRE(j["events"].size() == 2);
  CHECK(j["events"][0]["offset_ms"] == 0.0);
  CHECK(j["events"][1]["offset_ms"] == Approx(7.5));
  CHECK(j["events"][1]["seq"] == 3);
  CHECK(j["events"][1]["type_name"] == "REQUEST_ALIVE");
  CHECK(ring.SourceEvents(77)["events"].empty());
}

TEST_CASE("NetLogRing exports a NetLog file Chrome's viewer reads", "[net_log_ring]") {
  Env env;
  NetLogRing ring({.max_entries = 2, .max_bytes = 1 << 20});
  ring.Attach(&env.net_log);
  auto log = NetLogWithSource::Make(&env.net_log, NetLogSourceType::URL_REQUEST);
  AddHost(log, "a.test");
  AddHost(log, "b.test");
  AddHost(log, "bad utf-8 \xff\xfe");  // must not break the export

  std::string text = ring.ExportNetLog(1'700'000'000'000, "netstack internals",
                                       {{"hostResolverInfo", {{"size", 1}}}});
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  CHECK(j["constants"]["logEventTypes"]["CONNECT_JOB"] ==
        static_cast<int>(NetLogEventType::CONNECT_JOB));
  CHECK(j["constants"]["timeTickOffset"] == "1700000000000");
  CHECK(j["constants"]["clientInfo"]["command_line"] == "netstack internals");
  REQUIRE(j["events"].size() == 2);
  CHECK(j["events"][0]["params"]["host"] == "b.test");
  CHECK(j["polledData"]["dropped_events"] == 1);
  CHECK(j["polledData"]["hostResolverInfo"]["size"] == 1);

  // Empty ring, non-object polled data: still a complete file.
  NetLogRing empty;
  nlohmann::json e = nlohmann::json::parse(empty.ExportNetLog(0, "", nullptr), nullptr, false);
  REQUIRE_FALSE(e.is_discarded());
  CHECK(e["events"].empty());
  CHECK(e["polledData"]["dropped_events"] == 0);
}

TEST_CASE("NetLogRing follows a change of NetLog and keeps numbering", "[net_log_ring]") {
  Env first, second;
  NetLogRing ring;
  ring.Attach(&first.net_log);
  auto a = NetLogWithSource::Make(&first.net_log, NetLogSourceType::URL_REQUEST);  // id 1
  AddHost(a, "pass1.test");
  ring.Attach(&first.net_log);  // the same one: nothing changes
  CHECK(first.net_log.IsCapturing());

  ring.Attach(&second.net_log);
  CHECK_FALSE(first.net_log.IsCapturing());
  AddHost(a, "ignored.test");  // the old NetLog is no longer observed
  auto b = NetLogWithSource::Make(&second.net_log, NetLogSourceType::SOCKET);  // id 1 again
  auto c = NetLogWithSource::Make(&second.net_log, NetLogSourceType::SOCKET);  // id 2
  AddHost(b, "pass2.test");
  c.AddEventReferencingSource(NetLogEventType::SOCKET_POOL_BOUND_TO_SOCKET, b.source());

  nlohmann::json j = ring.EventsAfter(0, 100, "");
  REQUIRE(j["events"].size() == 3);
  CHECK(j["events"][1]["seq"] == 2);
  CHECK(j["events"][1]["params"]["host"] == "pass2.test");
  // Source 1 is the newest pass's.
  nlohmann::json source = ring.SourceEvents(1);
  REQUIRE(source["events"].size() == 1);
  CHECK(source["events"][0]["params"]["host"] == "pass2.test");

  // The export keeps the passes' sources apart: the earlier pass's id 1 moves past 2.
  nlohmann::json exported = nlohmann::json::parse(ring.ExportNetLog(0, "", {}), nullptr, false);
  REQUIRE_FALSE(exported.is_discarded());
  CHECK(exported["events"][0]["source"]["id"] == 3);
  CHECK(exported["events"][1]["source"]["id"] == 1);
  CHECK(exported["events"][2]["params"]["source_dependency"]["id"] == 1);

  ring.Attach(nullptr);
  CHECK_FALSE(second.net_log.IsCapturing());
  {
    NetLogRing scoped;
    scoped.Attach(&second.net_log);
  }
  CHECK_FALSE(second.net_log.IsCapturing());  // the destructor detached
  AddHost(b, "after.test");                   // no observer left to reach
}

}  // namespace
}  // namespace netstack
