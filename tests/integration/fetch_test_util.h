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

// The binary under test must exist (CMake only builds these tests when it does).
#define REQUIRE_NETSTACK_BINARY()                                             \
  do {                                                                        \
    INFO("netstack binary: '" << ::netstack::test::NetstackBinary() << "'");  \
    REQUIRE(::access(::netstack::test::NetstackBinary().c_str(), X_OK) == 0); \
  } while (0)

// A run that exited 0 with `n` JSON records and no sanitizer report.
#define CHECK_FETCH_OK(run, n)                       \
  do {                                               \
    INFO((run).Describe());                          \
    REQUIRE_FALSE((run).process.timed_out);          \
    CHECK_FALSE((run).process.HasSanitizerReport()); \
    REQUIRE((run).exit_code() == 0);                 \
    REQUIRE((run).records.size() == (n));            \
  } while (0)

// A run that failed cleanly: exit 1, not killed, exactly one stderr line of the form
// "netstack: URL: message (CODE)", and the JSON record for the failed URL (index i) carrying
// error_code CODE and a non-empty one-line error message.
#define CHECK_FETCH_FAILED(run, i, code)                                            \
  do {                                                                              \
    INFO((run).Describe());                                                         \
    REQUIRE_FALSE((run).process.timed_out);                                         \
    CHECK((run).process.term_signal == 0);                                          \
    CHECK_FALSE((run).process.HasSanitizerReport());                                \
    CHECK((run).exit_code() == 1);                                                  \
    std::vector<std::string> err_lines = (run).StderrLines();                       \
    REQUIRE(err_lines.size() == 1);                                                 \
    CHECK(err_lines[0].rfind("netstack: ", 0) == 0);                                \
    CHECK(err_lines[0].find(std::string("(") + (code) + ")") != std::string::npos); \
    REQUIRE((run).records.size() > (i));                                            \
    CHECK(::netstack::test::JsonString((run).records[i], "error_code") == (code));  \
    std::string message = ::netstack::test::JsonString((run).records[i], "error");  \
    CHECK_FALSE(message.empty());                                                   \
    CHECK(message.find('\n') == std::string::npos);                                 \
  } while (0)

#endif  // TESTS_INTEGRATION_FETCH_TEST_UTIL_H_
