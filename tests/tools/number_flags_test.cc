// The range checks every numeric flag of replay, gen-session and internals goes through: what
// CLI11 alone would take wrongly ("-5" wrapped to a huge count, "010" as octal, "nan") is a
// one-line error naming the value and the range.
#include "tools/netstack/number_flags.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

using namespace netstack;

namespace {

// Parses `value` for a flag --n bound to `out` with `validator`; returns CLI11's message, or ""
// when it was taken.
template <typename T>
std::string ParseFlag(const std::string& value, const CLI::Validator& validator, T* out) {
  CLI::App app;
  app.add_option("--n", *out, "")->transform(validator);
  std::vector<std::string> args = {value, "--n"};  // CLI11 wants them reversed
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("count flags: digits only, in range, no wrap-around") {
  uint64_t n = 0;
  const CLI::Validator pages = CountFlag(1, 10'000'000);
  CHECK(ParseFlag("25", pages, &n).empty());
  CHECK(n == 25);
  // Leading zeros are decimal, not octal as strtoull(…, 0) reads them.
  CHECK(ParseFlag("010", pages, &n).empty());
  CHECK(n == 10);
  CHECK(ParseFlag("-5", pages, &n) == "--n: '-5' is out of range (1 to 10,000,000)");
  CHECK(ParseFlag("99999999999", pages, &n) ==
        "--n: '99999999999' is out of range (1 to 10,000,000)");
  CHECK(ParseFlag("99999999999999999999999", pages, &n) ==
        "--n: '99999999999999999999999' is out of range (1 to 10,000,000)");
  CHECK(ParseFlag("0", pages, &n) == "--n: '0' is out of range (1 to 10,000,000)");
  for (const char* bad : {"0x10", "1e3", "nan", "inf", "+5", " 5", "5 ", "2.5", "", "-"}) {
    INFO(bad);
    CHECK(ParseFlag(bad, pages, &n) ==
          std::string("--n: '") + bad + "' is not a whole number (1 to 10,000,000)");
  }
  CHECK(n == 10);  // untouched by every rejected value
  // The whole uint64_t range for seeds; an int flag keeps its own range.
  CHECK(ParseFlag("18446744073709551615", CountFlag(0, UINT64_MAX), &n).empty());
  CHECK(n == UINT64_MAX);
  int port = 0;
  CHECK(ParseFlag("65536", CountFlag(0, 65535), &port) ==
        "--n: '65536' is out of range (0 to 65,535)");
  CHECK(ParseFlag("8080", CountFlag(0, 65535), &port).empty());
  CHECK(port == 8080);
}

TEST_CASE("number flags: finite decimals in range") {
  double x = -1;
  const CLI::Validator share = NumberFlag(0, 1);
  CHECK(ParseFlag("0.25", share, &x).empty());
  CHECK(x == 0.25);
  CHECK(ParseFlag("1e-1", share, &x).empty());
  CHECK(x == 0.1);
  CHECK(ParseFlag("nan", share, &x) == "--n: 'nan' is not a finite number (0 to 1)");
  CHECK(ParseFlag("-inf", share, &x) == "--n: '-inf' is not a finite number (0 to 1)");
  CHECK(ParseFlag("1e400", share, &x) == "--n: '1e400' is out of range (0 to 1)");
  CHECK(ParseFlag("-0.5", share, &x) == "--n: '-0.5' is out of range (0 to 1)");
  CHECK(ParseFlag("0x1p-2", share, &x) == "--n: '0x1p-2' is not a number (0 to 1)");
  CHECK(ParseFlag("", share, &x) == "--n: '' is not a number (0 to 1)");
  // An underflow is a tiny number, not an overflow.
  CHECK(ParseFlag("1e-400", share, &x).empty());
  CHECK(x == 0);
  const CLI::Validator think = NumberFlag(0, 3600, /*min_exclusive=*/true);
  CHECK(ParseFlag("0", think, &x) == "--n: '0' is out of range (above 0, at most 3600)");
  CHECK(ParseFlag("3600", think, &x).empty());
  CHECK(x == 3600);
}

TEST_CASE("number flags: the echoed value is bounded and escaped") {
  uint64_t n = 0;
  std::string message = ParseFlag(std::string(10'000, '7') + "x", CountFlag(1, 10), &n);
  CHECK(message == "--n: '" + std::string(32, '7') + "...' is not a whole number (1 to 10)");
  CHECK(ParseFlag("\x1b[2J\x9b", CountFlag(1, 10), &n) ==
        "--n: '\\x1b[2J\\x9b' is not a whole number (1 to 10)");
}
