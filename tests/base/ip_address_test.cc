#include "net/base/ip_address.h"

#include <catch2/catch.hpp>

using namespace netstack;

TEST_CASE("ip address parse and print") {
  auto v4 = IPAddress::Parse("127.0.0.1");
  REQUIRE(v4);
  CHECK(v4->IsIPv4());
  CHECK(v4->IsLoopback());
  CHECK(v4->ToString() == "127.0.0.1");
  auto v6 = IPAddress::Parse("::1");
  REQUIRE(v6);
  CHECK(v6->IsIPv6());
  CHECK(v6->IsLoopback());
  CHECK_FALSE(IPAddress::Parse("example.com"));
  CHECK_FALSE(IPAddress::Parse("1.2.3"));
}

TEST_CASE("endpoint parse and sockaddr round trip") {
  auto e = IPEndPoint::Parse("10.1.2.3:8080");
  REQUIRE(e);
  CHECK(e->port() == 8080);
  CHECK(e->ToString() == "10.1.2.3:8080");
  auto e6 = IPEndPoint::Parse("[::1]:53");
  REQUIRE(e6);
  CHECK(e6->ToString() == "[::1]:53");
  CHECK(IPEndPoint::Parse("127.0.0.1", 53)->port() == 53);
  CHECK_FALSE(IPEndPoint::Parse("127.0.0.1"));
  CHECK_FALSE(IPEndPoint::Parse("127.0.0.1:70000"));
  CHECK_FALSE(IPEndPoint::Parse("[::1"));
  sockaddr_storage ss;
  e6->ToSockAddr(&ss);
  auto back = IPEndPoint::FromSockAddr(reinterpret_cast<sockaddr*>(&ss));
  REQUIRE(back);
  CHECK(*back == *e6);
}
