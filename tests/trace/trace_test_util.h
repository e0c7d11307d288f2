// Helpers for the trace reader tests: a temporary directory for session and HAR files, small
// HAR documents built in code, and draining a TraceSource.
#ifndef TESTS_TRACE_TRACE_TEST_UTIL_H_
#define TESTS_TRACE_TRACE_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"
#include "tools/replay/trace/har_reader.h"
#include "tools/replay/trace/session_reader.h"

namespace netstack::test {

// One HAR entry with the fields every writer sets; tests change what they need.
inline nlohmann::json HarEntry(const std::string& url, const std::string& started,
                               double time = 100, const std::string& mime = "text/html") {
  return {
      {"pageref", "page_1"},
      {"startedDateTime", started},
      {"time", time},
      {"request",
       {{"method", "GET"},
        {"url", url},
        {"httpVersion", "HTTP/1.1"},
        {"headers", nlohmann::json::array({{{"name", "Accept"}, {"value", "*/*"}}})},
        {"headersSize", -1},
        {"bodySize", 0}}},
      {"response",
       {{"status", 200},
        {"statusText", "OK"},
        {"httpVersion", "HTTP/1.1"},
        {"headers", nlohmann::json::array({{{"name", "Content-Type"}, {"value", mime}}})},
        {"content", {{"size", 1000}, {"mimeType", mime}}},
        {"redirectURL", ""},
        {"headersSize", 100},
        {"bodySize", 1000}}},
      {"timings",
       {{"blocked", 0},
        {"dns", -1},
        {"connect", -1},
        {"ssl", -1},
        {"send", 0},
        {"wait", time / 2},
        {"receive", time / 2}}},
  };
}

// A HAR document with one page ("page_1" starting at `started`) and `entries`.
inline nlohmann::json HarDocument(std::vector<nlohmann::json> entries,
                                  const std::string& started = "2024-01-01T00:00:00.000Z") {
  return {{"log",
           {{"version", "1.2"},
            {"creator", {{"name", "test"}, {"version", "1"}}},
            {"pages",
             nlohmann::json::array({{{"id", "page_1"},
                                     {"startedDateTime", started},
                                     {"title", "Page one"},
                                     {"pageTimings", {{"onContentLoad", 150}, {"onLoad", 300}}}}})},
            {"entries", entries}}}};
}

// Parses `doc` (dumped) as "t.har"; fails the test with the reader's error if it does not.
inline HarFile ParseOrFail(const nlohmann::json& doc) {
  HarFile har;
  std::string error;
  bool ok = ParseHar(doc.dump(), "t.har", &har, &error);
  INFO(error);
  REQUIRE(ok);
  return har;
}

// The error ParseHar gives for `text` (named "t.har"), or "" if it parsed.
inline std::string HarError(const std::string& text) {
  HarFile har;
  std::string error;
  if (ParseHar(text, "t.har", &har, &error)) return "";
  return error;
}

// Every event of `source` until its end or error (`error` set then).
inline std::vector<SessionEvent> Drain(TraceSource* source, std::string* error) {
  std::vector<SessionEvent> events;
  SessionEvent event;
  error->clear();
  while (source->Next(&event, error)) events.push_back(event);
  return events;
}

}  // namespace netstack::test

#endif  // TESTS_TRACE_TRACE_TEST_UTIL_H_
