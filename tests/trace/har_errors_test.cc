// Every way a HAR can be malformed gives one line naming the file, where (line:column for
// syntax, the JSON path of the entry otherwise) and the problem.
#include <catch2/catch.hpp>
#include <functional>

#include "tests/trace/trace_test_util.h"
#include "tools/replay/trace/har_reader.h"

namespace netstack {
namespace {

using nlohmann::json;
using test::HarDocument;
using test::HarEntry;
using test::HarError;

json Valid() {
  return HarDocument({HarEntry("https://a.test/", "2024-01-01T00:00:00Z"),
                      HarEntry("https://a.test/x.js", "2024-01-01T00:00:01Z")});
}

// The error for `doc` after `change`; checks it is one line naming the file.
std::string ErrorAfter(const std::function<void(json&)>& change) {
  json doc = Valid();
  change(doc);
  std::string error = HarError(doc.dump());
  CHECK(error.rfind("t.har", 0) == 0);
  CHECK(error.find('\n') == std::string::npos);
  return error;
}

TEST_CASE("HAR errors: JSON syntax, with line and column", "[trace][har][errors]") {
  CHECK(HarError("{\n  \"log\": {\n    \"entries\": [,]\n  }\n}")
            .rfind("t.har:3:17: JSON syntax error: ", 0) == 0);
  CHECK(HarError("").rfind("t.har:1:1: JSON syntax error: ", 0) == 0);
  CHECK(HarError("{\"log\": {\"entries\": []}").rfind("t.har:1:24: JSON syntax error", 0) == 0);
  std::string deep(100000, '[');
  CHECK(HarError(deep) == "t.har:1:1: JSON syntax error: nested deeper than 256 levels");
}

TEST_CASE("HAR errors: the document's shape", "[trace][har][errors]") {
  CHECK(HarError("[1, 2]") == "t.har: expected a JSON object with \"log\", got an array");
  CHECK(HarError("{}") == "t.har: log: missing");
  CHECK(HarError("{\"log\": 3}") == "t.har: log: expected an object, got a number");
  CHECK(HarError("{\"log\": {}}") == "t.har: log.entries: missing");
  CHECK(HarError("{\"log\": {\"entries\": {}}}") ==
        "t.har: log.entries: expected an array, got an object");
  CHECK(HarError("{\"log\": {\"entries\": [], \"pages\": \"x\"}}") ==
        "t.har: log.pages: expected an array, got a string");
  CHECK(HarError("{\"log\": {\"entries\": [], \"creator\": {\"name\": 7}}}") ==
        "t.har: log.creator.name: expected a string, got a number");
  CHECK(HarError("{\"log\": {\"entries\": [7]}}") ==
        "t.har: log.entries[0]: expected an object, got a number");
}

TEST_CASE("HAR errors: entries", "[trace][har][errors]") {
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][1].erase("startedDateTime"); }) ==
        "t.har: log.entries[1].startedDateTime: missing");
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][1]["startedDateTime"] = "yesterday"; }) ==
        "t.har: log.entries[1].startedDateTime: 'yesterday' is not an ISO 8601 date");
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][1].erase("request"); }) ==
        "t.har: log.entries[1].request: missing");
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][1]["request"] = "GET /"; }) ==
        "t.har: log.entries[1].request: expected an object, got a string");
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][1]["request"].erase("url"); }) ==
        "t.har: log.entries[1].request.url: missing");
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][1]["request"]["url"] = 12; }) ==
        "t.har: log.entries[1].request.url: expected a string, got a number");
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][0]["request"]["method"] = false; }) ==
        "t.har: log.entries[0].request.method: expected a string, got a boolean");
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][1].erase("response"); }) ==
        "t.har: log.entries[1].response: missing");
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][1]["response"]["status"] = "200"; }) ==
        "t.har: log.entries[1].response.status: expected an integer, got a string");
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][1]["response"]["status"] = 3e9; }) ==
        "t.har: log.entries[1].response.status: 3000000000 is out of range (-2147483648 to "
        "2147483647)");
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][1]["response"]["status"] = 200.5; }) ==
        "t.har: log.entries[1].response.status: 200.5 is not an integer");
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][1]["response"]["bodySize"] = "1k"; }) ==
        "t.har: log.entries[1].response.bodySize: expected a number, got a string");
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][1]["response"]["content"] = 5; }) ==
        "t.har: log.entries[1].response.content: expected an object, got a number");
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][1]["time"] = "fast"; }) ==
        "t.har: log.entries[1].time: expected a number, got a string");
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][1]["timings"] = json::array(); }) ==
        "t.har: log.entries[1].timings: expected an object, got an array");
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][1]["timings"]["wait"] = "slow"; }) ==
        "t.har: log.entries[1].timings.wait: expected a number, got a string");
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][1]["pageref"] = 1; }) ==
        "t.har: log.entries[1].pageref: expected a string, got a number");
}

TEST_CASE("HAR errors: bounds on times and body sizes", "[trace][har][errors]") {
  // Times past ~115 days would overflow the microsecond clock when rounded.
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][1]["time"] = 1e300; }) ==
        "t.har: log.entries[1].time: 1e+300 ms is more than the limit of 10000000000");
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][1]["timings"]["wait"] = 2e10; }) ==
        "t.har: log.entries[1].timings.wait: 20000000000 ms is more than the limit of "
        "10000000000");
  // Bodies past 1 GiB would be replayed as hours of filler.
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][1]["response"]["bodySize"] = 1e15; }) ==
        "t.har: log.entries[1].response: 1e+15 bytes, more than the limit of 1 GiB per body");
  CHECK(ErrorAfter([](json& d) {
          d["log"]["entries"][1]["response"]["bodySize"] = -1;
          d["log"]["entries"][1]["response"]["content"]["size"] = 2e9;
        }) ==
        "t.har: log.entries[1].response: 2000000000 bytes, more than the limit of 1 GiB per body");
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][1]["request"]["bodySize"] = 1073741825; }) ==
        "t.har: log.entries[1].request.bodySize: 1073741825 bytes, more than the limit of 1 GiB "
        "per body");
  // The bound itself is accepted.
  json document = Valid();
  document["log"]["entries"][1]["response"]["bodySize"] = 1073741824;
  document["log"]["entries"][1]["time"] = 1e10;
  HarFile har = test::ParseOrFail(document);
  CHECK(har.pages[0].entries[1].response_body_bytes == 1073741824);
}

TEST_CASE("HAR errors: headers", "[trace][har][errors]") {
  CHECK(ErrorAfter([](json& d) { d["log"]["entries"][1]["response"]["headers"] = "x"; }) ==
        "t.har: log.entries[1].response.headers: expected an array, got a string");
  CHECK(ErrorAfter([](json& d) {
          d["log"]["entries"][1]["request"]["headers"] = json::array({{{"value", "v"}}});
        }) == "t.har: log.entries[1].request.headers[0].name: missing");
  CHECK(ErrorAfter([](json& d) {
          d["log"]["entries"][0]["response"]["headers"] =
              json::array({{{"name", "a"}, {"value", "b"}}, {{"name", "x"}, {"value", 3}}});
        }) == "t.har: log.entries[0].response.headers[1].value: expected a string, got a number");
  CHECK(ErrorAfter([](json& d) {
          json many = json::array();
          for (int i = 0; i < 1001; ++i) many.push_back({{"name", "x"}, {"value", "y"}});
          d["log"]["entries"][1]["response"]["headers"] = many;
        }) == "t.har: log.entries[1].response.headers: 1001 headers, more than the limit of 1000");
}

TEST_CASE("HAR errors: pages", "[trace][har][errors]") {
  CHECK(ErrorAfter([](json& d) { d["log"]["pages"][0].erase("id"); }) ==
        "t.har: log.pages[0].id: missing");
  CHECK(ErrorAfter([](json& d) { d["log"]["pages"][0]["startedDateTime"] = "noon"; }) ==
        "t.har: log.pages[0].startedDateTime: 'noon' is not an ISO 8601 date");
  CHECK(ErrorAfter([](json& d) { d["log"]["pages"][0]["pageTimings"]["onLoad"] = "late"; }) ==
        "t.har: log.pages[0].pageTimings.onLoad: expected a number, got a string");
  CHECK(ErrorAfter([](json& d) { d["log"]["pages"].push_back(d["log"]["pages"][0]); }) ==
        "t.har: log.pages[1].id: page id 'page_1' is already used by log.pages[0]");
}

TEST_CASE("HAR errors: limits", "[trace][har][errors]") {
  std::string entries = "{\"log\": {\"entries\": [0";
  for (int i = 0; i < 100'000; ++i) entries += ",0";
  CHECK(HarError(entries + "]}}") ==
        "t.har: log.entries: 100001 entries, more than the limit of 100000");
  std::string pages = "{\"log\": {\"entries\": [], \"pages\": [0";
  for (int i = 0; i < 10'000; ++i) pages += ",0";
  CHECK(HarError(pages + "]}}") == "t.har: log.pages: 10001 pages, more than the limit of 10000");
}

TEST_CASE("HAR errors: files", "[trace][har][errors]") {
  test::TempDir dir;
  HarFile har;
  std::string error;
  CHECK_FALSE(ReadHarFile(dir.path() + "/missing.har", &har, &error));
  CHECK(error == dir.path() + "/missing.har: cannot open: No such file or directory");
  CHECK_FALSE(ReadHarFile(dir.path(), &har, &error));
  CHECK(error == dir.path() + ": is a directory");
  std::string broken = dir.Write("broken.har", "{\n\"log\": nope\n}");
  CHECK_FALSE(ReadHarFile(broken, &har, &error));
  CHECK(error.rfind(broken + ":2:9: JSON syntax error: ", 0) == 0);
  CHECK_FALSE(ReadHarFile("/dev/null", &har, &error));
  CHECK(error == "/dev/null: not a regular file");
}

}  // namespace
}  // namespace netstack
