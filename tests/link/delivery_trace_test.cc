// DeliveryTrace (net/link/delivery_trace.h): mahimahi's trace format, its bounds and errors.
#include "net/link/delivery_trace.h"

#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

namespace netstack {
namespace {

std::string ParseError(const std::string& text, DeliveryTraceLimits limits = {}) {
  std::string error;
  auto trace = DeliveryTrace::Parse(text, "t.up", &error, limits);
  CHECK(!trace);
  CHECK(error.find('\n') == std::string::npos);
  return error;
}

// A file in a fresh temporary directory, removed with it.
class TempFile {
 public:
  explicit TempFile(const std::string& contents) {
    char dir[] = "/tmp/delivery_trace_test.XXXXXX";
    REQUIRE(mkdtemp(dir));
    dir_ = dir;
    path_ = dir_ + "/t.up";
    std::ofstream(path_, std::ios::binary) << contents;
  }
  ~TempFile() {
    unlink(path_.c_str());
    rmdir(dir_.c_str());
  }
  const std::string& path() const { return path_; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_, path_;
};

TEST_CASE("DeliveryTrace: reads one opportunity per line, equal lines being several") {
  std::string error;
  auto trace = DeliveryTrace::Parse("0\n5\n5\n12\n", "t.up", &error);
  REQUIRE(trace);
  CHECK(trace->opportunities_ms() == std::vector<uint32_t>{0, 5, 5, 12});
  CHECK(trace->period() == Milliseconds(12));
  // Looping: index 4 is the second repetition's first opportunity, at 12 + 0 ms.
  CHECK(trace->OpportunityTime(0) == Milliseconds(0));
  CHECK(trace->OpportunityTime(2) == Milliseconds(5));
  CHECK(trace->OpportunityTime(4) == Milliseconds(12));
  CHECK(trace->OpportunityTime(7) == Milliseconds(24));
  CHECK(trace->OpportunityTime(4 * 1000 + 1) == Milliseconds(12 * 1000 + 5));
}

TEST_CASE("DeliveryTrace: the first opportunity after a time is strictly after it") {
  std::string error;
  auto trace = DeliveryTrace::Parse("0\n5\n5\n12", "t.up", &error);  // no final newline
  REQUIRE(trace);
  CHECK(trace->FirstOpportunityAfter(TimeDelta(0)) == 1);  // the one at 0 has passed
  CHECK(trace->FirstOpportunityAfter(TimeDelta(4999)) == 1);
  CHECK(trace->FirstOpportunityAfter(Milliseconds(5)) == 3);
  CHECK(trace->FirstOpportunityAfter(TimeDelta(11999)) == 3);
  CHECK(trace->FirstOpportunityAfter(Milliseconds(12)) == 5);  // 12 + 5 ms (12 + 0 has passed)
  CHECK(trace->FirstOpportunityAfter(TimeDelta(-5)) == 1);
  for (int64_t us = 0; us < 50'000; us += 250) {
    const uint64_t index = trace->FirstOpportunityAfter(TimeDelta(us));
    CHECK(trace->OpportunityTime(index) > TimeDelta(us));
    if (index > 0) CHECK(trace->OpportunityTime(index - 1) <= TimeDelta(us));
  }
}

TEST_CASE("DeliveryTrace: accepts CRLF line ends") {
  std::string error;
  auto trace = DeliveryTrace::Parse("1\r\n2\r\n", "t.up", &error);
  REQUIRE(trace);
  CHECK(trace->opportunities_ms() == std::vector<uint32_t>{1, 2});
}

TEST_CASE("DeliveryTrace: each bad trace gets a one-line error naming file and line") {
  CHECK(ParseError("1\n2\nabc\n") ==
        "t.up: line 3: 'abc' is not a whole number of milliseconds (0..4294967295)");
  CHECK(ParseError("-1\n") ==
        "t.up: line 1: '-1' is not a whole number of milliseconds (0..4294967295)");
  CHECK(ParseError("1.5\n").rfind("t.up: line 1: '1.5' is not", 0) == 0);
  CHECK(ParseError(" 5\n").rfind("t.up: line 1: ' 5' is not", 0) == 0);
  CHECK(ParseError("4294967296\n").rfind("t.up: line 1: '4294967296' is not", 0) == 0);
  CHECK(ParseError("1\n2\n15\n12\n") == "t.up: line 4: timestamps go backwards (12 after 15)");
  CHECK(ParseError("") == "t.up: empty trace (no delivery opportunity)");
  CHECK(ParseError("1\n\n2\n") ==
        "t.up: line 2: empty line (each line is one delivery opportunity)");
  CHECK(ParseError("1\n2\n\n") ==
        "t.up: line 3: empty line (each line is one delivery opportunity)");
  CHECK(ParseError("\n") == "t.up: line 1: empty line (each line is one delivery opportunity)");
  CHECK(ParseError("0\n0\n") ==
        "t.up: the trace must last more than 0 ms (its last timestamp is the period)");
  // Control bytes and long lines are escaped and cut, so the error stays one short line.
  CHECK(ParseError(std::string("1\n\x01\x7f'\\z\n", 8)) ==
        "t.up: line 2: '\\x01\\x7f\\x27\\x5cz' is not a whole number of milliseconds "
        "(0..4294967295)");
  const std::string error = ParseError(std::string(1000, 'x'));
  std::string cut(40, 'x');
  cut += "...'";
  CHECK(error.find(cut) != std::string::npos);
  CHECK(error.size() < 120);
  CHECK(ParseError(std::string("1\n2\0\n", 5)).rfind("t.up: line 2: '2\\x00'", 0) == 0);
}

TEST_CASE("DeliveryTrace: the size and line bounds refuse larger traces") {
  DeliveryTraceLimits limits;
  limits.max_lines = 3;
  std::string error;
  CHECK(DeliveryTrace::Parse("1\n2\n3\n", "t.up", &error, limits));
  CHECK(ParseError("1\n2\n3\n4\n", limits) == "t.up: more than 3 lines");
  limits.max_bytes = 5;
  CHECK(ParseError("1\n2\n30\n", limits) == "t.up: larger than 5 bytes");
  CHECK(DeliveryTrace::kMaxFileBytes == 64u << 20);
  CHECK(DeliveryTrace::kMaxLines == 10'000'000u);
}

TEST_CASE("DeliveryTrace: reads a file, within the bound") {
  TempFile file("3\n3\n7\n");
  std::string error;
  auto trace = DeliveryTrace::ReadFile(file.path(), &error);
  REQUIRE(trace);
  CHECK(trace->opportunities_ms().size() == 3);
  DeliveryTraceLimits limits;
  limits.max_bytes = 4;
  CHECK(!DeliveryTrace::ReadFile(file.path(), &error, limits));
  CHECK(error == file.path() + ": larger than 4 bytes");
  TempFile bad("1\nx\n");
  CHECK(!DeliveryTrace::ReadFile(bad.path(), &error));
  CHECK(error ==
        bad.path() + ": line 2: 'x' is not a whole number of milliseconds (0..4294967295)");
}

TEST_CASE("DeliveryTrace: a missing file or a directory is a one-line error") {
  std::string error;
  CHECK(!DeliveryTrace::ReadFile("/nonexistent/t.up", &error));
  CHECK(error == "/nonexistent/t.up: cannot read: No such file or directory");
  TempFile file("1\n");
  CHECK(!DeliveryTrace::ReadFile(file.dir(), &error));
  CHECK(error == file.dir() + ": cannot read: Is a directory");
}

}  // namespace
}  // namespace netstack
