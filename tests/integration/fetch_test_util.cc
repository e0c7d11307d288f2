#include "tests/integration/fetch_test_util.h"

namespace netstack::test {

void RequireNetstackBinary() {
  INFO("netstack binary: '" << NetstackBinary() << "'");
  REQUIRE(::access(NetstackBinary().c_str(), X_OK) == 0);
}

void CheckFetchOk(const NetstackRun& run, size_t n) {
  INFO(run.Describe());
  REQUIRE_FALSE(run.process.timed_out);
  CHECK_FALSE(run.process.HasSanitizerReport());
  REQUIRE(run.exit_code() == 0);
  REQUIRE(run.records.size() == n);
}

void CheckFetchFailed(const NetstackRun& run, size_t i, const std::string& code) {
  INFO(run.Describe());
  REQUIRE_FALSE(run.process.timed_out);
  CHECK(run.process.term_signal == 0);
  CHECK_FALSE(run.process.HasSanitizerReport());
  CHECK(run.exit_code() == 1);
  std::vector<std::string> err_lines = run.StderrLines();
  REQUIRE(err_lines.size() == 1);
  CHECK(err_lines[0].rfind("netstack: ", 0) == 0);
  CHECK(err_lines[0].find("(" + code + ")") != std::string::npos);
  REQUIRE(run.records.size() > i);
  CHECK(JsonString(run.records[i], "error_code") == code);
  std::string message = JsonString(run.records[i], "error");
  CHECK_FALSE(message.empty());
  CHECK(message.find('\n') == std::string::npos);
}

}  // namespace netstack::test
