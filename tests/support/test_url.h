// U("https://..."): a URL the test wrote, parsed; the test stops there (REQUIRE) if it does not
// parse, with the parser's message. Header-only (Catch2 and net_base), for any test.
#ifndef TESTS_SUPPORT_TEST_URL_H_
#define TESTS_SUPPORT_TEST_URL_H_

#include <catch2/catch.hpp>
#include <string>

#include "net/base/net_error.h"
#include "net/base/url.h"

namespace netstack::test {

inline Url U(const std::string& text) {
  Url url;
  std::string message;
  const int rv = Url::Parse(text, &url, &message);
  INFO(text << ": " << message);
  REQUIRE(rv == OK);
  return url;
}

}  // namespace netstack::test

#endif  // TESTS_SUPPORT_TEST_URL_H_
