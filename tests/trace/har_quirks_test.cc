// What HAR writers routinely put in their files (WebPageTest, Chrome, Firefox, Safari, Charles,
// Fiddler, Browsertime, har-export-trigger): none of it refuses a file or drops an entry
// without counting it.
#include <catch2/catch.hpp>

#include "tests/trace/trace_test_util.h"
#include "tools/replay/trace/har_reader.h"

namespace netstack {
namespace {

using nlohmann::json;
using test::HarDocument;
using test::HarEntry;

// Parses a document holding the navigation and `entry`; both must be read, none skipped.
TraceEntry ReadSecond(const json& entry) {
  json doc = HarDocument({HarEntry("https://a.test/", "2024-01-01T00:00:00Z"), entry});
  HarFile har = test::ParseOrFail(doc);
  REQUIRE(har.pages.size() == 1);
  CHECK(har.pages[0].skipped_entries == 0);
  REQUIRE(har.pages[0].entries.size() == 2);
  return har.pages[0].entries[1];
}

json Entry() {
  return HarEntry("https://a.test/x.js", "2024-01-01T00:00:01Z", 100, "application/javascript");
}

TEST_CASE("HAR quirks: null members read as absent", "[trace][har]") {
  json entry = Entry();
  for (const char* key : {"time", "timings", "cache", "pageref", "connection", "comment"})
    entry[key] = nullptr;
  entry["timings"] = {{"blocked", nullptr}, {"dns", nullptr}, {"wait", 60}, {"receive", 40}};
  for (const char* key : {"headers", "bodySize", "httpVersion", "postData", "cookies",
                          "queryString", "headersSize", "method"})
    entry["request"][key] = nullptr;
  for (const char* key : {"statusText", "headers", "content", "redirectURL", "httpVersion",
                          "bodySize", "headersSize", "cookies", "_transferSize"})
    entry["response"][key] = nullptr;
  TraceEntry read = ReadSecond(entry);
  CHECK(read.method == "GET");
  CHECK(read.status == 200);
  CHECK(read.recorded_total_ms == 100);  // the phases' sum
}

TEST_CASE("HAR quirks: optional objects and members missing", "[trace][har]") {
  json entry = Entry();
  for (const char* key : {"time", "cache", "pageref", "connection", "serverIPAddress"})
    entry.erase(key);
  for (const char* key : {"headers", "httpVersion", "bodySize", "headersSize", "method"})
    entry["request"].erase(key);
  for (const char* key : {"statusText", "headers", "content", "redirectURL", "httpVersion",
                          "bodySize", "headersSize"})
    entry["response"].erase(key);
  TraceEntry read = ReadSecond(entry);
  CHECK(read.recorded_total_ms == 100);  // "time" absent: the phases' sum
  CHECK(read.resource_type == "other");  // no MIME type anywhere
}

TEST_CASE("HAR quirks: comments and extensions of any type", "[trace][har]") {
  json entry = Entry();
  entry["comment"] = "";
  entry["request"]["comment"] = "note";
  entry["response"]["comment"] = "";
  entry["timings"]["comment"] = "";
  entry["cache"] = json::object();  // WebPageTest, Firefox
  // Extensions whose type is not what the reader expects mean "not said".
  entry["_resourceType"] = 5;
  entry["response"]["_transferSize"] = "12";
  entry["_fromCache"] = 3;
  entry["_initiator"] = 7;
  entry["_initiator_detail"] = "{not json";
  entry["_was_pushed"] = "yes";
  entry["_protocol"] = 2;
  entry["_connectionReused"] = "no";
  entry["_socket"] = "x";
  entry["_priority"] = json::array({1, 2});
  entry["_fetchType"] = "Network Load";  // Safari
  entry["_securityDetails"] = {{"protocol", "TLS 1.3"}};
  entry["_custom"] = {{"deep", {{"deeper", json::array({nullptr, 1.5, "x"})}}}};
  TraceEntry read = ReadSecond(entry);
  CHECK(read.resource_type == "script");  // from the MIME type
  CHECK_FALSE(read.recorded_from_cache);
  CHECK_FALSE(read.pushed);
  CHECK(read.response_body_bytes == 1000);

  json doc = HarDocument({HarEntry("https://a.test/", "2024-01-01T00:00:00Z")});
  doc["log"]["comment"] = "exported";
  doc["log"]["browser"] = {{"name", "Safari"}, {"version", "17"}};
  doc["log"]["pages"][0]["comment"] = "";
  doc["log"]["pages"][0]["_run"] = "1";  // not a number: no run
  doc["log"]["pages"][0]["pageTimings"]["_startRender"] = 120;
  doc["log"]["pages"][0]["pageTimings"]["comment"] = "";
  doc["log"]["_lighthouse"] = {{"any", "thing"}};
  HarFile har = test::ParseOrFail(doc);
  CHECK(har.pages[0].recorded_onload_ms == 300);
}

TEST_CASE("HAR quirks: what each writer adds", "[trace][har]") {
  // WebPageTest: status -1 for aborted requests, "_socket" ids, -1 phases, send 0.
  json wpt = Entry();
  wpt["response"]["status"] = -1;
  wpt["_socket"] = 12;
  wpt["_run"] = 1;
  wpt["_cached"] = 0;
  wpt["timings"] = {{"blocked", -1}, {"dns", -1},  {"connect", -1}, {"ssl", -1},
                    {"send", 0},     {"wait", 80}, {"receive", 20}};
  TraceEntry read = ReadSecond(wpt);
  CHECK(read.recorded_error == "status -1");
  CHECK(read.connection_id == "12");
  // Firefox: "timings": {} and "time": null on pushed streams, ports as "connection".
  json firefox = Entry();
  firefox["time"] = nullptr;
  firefox["timings"] = json::object();
  firefox["response"]["status"] = 0;
  firefox["connection"] = "443";
  read = ReadSecond(firefox);
  CHECK(read.pushed);
  CHECK(read.connection_id.empty());  // the only id is its port: not a connection
  // Charles and Fiddler: integer times, "ssl" in the timings, a string connection label.
  json charles = Entry();
  charles["time"] = 100;
  charles["timings"]["ssl"] = 10;
  charles["timings"]["connect"] = 30;
  charles["connection"] = "ClientPort:51234";
  read = ReadSecond(charles);
  CHECK(read.connection_id == "ClientPort:51234");
  CHECK(read.timings.ssl == 10);
  // har-export-trigger and Firefox: dates with an offset, fractional times.
  json trigger = HarEntry("https://a.test/y", "2024-01-01T01:00:01.5+01:00", 12.25);
  read = ReadSecond(trigger);
  CHECK(read.start_ms == 1500);
  CHECK(read.recorded_total_ms == 12.25);
}

}  // namespace
}  // namespace netstack
