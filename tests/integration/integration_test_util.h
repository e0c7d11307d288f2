// Catch2 v2 helpers shared by the integration tests. Catch2 v2 has no SKIP, so a test whose
// server cannot run (a program missing and not installable) prints "SKIPPED: why" as a warning
// and returns; CTest then counts it as passed, and the warning is in the test's output.
#ifndef TESTS_INTEGRATION_INTEGRATION_TEST_UTIL_H_
#define TESTS_INTEGRATION_INTEGRATION_TEST_UTIL_H_

#include <catch2/catch.hpp>

// Starts `fixture` (fixture.Start(args...)); skips the test if the fixture says so, fails it on
// any other start failure.
#define START_OR_SKIP(fixture, ...)                             \
  do {                                                          \
    if (!(fixture).Start(__VA_ARGS__)) {                        \
      if ((fixture).skipped()) {                                \
        WARN("SKIPPED: " << (fixture).message());               \
        return;                                                 \
      }                                                         \
      FAIL("fixture failed to start: " << (fixture).message()); \
    }                                                           \
  } while (0)

#endif  // TESTS_INTEGRATION_INTEGRATION_TEST_UTIL_H_
