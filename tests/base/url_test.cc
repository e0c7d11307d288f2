#include "net/base/url.h"

#include <catch2/catch.hpp>

#include "net/base/net_error.h"

using namespace netstack;

TEST_CASE("url: parses scheme, host, port, path") {
  Url u;
  std::string msg;
  REQUIRE(Url::Parse("HTTP://Example.COM/a/b?x=1#frag", &u, &msg) == OK);
  CHECK(u.scheme() == "http");
  CHECK(u.host() == "example.com");
  CHECK(u.port() == 80);
  CHECK(u.path_and_query() == "/a/b?x=1");
  CHECK(u.spec() == "http://example.com/a/b?x=1");
  CHECK(u.HostHeader() == "example.com");

  REQUIRE(Url::Parse("https://[::1]:8443", &u, &msg) == OK);
  CHECK(u.host() == "::1");
  CHECK(u.port() == 8443);
  CHECK(u.path_and_query() == "/");
  CHECK(u.HostHeader() == "[::1]:8443");
  CHECK(u.scheme_host_port().ToString() == "https://[::1]:8443");
}

TEST_CASE("url: errors name the problem") {
  Url u;
  std::string msg;
  CHECK(Url::Parse("ftp://example.com/", &u, &msg) == ERR_UNKNOWN_URL_SCHEME);
  CHECK(msg.find("ftp") != std::string::npos);
  CHECK(Url::Parse("example.com", &u, &msg) == ERR_INVALID_URL);
  CHECK(msg.find("no scheme") != std::string::npos);
  CHECK(Url::Parse("http://", &u, &msg) == ERR_INVALID_URL);
  CHECK(Url::Parse("http://host:99999/", &u, &msg) == ERR_INVALID_URL);
  CHECK(msg.find("bad port") != std::string::npos);
  CHECK(Url::Parse("http://exa mple.com/", &u, &msg) == ERR_INVALID_URL);
  CHECK(Url::Parse("http://[::1/", &u, &msg) == ERR_INVALID_URL);
  CHECK(Url::Parse("http://user:pw@host/", &u, &msg) == ERR_INVALID_URL);
}

TEST_CASE("url: resolves redirect locations") {
  Url base, out;
  std::string msg;
  REQUIRE(Url::Parse("http://a.test/dir/page?q=1", &base, &msg) == OK);
  REQUIRE(base.Resolve("other", &out, &msg) == OK);
  CHECK(out.spec() == "http://a.test/dir/other");
  REQUIRE(base.Resolve("/root", &out, &msg) == OK);
  CHECK(out.spec() == "http://a.test/root");
  REQUIRE(base.Resolve("../up", &out, &msg) == OK);
  CHECK(out.spec() == "http://a.test/up");
  REQUIRE(base.Resolve("//b.test:81/x", &out, &msg) == OK);
  CHECK(out.spec() == "http://b.test:81/x");
  REQUIRE(base.Resolve("https://c.test/", &out, &msg) == OK);
  CHECK(out.is_https());
  CHECK(base.Resolve("mailto:x@y", &out, &msg) == ERR_UNKNOWN_URL_SCHEME);
}
