// FUZZ_CHECK(condition): a fuzz target's promise. A broken one prints the condition and where,
// then traps, which libFuzzer reports as a crash (and the corpus driver as a failed test).
#ifndef TESTS_FUZZ_FUZZ_CHECK_H_
#define TESTS_FUZZ_FUZZ_CHECK_H_

#include <cstdio>

#define FUZZ_CHECK(condition)                                                              \
  do {                                                                                     \
    if (!(condition)) {                                                                    \
      std::fprintf(stderr, "%s:%d: broken promise: %s\n", __FILE__, __LINE__, #condition); \
      __builtin_trap();                                                                    \
    }                                                                                      \
  } while (0)

#endif  // TESTS_FUZZ_FUZZ_CHECK_H_
