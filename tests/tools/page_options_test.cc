// `fetch --page`'s flags: one URL, GET only, the predictor's policy and settings.
#include <catch2/catch.hpp>
#include <vector>

#include "tests/tools/parse_fetch_args.h"
#include "tools/netstack/fetch_options.h"

using namespace netstack;

namespace {

bool Parse(const std::vector<std::string>& args, FetchOptions* options, std::string* message) {
  return test::ParseFetchArgs(args, options, message);
}

}  // namespace

TEST_CASE("page options: --page with the learned predictor by default", "[page]") {
  FetchOptions o;
  std::string msg;
  REQUIRE(Parse({"--page", "http://a.test/"}, &o, &msg));
  CHECK(o.page);
  CHECK(o.predictor.policy == "learned");

  FetchOptions chrome;
  REQUIRE(Parse({"--page", "--predictor", "chrome", "--set-predictor", "max_in_flight=4",
                 "--set-predictor", "predictor_learned_waste_cost_ms=90", "http://a.test/"},
                &chrome, &msg));
  CHECK(chrome.predictor.policy == "chrome");
  CHECK(chrome.predictor.max_in_flight == 4);
  CHECK(chrome.predictor.learned_waste_cost_ms == 90);

  FetchOptions loading;
  REQUIRE(Parse({"--page", "--predictor", "loading", "http://a.test/"}, &loading, &msg));
  CHECK(loading.predictor.policy == "loading");

  FetchOptions off;
  REQUIRE(Parse({"--page", "--predictor", "off", "http://a.test/"}, &off, &msg));
  CHECK(off.predictor.policy == "off");
}

TEST_CASE("page options: bad usage is one clear message", "[page]") {
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{"--page", "http://a.test/", "http://b.test/"}, "--page loads one URL (2 given)"},
      {{"--page", "-o", "out", "http://a.test/"}, "--page conflicts with -o"},
      {{"--page", "-d", "x", "http://a.test/"}, "--page conflicts with -d"},
      {{"--page", "-I", "http://a.test/"}, "--page conflicts with -I"},
      {{"--page", "--predictor", "smart", "http://a.test/"},
       "bad --predictor \"smart\": expected off, chrome, loading or learned"},
      {{"--page", "--set-predictor", "max_in_flight", "http://a.test/"},
       "bad --set-predictor \"max_in_flight\": expected KEY=VALUE"},
      {{"--page", "--set-predictor", "max_in_flight=0", "http://a.test/"},
       "bad --set-predictor \"max_in_flight=0\": "},
      {{"--page", "--set-predictor", "nope=1", "http://a.test/"}, "bad --set-predictor \"nope=1\""},
      {{"--page", "--set-predictor", "policy=chrome", "http://a.test/"}, "--predictor"},
      {{"--predictor", "chrome", "http://a.test/"}, "--predictor needs --page"},
      {{"--set-predictor", "max_in_flight=2", "http://a.test/"}, "--set-predictor needs --page"},
      {{"--page", "--har", "-", "http://a.test/"}, "--har needs a file name, not -"},
  };
  for (const Case& c : cases) {
    FetchOptions o;
    std::string msg;
    INFO(c.args.back() << " " << c.args.front());
    CHECK_FALSE(Parse(c.args, &o, &msg));
    CHECK_THAT(msg, Catch::Contains(c.expected));
    CHECK(msg.find('\n') == std::string::npos);
  }
}

TEST_CASE("page options: --page takes every cache mode but only-if-cached", "[page]") {
  for (const char* mode : {"default", "no-store", "reload", "no-cache", "force-cache"}) {
    FetchOptions o;
    std::string msg;
    INFO(mode);
    REQUIRE(Parse({"--page", "--cache-mode", mode, "http://a.test/"}, &o, &msg));
    RequestCacheMode expected;
    REQUIRE(ParseRequestCacheMode(mode, &expected));
    CHECK(o.cache_mode == expected);
  }
  FetchOptions o;
  std::string msg;
  CHECK_FALSE(Parse({"--page", "--cache-mode", "only-if-cached", "http://a.test/"}, &o, &msg));
  CHECK(msg.find("--cache-mode only-if-cached conflicts with --page") == 0);
  CHECK(msg.find('\n') == std::string::npos);
  // Without --page it is a plain fetch's mode.
  FetchOptions plain;
  REQUIRE(Parse({"--cache-mode", "only-if-cached", "http://a.test/"}, &plain, &msg));
  CHECK(plain.cache_mode == RequestCacheMode::kOnlyIfCached);
}
