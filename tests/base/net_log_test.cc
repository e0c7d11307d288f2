#include <catch2/catch.hpp>

#include <vector>

#include "net/base/net_log.h"
#include "net/base/virtual_scheduler.h"

using namespace netstack;

namespace {
struct Recorder : NetLog::Observer {
  std::vector<NetLogEntry> entries;
  void OnAddEntry(const NetLogEntry& e) override { entries.push_back(e); }
};
}  // namespace

TEST_CASE("netlog: params are built only while observed; sources get unique ids") {
  VirtualScheduler clock;
  NetLog log(clock);
  int built = 0;
  auto a = NetLogWithSource::Make(&log, NetLogSourceType::URL_REQUEST);
  a.AddEvent(NetLogEventType::REQUEST_ALIVE, [&] {
    ++built;
    return nlohmann::json{{"x", 1}};
  });
  CHECK(built == 0);

  Recorder rec;
  log.AddObserver(&rec);
  auto b = NetLogWithSource::Make(&log, NetLogSourceType::SOCKET);
  CHECK(b.source().id != a.source().id);
  clock.AdvanceBy(std::chrono::milliseconds(5));
  b.BeginEvent(NetLogEventType::TCP_CONNECT, [&] {
    ++built;
    return nlohmann::json{{"address", "1.2.3.4:80"}};
  });
  b.EndEventWithNetErrorCode(NetLogEventType::TCP_CONNECT, -102);
  b.AddEventReferencingSource(NetLogEventType::SOCKET_POOL_BOUND_TO_SOCKET, a.source());
  log.RemoveObserver(&rec);
  b.AddEvent(NetLogEventType::SOCKET_CLOSED);

  REQUIRE(rec.entries.size() == 3);
  CHECK(built == 1);
  CHECK(rec.entries[0].phase == NetLogEventPhase::BEGIN);
  CHECK(rec.entries[0].time == TimeTicks(std::chrono::milliseconds(5)));
  CHECK(rec.entries[1].params["net_error"] == -102);
  CHECK(rec.entries[2].params["source_dependency"]["id"] == a.source().id);
  CHECK(std::string(NetLogEventTypeToString(NetLogEventType::TCP_CONNECT)) == "TCP_CONNECT");
}

TEST_CASE("netlog: a default NetLogWithSource drops events") {
  NetLogWithSource none;
  none.AddEvent(NetLogEventType::FAILED);
  CHECK_FALSE(none.IsCapturing());
}
