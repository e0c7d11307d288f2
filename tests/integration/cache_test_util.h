// Helpers for the HTTP cache's integration tests (cache_*_test.cc): an origin whose headers the
// test chooses and whose requests it counts, `netstack cache` runs, and a profile lock held by
// the test process.
#ifndef TESTS_INTEGRATION_CACHE_TEST_UTIL_H_
#define TESTS_INTEGRATION_CACHE_TEST_UTIL_H_

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "tests/integration/fault_http_server.h"
#include "tests/integration/fetch_test_util.h"

namespace netstack::test {

// An origin on 127.0.0.1 (FaultHttpServer with a handler) serving resources the test defines:
// a 200 with the resource's headers, body, ETag and Last-Modified; a 304 when a conditional
// request's If-None-Match names the ETag or its If-Modified-Since equals the Last-Modified; a
// body that depends on Accept-Language when the resource varies on it; and "posted" (200, no
// cache headers) for a POST. Every request is recorded.
class CacheOrigin {
 public:
  struct Resource {
    std::string status = "200 OK";     // the status line after "HTTP/1.1 " of a 200
    std::vector<std::string> headers;  // "Cache-Control: max-age=60", ...
    std::string body;
    std::string etag;            // "" for none; with quotes: "\"v1\""
    std::string last_modified;   // "" for none; an IMF-fixdate
    bool vary_language = false;  // Vary: Accept-Language; the body gets "\nlang=<value>"
  };

  CacheOrigin();
  // Starts listening; false with a message if it cannot.
  bool Start(std::string* error) { return server_.Start(0, error); }
  // Defines (or replaces) what `path` serves. Thread-safe.
  void Set(const std::string& path, Resource resource);
  std::string Url(const std::string& path) const { return server_.Url(path); }
  // Requests for `path` (any method) so far.
  int Count(const std::string& path) const { return server_.CountPath(path); }
  std::vector<FaultHttpServer::Request> Requests(const std::string& path) const;

 private:
  std::optional<std::string> Answer(const FaultHttpServer::Request& request);

  mutable std::mutex mutex_;
  std::map<std::string, Resource> resources_;
  FaultHttpServer server_;
};

// An IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") for `unix_seconds`; now if negative.
std::string HttpDate(long long unix_seconds = -1);

// `netstack cache ARGS... --profile DIR`.
NetstackRun RunCache(const std::vector<std::string>& args, const std::string& profile);

// `netstack fetch --json --profile DIR ARGS...`.
NetstackRun FetchWithProfile(const std::string& profile, const std::vector<std::string>& args);

// The record's "cache" field ("" if absent).
inline std::string Disposition(const nlohmann::json& record) { return JsonString(record, "cache"); }

// Holds the profile's lock (flock on DIR/lock, made with DIR if missing) like a running
// netstack would, until destroyed.
class ProfileLockHolder {
 public:
  explicit ProfileLockHolder(const std::string& dir);
  ~ProfileLockHolder();
  bool locked() const { return locked_; }

 private:
  int fd_ = -1;
  bool locked_ = false;
};

// The regular files under `dir` (recursively), as paths relative to it; empty if absent.
std::vector<std::string> ListFiles(const std::string& dir);

// `count` copies of `c` followed by `tail` (built in place: GCC 12 warns, wrongly, about
// operator+ on a long temporary string).
inline std::string Filled(size_t count, char c, const std::string& tail = "") {
  std::string s(count, c);
  s.append(tail);
  return s;
}

// The whole file, or "" if it cannot be read.
std::string ReadFile(const std::string& path);

}  // namespace netstack::test

// Starts a CacheOrigin or fails the test with the reason.
#define START_ORIGIN(origin)                                            \
  do {                                                                  \
    std::string start_error;                                            \
    if (!(origin).Start(&start_error)) FAIL("origin: " << start_error); \
  } while (0)

#endif  // TESTS_INTEGRATION_CACHE_TEST_UTIL_H_
