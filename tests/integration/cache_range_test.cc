// Partial content through `netstack fetch -r` and the profile's disk cache, against nginx (which
// answers Range requests for static files with 206, a strong ETag and Content-Range): pieces
// stored, a covered range answered from them without nginx, pieces completing into a whole entry
// that answers a plain GET and a range, an unsatisfiable range answered 416 from the cache, and
// malformed -r values refused with one line.
#include "tests/integration/cache_test_util.h"
#include "tests/support/temp_dir.h"

namespace netstack::test {
namespace {

TEST_CASE("range: -r through the cache against nginx", "[cache][range]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  // Every line differs, so a range from the wrong offset cannot compare equal.
  std::string content;
  for (int i = 0; i < 400; ++i) content += "line " + std::to_string(i) + " of the ranged file\n";
  nginx.AddFile("/ranged/f.txt", content);
  nginx.AddServerConfig("    location /ranged/ { expires 1h; gzip off; }");
  START_OR_SKIP(nginx);
  TempDir dir("cache-range");
  const std::string profile = dir.Join("profile");
  const std::string url = nginx.HttpUrl("/ranged/f.txt");
  const int64_t length = static_cast<int64_t>(content.size());
  const std::string total = "/" + std::to_string(length);

  // A piece from nginx: 206, stored.
  NetstackRun first = FetchWithProfile(profile, {"-r", "0-999", "-o", dir.Join("a"), url});
  CHECK_FETCH_OK(first, 1u);
  CHECK(JsonInt(first.records[0], "status") == 206);
  CHECK(JsonString(first.records[0], "headers/content-range") == "bytes 0-999" + total);
  CHECK(Disposition(first.records[0]) == "miss");
  CHECK(ReadFile(dir.Join("a")) == content.substr(0, 1000));
  REQUIRE(nginx.ReadAccessLog(1).size() == 1);
  // The pieces are an entry of their own, listed by `cache ls` under "<url>#partial".
  NetstackRun ls = RunCache({"ls"}, profile);
  INFO(ls.Describe());
  CHECK(ls.exit_code() == 0);
  CHECK(ls.process.out.find(url + "#partial") != std::string::npos);

  // Covered by the stored piece: from the cache, nginx not asked.
  NetstackRun covered = FetchWithProfile(profile, {"-r", "100-199", "-o", dir.Join("b"), url});
  CHECK_FETCH_OK(covered, 1u);
  CHECK(JsonInt(covered.records[0], "status") == 206);
  CHECK(Disposition(covered.records[0]) == "hit");
  CHECK(JsonString(covered.records[0], "headers/content-range") == "bytes 100-199" + total);
  CHECK(ReadFile(dir.Join("b")) == content.substr(100, 100));

  // Not covered: to nginx as asked; the new piece completes the representation.
  NetstackRun rest = FetchWithProfile(profile, {"-r", "1000-", "-o", dir.Join("c"), url});
  CHECK_FETCH_OK(rest, 1u);
  CHECK(Disposition(rest.records[0]) == "miss");
  CHECK(ReadFile(dir.Join("c")) == content.substr(1000));
  std::vector<NginxLogEntry> log = nginx.ReadAccessLog(2);
  REQUIRE(log.size() == 2);
  CHECK(log[1].status == 206);

  // The whole entry: a plain GET and a suffix range, both from the cache.
  NetstackRun whole = FetchWithProfile(profile, {"-o", dir.Join("d"), url});
  CHECK_FETCH_OK(whole, 1u);
  CHECK(JsonInt(whole.records[0], "status") == 200);
  CHECK(Disposition(whole.records[0]) == "hit");
  CHECK(ReadFile(dir.Join("d")) == content);
  NetstackRun suffix = FetchWithProfile(profile, {"-r", "-10", "-o", dir.Join("e"), url});
  CHECK_FETCH_OK(suffix, 1u);
  CHECK(Disposition(suffix.records[0]) == "hit");
  CHECK(JsonString(suffix.records[0], "headers/content-range") ==
        "bytes " + std::to_string(length - 10) + "-" + std::to_string(length - 1) + total);
  CHECK(ReadFile(dir.Join("e")) == content.substr(content.size() - 10));

  // Past the end: 416 from the cache, as nginx would answer.
  NetstackRun past = FetchWithProfile(profile, {"-r", std::to_string(length) + "-", url});
  REQUIRE(past.records.size() == 1u);
  CHECK(JsonInt(past.records[0], "status") == 416);
  CHECK(Disposition(past.records[0]) == "hit");
  CHECK(JsonString(past.records[0], "headers/content-range") ==
        "bytes */" + std::to_string(length));
  CHECK(nginx.ReadAccessLog().size() == 2);  // nothing more reached nginx
}

TEST_CASE("range: malformed -r values are one-line errors, exit 2", "[cache][range]") {
  REQUIRE_NETSTACK_BINARY();
  for (const char* bad : {"0-9,20-29", "abc", "9-5", "-0", "5"}) {
    NetstackRun run = RunNetstack({"fetch", "--private", "-r", bad, "http://127.0.0.1:9/"});
    INFO(bad << "\n" << run.Describe());
    CHECK(run.exit_code() == 2);
    CHECK(run.StderrLines().size() == 1);
    CHECK(run.process.err.find("bad -r \"" + std::string(bad) + "\"") != std::string::npos);
    CHECK(run.process.out.empty());
  }
  NetstackRun list = RunNetstack({"fetch", "--private", "-r", "0-9,20-29", "http://127.0.0.1:9/"});
  CHECK(list.process.err.find("only one range is supported") != std::string::npos);
}

}  // namespace
}  // namespace netstack::test
