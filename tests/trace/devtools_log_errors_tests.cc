// The DevTools protocol log reader on bad input (one-line errors naming the file and the
// message, every bound), as a file given to the other readers (OpenTrace, a session's "har"
// page, ReadRecordingFile), and on the real logs in ../shared/traces/devtools (third-party
// recordings, never copied into the repository; skipped with a message when the folder is
// absent, NETSTACK_DEVTOOLS_DIR overrides where it is looked for).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "tests/trace/devtools_test_util.h"
#include "tests/trace/trace_test_util.h"
#include "tools/replay/trace/recording_reader.h"
#include "tools/replay/trace/session_reader.h"

namespace netstack {
namespace {

using test::AddLoad;
using test::Finished;
using test::Json;
using test::Message;
using test::ParseError;
using test::Received;
using test::WillBeSent;

// A log of one document load with `message` appended.
std::string With(const Json& message) {
  Json log = Json::array();
  AddLoad(&log, "d", "https://a.test/", 1.0, 1.1, "Document");
  log.push_back(message);
  return log.dump();
}

TEST_CASE("DevTools log errors: JSON and the shape of messages", "[trace][devtools]") {
  CHECK(ParseError("[\n  {\"method\": }]").starts_with("t.json:2:14: JSON syntax error: "));
  CHECK(ParseError("{\"log\": {}}") ==
        "t.json: expected a JSON array of DevTools messages, got an object");
  CHECK(ParseError("[{\"method\": \"Page.frameStoppedLoading\"}, 3]") ==
        "t.json: message 1: expected a DevTools message (an object with \"method\"), got a number");
  CHECK(ParseError("[{\"params\": {}}]") == "t.json: message 0: method: missing");
  CHECK(ParseError("[{\"method\": 5}]") ==
        "t.json: message 0: method: expected a string, got a number");
  CHECK(ParseError("[{\"message\": \"{oops\"}]")
            .starts_with("t.json: message 0: JSON syntax error in the message's text at 1:2: "));
  Json deep = Message("Page.loadEventFired", {{"timestamp", 1}});
  for (int i = 0; i < 6; ++i) deep = deep.dump();
  CHECK(ParseError(Json::array({deep}).dump()) ==
        "t.json: message 0: expected a DevTools message (an object with \"method\"), got text "
        "wrapped more than 4 times");
  CHECK(ParseError(std::string(300, '[') + std::string(300, ']')) ==
        "t.json:1:1: JSON syntax error: nested deeper than 256 levels");
  CHECK(ParseError(std::string("[\"a\0b\"]", 7)).find("NUL") != std::string::npos);
}

TEST_CASE("DevTools log errors: each event's fields, named by message index and path",
          "[trace][devtools]") {
  CHECK(ParseError(With(Received("d", "https://a.test/", 1.05, 200, {{"status", "200"}}))) ==
        "t.json: message 3 (Network.responseReceived): params.response.status: expected an "
        "integer, got a string");
  Json no_id = WillBeSent("x", "https://a.test/x", 1.2);
  no_id["params"].erase("requestId");
  CHECK(ParseError(With(no_id)) ==
        "t.json: message 3 (Network.requestWillBeSent): params.requestId: missing");
  CHECK(ParseError(With(Message("Network.requestWillBeSent", Json::array()))) ==
        "t.json: message 3 (Network.requestWillBeSent): params: expected an object, got an array");
  Json no_url = WillBeSent("x", "https://a.test/x", 1.2);
  no_url["params"]["request"].erase("url");
  CHECK(ParseError(With(no_url)) ==
        "t.json: message 3 (Network.requestWillBeSent): params.request.url: missing");
  CHECK(ParseError(With(WillBeSent("x", "https://a.test/x", -5)))
            .starts_with("t.json: message 3 (Network.requestWillBeSent): params.timestamp: "));
  Json many = WillBeSent("x", "https://a.test/x", 1.2);
  for (int i = 0; i <= 1000; ++i)
    many["params"]["request"]["headers"]["h" + std::to_string(i)] = "v";
  CHECK(ParseError(With(many)) ==
        "t.json: message 3 (Network.requestWillBeSent): params.request.headers: 1001 headers, "
        "more than the limit of 1000");
  CHECK(ParseError(With(Received("d", "https://a.test/", 1.05, 200, {{"headers", {{"x", 1}}}}))) ==
        "t.json: message 3 (Network.responseReceived): params.response.headers: header 'x': "
        "expected a string, got a number");
  CHECK(ParseError(
            With(Received("d", "https://a.test/", 1.05, 200, {{"timing", {{"dnsStart", 1}}}}))) ==
        "t.json: message 3 (Network.responseReceived): params.response.timing.requestTime: "
        "missing");
  CHECK(ParseError(With(Message("Network.loadingFinished", {{"requestId", "d"}}))) ==
        "t.json: message 3 (Network.loadingFinished): params.timestamp: missing");
  CHECK(ParseError(With(Message("Page.loadEventFired", {{"timestamp", "soon"}}))) ==
        "t.json: message 3 (Page.loadEventFired): params.timestamp: expected a number, got "
        "a string");
  CHECK(ParseError(With(Message("Page.frameNavigated", {{"frame", {{"url", "x"}}}}))) ==
        "t.json: message 3 (Page.frameNavigated): params.frame.id: missing");
}

TEST_CASE("DevTools log errors: nothing to replay, times and sizes past the model's bounds",
          "[trace][devtools]") {
  CHECK(ParseError("[]") ==
        "t.json: no request can be replayed: the log has no Network.requestWillBeSent");
  Json only_data = Json::array();
  AddLoad(&only_data, "a", "data:text/plain,x", 1, 1);
  AddLoad(&only_data, "b", "https://a\x01z.test/", 1, 1);
  only_data.push_back(WillBeSent("c", "https://a.test/", 2));
  CHECK(ParseError(only_data.dump())
            .starts_with("t.json: no request can be replayed: 3 skipped (1 not http(s), 1 invalid "
                         "URL, 0 never answered, 1 never finished); the first invalid URL: "
                         "message 3 (Network.requestWillBeSent): params.request.url: "));
  Json long_request = Json::array();
  long_request.push_back(WillBeSent("a", "https://a.test/", 1));
  long_request.push_back(Finished("a", 2e7, 100));
  CHECK(
      ParseError(long_request.dump()) ==
      "t.json: message 0 (Network.requestWillBeSent): the request lasts 19999999000 ms, more than "
      "the limit of 10000000000 ms");
  Json huge = Json::array();
  huge.push_back(WillBeSent("a", "https://a.test/", 1));
  huge.push_back(Finished("a", 2, 2e9));
  CHECK(ParseError(huge.dump()) ==
        "t.json: message 0 (Network.requestWillBeSent): the response body of 2000000000 bytes is "
        "more than the limit of 1 GiB");
}

TEST_CASE("DevTools log errors: the bounds on messages, requests and pages", "[trace][devtools]") {
  // The documented bounds are the defaults; each is reached here with small limits (a million
  // messages took 45 s under ASan), through the same checks.
  const DevtoolsLogLimits defaults;
  CHECK(defaults.messages == 1'000'000);
  CHECK(defaults.requests == 100'000);
  CHECK(defaults.pages == 10'000);
  DevtoolsLogLimits small;
  small.messages = 50;
  small.requests = 20;
  small.pages = 5;
  auto parse_error = [&](const std::string& text) {
    HarFile har;
    std::string error;
    CHECK_FALSE(ParseDevtoolsLog(text, "t.json", &har, &error, small));
    CHECK(har.pages.empty());
    CHECK(error.find('\n') == std::string::npos);
    return error;
  };
  // The error a log gets, or "" (a log of requests without responses has nothing to replay).
  auto any_error = [&](const std::string& text) {
    HarFile har;
    std::string error;
    ParseDevtoolsLog(text, "t.json", &har, &error, small);
    return error;
  };

  std::string replies = "[";
  for (size_t i = 0; i <= small.messages; ++i) replies += i ? ",{\"id\":1}" : "{\"id\":1}";
  replies += "]";
  CHECK(parse_error(replies) == "t.json: more than the limit of 50 messages");

  Json requests = Json::array();
  requests.push_back(WillBeSent("doc", "https://a.test/", 1, "Document"));
  for (size_t i = 1; i < small.requests; ++i) {
    requests.push_back(WillBeSent(std::to_string(i), "https://a.test/", 1));
  }
  CHECK_THAT(any_error(requests.dump()), !Catch::Contains("limit"));  // exactly at the bound
  requests.push_back(WillBeSent("one-more", "https://a.test/", 1));
  CHECK(parse_error(requests.dump()) ==
        "t.json: message 20 (Network.requestWillBeSent): more than the limit of 20 requests");

  Json pages = Json::array();
  for (size_t i = 0; i <= small.pages; ++i) {
    pages.push_back(WillBeSent(std::to_string(i), "https://a.test/", 1, "Document"));
  }
  CHECK(parse_error(pages.dump()) ==
        "t.json: message 5 (Network.requestWillBeSent): more than the limit of 5 pages "
        "(main-frame navigations)");
}

TEST_CASE("DevTools log: read as a file by every reader of recordings", "[trace][devtools]") {
  test::TempDir dir;
  Json log = Json::array();
  AddLoad(&log, "d", "https://a.test/", 1.0, 1.1, "Document");
  AddLoad(&log, "d2", "https://a.test/two", 3.0, 3.1, "Document");
  dir.Write("pages/run.devtoolslog.json", log.dump(2));
  std::string path = dir.path() + "/pages/run.devtoolslog.json";

  HarFile har;
  std::string error;
  REQUIRE(ReadRecordingFile(path, &har, &error));
  CHECK(har.pages.size() == 2);
  CHECK(har.pages[1].source == path + "#page_2");
  REQUIRE(ParseRecording(log.dump(), "x", &har, &error));
  CHECK(har.pages.size() == 2);
  CHECK(SniffRecording(log.dump()) == RecordingKind::kDevtoolsLog);
  CHECK(SniffRecording("{\n \"log\": {}}") == RecordingKind::kHar);
  CHECK(SniffRecording("{\"type\": \"wait\", \"t\": 0}\n") == RecordingKind::kNone);

  // replay's OpenTrace: one navigation per page.
  std::unique_ptr<TraceSource> source = OpenTrace(path, &error);
  INFO(error);
  REQUIRE(source);
  std::vector<SessionEvent> events = test::Drain(source.get(), &error);
  CHECK(error.empty());
  int navigations = 0;
  for (const SessionEvent& event : events) {
    if (event.type == SessionEvent::Type::kNavigate) ++navigations;
  }
  CHECK(navigations == 2);

  // A session's page taken from the log (the session reader's cache of recordings).
  std::string session =
      "{\"t\": 0, \"type\": \"navigate\", \"page\": {\"har\": \"pages/run.devtoolslog.json\", "
      "\"page\": \"page_2\"}}\n";
  source = OpenSessionStream(std::make_unique<std::istringstream>(session), "s.jsonl", dir.path());
  events = test::Drain(source.get(), &error);
  INFO(error);
  REQUIRE(events.size() == 1);
  REQUIRE(events[0].page);
  CHECK(events[0].page->entries.at(0).url == "https://a.test/two");

  CHECK_FALSE(ReadRecordingFile(dir.path() + "/none.json", &har, &error));
  CHECK(error == dir.path() + "/none.json: cannot open: No such file or directory");
  CHECK_FALSE(ReadDevtoolsLogFile(dir.path() + "/none.json", &har, &error));
  CHECK(error == dir.path() + "/none.json: cannot open: No such file or directory");
  // A file over 512 MiB (sparse: nothing is written) is refused before it is read.
  std::string large = dir.path() + "/large.json";
  dir.Write("large.json", "[");
  std::filesystem::resize_file(large, (uintmax_t{512} << 20) + 1);
  CHECK_FALSE(ReadRecordingFile(large, &har, &error));
  CHECK(error == large + ": larger than the limit of 512 MiB");
  std::filesystem::remove(large);
  dir.Write("bad.json", "[{\"method\": 1}]");
  CHECK_FALSE(ReadRecordingFile(dir.path() + "/bad.json", &har, &error));
  CHECK(error == dir.path() + "/bad.json: message 0: method: expected a string, got a number");
}

std::string SharedDevtoolsDir() {
  const char* env = std::getenv("NETSTACK_DEVTOOLS_DIR");
  return env && *env ? env : SHARED_DEVTOOLS_DIR;
}

TEST_CASE("Shared DevTools logs: every file reads with sane pages and entries",
          "[trace][devtools][shared]") {
  std::vector<std::string> files;
  std::error_code error_code;
  for (const auto& item : std::filesystem::directory_iterator(SharedDevtoolsDir(), error_code)) {
    if (item.path().extension() == ".json") files.push_back(item.path().string());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    WARN("SKIPPED: no DevTools logs in " << SharedDevtoolsDir() << " (set NETSTACK_DEVTOOLS_DIR)");
    return;
  }
  int with_onload = 0, recorded_parents = 0, entries = 0;
  for (const std::string& path : files) {
    INFO(path);
    HarFile har;
    std::string error;
    bool ok = ReadRecordingFile(path, &har, &error);
    INFO(error);
    REQUIRE(ok);
    REQUIRE_FALSE(har.pages.empty());
    CHECK(har.pages[0].new_run);
    for (const TracePage& page : har.pages) {
      REQUIRE_FALSE(page.entries.empty());
      CHECK(page.started_epoch_ms > 1'400'000'000'000);  // recorded after 2014
      CHECK(page.skipped_entries == page.skipped_not_http + page.skipped_invalid_url +
                                        page.skipped_no_response + page.skipped_unfinished);
      if (page.recorded_onload_ms > 0) ++with_onload;
      for (size_t i = 0; i < page.entries.size(); ++i) {
        const TraceEntry& e = page.entries[i];
        ++entries;
        CHECK(e.parent < static_cast<int>(i));
        CHECK(e.start_ms >= 0);
        CHECK(e.recorded_total_ms >= 0);
        CHECK(e.response_body_bytes >= 0);
        CHECK(e.gap_ms >= 0);
        CHECK((e.recorded_error.empty() == (e.recorded_error_code == 0)));
        if (i > 0 && i < page.entries.size()) CHECK(e.start_ms >= page.entries[i - 1].start_ms);
        if (e.initiator == InitiatorKind::kRecorded) ++recorded_parents;
      }
    }
  }
  // The folder's README: 17 of the 21 logs record onLoad; Lighthouse's logs carry initiators.
  CHECK(with_onload >= 17);
  CHECK(recorded_parents > entries / 2);
}

}  // namespace
}  // namespace netstack
