#include "tools/netstack/fetch_options.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <vector>

#include "net/base/net_error.h"
#include "tests/tools/parse_fetch_args.h"

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
      {{"-X", "DELETE", "http://a.test/"}, "DELETE"},
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
