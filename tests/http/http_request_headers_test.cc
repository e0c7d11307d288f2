#include "net/http/http_request_headers.h"

#include <catch2/catch.hpp>
#include <string>

using namespace netstack;

TEST_CASE("request headers: ordered, unique, case-insensitive") {
  HttpRequestHeaders h;
  CHECK(h.SetHeader("Host", "example.com"));
  CHECK(h.SetHeader("Accept", "*/*"));
  CHECK(h.SetHeader("user-agent", "netstack"));
  CHECK(h.SetHeader("ACCEPT", "text/html"));  // replaces in place, keeps the first spelling
  REQUIRE(h.size() == 3);
  CHECK(h.headers()[1].name == "Accept");
  CHECK(h.GetHeader("accept") == "text/html");
  CHECK(h.HasHeader("USER-AGENT"));
  CHECK_FALSE(h.GetHeader("cookie").has_value());
  CHECK(h.ToString() == "Host: example.com\r\nAccept: text/html\r\nuser-agent: netstack\r\n\r\n");

  CHECK(h.SetHeaderIfMissing("Accept", "x"));
  CHECK(h.GetHeader("Accept") == "text/html");
  CHECK(h.SetHeaderIfMissing("Connection", "keep-alive"));
  CHECK(h.headers().back().name == "Connection");

  CHECK(h.RemoveHeader("host"));
  CHECK_FALSE(h.RemoveHeader("host"));
  CHECK(h.headers().front().name == "Accept");
}

TEST_CASE("request headers: invalid names and values are refused") {
  HttpRequestHeaders h;
  CHECK_FALSE(h.SetHeader("", "x"));
  CHECK_FALSE(h.SetHeader("Bad Name", "x"));
  CHECK_FALSE(h.SetHeader("Bad:Name", "x"));
  CHECK_FALSE(h.SetHeader("X", "a\r\nInjected: yes"));
  CHECK_FALSE(h.SetHeader("X", std::string("a\0b", 3)));
  CHECK(h.IsEmpty());
  CHECK(h.SetHeader("X", "  padded\t"));
  CHECK(h.GetHeader("X") == "padded");
}

TEST_CASE("request headers: -H style lines") {
  HttpRequestHeaders h;
  CHECK(h.AddHeaderFromString("X-Test:  hello world "));
  CHECK(h.GetHeader("x-test") == "hello world");
  CHECK(h.AddHeaderFromString("Empty:"));
  CHECK(h.GetHeader("Empty") == "");
  CHECK_FALSE(h.AddHeaderFromString("no colon"));
  CHECK_FALSE(h.AddHeaderFromString("Space before : colon"));
}

TEST_CASE("request headers: count and size bounds") {
  HttpRequestHeaders h;
  for (size_t i = 0; i < HttpRequestHeaders::kMaxHeaders; ++i) {
    REQUIRE(h.SetHeader("X-" + std::to_string(i), "v"));
  }
  CHECK_FALSE(h.SetHeader("One-More", "v"));
  CHECK(h.SetHeader("X-0", "replacing is fine"));

  HttpRequestHeaders big;
  std::string value(HttpRequestHeaders::kMaxTotalBytes - 5, 'a');  // "A: " + value + CRLF
  CHECK(big.SetHeader("A", value));
  CHECK_FALSE(big.SetHeader("B", "x"));
  CHECK_FALSE(big.SetHeader("A", value + "more"));
  CHECK(big.GetHeader("A") == value);
}
