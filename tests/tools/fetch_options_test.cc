#include "tools/netstack/fetch_options.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "net/base/net_error.h"
#include "tests/tools/parse_fetch_args.h"
#include "tools/netstack/fetch_command.h"

using namespace netstack;

namespace {

bool Parse(const std::vector<std::string>& args, FetchOptions* options, std::string* message) {
  return test::ParseFetchArgs(args, options, message);
}

}  // namespace

TEST_CASE("fetch options: defaults and method inference") {
  FetchOptions o;
  std::string msg;
  REQUIRE(Parse({"http://a.test/"}, &o, &msg));
  CHECK(o.method == "GET");
  CHECK(o.max_redirects == 20);
  CHECK(o.parallel == 1);
  REQUIRE(o.urls.size() == 1);
  CHECK(o.urls[0].host() == "a.test");

  FetchOptions post;
  REQUIRE(Parse({"-d", "x=1", "http://a.test/"}, &post, &msg));
  CHECK(post.method == "POST");
  FetchOptions head;
  REQUIRE(Parse({"-I", "http://a.test/"}, &head, &msg));
  CHECK(head.method == "HEAD");
}

TEST_CASE("fetch options: --resolve, --dns-server and headers are parsed") {
  FetchOptions o;
  std::string msg;
  REQUIRE(
      Parse({"--resolve", "A.test:443:127.0.0.2", "--resolve", "b.test:80:[::1]", "--dns-server",
             "127.0.0.1:5353", "--dns-server", "::1", "-H", "X-Test:  yes ", "http://a.test/"},
            &o, &msg));
  REQUIRE(o.resolves.size() == 2);
  CHECK(o.resolves[0].host == "a.test");
  CHECK(o.resolves[0].port == 443);
  CHECK(o.resolves[0].address.ToString() == "127.0.0.2");
  CHECK(o.resolves[1].address.IsIPv6());
  REQUIRE(o.dns_servers.size() == 2);
  CHECK(o.dns_servers[0].port() == 5353);
  CHECK(o.dns_servers[1].port() == 53);
  REQUIRE(o.headers.size() == 1);
  CHECK(o.headers[0].first == "X-Test");
  CHECK(o.headers[0].second == "yes");
}

TEST_CASE("fetch options: bad input is refused with a message naming it") {
  struct Case {
    std::vector<std::string> args;
    std::string needle;
  };
  std::vector<Case> cases = {
      {{"ftp://a.test/"}, "ftp"},
      {{"not a url"}, "invalid URL"},
      {{"--resolve", "a.test:x:1.2.3.4", "http://a.test/"}, "--resolve"},
      {{"--resolve", "a.test:80:nothost", "http://a.test/"}, "--resolve"},
      {{"--dns-server", "dns.example", "http://a.test/"}, "--dns-server"},
      {{"-H", "NoColon", "http://a.test/"}, "NoColon"},
      {{"-X", "DE LETE", "http://a.test/"}, "DE LETE"},
      {{"-o", "a", "-o", "b", "http://a.test/"}, "more -o"},
      {{"-d", "@/nonexistent/file", "http://a.test/"}, "/nonexistent/file"},
      {{"--parallel", "0", "http://a.test/"}, "parallel"},
      {{"--max-redirs", "21", "http://a.test/"}, "max-redirs"},
      {{"--bogus", "http://a.test/"}, "bogus"},
  };
  for (const Case& c : cases) {
    FetchOptions o;
    std::string msg;
    INFO(c.args.front());
    CHECK_FALSE(Parse(c.args, &o, &msg));
    CHECK(msg.find(c.needle) != std::string::npos);
  }
}

TEST_CASE("fetch options: -d @FILE reads the body") {
  std::string path = "/tmp/netstack-fetch-options-test.txt";
  std::ofstream(path) << "hello body";
  FetchOptions o;
  std::string msg;
  REQUIRE(Parse({"-d", "@" + path, "http://a.test/"}, &o, &msg));
  CHECK(o.data == "hello body");
  CHECK(o.method == "POST");
  std::remove(path.c_str());
}

TEST_CASE("fetch options: repeatable options take one value each, URLs stay URLs") {
  FetchOptions o;
  std::string msg;
  REQUIRE(Parse({"-H", "Connection: close", "http://a.test/1", "--dns-server", "127.0.0.1",
                 "http://a.test/2", "http://a.test/3"},
                &o, &msg));
  CHECK(o.urls.size() == 3);
  CHECK(o.headers.size() == 1);
  CHECK(o.dns_servers.size() == 1);
}

TEST_CASE("fetch options: --cache-size and --cache-eviction conflict with --no-cache") {
  std::string msg;
  FetchOptions a;
  CHECK_FALSE(Parse({"--no-cache", "--cache-size", "1M", "http://a.test/"}, &a, &msg));
  CHECK(msg == "--cache-size conflicts with --no-cache (there is no cache to size or evict)");
  FetchOptions b;
  CHECK_FALSE(Parse({"--no-cache", "--cache-eviction", "lru", "http://a.test/"}, &b, &msg));
  CHECK(msg == "--cache-eviction conflicts with --no-cache (there is no cache to size or evict)");
  FetchOptions c;
  REQUIRE(Parse({"--cache-eviction", "frequency", "http://a.test/"}, &c, &msg));
  CHECK(c.cache_eviction == EvictionPolicy::kFrequencyWeighted);
  FetchOptions d;
  REQUIRE(Parse({"--no-cache", "http://a.test/"}, &d, &msg));
  CHECK(d.cache_eviction == EvictionPolicy::kSizeWeightedLru);
}

TEST_CASE("fetch options: ParseByteSize takes 0 and the suffixes, and refuses the rest") {
  int64_t v = -1;
  CHECK(ParseByteSize("0", kMaxCacheSize, &v));
  CHECK(v == 0);
  CHECK(ParseByteSize("1M", kMaxCacheSize, &v));
  CHECK(v == 1024 * 1024);
  CHECK(ParseByteSize("3kib", kMaxCacheSize, &v));
  CHECK(v == 3 * 1024);
  CHECK_FALSE(ParseByteSize("", kMaxCacheSize, &v));
  CHECK_FALSE(ParseByteSize("-1", kMaxCacheSize, &v));
  CHECK_FALSE(ParseByteSize("1X", kMaxCacheSize, &v));
  CHECK_FALSE(ParseByteSize("2G", int64_t{1} << 30, &v));
}

TEST_CASE("fetch options: every numeric flag refuses nan, inf, negatives, overflow and junk") {
  const std::vector<std::string> flags = {"--connect-timeout", "--timeout",
                                          "--max-time",        "--headers-timeout",
                                          "--speed-time",      "--speed-limit",
                                          "--dns-timeout",     "--dns-tries",
                                          "--parallel",        "--max-sockets-per-group",
                                          "--max-sockets",     "--max-body",
                                          "--max-redirs",      "--internals"};
  const std::vector<std::string> values = {"nan",      "NaN", "inf",   "-inf",
                                           "infinity", "-1",  "1e400", "99999999999999999999999",
                                           "abc",      "1x"};
  for (const std::string& flag : flags) {
    for (const std::string& value : values) {
      INFO(flag << " " << value);
      FetchOptions o;
      std::string msg;
      CHECK_FALSE(Parse({flag, value, "http://a.test/"}, &o, &msg));
      CHECK(msg.find(flag) != std::string::npos);
      CHECK(msg.find('\n') == std::string::npos);
    }
  }
}

TEST_CASE("fetch options: time flags are bounded and finite") {
  struct Case {
    std::string flag;
    std::string value;
    bool ok;
  };
  const std::vector<Case> cases = {
      {"--connect-timeout", "0", false},   {"--connect-timeout", "0.001", true},
      {"--connect-timeout", "3600", true}, {"--connect-timeout", "3600.5", false},
      {"--timeout", "86400", true},        {"--timeout", "86401", false},
      {"--max-time", "0", true},           {"--max-time", "2.5", true},
      {"--max-time", "1e-400", false},     {"-m", "86401", false},
      {"--headers-timeout", "0", false},   {"--headers-timeout", "0.5", true},
      {"--speed-time", "0", false},        {"-y", "86400", true},
      {"--speed-limit", "0", true},        {"-Y", "10K", true},
      {"--speed-limit", "2048G", false},   {"--speed-limit", " 5", false},
      {"--connect-timeout", " 1", false},
  };
  for (const Case& c : cases) {
    INFO(c.flag << " '" << c.value << "'");
    FetchOptions o;
    std::string msg;
    CHECK(Parse({c.flag, c.value, "http://a.test/"}, &o, &msg) == c.ok);
    if (!c.ok) CHECK(msg.find(c.value) != std::string::npos);
  }
}

TEST_CASE("fetch options: the limits reach the stack, with curl's defaults") {
  FetchOptions plain;
  std::string msg;
  REQUIRE(Parse({"http://a.test/"}, &plain, &msg));
  TransferLimits limits = MakeLiveStackOptions(plain).context.limits;
  CHECK(limits.max_time == TimeDelta::zero());
  CHECK(limits.min_bytes_per_second == 0);
  CHECK(limits.headers_timeout == Seconds(300));

  FetchOptions all;
  REQUIRE(Parse({"-m", "2.5", "-Y", "1K", "-y", "7", "--headers-timeout", "9", "--connect-timeout",
                 "0.25", "http://a.test/"},
                &all, &msg));
  LiveStackOptions s = MakeLiveStackOptions(all);
  CHECK(s.context.limits.max_time == Milliseconds(2500));
  CHECK(s.context.limits.min_bytes_per_second == 1024);
  CHECK(s.context.limits.low_speed_time == Seconds(7));
  CHECK(s.context.limits.headers_timeout == Seconds(9));
  CHECK(s.context.pool.connect_timeout == Milliseconds(250));

  // curl: -Y alone checks over 30 s; -y alone with a limit of 1 byte a second.
  FetchOptions rate_only;
  REQUIRE(Parse({"-Y", "500", "http://a.test/"}, &rate_only, &msg));
  CHECK(MakeLiveStackOptions(rate_only).context.limits.low_speed_time == Seconds(30));
  CHECK(MakeLiveStackOptions(rate_only).context.limits.min_bytes_per_second == 500);
  FetchOptions time_only;
  REQUIRE(Parse({"-y", "5", "http://a.test/"}, &time_only, &msg));
  CHECK(MakeLiveStackOptions(time_only).context.limits.min_bytes_per_second == 1);
  CHECK(MakeLiveStackOptions(time_only).context.limits.low_speed_time == Seconds(5));
}

TEST_CASE("fetch options: -d @FILE refuses a directory and a file over the bound") {
  char dir_template[] = "/tmp/netstack-fetch-options-XXXXXX";
  const char* dir = mkdtemp(dir_template);
  REQUIRE(dir != nullptr);
  FetchOptions o;
  std::string msg;
  CHECK_FALSE(Parse({"-d", std::string("@") + dir, "http://a.test/"}, &o, &msg));
  CHECK(msg.find(dir) != std::string::npos);
  CHECK(msg.find("Is a directory") != std::string::npos);
  rmdir(dir);

  std::string body;
  CHECK_FALSE(ReadRequestBodyFile("/dev/zero", 1024 * 1024, &body, &msg));
  CHECK(msg.find("/dev/zero") != std::string::npos);
  CHECK(msg.find("over 1 MiB") != std::string::npos);
  CHECK(body.empty());
  REQUIRE(ReadRequestBodyFile("/dev/null", 1024 * 1024, &body, &msg));
  CHECK(body.empty());
}

TEST_CASE("fetch options: --dns-server refuses port 0 and an empty port") {
  for (const std::string text :
       {"127.0.0.1:0", "127.0.0.1:", "[::1]:0", "[::1]:", "127.0.0.1:65536", "127.0.0.1:-1",
        "127.0.0.1:+53", "127.0.0.1:53x", "[::1]x", "256.0.0.1"}) {
    INFO(text);
    FetchOptions o;
    std::string msg;
    CHECK_FALSE(Parse({"--dns-server", text, "http://a.test/"}, &o, &msg));
    CHECK(msg.find("--dns-server \"" + text + "\"") != std::string::npos);
  }
  FetchOptions o;
  std::string msg;
  REQUIRE(Parse({"--dns-server", "[::1]:5353", "--dns-server", "127.0.0.1:65535", "http://a.test/"},
                &o, &msg));
  CHECK(o.dns_servers[0].port() == 5353);
  CHECK(o.dns_servers[1].port() == 65535);
}
