// --netlog FILE writes Chrome's NetLog JSON layout, with the constants Chrome's netlog viewer
// requires and the events of the fetches.
#include <map>

#include "tests/integration/fetch_test_util.h"
#include "tests/integration/local_dns.h"
#include "tests/integration/temp_dir.h"

namespace netstack::test {
namespace {

TEST_CASE("netlog file is a viewer-loadable NetLog of two fetches", "[fetch][netlog]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  LocalDns dns;
  START_OR_SKIP(dns, {{"a.test", "127.0.0.1"}}, 60);
  TempDir dir("netlog");
  const std::string path = dir.Join("netlog.json");
  const std::string url = nginx.HttpUrl("/small.txt", "a.test");
  NetstackRun run = RunFetchJson({"--netlog", path, "--dns-server", dns.server(), url, url});
  CHECK_FETCH_OK(run, 2u);

  std::string text;
  REQUIRE(ReadFileToString(path, &text));
  nlohmann::json log = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  REQUIRE(log.is_object());

  REQUIRE(log.contains("constants"));
  const nlohmann::json& c = log["constants"];
  for (const char* key :
       {"logEventTypes", "clientInfo", "logEventPhase", "logSourceType", "loadFlag", "netError",
        "addressFamily", "timeTickOffset", "logFormatVersion"}) {
    INFO(key);
    CHECK(c.contains(key));
  }
  CHECK(JsonInt(c, "logFormatVersion") == 1);
  for (const char* phase : {"PHASE_BEGIN", "PHASE_END", "PHASE_NONE"}) {
    CHECK(JsonInt(c, std::string("logEventPhase/") + phase) >= 0);
  }
  CHECK(log.contains("polledData"));

  std::map<int64_t, std::string> names;
  if (c.contains("logEventTypes") && c["logEventTypes"].is_object()) {
    for (const auto& [name, value] : c["logEventTypes"].items()) {
      if (value.is_number_integer()) names[value.get<int64_t>()] = name;
    }
  }
  REQUIRE(log.contains("events"));
  REQUIRE(log["events"].is_array());
  std::map<std::string, int> seen;
  std::set<int64_t> sources;
  for (const nlohmann::json& e : log["events"]) {
    CHECK(e["time"].is_string());
    CHECK(e["phase"].is_number_integer());
    CHECK(e["source"]["id"].is_number_integer());
    CHECK(e["source"]["type"].is_number_integer());
    if (e["type"].is_number_integer()) ++seen[names[e["type"].get<int64_t>()]];
    if (e["source"]["id"].is_number_integer()) sources.insert(e["source"]["id"].get<int64_t>());
  }
  CHECK(seen["TCP_CONNECT"] >= 1);
  CHECK(seen["SOCKET_POOL_REUSED_AN_EXISTING_SOCKET"] >= 1);
  CHECK(seen["HOST_RESOLVER_MANAGER_JOB"] >= 1);
  // The socket.id of the records is the socket's NetLog source id.
  CHECK(sources.count(JsonInt(run.records[0], "socket/id")) == 1);
}

}  // namespace
}  // namespace netstack::test
