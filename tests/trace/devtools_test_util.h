// Helpers for the DevTools log reader's tests: the protocol's messages built in code (only the
// members the reader looks at, with Chrome's names and types), and parsing a log that must read.
#ifndef TESTS_TRACE_DEVTOOLS_TEST_UTIL_H_
#define TESTS_TRACE_DEVTOOLS_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "tools/replay/trace/devtools_log.h"

namespace netstack::test {

using Json = nlohmann::json;

inline Json Message(const std::string& method, Json params) {
  return {{"method", method}, {"params", std::move(params)}};
}

// Network.requestWillBeSent for a GET of `url` at `timestamp` (seconds). A "Document" whose
// loaderId is its requestId in frame "main" is a main-frame navigation.
inline Json WillBeSent(const std::string& id, const std::string& url, double timestamp,
                       const std::string& type = "Script", Json initiator = Json{{"type", "other"}},
                       const std::string& frame = "main") {
  return Message("Network.requestWillBeSent",
                 {{"requestId", id},
                  {"loaderId", type == "Document" ? id : "loader"},
                  {"frameId", frame},
                  {"documentURL", url},
                  {"request", {{"url", url}, {"method", "GET"}, {"headers", Json::object()}}},
                  {"timestamp", timestamp},
                  {"wallTime", 1'700'000'000.0 + timestamp},
                  {"initiator", std::move(initiator)},
                  {"type", type}});
}

// A Network.Response; `extra` members are merged in (timing, connectionId, ...).
inline Json ResponseObject(const std::string& url, int status, Json extra = Json::object()) {
  Json response = {{"url", url},
                   {"status", status},
                   {"statusText", status == 200 ? "OK" : ""},
                   {"headers", {{"content-type", "text/html"}}},
                   {"mimeType", "text/html"},
                   {"protocol", "http/1.1"},
                   {"connectionReused", false},
                   {"connectionId", 0},
                   {"fromDiskCache", false},
                   {"encodedDataLength", 100}};
  response.update(extra);
  return response;
}

inline Json Received(const std::string& id, const std::string& url, double timestamp,
                     int status = 200, Json extra = Json::object()) {
  return Message("Network.responseReceived",
                 {{"requestId", id},
                  {"timestamp", timestamp},
                  {"response", ResponseObject(url, status, std::move(extra))}});
}

inline Json Data(const std::string& id, double timestamp, double length, double encoded) {
  return Message("Network.dataReceived", {{"requestId", id},
                                          {"timestamp", timestamp},
                                          {"dataLength", length},
                                          {"encodedDataLength", encoded}});
}

inline Json Finished(const std::string& id, double timestamp, double encoded) {
  return Message("Network.loadingFinished",
                 {{"requestId", id}, {"timestamp", timestamp}, {"encodedDataLength", encoded}});
}

inline Json Failed(const std::string& id, double timestamp, const std::string& error_text,
                   bool canceled = false) {
  return Message("Network.loadingFailed", {{"requestId", id},
                                           {"timestamp", timestamp},
                                           {"type", "Script"},
                                           {"errorText", error_text},
                                           {"canceled", canceled}});
}

// A request answered with 200 and `body` bytes after a 100-byte header block, finished.
inline void AddLoad(Json* log, const std::string& id, const std::string& url, double start,
                    double end, const std::string& type = "Script",
                    Json initiator = Json{{"type", "other"}},
                    Json response_extra = Json::object()) {
  log->push_back(WillBeSent(id, url, start, type, std::move(initiator)));
  log->push_back(Received(id, url, (start + end) / 2, 200, std::move(response_extra)));
  log->push_back(Finished(id, end, 1100));
}

inline HarFile ParseOk(const Json& log, const std::string& name = "t.json") {
  HarFile har;
  std::string error;
  bool ok = ParseDevtoolsLog(log.dump(), name, &har, &error);
  INFO(error);
  REQUIRE(ok);
  return har;
}

inline std::string ParseError(const std::string& text, const std::string& name = "t.json") {
  HarFile har;
  std::string error;
  CHECK_FALSE(ParseDevtoolsLog(text, name, &har, &error));
  CHECK(har.pages.empty());
  CHECK(error.find('\n') == std::string::npos);
  return error;
}

}  // namespace netstack::test

#endif  // TESTS_TRACE_DEVTOOLS_TEST_UTIL_H_
