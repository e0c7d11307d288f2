#include "net/http/http_response_headers.h"

#include <catch2/catch.hpp>
#include <string>

using namespace netstack;

namespace {

std::shared_ptr<HttpResponseHeaders> MustParse(const std::string& block) {
  std::string error;
  auto h = HttpResponseHeaders::Parse(block, &error);
  INFO(error);
  REQUIRE(h);
  return h;
}

}  // namespace

TEST_CASE("response headers: status line and case-insensitive lookup") {
  auto h = MustParse(
      "HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nX-A: 1\r\nx-a: 2\r\n"
      "Cache-Control: no-cache, \"a, b\"\r\n");
  CHECK(h->response_code() == 404);
  CHECK(h->reason() == "Not Found");
  CHECK(h->version() == HttpVersion{1, 1});
  CHECK(h->GetStatusLine() == "HTTP/1.1 404 Not Found");
  CHECK(h->HasHeader("content-TYPE"));
  CHECK_FALSE(h->HasHeader("content-length"));

  std::string v;
  CHECK(h->GetNormalizedHeader("X-A", &v));
  CHECK(v == "1, 2");
  CHECK_FALSE(h->GetNormalizedHeader("missing", &v));

  size_t iter = 0;
  std::vector<std::string> values;
  while (h->EnumerateHeader(&iter, "cache-control", &v)) values.push_back(v);
  CHECK(values == std::vector<std::string>{"no-cache", "\"a, b\""});
  CHECK(h->HasHeaderValue("cache-control", "NO-CACHE"));
  CHECK_FALSE(h->HasHeaderValue("cache-control", "no-store"));
}

TEST_CASE("response headers: EnumerateHeader keeps date-like values whole") {
  auto h = MustParse(
      "HTTP/1.1 200 OK\r\nSet-Cookie: a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT\r\n"
      "Set-Cookie: b=2\r\nVary: accept, accept-encoding\r\nVary: cookie\r\n");
  size_t iter = 0;
  std::string v;
  std::vector<std::string> cookies;
  while (h->EnumerateHeader(&iter, "set-cookie", &v)) cookies.push_back(v);
  CHECK(cookies == std::vector<std::string>{"a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT", "b=2"});
  iter = 0;
  std::vector<std::string> vary;
  while (h->EnumerateHeader(&iter, "vary", &v)) vary.push_back(v);
  CHECK(vary == std::vector<std::string>{"accept", "accept-encoding", "cookie"});
}

TEST_CASE("response headers: redirects") {
  std::string location;
  for (int code : {301, 302, 303, 307, 308}) {
    auto h = MustParse("HTTP/1.1 " + std::to_string(code) + " X\r\nLocation: /next?a=1,2\r\n");
    CHECK(h->IsRedirect(&location));
    CHECK(location == "/next?a=1,2");
  }
  CHECK_FALSE(MustParse("HTTP/1.1 300 X\r\nLocation: /a\r\n")->IsRedirect(&location));
  CHECK_FALSE(MustParse("HTTP/1.1 304 X\r\nLocation: /a\r\n")->IsRedirect(&location));
  CHECK_FALSE(MustParse("HTTP/1.1 302 X\r\n")->IsRedirect(&location));
  CHECK_FALSE(MustParse("HTTP/1.1 302 X\r\nLocation:   \r\n")->IsRedirect(nullptr));
}

TEST_CASE("response headers: content length") {
  CHECK(MustParse("HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n")->GetContentLength() == 1234);
  CHECK(MustParse("HTTP/1.1 200 OK\r\n")->GetContentLength() == -1);
  HttpResponseHeaders h({1, 1}, 200, "OK");
  h.AddHeader("Content-Length", "12a");
  CHECK(h.GetContentLength() == -1);
  HttpResponseHeaders twice({1, 1}, 200, "OK");
  twice.AddHeader("Content-Length", "5");
  twice.AddHeader("Content-Length", "6");
  CHECK(twice.GetContentLength() == -1);
  HttpResponseHeaders huge({1, 1}, 200, "OK");
  huge.AddHeader("Content-Length", "99999999999999999999999");
  CHECK(huge.GetContentLength() == -1);
}

TEST_CASE("response headers: JSON and NetLog forms") {
  auto h = MustParse(
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\n"
      "X-Bin: caf\xe9\r\n");
  nlohmann::json j = h->ToJson();
  CHECK(j["content-type"] == "text/plain");
  CHECK(j["set-cookie"] == nlohmann::json::array({"a=1", "b=2"}));
  CHECK(j["x-bin"] == "caf\xef\xbf\xbd");  // invalid UTF-8 replaced, so dump() cannot throw
  CHECK_NOTHROW(j.dump());
  nlohmann::json params = h->NetLogParams();
  CHECK(params["headers"][0] == "HTTP/1.1 200 OK");
  CHECK(params["headers"][1] == "Content-Type: text/plain");
  CHECK(params["headers"][2] == "Set-Cookie: [3 bytes were stripped]");
}

TEST_CASE("response headers: ToHttpString round-trips through Parse") {
  auto h = MustParse("HTTP/1.0 302 Found\r\nLocation: /x\r\nA: 1\r\na: 2\r\n\r\n");
  auto again = MustParse(h->ToHttpString());
  CHECK(again->ToHttpString() == h->ToHttpString());
  CHECK(again->version() == HttpVersion{1, 0});
  CHECK(again->headers().size() == 3);

  std::string error;
  CHECK_FALSE(HttpResponseHeaders::Parse("NOT HTTP\r\n\r\n", &error));
  CHECK_FALSE(error.empty());
}

TEST_CASE("response headers: RemoveHeader removes every repeat") {
  HttpResponseHeaders h({1, 1}, 200, "OK");
  h.AddHeader("A", "1");
  h.AddHeader("B", "2");
  h.AddHeader("a", "3");
  CHECK(h.RemoveHeader("A") == 2);
  CHECK(h.headers().size() == 1);
}
