// Helpers for HttpBasicStream tests on virtual time: run one operation to completion, record
// NetLog entries, a typical GET.
#ifndef TESTS_HTTP_HTTP_BASIC_STREAM_TEST_UTIL_H_
#define TESTS_HTTP_HTTP_BASIC_STREAM_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "net/base/net_error.h"
#include "net/base/net_log.h"
#include "net/base/virtual_scheduler.h"
#include "net/http/http_basic_stream.h"

namespace netstack::test {

// Records every NetLog entry.
struct Recorder : NetLog::Observer {
  std::vector<NetLogEntry> entries;
  void OnAddEntry(const NetLogEntry& e) override { entries.push_back(e); }
};

// Captures a callback's result; checks it runs once.
struct Result {
  std::optional<int> value;
  int calls = 0;
  CompletionCallback Callback() {
    return [this](int rv) {
      ++calls;
      value = rv;
    };
  }
};

inline HttpRequestMessage Get(std::string method = "GET") {
  HttpRequestMessage r;
  r.method = std::move(method);
  r.target = "/index.html";
  r.host = "example.test";
  r.headers.SetHeader("Accept-Encoding", "gzip, deflate, br");
  return r;
}

inline const std::string kGetWire =
    "GET /index.html HTTP/1.1\r\nHost: example.test\r\nAccept-Encoding: gzip, deflate, br\r\n"
    "\r\n";

// Runs one operation to completion: sync, or pending and then finished by the scheduler.
inline int Complete(VirtualScheduler& s, int rv, Result& result) {
  if (rv != ERR_IO_PENDING) {
    CHECK(result.calls == 0);
    return rv;
  }
  s.RunAll();
  REQUIRE(result.calls == 1);
  return *result.value;
}

inline int SendAll(VirtualScheduler& s, HttpBasicStream& stream, const HttpRequestMessage& req) {
  Result r;
  return Complete(s, stream.SendRequest(req, r.Callback()), r);
}

inline int ReadHeaders(VirtualScheduler& s, HttpBasicStream& stream) {
  Result r;
  return Complete(s, stream.ReadResponseHeaders(r.Callback()), r);
}

// Reads the body `chunk` bytes at a time; returns the final result (0 or an error).
inline int ReadBody(VirtualScheduler& s, HttpBasicStream& stream, std::string* body,
                    int chunk = 5) {
  std::vector<char> buf(static_cast<size_t>(chunk));
  while (true) {
    Result r;
    int rv = Complete(s, stream.ReadResponseBody(buf.data(), chunk, r.Callback()), r);
    if (rv <= 0) return rv;
    REQUIRE(rv <= chunk);
    body->append(buf.data(), static_cast<size_t>(rv));
  }
}

}  // namespace netstack::test

#endif  // TESTS_HTTP_HTTP_BASIC_STREAM_TEST_UTIL_H_
