// NetLogRing's unserialized capture: what an entry costs the byte budget, eviction by it, the
// last-observer hook that moves params in, and the JSON it writes on request being exactly what
// serializing every entry on arrival gave (NetLogEntryToJson plus seq and the type names).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "net/base/net_log.h"
#include "net/base/net_log_file_writer.h"
#include "net/base/net_log_ring.h"
#include "net/base/virtual_scheduler.h"

namespace netstack {
namespace {

using json = nlohmann::json;

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// What the ring used to store for an entry, serialized on arrival: NetLogEntryToJson's fields
// plus seq and the type names in sorted order, then the params spliced in last.
std::string OldText(const NetLogEntry& entry, uint64_t seq) {
  json j = NetLogEntryToJson(entry);
  j.erase("params");
  j["seq"] = seq;
  j["type_name"] = NetLogEventTypeToString(entry.type);
  j["source_type_name"] = NetLogSourceTypeToString(entry.source.type);
  std::string text = Dump(j);
  text.pop_back();  // the closing brace
  if (!entry.params.is_null() && !entry.params.empty()) text += ",\"params\":" + Dump(entry.params);
  return text + "}";
}

// Keeps a copy of every entry (params included) in arrival order.
class Recorder : public NetLog::Observer {
 public:
  void OnAddEntry(const NetLogEntry& entry) override { entries.push_back(entry); }
  std::vector<NetLogEntry> entries;
};

struct Env {
  VirtualScheduler scheduler;
  NetLog net_log{scheduler};
};

// A sample of the shapes params take: none, empty, nested, arrays, escapes, bad UTF-8, numbers
// of every kind, a source dependency, times that round down to the millisecond.
void EmitSample(Env& env) {
  env.scheduler.AdvanceBy(TimeDelta(1'234'567));
  auto request = NetLogWithSource::Make(&env.net_log, NetLogSourceType::URL_REQUEST);
  auto socket = NetLogWithSource::Make(&env.net_log, NetLogSourceType::SOCKET);
  request.BeginEvent(NetLogEventType::REQUEST_ALIVE);
  request.AddEvent(NetLogEventType::HOST_RESOLVER_MANAGER_CACHE_HIT, [] { return json::object(); });
  env.scheduler.AdvanceBy(TimeDelta(999));
  request.AddEvent(NetLogEventType::HOST_RESOLVER_MANAGER_CACHE_HIT, [] {
    return json{{"host", "a \"quoted\" \\ name\n\t\u00e9\u4e2d"},
                {"bad", std::string("bytes \xff\xfe end")},
                {"list", {1, -2, 3.5, 1e300, true, nullptr, "x"}},
                {"nested", {{"deep", {{"z", 1}, {"a", json::array()}}}}},
                {"big", UINT64_MAX},
                {"neg", INT64_MIN},
                {"half", 0.1}};
  });
  socket.AddEventReferencingSource(NetLogEventType::SOCKET_POOL_BOUND_TO_SOCKET, request.source());
  socket.AddEvent(NetLogEventType::SOCKET_ALIVE, [] { return json("a bare string"); });
  socket.AddEvent(NetLogEventType::SOCKET_ALIVE, [] { return json(42); });
  socket.AddEvent(NetLogEventType::SOCKET_ALIVE, [] { return json::array(); });
  env.scheduler.AdvanceBy(TimeDelta(1));
  request.EndEventWithNetErrorCode(NetLogEventType::REQUEST_ALIVE, -105);
}

TEST_CASE("NetLogRing answers with the JSON serializing on arrival gave", "[net_log_ring]") {
  Env env;
  Recorder recorder;
  NetLogRing ring;
  env.net_log.AddObserver(&recorder);
  ring.Attach(&env.net_log);
  EmitSample(env);
  REQUIRE(recorder.entries.size() == 8);

  // /api/events: each event, once dumped (as the router does), is the old text read back.
  json events = ring.EventsAfter(0, 100, "")["events"];
  REQUIRE(events.size() == recorder.entries.size());
  for (size_t i = 0; i < events.size(); ++i) {
    const std::string old_text = OldText(recorder.entries[i], i + 1);
    INFO("entry " << i << ": " << old_text);
    CHECK(Dump(events[i]) == Dump(json::parse(old_text)));
  }
  // The export writes the old text itself, byte for byte.
  std::string exported = ring.ExportNetLog(0, "", {});
  size_t begin = exported.find("\n\"events\": [\n") + 13;
  size_t end = exported.find("\n],\n\"polledData\"");
  std::string expected;
  for (size_t i = 0; i < recorder.entries.size(); ++i)
    expected += (i ? ",\n" : "") + OldText(recorder.entries[i], i + 1);
  CHECK(exported.substr(begin, end - begin) == expected);

  // One source's timeline: the same entries plus offsets.
  json source = ring.SourceEvents(recorder.entries[0].source.id);
  REQUIRE(source["events"].size() == 4);
  json first = source["events"][0];
  first.erase("offset_ms");
  CHECK(Dump(first) == Dump(json::parse(OldText(recorder.entries[0], 1))));

  // The filter searches the params' text (keys included), not the entry's own keys.
  CHECK(ring.EventsAfter(0, 100, "QUOTED")["events"].size() == 1);
  CHECK(ring.EventsAfter(0, 100, "\"deep\"")["events"].size() == 1);
  CHECK(ring.EventsAfter(0, 100, "bare string")["events"].size() == 1);
  CHECK(ring.EventsAfter(0, 100, "-105")["events"].size() == 1);
  CHECK(ring.EventsAfter(0, 100, "start_time")["events"].empty());
  env.net_log.RemoveObserver(&recorder);
}

TEST_CASE("NetLog gives the ring text and other observers values, in any order", "[net_log_ring]") {
  Env env;
  Recorder before, after;
  NetLogRing ring;
  env.net_log.AddObserver(&before);
  ring.Attach(&env.net_log);
  env.net_log.AddObserver(&after);  // an observer after the ring still reads the values
  auto log = NetLogWithSource::Make(&env.net_log, NetLogSourceType::URL_REQUEST);
  log.AddEvent(NetLogEventType::HOST_RESOLVER_MANAGER_CACHE_HIT, [] {
    return json{{"host", "one.test"}};
  });
  env.net_log.RemoveObserver(&after);
  log.AddEvent(NetLogEventType::HOST_RESOLVER_MANAGER_CACHE_HIT,
               [](NetLogParams& p) { p.Add("host", "two.test"); });
  REQUIRE(before.entries.size() == 2);
  CHECK(before.entries[0].params["host"] == "one.test");
  CHECK(before.entries[1].params["host"] == "two.test");
  REQUIRE(after.entries.size() == 1);
  CHECK(after.entries[0].params["host"] == "one.test");
  json events = ring.EventsAfter(0, 10, "")["events"];
  REQUIRE(events.size() == 2);
  CHECK(events[0]["params"]["host"] == "one.test");
  CHECK(events[1]["params"]["host"] == "two.test");
  env.net_log.RemoveObserver(&before);
}

TEST_CASE("NetLogRing counts an entry's struct and its params' heap", "[net_log_ring]") {
  Env env;
  NetLogRing ring;
  ring.Attach(&env.net_log);
  auto log = NetLogWithSource::Make(&env.net_log, NetLogSourceType::URL_REQUEST);
  log.AddEvent(NetLogEventType::SOCKET_ALIVE);
  const size_t bare = ring.bytes();
  CHECK(bare > 0);
  CHECK(bare <= 80);  // a compact struct, no text
  log.AddEvent(NetLogEventType::SOCKET_ALIVE, [] { return json::object(); });  // empty: none
  CHECK(ring.bytes() == 2 * bare);
  // Short params text lives inside the struct's string; longer text adds its heap.
  log.AddEvent(NetLogEventType::SOCKET_ALIVE, [] { return json{{"k", 1}}; });
  CHECK(ring.bytes() == 3 * bare);
  log.AddEvent(NetLogEventType::SOCKET_ALIVE, [] { return json{{"k", std::string(1000, 'x')}}; });
  CHECK(ring.bytes() > 4 * bare + 1000);
  CHECK(ring.bytes() < 4 * bare + 1100);
  CHECK(ring.EstimateMemoryUsage() >= ring.bytes());
}

TEST_CASE("NetLogRing keeps its byte bound, evicting the oldest", "[net_log_ring]") {
  Env env;
  auto log = NetLogWithSource::Make(&env.net_log, NetLogSourceType::URL_REQUEST);
  auto add = [&](size_t n) {
    log.AddEvent(NetLogEventType::HOST_RESOLVER_MANAGER_CACHE_HIT, [n] {
      return json{{"host", std::string(n, 'h')}};
    });
  };
  size_t small = 0;
  {
    NetLogRing probe;
    probe.Attach(&env.net_log);
    add(100);
    small = probe.bytes();
  }
  NetLogRing ring({.max_entries = 1000, .max_bytes = small * 10});
  ring.Attach(&env.net_log);
  for (int i = 0; i < 25; ++i) {
    add(100);
    CHECK(ring.bytes() <= small * 10);
  }
  CHECK(ring.size() == 10);
  CHECK(ring.dropped() == 15);
  CHECK(ring.EventsAfter(0, 100, "")["first_seq"] == 16);

  // A big entry evicts as many old ones as it needs; the newest stay.
  add(small * 4);
  CHECK(ring.bytes() <= small * 10);
  CHECK(ring.size() < 10);
  json events = ring.EventsAfter(0, 100, "")["events"];
  CHECK(events.back()["seq"] == 26);
  CHECK(events.back()["params"]["host"].get<std::string>().size() == small * 4);
  CHECK(ring.dropped() == 15 + (10 + 1 - ring.size()));

  // Over the whole budget by itself: dropped at once, the others kept.
  const size_t kept = ring.size();
  add(small * 11);
  CHECK(ring.size() == kept);
  CHECK(ring.EventsAfter(0, 100, "")["next_seq"] == 28);
}

}  // namespace
}  // namespace netstack
