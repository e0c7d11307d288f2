// Bad usage and bad input exit 2 with a one-line message on stderr, before any fetch.
#include "tests/integration/fetch_test_util.h"

namespace netstack::test {
namespace {

void CheckUsageError(const std::vector<std::string>& args) {
  NetstackRun run = RunNetstack(args, std::chrono::seconds(20));
  std::string joined;
  for (const std::string& a : args) joined += a + " ";
  INFO("netstack " << joined << "\n" << run.Describe());
  REQUIRE_FALSE(run.process.timed_out);
  CHECK_FALSE(run.process.HasSanitizerReport());
  CHECK(run.exit_code() == 2);
  CHECK(run.process.term_signal == 0);
  // Exactly one line: the message, not a usage dump or a second "see --help" line.
  std::vector<std::string> err_lines = run.StderrLines();
  CHECK(err_lines.size() == 1);
  CHECK(run.process.err.find('\n') == run.process.err.size() - 1);
  CHECK(run.records.empty());
  CHECK(run.other_lines.empty());
}

TEST_CASE("a malformed URL exits 2", "[fetch][usage]") {
  REQUIRE_NETSTACK_BINARY();
  CheckUsageError({"fetch", "http://127.0.0.1:99999/"});
  CheckUsageError({"fetch", "http://[::1/"});
  CheckUsageError({"fetch", "--json", "not a url"});
}

TEST_CASE("an unknown scheme exits 2", "[fetch][usage]") {
  REQUIRE_NETSTACK_BINARY();
  CheckUsageError({"fetch", "ftp://127.0.0.1/file"});
  CheckUsageError({"fetch", "--json", "ftp://127.0.0.1/file"});
}

TEST_CASE("an unknown flag exits 2", "[fetch][usage]") {
  REQUIRE_NETSTACK_BINARY();
  CheckUsageError({"fetch", "--no-such-flag", "http://127.0.0.1:1/"});
  CheckUsageError({"no-such-command"});
}

TEST_CASE("bad option values exit 2", "[fetch][usage]") {
  REQUIRE_NETSTACK_BINARY();
  CheckUsageError({"fetch", "--parallel", "0", "http://127.0.0.1:1/"});
  CheckUsageError({"fetch", "--parallel", "many", "http://127.0.0.1:1/"});
  CheckUsageError({"fetch", "-H", "no colon here", "http://127.0.0.1:1/"});
  CheckUsageError({"fetch", "--resolve", "a.test:80", "http://a.test/"});
  CheckUsageError({"fetch", "--dns-server", "not-an-ip", "http://a.test/"});
}

TEST_CASE("bad cache options exit 2", "[fetch][usage][cache]") {
  REQUIRE_NETSTACK_BINARY();
  CheckUsageError({"fetch", "--cache-size", "10X", "http://127.0.0.1:1/"});
  CheckUsageError({"fetch", "--cache-size", "", "http://127.0.0.1:1/"});
  CheckUsageError({"fetch", "--cache-size", "1", "http://127.0.0.1:1/"});
  CheckUsageError({"fetch", "--cache-eviction", "fifo", "http://127.0.0.1:1/"});
  CheckUsageError({"fetch", "--no-cache", "--private", "http://127.0.0.1:1/"});
  CheckUsageError({"cache"});
  CheckUsageError({"cache", "show"});
  CheckUsageError({"cache", "ls", "--no-such-flag"});
}

TEST_CASE("no URL exits 2", "[fetch][usage]") {
  REQUIRE_NETSTACK_BINARY();
  CheckUsageError({"fetch"});
}

}  // namespace
}  // namespace netstack::test
