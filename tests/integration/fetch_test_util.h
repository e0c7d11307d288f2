// Assertions shared by the netstack CLI integration tests (docs/fetch.md is the contract).
#ifndef TESTS_INTEGRATION_FETCH_TEST_UTIL_H_
#define TESTS_INTEGRATION_FETCH_TEST_UTIL_H_

#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include "tests/integration/integration_test_util.h"
#include "tests/integration/netstack_cli.h"
#include "tests/integration/nginx_fixture.h"

namespace netstack::test {

inline std::vector<std::string> Repeat(const std::string& s, int n) {
  return std::vector<std::string>(static_cast<size_t>(n), s);
}

// Appends `more` to `v` and returns it, for building argument lists inline.
inline std::vector<std::string> Concat(std::vector<std::string> v,
                                       const std::vector<std::string>& more) {
  v.insert(v.end(), more.begin(), more.end());
  return v;
}

// --resolve value mapping host:port to 127.0.0.1.
inline std::string Loopback(const std::string& host, int port) {
  return host + ":" + std::to_string(port) + ":127.0.0.1";
}

// The distinct $connection values among nginx log entries.
inline std::set<uint64_t> Connections(const std::vector<NginxLogEntry>& log) {
  std::set<uint64_t> out;
  for (const NginxLogEntry& e : log) out.insert(e.connection);
  return out;
}

}  // namespace netstack::test

namespace netstack::test {

// The binary under test exists and is executable (CMake only builds these tests when it does).
void RequireNetstackBinary();

// A run that exited 0 with `n` JSON records and no sanitizer report (REQUIREs: a failure ends
// the test).
void CheckFetchOk(const NetstackRun& run, size_t n);

// A run that failed cleanly: exit 1, not killed, exactly one stderr line of the form
// "netstack: URL: message (CODE)", and the JSON record of the failed URL (index i) carrying
// error_code CODE and a non-empty one-line error message.
void CheckFetchFailed(const NetstackRun& run, size_t i, const std::string& code);

}  // namespace netstack::test

// Macros so a failure names the calling line (the checks live in fetch_test_util.cc: expanding
// them at every call site made these files slow to compile).
#define REQUIRE_NETSTACK_BINARY() ::netstack::test::RequireNetstackBinary()
#define CHECK_FETCH_OK(run, n)                          \
  do {                                                  \
    INFO("checked at " << __FILE__ << ":" << __LINE__); \
    ::netstack::test::CheckFetchOk((run), (n));         \
  } while (0)
#define CHECK_FETCH_FAILED(run, i, code)                    \
  do {                                                      \
    INFO("checked at " << __FILE__ << ":" << __LINE__);     \
    ::netstack::test::CheckFetchFailed((run), (i), (code)); \
  } while (0)

#endif  // TESTS_INTEGRATION_FETCH_TEST_UTIL_H_
