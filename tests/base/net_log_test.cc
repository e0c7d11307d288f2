#include "net/base/net_log.h"

#include <catch2/catch.hpp>
#include <vector>

#include "net/base/virtual_scheduler.h"

using namespace netstack;

namespace {
struct Recorder : NetLog::Observer {
  std::vector<NetLogEntry> entries;
  void OnAddEntry(const NetLogEntry& e) override { entries.push_back(e); }
};
}  // namespace

TEST_CASE("netlog: params are built only while observed, sources get unique ids") {
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

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "net/base/net_error.h"
#include "net/base/net_log_file_writer.h"

TEST_CASE("netlog file: Chrome's layout with the constants the viewer requires") {
  VirtualScheduler clock;
  NetLog log(clock);
  std::string path =
      std::string("/tmp/netstack-netlog-test-") + std::to_string(::getpid()) + ".json";
  std::string error;
  auto writer = NetLogFileWriter::Create(path, &log, NetLogConstants(1700000000000, "test"), &error,
                                         /*max_events=*/2);
  REQUIRE(writer);
  auto src = NetLogWithSource::Make(&log, NetLogSourceType::SOCKET);
  clock.AdvanceBy(std::chrono::milliseconds(12));
  src.BeginEvent(NetLogEventType::TCP_CONNECT, [] {
    return nlohmann::json{{"address", "\"<x>\""}};
  });
  src.EndEventWithNetErrorCode(NetLogEventType::TCP_CONNECT, OK);
  src.AddEvent(NetLogEventType::SOCKET_CLOSED);  // over max_events: dropped
  REQUIRE(writer->Finish({{"hostResolverInfo", nlohmann::json::object()}}, &error));

  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = nlohmann::json::parse(ss.str());
  for (const char* key : {"logEventTypes", "clientInfo", "logEventPhase", "logSourceType",
                          "loadFlag", "netError", "addressFamily", "timeTickOffset"})
    CHECK(j["constants"].contains(key));
  CHECK(j["constants"]["logFormatVersion"] == 1);
  CHECK(j["constants"]["logEventPhase"]["PHASE_END"] == 2);
  CHECK(j["constants"]["netError"]["ERR_NAME_NOT_RESOLVED"] == -105);
  REQUIRE(j["events"].size() == 2);
  CHECK(j["events"][0]["time"] == "12");
  CHECK(j["events"][0]["type"] == j["constants"]["logEventTypes"]["TCP_CONNECT"]);
  CHECK(j["events"][0]["phase"] == 1);
  CHECK(j["events"][0]["params"]["address"] == "\"<x>\"");
  CHECK_FALSE(j["events"][1].contains("params"));
  CHECK(j["polledData"]["netstackEventsDropped"] == 1);
  std::remove(path.c_str());
}

TEST_CASE("netlog file: an unwritable path is a clear error") {
  VirtualScheduler clock;
  NetLog log(clock);
  std::string error;
  auto writer =
      NetLogFileWriter::Create("/nonexistent-dir/x.json", &log, NetLogConstants(0, ""), &error);
  CHECK_FALSE(writer);
  CHECK(error.find("/nonexistent-dir/x.json") != std::string::npos);
}
