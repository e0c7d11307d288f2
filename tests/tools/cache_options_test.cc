// `netstack fetch`'s cache flags (--profile, --no-cache, --private, --cache-size,
// --cache-eviction) and their validation, and `netstack cache`'s --max-bytes.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/tools/parse_fetch_args.h"
#include "tools/netstack/cache_command.h"
#include "tools/netstack/fetch_options.h"

using namespace netstack;

namespace {

bool Parse(const std::vector<std::string>& args, FetchOptions* options, std::string* message) {
  return test::ParseFetchArgs(args, options, message);
}

}  // namespace

TEST_CASE("cache options: defaults") {
  FetchOptions o;
  std::string msg;
  REQUIRE(Parse({"http://a.test/"}, &o, &msg));
  CHECK(o.profile_dir.empty());
  CHECK_FALSE(o.no_cache);
  CHECK_FALSE(o.private_mode);
  CHECK(o.cache_size == 0);  // the backend's default: 80 MiB on disk, 10 MiB private
  CHECK(o.cache_eviction == EvictionPolicy::kSizeWeightedLru);
}

TEST_CASE("cache options: every flag is parsed") {
  FetchOptions o;
  std::string msg;
  REQUIRE(Parse({"--profile", "/tmp/p", "--private", "--cache-size", "20M", "--cache-eviction",
                 "frequency", "http://a.test/"},
                &o, &msg));
  CHECK(o.profile_dir == "/tmp/p");
  CHECK(o.private_mode);
  CHECK(o.cache_size == 20 * 1024 * 1024);
  CHECK(o.cache_eviction == EvictionPolicy::kFrequencyWeighted);

  FetchOptions n;
  REQUIRE(Parse({"--no-cache", "http://a.test/"}, &n, &msg));
  CHECK(n.no_cache);
}

TEST_CASE("cache options: sizes take K, M, G and KiB, MiB, GiB in any case") {
  struct Case {
    const char* text;
    int64_t bytes;
  } cases[] = {
      {"65536", 65536},         {"100000b", 100000},        {"64K", 64 * 1024},
      {"64kib", 64 * 1024},     {"80M", 80 * 1024 * 1024},  {"80MiB", 80 * 1024 * 1024},
      {"2g", int64_t{2} << 30}, {"1GiB", int64_t{1} << 30}, {"1024G", int64_t{1} << 40},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    int64_t bytes = 0;
    std::string msg;
    REQUIRE(ParseCacheSize(c.text, &bytes, &msg));
    CHECK(bytes == c.bytes);
  }
}

TEST_CASE("cache options: bad input gives one line naming the value") {
  struct Case {
    std::vector<std::string> args;
    const char* expect;
  } cases[] = {
      {{"--cache-size", "", "http://a.test/"}, "--cache-size"},
      {{"--cache-size", "ten", "http://a.test/"}, "\"ten\""},
      {{"--cache-size", "10X", "http://a.test/"}, "\"10X\""},
      {{"--cache-size", "-5M", "http://a.test/"}, "\"-5M\""},
      {{"--cache-size", "1.5M", "http://a.test/"}, "\"1.5M\""},
      {{"--cache-size", "1000", "http://a.test/"}, "\"1000\""},  // under the 64 KiB floor
      {{"--cache-size", "1025G", "http://a.test/"}, "\"1025G\""},
      // Would wrap around 2^64 if shifted before the range check.
      {{"--cache-size", "17179869184G", "http://a.test/"}, "\"17179869184G\""},
      {{"--cache-size", "99999999999999999999999", "http://a.test/"}, "--cache-size"},
      {{"--cache-eviction", "fifo", "http://a.test/"}, "\"fifo\""},
      {{"--no-cache", "--private", "http://a.test/"}, "--private"},
  };
  for (const Case& c : cases) {
    FetchOptions o;
    std::string msg;
    INFO(c.args[1]);
    CHECK_FALSE(Parse(c.args, &o, &msg));
    CHECK(msg.find(c.expect) != std::string::npos);
    CHECK(msg.find('\n') == std::string::npos);
  }
}

// `netstack cache show --max-bytes`: bad values are exit 2 with one line, before any profile is
// opened (the profile here does not exist: a good value gets exit 1 for that instead).
TEST_CASE("cache command: --max-bytes rejects nan, negative, fractional and overflowing values") {
  const std::string missing = "/nonexistent/netstack-profile";
  for (const char* bad : {"nan", "NaN", "inf", "-1", "-0", "1.5M", "1e3", "", "M", "10X", "1025G",
                          "18446744073709551616", "99999999999999999999G"}) {
    INFO(bad);
    CacheCommandOptions o;
    o.action = "show";
    o.url = "http://a.test/";
    o.profile_dir = missing;
    o.max_bytes_text = bad;
    CHECK(RunCacheCommand(o) == 2);
  }
  for (const char* good : {"0", "1", "64K", "1M", "1024G"}) {
    INFO(good);
    CacheCommandOptions o;
    o.action = "show";
    o.url = "http://a.test/";
    o.profile_dir = missing;
    o.max_bytes_text = good;
    CHECK(RunCacheCommand(o) == 1);  // parsed; then the profile is missing
  }
}
