// The HTTP cache's header semantics through UrlRequest, on virtual time (issue 22): hop-by-hop
// fields neither stored nor served (RFC 9111 3.1), Age on every response served from the cache
// (4.2.3, 5.1), HEAD freshening the stored GET (4.3.5), invalid dates and repeated directives
// (4.2.1, 5.3), stale-if-error (RFC 5861), and invalidation by any unsafe method (4.4).
#include <catch2/catch.hpp>
#include <string>

#include "tests/request/cache_test_env.h"

namespace netstack::test {
namespace {

constexpr char kUrl[] = "http://a.test/sem";

// Fetches kUrl with `method` (and request headers); REQUIREs success.
std::unique_ptr<UrlRequest> Run(CacheTestEnv& env, RecordingDelegate* d,
                                const std::vector<std::string>& headers = {},
                                const std::string& method = "GET") {
  auto r = env.Get(kUrl, d, headers, method);
  REQUIRE(d->result == OK);
  REQUIRE(r->response_headers());
  env.scheduler.RunUntilIdle();  // commits
  return r;
}

std::string Header(const UrlRequest& r, const std::string& name) {
  std::string v;
  r.response_headers()->GetNormalizedHeader(name, &v);
  return v;
}

int AgeLines(const HttpResponseHeaders& h) {
  int n = 0;
  for (const HttpResponseHeaders::Header& line : h.headers()) n += line.name == "Age";
  return n;
}

TEST_CASE("cache semantics: hop-by-hop fields are neither stored nor served",
          "[cache][semantics]") {
  CacheTestEnv env;
  env.Serve(CacheTestEnv::CloseResponse(
      "200 OK", "body",
      "Cache-Control: max-age=100\r\nKeep-Alive: timeout=5\r\nConnection: X-Secret\r\n"
      "X-Secret: 1\r\nProxy-Authenticate: Basic\r\nUpgrade: h2c\r\nTE: trailers\r\n"
      "Proxy-Connection: keep-alive\r\nX-Kept: yes\r\n"));
  RecordingDelegate d1;
  auto miss = Run(env, &d1);
  CHECK(miss->cache_disposition() == CacheDisposition::kMiss);
  // The network's response is handed out as received.
  CHECK(Header(*miss, "x-secret") == "1");

  HttpResponseInfo stored = env.StoredInfo(kUrl);
  for (const char* name : {"connection", "keep-alive", "x-secret", "proxy-authenticate", "upgrade",
                           "te", "proxy-connection"}) {
    INFO(name);
    CHECK_FALSE(stored.headers->HasHeader(name));
  }
  CHECK(stored.headers->HasHeader("x-kept"));

  RecordingDelegate d2;
  auto hit = Run(env, &d2);
  CHECK(hit->cache_disposition() == CacheDisposition::kHit);
  CHECK(d2.data == "body");
  CHECK_FALSE(hit->response_headers()->HasHeader("connection"));
  CHECK_FALSE(hit->response_headers()->HasHeader("x-secret"));
  CHECK(Header(*hit, "x-kept") == "yes");

  SECTION("a chunked response is stored without Transfer-Encoding") {
    env.Advance(Seconds(200));
    env.Serve(
        "HTTP/1.1 200 OK\r\nCache-Control: max-age=100\r\nTransfer-Encoding: chunked\r\n"
        "Connection: close\r\n\r\n4\r\nv2v2\r\n0\r\n\r\n");
    RecordingDelegate d3;
    Run(env, &d3);
    CHECK(d3.data == "v2v2");
    CHECK_FALSE(env.StoredInfo(kUrl).headers->HasHeader("transfer-encoding"));
    RecordingDelegate d4;
    auto again = Run(env, &d4);
    CHECK(again->cache_disposition() == CacheDisposition::kHit);
    CHECK(d4.data == "v2v2");
    CHECK_FALSE(again->response_headers()->HasHeader("transfer-encoding"));
  }
}

TEST_CASE("cache semantics: entries stored with hop-by-hop fields are served without them",
          "[cache][semantics]") {
  CacheTestEnv env;
  HttpResponseInfo info;
  info.url = kUrl;
  info.headers = HttpResponseHeaders::Parse(
      "HTTP/1.1 200 OK\r\nCache-Control: max-age=100\r\nConnection: close, X-Hop\r\n"
      "X-Hop: 1\r\nKeep-Alive: timeout=5\r\nAge: 7\r\nContent-Length: 3\r\n\r\n");
  info.request_time = info.response_time = env.clock.Now();
  REQUIRE(info.SetVaryFromRequest(HttpRequestHeaders()));
  env.PutEntry(kUrl, info.Serialize(), "old");
  RecordingDelegate d;
  auto r = Run(env, &d);
  CHECK(r->cache_disposition() == CacheDisposition::kHit);
  CHECK_FALSE(r->response_headers()->HasHeader("connection"));
  CHECK_FALSE(r->response_headers()->HasHeader("x-hop"));
  CHECK_FALSE(r->response_headers()->HasHeader("keep-alive"));
  CHECK(Header(*r, "age") == "7");  // its stored Age plus 0 s resident
}

TEST_CASE("cache semantics: Age is the current age, with response delay and resident time",
          "[cache][semantics]") {
  CacheTestEnv env;
  // The origin's Date is now; the response takes 3 s to arrive and says it was 10 s old.
  const std::string date = env.DateIn(0);
  env.factory->AddSocket({ScriptedRead::Data(
      CacheTestEnv::CloseResponse(
          "200 OK", "aged", "Cache-Control: max-age=100\r\nAge: 10\r\nDate: " + date + "\r\n"),
      IoMode::kAsync, Seconds(3))});
  RecordingDelegate d1;
  auto miss = Run(env, &d1);
  CHECK(Header(*miss, "age") == "10");  // from the network: as received
  // The stored Age is kept as received: it is an input of the age calculation.
  std::string stored_age;
  CHECK(env.StoredInfo(kUrl).headers->GetNormalizedHeader("age", &stored_age));
  CHECK(stored_age == "10");

  env.Advance(Seconds(20));
  RecordingDelegate d2;
  auto hit = Run(env, &d2);
  CHECK(hit->cache_disposition() == CacheDisposition::kHit);
  // corrected initial age = max(apparent 3, 10 + delay 3) = 13, plus 20 s resident.
  CHECK(Header(*hit, "age") == "33");
  CHECK(AgeLines(*hit->response_headers()) == 1);

  SECTION("it turns stale by that age, not by the stored Age") {
    env.Advance(Seconds(66));  // 99 s old
    RecordingDelegate d3;
    CHECK(Run(env, &d3)->cache_disposition() == CacheDisposition::kHit);
    env.Advance(Seconds(2));  // 101 s old
    env.Serve(CacheTestEnv::CloseResponse("200 OK", "new", "Cache-Control: max-age=100\r\n"));
    RecordingDelegate d4;
    auto renewed = Run(env, &d4);
    CHECK(renewed->cache_disposition() == CacheDisposition::kMiss);
    CHECK(d4.data == "new");
  }
}

TEST_CASE("cache semantics: a 304 updates Content-Type, Content-Encoding only when it still holds",
          "[cache][semantics]") {
  CacheTestEnv env;
  env.Serve(CacheTestEnv::CloseResponse(
      "200 OK", "body",
      "Cache-Control: no-cache\r\nETag: \"e\"\r\nContent-Type: text/plain\r\nX-A: 1\r\n"));
  RecordingDelegate d1;
  Run(env, &d1);
  env.Serve(CacheTestEnv::CloseResponse(
      "304 Not Modified", "",
      "ETag: \"e\"\r\nContent-Type: text/html; charset=utf-8\r\nContent-Encoding: gzip\r\n"
      "X-A: 2\r\nKeep-Alive: timeout=1\r\n"));
  RecordingDelegate d2;
  auto r = Run(env, &d2);
  CHECK(r->cache_disposition() == CacheDisposition::kRevalidated);
  CHECK(d2.data == "body");  // the stored identity body, not "decoded" as gzip
  CHECK(Header(*r, "content-type") == "text/html; charset=utf-8");
  CHECK(Header(*r, "x-a") == "2");
  CHECK_FALSE(r->response_headers()->HasHeader("content-encoding"));
  CHECK_FALSE(r->response_headers()->HasHeader("keep-alive"));
  HttpResponseInfo stored = env.StoredInfo(kUrl);
  std::string v;
  CHECK(stored.headers->GetNormalizedHeader("content-type", &v));
  CHECK(v == "text/html; charset=utf-8");
  CHECK_FALSE(stored.headers->HasHeader("content-encoding"));
  CHECK_FALSE(stored.headers->HasHeader("keep-alive"));
}

TEST_CASE("cache semantics: a HEAD 200 freshens the stored GET, or invalidates it",
          "[cache][semantics]") {
  CacheTestEnv env;
  env.Serve(CacheTestEnv::CloseResponse("200 OK", "get body",
                                        "Cache-Control: max-age=10\r\nETag: \"v1\"\r\nX-V: 1\r\n"));
  RecordingDelegate d1;
  Run(env, &d1);
  env.Advance(Seconds(30));  // stale

  SECTION("matching validators: updated as by a 304, fresh again") {
    // A HEAD's Content-Length is the GET body's (8 bytes), with no body.
    env.Serve(
        "HTTP/1.1 200 OK\r\nCache-Control: max-age=100\r\nETag: \"v1\"\r\nX-V: 2\r\n"
        "Content-Length: 8\r\nConnection: close\r\n\r\n");
    RecordingDelegate dh;
    auto head = Run(env, &dh, {}, "HEAD");
    CHECK(head->cache_disposition() == CacheDisposition::kBypass);
    CHECK(env.recorder.Count(NetLogEventType::HTTP_CACHE_VALIDATE_RESULT,
                             head->net_log().source().id) == 1);
    const size_t sockets = env.factory->transport_sockets_created();
    RecordingDelegate d2;
    auto r = Run(env, &d2);
    CHECK(r->cache_disposition() == CacheDisposition::kHit);
    CHECK(d2.data == "get body");
    CHECK(Header(*r, "x-v") == "2");
    CHECK(env.factory->transport_sockets_created() == sockets);
  }
  SECTION("another Content-Length: the stored GET is invalidated") {
    env.Serve(CacheTestEnv::CloseResponse("200 OK", "",
                                          "Cache-Control: max-age=100\r\nETag: \"v1\"\r\n"));
    RecordingDelegate dh;
    Run(env, &dh, {}, "HEAD");
    CHECK(env.backend->GetEntryCount() == 0);
  }
  SECTION("another ETag: the stored GET is invalidated") {
    env.Serve(CacheTestEnv::CloseResponse("200 OK", "",
                                          "Cache-Control: max-age=100\r\nETag: \"v2\"\r\n"));
    RecordingDelegate dh;
    Run(env, &dh, {}, "HEAD");
    CHECK(env.backend->GetEntryCount() == 0);
  }
  SECTION("no validator: nothing proves the body is current; invalidated") {
    env.Serve(CacheTestEnv::CloseResponse("200 OK", "", "Cache-Control: max-age=100\r\n"));
    RecordingDelegate dh;
    Run(env, &dh, {}, "HEAD");
    CHECK(env.backend->GetEntryCount() == 0);
  }
  SECTION("a HEAD error status leaves the entry alone") {
    env.Serve(CacheTestEnv::CloseResponse("500 Oops", ""));
    RecordingDelegate dh;
    Run(env, &dh, {}, "HEAD");
    CHECK(env.backend->GetEntryCount() == 1);
  }
}

TEST_CASE("cache semantics: an Expires that is not an HTTP-date is already expired",
          "[cache][semantics]") {
  for (const char* kind : {"UTC zone", "0", "garbage", "lower case"}) {
    INFO(kind);
    CacheTestEnv env;
    const std::string fresh = env.DateIn(3600);
    std::string expires = fresh;
    if (std::string(kind) == "UTC zone") expires.replace(expires.size() - 3, 3, "UTC");
    if (std::string(kind) == "0") expires = "0";
    if (std::string(kind) == "garbage") expires = "tomorrow";
    if (std::string(kind) == "lower case") expires[0] = static_cast<char>(expires[0] + 32);
    env.Serve(CacheTestEnv::CloseResponse("200 OK", "v1", "Expires: " + expires + "\r\n"));
    RecordingDelegate d1;
    Run(env, &d1);
    REQUIRE(env.backend->GetEntryCount() == 1);  // stored (Expires makes it storable), but stale
    env.Serve(CacheTestEnv::CloseResponse("200 OK", "v2", "Expires: " + fresh + "\r\n"));
    RecordingDelegate d2;
    auto r = Run(env, &d2);
    CHECK(r->cache_disposition() == CacheDisposition::kMiss);
    CHECK(d2.data == "v2");
    // The valid one counts.
    RecordingDelegate d3;
    CHECK(Run(env, &d3)->cache_disposition() == CacheDisposition::kHit);
  }
}

TEST_CASE("cache semantics: repeated or malformed max-age makes the response stale",
          "[cache][semantics]") {
  CacheTestEnv env;
  const std::string cc =
      GENERATE(as<std::string>{}, "max-age=60, max-age=60", "max-age=60, max-age=10", "max-age=-60",
               "max-age=6O", "max-age=60.5", "max-age=");
  INFO(cc);
  env.Serve(CacheTestEnv::CloseResponse("200 OK", "v1", "Cache-Control: " + cc + "\r\n"));
  RecordingDelegate d1;
  Run(env, &d1);
  env.Serve(CacheTestEnv::CloseResponse("200 OK", "v2"));
  RecordingDelegate d2;
  auto r = Run(env, &d2);
  CHECK(r->cache_disposition() == CacheDisposition::kMiss);
  CHECK(d2.data == "v2");
}

TEST_CASE("cache semantics: a quoted max-age counts", "[cache][semantics]") {
  CacheTestEnv env;
  env.Serve(CacheTestEnv::CloseResponse("200 OK", "v1", "Cache-Control: max-age=\"60\"\r\n"));
  RecordingDelegate d1;
  Run(env, &d1);
  env.Advance(Seconds(59));
  RecordingDelegate d2;
  CHECK(Run(env, &d2)->cache_disposition() == CacheDisposition::kHit);
}

TEST_CASE("cache semantics: stale-if-error serves the stored response on 5xx and network errors",
          "[cache][semantics]") {
  CacheTestEnv env;
  env.Serve(CacheTestEnv::CloseResponse("200 OK", "good",
                                        "Cache-Control: max-age=10, stale-if-error=60\r\n"));
  RecordingDelegate d1;
  Run(env, &d1);
  env.Advance(Seconds(30));  // 20 s stale

  SECTION("a 503 within the window") {
    env.Serve(CacheTestEnv::CloseResponse("503 Service Unavailable", "down"));
    RecordingDelegate d;
    auto r = Run(env, &d);
    CHECK(r->cache_disposition() == CacheDisposition::kStale);
    CHECK(r->response_headers()->response_code() == 200);
    CHECK(d.data == "good");
    CHECK(Header(*r, "age") == "30");
    CHECK(env.backend->GetEntryCount() == 1);
  }
  SECTION("a connection reset within the window") {
    env.factory->AddSocket({ScriptedRead::Error(ERR_CONNECTION_RESET, IoMode::kAsync)});
    RecordingDelegate d;
    auto r = Run(env, &d);
    CHECK(r->cache_disposition() == CacheDisposition::kStale);
    CHECK(d.data == "good");
  }
  SECTION("past the window the error is the answer") {
    env.Advance(Seconds(60));  // 80 s stale
    env.Serve(CacheTestEnv::CloseResponse("503 Service Unavailable", "down"));
    RecordingDelegate d;
    auto r = Run(env, &d);
    CHECK(r->cache_disposition() == CacheDisposition::kMiss);
    CHECK(r->response_headers()->response_code() == 503);
    CHECK(d.data == "down");
  }
  SECTION("a 404 is an answer, not an error") {
    env.Serve(CacheTestEnv::CloseResponse("404 Not Found", "gone"));
    RecordingDelegate d;
    auto r = Run(env, &d);
    CHECK(r->response_headers()->response_code() == 404);
  }
}

TEST_CASE("cache semantics: must-revalidate forbids stale-if-error", "[cache][semantics]") {
  CacheTestEnv env;
  env.Serve(CacheTestEnv::CloseResponse(
      "200 OK", "good", "Cache-Control: max-age=10, stale-if-error=60, must-revalidate\r\n"));
  RecordingDelegate d1;
  Run(env, &d1);
  env.Advance(Seconds(30));
  env.Serve(CacheTestEnv::CloseResponse("502 Bad Gateway", "down"));
  RecordingDelegate d;
  auto r = Run(env, &d);
  CHECK(r->response_headers()->response_code() == 502);
}

TEST_CASE("cache semantics: any unsafe method invalidates the URL and same-origin locations",
          "[cache][semantics]") {
  CacheTestEnv env;
  const std::string other = "http://a.test/other";
  const std::string method = GENERATE(as<std::string>{}, "PUT", "DELETE", "PATCH", "PURGE");
  INFO(method);
  for (const std::string& url : {std::string(kUrl), other}) {
    env.Serve(CacheTestEnv::CloseResponse("200 OK", "v1", "Cache-Control: max-age=600\r\n"));
    RecordingDelegate d;
    env.Get(url, &d);
    REQUIRE(d.result == OK);
  }
  env.scheduler.RunUntilIdle();
  REQUIRE(env.backend->GetEntryCount() == 2);
  env.Serve(CacheTestEnv::CloseResponse("204 No Content", "", "Content-Location: /other\r\n"));
  RecordingDelegate d;
  auto r = env.Get(kUrl, &d, {}, method);
  CHECK(d.result == OK);
  CHECK(r->cache_disposition() == CacheDisposition::kBypass);
  CHECK(env.backend->GetEntryCount() == 0);
}

}  // namespace
}  // namespace netstack::test
