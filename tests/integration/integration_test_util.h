// The integration tests' Catch2 helpers: the skip rules live in tests/test_skip.h, shared with
// the DNS room's server tests.
#ifndef TESTS_INTEGRATION_INTEGRATION_TEST_UTIL_H_
#define TESTS_INTEGRATION_INTEGRATION_TEST_UTIL_H_

#include "tests/test_skip.h"

#endif  // TESTS_INTEGRATION_INTEGRATION_TEST_UTIL_H_
