// Catch2 v2 skip helpers shared by every test that needs a real server (tests/dns,
// tests/integration). Catch2 v2 has no SKIP, so a test whose
// server cannot run (a program missing and not installable) prints "SKIPPED: why" as a warning
// and returns; CTest then counts it as passed, and the warning is in the test's output.
//
// With NETSTACK_REQUIRE_FIXTURES=1 in the environment (CI sets it: tools/scripts/run-tests
// under CI=true, and .ci/run), such a skip FAILS the test instead: in CI a missing nginx or
// dnsmasq must not silently drop the tests that need it. Only skips about the machine itself
// (SKIP_TEST_ALWAYS, e.g. no ::1 on loopback) stay skips there.
#ifndef TESTS_TEST_SKIP_H_
#define TESTS_TEST_SKIP_H_

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>

namespace netstack::test {

// True when NETSTACK_REQUIRE_FIXTURES=1: fixture skips are failures.
inline bool FixturesRequired() {
  const char* v = std::getenv("NETSTACK_REQUIRE_FIXTURES");
  return v && std::strcmp(v, "1") == 0;
}

}  // namespace netstack::test

// Ends the test as skipped (a warning), or fails it when NETSTACK_REQUIRE_FIXTURES=1.
#define SKIP_TEST(why)                                                      \
  do {                                                                      \
    if (::netstack::test::FixturesRequired()) {                             \
      FAIL("fixture unavailable and NETSTACK_REQUIRE_FIXTURES=1: " << why); \
    }                                                                       \
    WARN("SKIPPED: " << why);                                               \
    return;                                                                 \
  } while (0)

// Ends the test as skipped even under NETSTACK_REQUIRE_FIXTURES=1: only for what the machine
// cannot offer (an address family), never for a program that could be installed.
#define SKIP_TEST_ALWAYS(why) \
  do {                        \
    WARN("SKIPPED: " << why); \
    return;                   \
  } while (0)

// Starts `fixture` (fixture.Start(args...)); skips the test if the fixture says so (fails it
// under NETSTACK_REQUIRE_FIXTURES=1), fails it on any other start failure.
#define START_OR_SKIP(fixture, ...)                             \
  do {                                                          \
    if (!(fixture).Start(__VA_ARGS__)) {                        \
      if ((fixture).skipped()) SKIP_TEST((fixture).message());  \
      FAIL("fixture failed to start: " << (fixture).message()); \
    }                                                           \
  } while (0)

#endif  // TESTS_TEST_SKIP_H_
