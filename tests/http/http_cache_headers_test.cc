// The headers of cached responses as stored, updated and served (http_cache_headers.h):
// hop-by-hop fields, Age, the 304 merge, a HEAD's update. Table-driven, no clock.
#include "net/http/http_cache_headers.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "net/http/http_cache_control.h"
#include "tests/http/http_cache_test_util.h"

namespace netstack {
namespace {

using test::DateAt;
using test::Headers;
using test::kT0;

TEST_CASE("headers are stored without cookies", "[cache_policy]") {
  auto stored = HeadersForStorage(*Headers(
      "200 OK", "Set-Cookie: a=1\r\nX-Keep: 1\r\nset-cookie: b=2\r\nSet-Cookie2: c=3\r\n"));
  REQUIRE(stored);
  CHECK(stored->response_code() == 200);
  CHECK_FALSE(stored->HasHeader("set-cookie"));
  CHECK_FALSE(stored->HasHeader("set-cookie2"));
  CHECK(stored->HasHeader("x-keep"));
  CHECK(stored->headers().size() == 1);
}

TEST_CASE("304 merge replaces end-to-end headers and keeps framing", "[cache_policy]") {
  auto stored =
      Headers("200 OK", "Date: " + DateAt(-100) +
                            "\r\nCache-Control: max-age=10\r\n"
                            "Cache-Control: public\r\nContent-Type: text/html\r\n"
                            "Content-Encoding: gzip\r\nContent-Length: 123\r\nETag: \"a\"\r\n"
                            "X-Keep: 1\r\nX-Drop: stored\r\n");
  auto not_modified = Headers("304 Not Modified",
                              "Date: " + DateAt(0) +
                                  "\r\nCache-Control: max-age=600\r\n"
                                  "Content-Length: 0\r\nContent-Type: text/plain\r\n"
                                  "Content-Encoding: identity\r\nConnection: keep-alive, X-Drop\r\n"
                                  "Keep-Alive: timeout=5\r\nTransfer-Encoding: chunked\r\n"
                                  "X-Drop: new\r\nETag: \"a\"\r\nX-New: yes\r\n");
  auto merged = MergeNotModified(*stored, *not_modified);
  REQUIRE(merged);
  CHECK(merged->response_code() == 200);
  CHECK(merged->reason() == "OK");
  std::string v;
  CHECK(merged->GetNormalizedHeader("date", &v));
  CHECK(v == DateAt(0));
  // Both stored Cache-Control lines are replaced by the 304's one.
  CHECK(merged->GetNormalizedHeader("cache-control", &v));
  CHECK(v == "max-age=600");
  // Framing and coding of the stored body are kept; Content-Type is updated (RFC 9111 3.2).
  CHECK(merged->GetContentLength() == 123);
  CHECK(merged->GetNormalizedHeader("content-type", &v));
  CHECK(v == "text/plain");
  CHECK(merged->GetNormalizedHeader("content-encoding", &v));
  CHECK(v == "gzip");
  // Hop-by-hop headers, and those the 304's Connection names, are not taken.
  CHECK_FALSE(merged->HasHeader("connection"));
  CHECK_FALSE(merged->HasHeader("keep-alive"));
  CHECK_FALSE(merged->HasHeader("transfer-encoding"));
  CHECK(merged->GetNormalizedHeader("x-drop", &v));
  CHECK(v == "stored");
  CHECK(merged->GetNormalizedHeader("x-keep", &v));
  CHECK(v == "1");
  CHECK(merged->GetNormalizedHeader("x-new", &v));
  CHECK(v == "yes");
  CHECK(merged->GetNormalizedHeader("etag", &v));
  CHECK(v == "\"a\"");

  for (const char* name : {"Content-Length", "TRANSFER-ENCODING", "Upgrade", "Proxy-Authenticate",
                           "TE", "Trailer", "Proxy-Connection", "Content-Range"}) {
    INFO(name);
    CHECK(IsNonUpdatedHeader(name));
  }
  for (const char* name :
       {"Cache-Control", "Expires", "Date", "ETag", "Last-Modified", "Vary", "Content-Type"}) {
    INFO(name);
    CHECK_FALSE(IsNonUpdatedHeader(name));
  }
}

TEST_CASE("304 merge takes Content-Encoding only when it names the stored codings",
          "[cache_policy]") {
  auto stored = Headers("200 OK", "Content-Encoding: x-gzip\r\nContent-Length: 10\r\n");
  auto same = MergeNotModified(*stored, *Headers("304 Not Modified", "Content-Encoding: GZIP\r\n"));
  std::string v;
  CHECK(same->GetNormalizedHeader("content-encoding", &v));
  CHECK(v == "GZIP");  // a respelling of the same coding
  for (const char* other : {"br", "identity", "gzip, br"}) {
    INFO(other);
    auto merged = MergeNotModified(
        *stored, *Headers("304 Not Modified", std::string("Content-Encoding: ") + other + "\r\n"));
    CHECK(merged->GetNormalizedHeader("content-encoding", &v));
    CHECK(v == "x-gzip");
  }
  // An identity body stays identity whatever the 304 claims.
  auto plain = Headers("200 OK", "Content-Length: 10\r\n");
  CHECK_FALSE(MergeNotModified(*plain, *Headers("304 Not Modified", "Content-Encoding: gzip\r\n"))
                  ->HasHeader("content-encoding"));
}

TEST_CASE("headers as stored and served: hop-by-hop fields out, Age set", "[cache_policy]") {
  auto received = Headers(
      "200 OK",
      "Connection: keep-alive, X-Hop\r\nX-Hop: 1\r\nKeep-Alive: timeout=5\r\nTE: trailers\r\n"
      "Transfer-Encoding: chunked\r\nUpgrade: h2c\r\nProxy-Connection: close\r\n"
      "Proxy-Authenticate: Basic\r\nProxy-Authorization: Basic eDp5\r\nAge: 30\r\n"
      "X-End: 1\r\n");
  auto stored = HeadersForStorage(*received);
  REQUIRE(stored);
  std::vector<std::string> names;
  for (const auto& h : stored->headers()) names.push_back(h.name);
  CHECK(names == std::vector<std::string>{"Age", "X-End"});
  auto served = HeadersForServing(*received, Seconds(75) + Milliseconds(900));
  names.clear();
  for (const auto& h : served->headers()) names.push_back(h.name + ": " + h.value);
  CHECK(names == std::vector<std::string>{"X-End: 1", "Age: 75"});
  std::string v;
  CHECK(
      HeadersForServing(*received, Seconds(kMaxDeltaSeconds) * 4)->GetNormalizedHeader("age", &v));
  CHECK(v == std::to_string(kMaxDeltaSeconds));
  CHECK(IsHopByHopHeader("Keep-Alive"));
  CHECK_FALSE(IsHopByHopHeader("Trailer"));
  CHECK_FALSE(IsHopByHopHeader("Content-Length"));
}

TEST_CASE("HEAD response against the stored GET (RFC 9111 4.3.5)", "[cache_policy]") {
  auto stored = Headers(
      "200 OK", "ETag: \"a\"\r\nLast-Modified: " + DateAt(-100) + "\r\nContent-Length: 10\r\n");
  struct Case {
    std::string head;
    bool update;
  };
  const Case cases[] = {
      {"ETag: \"a\"\r\n", true},
      {"ETag: \"a\"\r\nContent-Length: 10\r\n", true},
      {"Last-Modified: " + DateAt(-100) + "\r\n", true},
      {"ETag: \"b\"\r\n", false},
      {"ETag: \"a\"\r\nLast-Modified: " + DateAt(-50) + "\r\n", false},
      {"ETag: \"a\"\r\nContent-Length: 11\r\n", false},
      {"Content-Length: 10\r\n", false},  // no validator
      {"", false},
  };
  for (const Case& c : cases) {
    INFO(c.head);
    HeadUpdateDecision d = DecideHeadUpdate(*stored, *Headers("200 OK", c.head));
    CHECK(d.update == c.update);
    CHECK_FALSE(d.reason.empty());
  }
}

}  // namespace
}  // namespace netstack
