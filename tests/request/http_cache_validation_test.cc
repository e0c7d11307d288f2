// The HTTP cache's freshness and validation through UrlRequest, on virtual time: max-age,
// Expires, heuristic freshness, conditional requests and 304 merging, no-cache,
// must-revalidate, Vary, invalidation by unsafe methods, stale-while-revalidate.
#include <catch2/catch.hpp>
#include <string>

#include "net/http/http_cache_vary.h"
#include "tests/request/cache_test_env.h"

namespace netstack::test {
namespace {

constexpr char kUrl[] = "http://a.test/doc";

// Fetches kUrl once to store `headers` + `body`; REQUIREs a miss that stored it.
void Prime(CacheTestEnv& env, const std::string& headers, const std::string& body = "v1 body") {
  env.Serve(CacheTestEnv::CloseResponse("200 OK", body, headers));
  RecordingDelegate d;
  auto r = env.Get(kUrl, &d);
  REQUIRE(d.result == OK);
  REQUIRE(r->cache_disposition() == CacheDisposition::kMiss);
  env.scheduler.RunUntilIdle();
  REQUIRE(env.backend->GetEntryCount() == 1);
}

CacheDisposition Disposition(CacheTestEnv& env, const std::vector<std::string>& headers = {},
                             std::string* data = nullptr) {
  RecordingDelegate d;
  auto r = env.Get(kUrl, &d, headers);
  REQUIRE(d.result == OK);
  if (data) *data = d.data;
  return r->cache_disposition();
}

TEST_CASE("cache: freshness from max-age, Expires and the heuristic", "[cache][validation]") {
  CacheTestEnv env;
  SECTION("max-age") {
    Prime(env, "Cache-Control: max-age=100\r\n");
    env.Advance(Seconds(99));
    CHECK(Disposition(env) == CacheDisposition::kHit);
    env.Advance(Seconds(2));
    // Stale without validators: a plain request whose response replaces the entry.
    FakeConnection* conn =
        env.Serve(CacheTestEnv::CloseResponse("200 OK", "v2", "Cache-Control: max-age=100\r\n"));
    std::string data;
    CHECK(Disposition(env, {}, &data) == CacheDisposition::kMiss);
    CHECK(data == "v2");
    CHECK(SentHeader(conn, "If-None-Match").empty());
    CHECK(SentHeader(conn, "If-Modified-Since").empty());
  }
  SECTION("Expires against Date") {
    Prime(env, "Date: " + env.DateIn(0) + "\r\nExpires: " + env.DateIn(50) + "\r\n");
    env.Advance(Seconds(40));
    CHECK(Disposition(env) == CacheDisposition::kHit);
    env.Advance(Seconds(20));
    env.Serve(CacheTestEnv::CloseResponse("200 OK", "v2"));
    CHECK(Disposition(env) == CacheDisposition::kMiss);
  }
  SECTION("heuristic: 10% of Date - Last-Modified, then If-Modified-Since") {
    const std::string last_modified = env.DateIn(-2000);
    Prime(env, "Date: " + env.DateIn(0) + "\r\nLast-Modified: " + last_modified + "\r\n");
    CHECK(env.StoredInfo(kUrl).headers->HasHeader("last-modified"));
    env.Advance(Seconds(150));  // lifetime 200 s
    CHECK(Disposition(env) == CacheDisposition::kHit);
    env.Advance(Seconds(100));
    FakeConnection* conn = env.Serve(CacheTestEnv::CloseResponse("304 Not Modified", ""));
    std::string data;
    CHECK(Disposition(env, {}, &data) == CacheDisposition::kRevalidated);
    CHECK(data == "v1 body");
    CHECK(SentHeader(conn, "If-Modified-Since") == last_modified);
  }
}

TEST_CASE("cache: stale -> If-None-Match -> 304: served from the entry, headers merged",
          "[cache][validation]") {
  CacheTestEnv env;
  Prime(env, "Cache-Control: max-age=10\r\nETag: \"v1\"\r\nLast-Modified: " + env.DateIn(-100) +
                 "\r\nX-Version: 1\r\nContent-Type: text/plain\r\n");
  env.Advance(Seconds(30));
  FakeConnection* conn = env.Serve(CacheTestEnv::CloseResponse(
      "304 Not Modified", "",
      "Cache-Control: max-age=600\r\nETag: \"v1\"\r\nX-Version: 2\r\nContent-Type: text/html\r\n"));
  RecordingDelegate d;
  auto r = env.Get(kUrl, &d);
  CHECK(d.result == OK);
  CHECK(d.data == "v1 body");
  CHECK(r->cache_disposition() == CacheDisposition::kRevalidated);
  CHECK(SentHeader(conn, "If-None-Match") == "\"v1\"");
  CHECK_FALSE(SentHeader(conn, "If-Modified-Since").empty());
  // The response handed out has the merged headers: the stored status and body framing, the
  // 304's end-to-end headers.
  REQUIRE(r->response_headers());
  CHECK(r->response_headers()->response_code() == 200);
  std::string v;
  CHECK(r->response_headers()->GetNormalizedHeader("x-version", &v));
  CHECK(v == "2");
  // Content-Type is updated like any field (RFC 9111 3.2); the framing is the stored body's.
  CHECK(r->response_headers()->GetNormalizedHeader("content-type", &v));
  CHECK(v == "text/html");
  CHECK(r->response_headers()->GetContentLength() == 7);
  // Hop-by-hop fields are neither stored nor served: not the stored response's
  // "Connection: close", nor the 304's.
  CHECK_FALSE(r->response_headers()->HasHeader("connection"));
  // Served with its age: 0 s since the 304 arrived.
  CHECK(r->response_headers()->GetNormalizedHeader("age", &v));
  CHECK(v == "0");
  // Revalidated timing: the network exchange, then the stored body.
  CHECK(r->load_timing_info().send_start != TimeTicks{});
  CHECK(r->connection_info().socket_id == conn->net_log_id);
  auto results =
      env.recorder.Get(NetLogEventType::HTTP_CACHE_VALIDATE_RESULT, r->net_log().source().id);
  REQUIRE(results.size() == 1);
  CHECK(results[0].params["status"] == 304);

  // The entry was rewritten: fresh for 600 s from now, with X-Version: 2.
  HttpResponseInfo info = env.StoredInfo(kUrl);
  CHECK(info.headers->GetNormalizedHeader("x-version", &v));
  CHECK(v == "2");
  env.Advance(Seconds(500));
  std::string data;
  CHECK(Disposition(env, {}, &data) == CacheDisposition::kHit);
  CHECK(data == "v1 body");
}

TEST_CASE("cache: a 200 to the conditional request replaces the entry", "[cache][validation]") {
  CacheTestEnv env;
  Prime(env, "Cache-Control: max-age=10\r\nETag: \"v1\"\r\n");
  env.Advance(Seconds(30));
  FakeConnection* conn = env.Serve(CacheTestEnv::CloseResponse(
      "200 OK", "version two", "Cache-Control: max-age=100\r\nETag: \"v2\"\r\n"));
  std::string data;
  CHECK(Disposition(env, {}, &data) == CacheDisposition::kMiss);
  CHECK(data == "version two");
  CHECK(SentHeader(conn, "If-None-Match") == "\"v1\"");
  env.scheduler.RunUntilIdle();
  CHECK(Disposition(env, {}, &data) == CacheDisposition::kHit);
  CHECK(data == "version two");

  SECTION("a replacement that may not be stored dooms the old entry") {
    env.Advance(Seconds(200));
    env.Serve(CacheTestEnv::CloseResponse("200 OK", "private now", "Cache-Control: no-store\r\n"));
    CHECK(Disposition(env, {}, &data) == CacheDisposition::kMiss);
    CHECK(env.backend->GetEntryCount() == 0);
  }
  SECTION("a 5xx leaves the stored response alone") {
    env.Advance(Seconds(200));
    env.Serve(CacheTestEnv::CloseResponse("503 Busy", "later"));
    CHECK(Disposition(env, {}, &data) == CacheDisposition::kMiss);
    CHECK(data == "later");
    CHECK(env.backend->GetEntryCount() == 1);
  }
}

TEST_CASE("cache: no-cache always validates, must-revalidate never serves stale",
          "[cache][validation]") {
  CacheTestEnv env;
  SECTION("response no-cache") {
    Prime(env, "Cache-Control: no-cache, max-age=600\r\nETag: \"n\"\r\n");
    for (int i = 0; i < 2; ++i) {
      FakeConnection* conn = env.Serve(CacheTestEnv::CloseResponse("304 Not Modified", ""));
      CHECK(Disposition(env) == CacheDisposition::kRevalidated);
      CHECK(SentHeader(conn, "If-None-Match") == "\"n\"");
    }
  }
  SECTION("request no-cache and max-age=0 validate a fresh response") {
    Prime(env, "Cache-Control: max-age=600\r\nETag: \"n\"\r\n");
    env.Serve(CacheTestEnv::CloseResponse("304 Not Modified", ""));
    CHECK(Disposition(env, {"Cache-Control: no-cache"}) == CacheDisposition::kRevalidated);
    env.Serve(CacheTestEnv::CloseResponse("304 Not Modified", ""));
    CHECK(Disposition(env, {"Pragma: no-cache"}) == CacheDisposition::kRevalidated);
    env.Serve(CacheTestEnv::CloseResponse("304 Not Modified", ""));
    CHECK(Disposition(env, {"Cache-Control: max-age=0"}) == CacheDisposition::kRevalidated);
    CHECK(Disposition(env) == CacheDisposition::kHit);
  }
  SECTION("immutable is not revalidated by max-age=0") {
    Prime(env, "Cache-Control: max-age=600, immutable\r\nETag: \"n\"\r\n");
    CHECK(Disposition(env, {"Cache-Control: max-age=0"}) == CacheDisposition::kHit);
  }
  SECTION("must-revalidate beats stale-while-revalidate") {
    Prime(env,
          "Cache-Control: max-age=10, must-revalidate, stale-while-revalidate=600\r\n"
          "ETag: \"m\"\r\n");
    env.Advance(Seconds(20));
    FakeConnection* conn = env.Serve(CacheTestEnv::CloseResponse("304 Not Modified", ""));
    CHECK(Disposition(env) == CacheDisposition::kRevalidated);
    CHECK(SentHeader(conn, "If-None-Match") == "\"m\"");
    CHECK(env.cache->stats().background_started == 0);
  }
}

TEST_CASE("cache: Vary selects by the request's headers", "[cache][validation]") {
  CacheTestEnv env;
  env.Serve(CacheTestEnv::CloseResponse("200 OK", "english",
                                        "Cache-Control: max-age=600\r\nVary: Accept-Language\r\n"));
  std::string data;
  RecordingDelegate d1;
  env.Get(kUrl, &d1, {"Accept-Language: en"});
  REQUIRE(d1.result == OK);
  env.scheduler.RunUntilIdle();

  CHECK(Disposition(env, {"Accept-Language: en"}, &data) == CacheDisposition::kHit);
  CHECK(data == "english");

  // Another language: the network, and the new variant is stored beside the first
  // (http_cache_vary_test.cc has the rest of the variants' rules).
  env.Serve(CacheTestEnv::CloseResponse("200 OK", "francais",
                                        "Cache-Control: max-age=600\r\nVary: Accept-Language\r\n"));
  CHECK(Disposition(env, {"Accept-Language: fr"}, &data) == CacheDisposition::kMiss);
  CHECK(data == "francais");
  env.scheduler.RunUntilIdle();
  CHECK(Disposition(env, {"Accept-Language: fr"}, &data) == CacheDisposition::kHit);
  CHECK(data == "francais");
  CHECK(Disposition(env, {"Accept-Language: en"}, &data) == CacheDisposition::kHit);
  CHECK(data == "english");

  // No Accept-Language at all does not match a stored "fr".
  env.Serve(CacheTestEnv::CloseResponse("200 OK", "default", "Cache-Control: max-age=600\r\n"));
  CHECK(Disposition(env, {}, &data) == CacheDisposition::kMiss);

  // Vary: Accept-Encoding matches against the default header the network sends.
  env.scheduler.RunUntilIdle();
  env.Advance(Seconds(700));
  env.Serve(CacheTestEnv::CloseResponse("200 OK", "enc",
                                        "Cache-Control: max-age=600\r\nVary: Accept-Encoding\r\n"));
  CHECK(Disposition(env) == CacheDisposition::kMiss);
  env.scheduler.RunUntilIdle();
  CHECK(Disposition(env) == CacheDisposition::kHit);
  // The response without Vary replaced the URL's variants; this one is the index's first.
  CHECK(env.StoredInfo(VariantKey(kUrl, 0)).vary ==
        std::vector<HttpResponseInfo::VaryValue>{{"accept-encoding", "gzip, deflate, br"}});
}

TEST_CASE("cache: unsafe methods invalidate the cached GET", "[cache][validation]") {
  CacheTestEnv env;
  Prime(env, "Cache-Control: max-age=600\r\n");
  env.Serve(CacheTestEnv::CloseResponse("200 OK", "posted"));
  RecordingDelegate d;
  UrlRequest::Params params = env.Params(kUrl, "POST", "form=1");
  auto r = env.Fetch(params, &d);
  CHECK(d.result == OK);
  CHECK(r->cache_disposition() == CacheDisposition::kBypass);
  CHECK(env.backend->GetEntryCount() == 0);
  CHECK(env.recorder.Count(NetLogEventType::HTTP_CACHE_DOOM_ENTRY, r->net_log().source().id) == 1);
  env.Serve(CacheTestEnv::CloseResponse("200 OK", "after post", "Cache-Control: max-age=600\r\n"));
  std::string data;
  CHECK(Disposition(env, {}, &data) == CacheDisposition::kMiss);
  CHECK(data == "after post");

  SECTION("an error response invalidates nothing") {
    env.scheduler.RunUntilIdle();
    env.Serve(CacheTestEnv::CloseResponse("500 Oops", "no"));
    RecordingDelegate d2;
    env.Fetch(env.Params(kUrl, "DELETE"), &d2);
    CHECK(env.backend->GetEntryCount() == 1);
  }
}

TEST_CASE("cache: an unsafe method also abandons a GET response still being written",
          "[cache][validation]") {
  CacheTestEnv env;
  // The GET's headers and first bytes arrive at once, the rest only after the POST completed.
  env.factory->AddSocket({ScriptedRead::Data("HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\n"
                                             "Content-Length: 10\r\nConnection: close\r\n\r\n"
                                             "befo",
                                             IoMode::kAsync, Milliseconds(5)),
                          ScriptedRead::Data("re-p", IoMode::kAsync, Milliseconds(500)),
                          ScriptedRead::Data("o", IoMode::kAsync, Milliseconds(1)),
                          ScriptedRead::Data("s", IoMode::kAsync, Milliseconds(1))});
  RecordingDelegate get;
  auto get_request = env.MakeRequest(env.Params(kUrl), &get);
  get.Start(get_request.get());
  REQUIRE(env.scheduler.RunUntil([&] { return !get.data.empty(); }));

  env.Serve(CacheTestEnv::CloseResponse("200 OK", "posted"));
  RecordingDelegate post;
  env.Fetch(env.Params(kUrl, "POST", "form=1"), &post);
  REQUIRE(post.result == OK);
  REQUIRE(get.completions == 0);  // still arriving

  REQUIRE(env.scheduler.RunUntil([&] { return get.completions > 0; }));
  CHECK(get.result == OK);
  CHECK(get.data == "before-pos");
  env.scheduler.RunUntilIdle();
  // What the GET fetched predates the POST: it must not become the stored response.
  CHECK(env.backend->GetEntryCount() == 0);
  auto writes = env.recorder.Get(NetLogEventType::HTTP_CACHE_WRITE_DATA);
  REQUIRE(writes.size() == 1);
  CHECK(writes[0].params["committed"] == false);
  CHECK(writes[0].params["reason"] == "invalidated by an unsafe request");

  env.Serve(CacheTestEnv::CloseResponse("200 OK", "after", "Cache-Control: max-age=600\r\n"));
  std::string data;
  CHECK(Disposition(env, {}, &data) == CacheDisposition::kMiss);
  CHECK(data == "after");
}

TEST_CASE("cache: stale-while-revalidate serves stale and revalidates in the background",
          "[cache][validation][swr]") {
  CacheTestEnv env;
  Prime(env, "Cache-Control: max-age=10, stale-while-revalidate=100\r\nETag: \"v1\"\r\n");
  env.Advance(Seconds(20));
  FakeConnection* conn = env.Serve(CacheTestEnv::CloseResponse(
      "304 Not Modified", "",
      "Cache-Control: max-age=1000, stale-while-revalidate=100\r\nX-Revalidated: yes\r\n"));

  RecordingDelegate d;
  auto r = env.Get(kUrl, &d);
  CHECK(d.result == OK);
  CHECK(d.data == "v1 body");
  CHECK(r->cache_disposition() == CacheDisposition::kStale);
  CHECK(std::string(CacheDispositionName(r->cache_disposition())) == "stale");
  auto events =
      env.recorder.Get(NetLogEventType::HTTP_CACHE_ASYNC_REVALIDATION, r->net_log().source().id);
  REQUIRE(events.size() == 1);
  CHECK(events[0].params["started"] == true);

  bool waited = false;
  env.cache->WaitForBackgroundWork([&waited](int rv) {
    CHECK(rv == OK);
    waited = true;
  });
  CHECK_FALSE(waited);  // never inside the call
  REQUIRE(env.scheduler.RunUntil([&] { return waited; }));
  CHECK(env.cache->background_revalidation_count() == 0);
  CHECK(env.cache->stats().background_finished == 1);
  CHECK(SentHeader(conn, "If-None-Match") == "\"v1\"");

  // The entry was updated by the background 304: fresh, merged headers, same body.
  const size_t sockets = env.factory->transport_sockets_created();
  RecordingDelegate d2;
  auto r2 = env.Get(kUrl, &d2);
  CHECK(r2->cache_disposition() == CacheDisposition::kHit);
  CHECK(d2.data == "v1 body");
  CHECK(r2->response_headers()->HasHeader("x-revalidated"));
  CHECK(env.factory->transport_sockets_created() == sockets);

  SECTION("a 200 in the background replaces the body") {
    env.Advance(Seconds(1005));  // stale again, within stale-while-revalidate
    env.Serve(CacheTestEnv::CloseResponse(
        "200 OK", "v2 body", "Cache-Control: max-age=1000, stale-while-revalidate=100\r\n"));
    CHECK(Disposition(env) == CacheDisposition::kStale);
    bool done = false;
    env.cache->WaitForBackgroundWork([&done](int) { done = true; });
    REQUIRE(env.scheduler.RunUntil([&] { return done; }));
    std::string data;
    CHECK(Disposition(env, {}, &data) == CacheDisposition::kHit);
    CHECK(data == "v2 body");
  }
}

TEST_CASE("cache: background revalidations are bounded", "[cache][validation][swr]") {
  HttpCache::Params params;
  params.max_background_revalidations = 1;
  CacheTestEnv env(CacheTestEnv::DefaultCacheConfig(), params);
  const std::string headers = "Cache-Control: max-age=1, stale-while-revalidate=100\r\n";
  for (const char* path : {"/a", "/b"}) {
    env.Serve(CacheTestEnv::CloseResponse("200 OK", path, headers));
    RecordingDelegate d;
    env.Get(std::string("http://a.test") + path, &d);
    REQUIRE(d.result == OK);
  }
  env.Advance(Seconds(10));
  // The first revalidation's server never answers, so it stays running.
  env.factory->AddSocket({ScriptedRead::Hang()});
  RecordingDelegate da, db;
  auto ra = env.Get("http://a.test/a", &da);
  auto rb = env.Get("http://a.test/b", &db);
  CHECK(ra->cache_disposition() == CacheDisposition::kStale);
  CHECK(rb->cache_disposition() == CacheDisposition::kStale);
  CHECK(db.data == "/b");
  CHECK(env.cache->stats().background_started == 1);
  CHECK(env.cache->stats().background_skipped == 1);
  CHECK(env.cache->background_revalidation_count() == 1);
  // The same URL again while its revalidation runs: skipped, not duplicated.
  RecordingDelegate da2;
  env.Get("http://a.test/a", &da2);
  CHECK(env.cache->stats().background_skipped == 2);
  // Destroying the context cancels the hung revalidation cleanly (checked by ~CacheTestEnv).
}

}  // namespace
}  // namespace netstack::test
