// The request's cache mode (HttpRequestInfo::cache_mode, the Fetch standard's RequestCache)
// through UrlRequest and the cache, on virtual time: what each mode reads, writes and sends.
#include <catch2/catch.hpp>
#include <string>

#include "tests/request/cache_test_env.h"

namespace netstack::test {
namespace {

constexpr char kUrl[] = "http://a.test/mode";

// Fetches kUrl in `mode`; returns the request (its delegate in *d).
std::unique_ptr<UrlRequest> FetchIn(CacheTestEnv& env, RequestCacheMode mode,
                                    RecordingDelegate* d) {
  UrlRequest::Params params = env.Params(kUrl);
  params.request.cache_mode = mode;
  auto r = env.Fetch(params, d);
  env.scheduler.RunUntilIdle();
  return r;
}

// Stores "v1" (max-age=10, ETag "v1") and lets it go stale when `stale`.
void PrimeV1(CacheTestEnv& env, bool stale) {
  env.Serve(
      CacheTestEnv::CloseResponse("200 OK", "v1", "Cache-Control: max-age=10\r\nETag: \"v1\"\r\n"));
  RecordingDelegate d;
  FetchIn(env, RequestCacheMode::kDefault, &d);
  REQUIRE(d.result == OK);
  REQUIRE(env.backend->GetEntryCount() == 1);
  if (stale) env.Advance(Seconds(30));
}

TEST_CASE("cache mode names round-trip", "[cache][mode]") {
  for (RequestCacheMode m : {RequestCacheMode::kDefault, RequestCacheMode::kNoStore,
                             RequestCacheMode::kReload, RequestCacheMode::kNoCache,
                             RequestCacheMode::kForceCache, RequestCacheMode::kOnlyIfCached}) {
    RequestCacheMode parsed = RequestCacheMode::kDefault;
    REQUIRE(ParseRequestCacheMode(RequestCacheModeName(m), &parsed));
    CHECK(parsed == m);
  }
  RequestCacheMode unchanged = RequestCacheMode::kReload;
  CHECK_FALSE(ParseRequestCacheMode("Reload", &unchanged));
  CHECK_FALSE(ParseRequestCacheMode("", &unchanged));
  CHECK(unchanged == RequestCacheMode::kReload);
}

TEST_CASE("cache mode no-store: neither read nor written", "[cache][mode]") {
  CacheTestEnv env;
  PrimeV1(env, /*stale=*/false);
  FakeConnection* conn =
      env.Serve(CacheTestEnv::CloseResponse("200 OK", "v2", "Cache-Control: max-age=100\r\n"));
  RecordingDelegate d;
  auto r = FetchIn(env, RequestCacheMode::kNoStore, &d);
  CHECK(d.data == "v2");  // the fresh stored v1 was not used
  CHECK(r->cache_disposition() == CacheDisposition::kBypass);
  CHECK(SentHeader(conn, "Cache-Control") == "no-cache");
  CHECK(SentHeader(conn, "Pragma") == "no-cache");
  RecordingDelegate d2;
  FetchIn(env, RequestCacheMode::kDefault, &d2);
  CHECK(d2.data == "v1");  // v2 was not stored
}

TEST_CASE("cache mode reload: the network, then stored", "[cache][mode]") {
  CacheTestEnv env;
  PrimeV1(env, /*stale=*/false);
  FakeConnection* conn =
      env.Serve(CacheTestEnv::CloseResponse("200 OK", "v2", "Cache-Control: max-age=100\r\n"));
  RecordingDelegate d;
  auto r = FetchIn(env, RequestCacheMode::kReload, &d);
  CHECK(d.data == "v2");
  CHECK(r->cache_disposition() == CacheDisposition::kMiss);
  CHECK(SentHeader(conn, "If-None-Match").empty());  // not a validation
  CHECK(SentHeader(conn, "Cache-Control") == "no-cache");
  RecordingDelegate d2;
  auto again = FetchIn(env, RequestCacheMode::kDefault, &d2);
  CHECK(again->cache_disposition() == CacheDisposition::kHit);
  CHECK(d2.data == "v2");
}

TEST_CASE("cache mode no-cache: a fresh response is validated", "[cache][mode]") {
  CacheTestEnv env;
  PrimeV1(env, /*stale=*/false);
  FakeConnection* conn =
      env.Serve(CacheTestEnv::CloseResponse("304 Not Modified", "", "ETag: \"v1\"\r\n"));
  RecordingDelegate d;
  auto r = FetchIn(env, RequestCacheMode::kNoCache, &d);
  CHECK(r->cache_disposition() == CacheDisposition::kRevalidated);
  CHECK(d.data == "v1");
  CHECK(SentHeader(conn, "If-None-Match") == "\"v1\"");
  CHECK(SentHeader(conn, "Cache-Control") == "max-age=0");
}

TEST_CASE("cache mode force-cache: stale or no-cache responses used unvalidated", "[cache][mode]") {
  CacheTestEnv env;
  SECTION("stale") {
    PrimeV1(env, /*stale=*/true);
    const size_t sockets = env.factory->transport_sockets_created();
    RecordingDelegate d;
    auto r = FetchIn(env, RequestCacheMode::kForceCache, &d);
    CHECK(r->cache_disposition() == CacheDisposition::kStale);
    CHECK(d.data == "v1");
    CHECK(env.factory->transport_sockets_created() == sockets);
  }
  SECTION("fresh") {
    PrimeV1(env, /*stale=*/false);
    RecordingDelegate d;
    CHECK(FetchIn(env, RequestCacheMode::kForceCache, &d)->cache_disposition() ==
          CacheDisposition::kHit);
  }
  SECTION("nothing stored: the network, and the response stored") {
    env.Serve(CacheTestEnv::CloseResponse("200 OK", "net", "Cache-Control: max-age=100\r\n"));
    RecordingDelegate d;
    auto r = FetchIn(env, RequestCacheMode::kForceCache, &d);
    CHECK(r->cache_disposition() == CacheDisposition::kMiss);
    CHECK(d.data == "net");
    CHECK(env.backend->GetEntryCount() == 1);
  }
}

TEST_CASE("cache mode only-if-cached: stored however stale, else ERR_CACHE_MISS", "[cache][mode]") {
  CacheTestEnv env;
  RecordingDelegate d1;
  auto miss = FetchIn(env, RequestCacheMode::kOnlyIfCached, &d1);
  CHECK(d1.result == ERR_CACHE_MISS);
  CHECK(IsOneLine(miss->error_message()));
  CHECK(miss->error_message().find("only-if-cached") != std::string::npos);
  CHECK(env.factory->transport_sockets_created() == 0);

  env.Serve(CacheTestEnv::CloseResponse(
      "200 OK", "v1", "Cache-Control: max-age=10, must-revalidate\r\nETag: \"v1\"\r\n"));
  RecordingDelegate d2;
  FetchIn(env, RequestCacheMode::kDefault, &d2);
  env.Advance(Seconds(30));
  RecordingDelegate d3;
  auto r = FetchIn(env, RequestCacheMode::kOnlyIfCached, &d3);
  CHECK(d3.result == OK);
  CHECK(d3.data == "v1");
  CHECK(r->cache_disposition() == CacheDisposition::kStale);
  CHECK(env.factory->transport_sockets_created() == 1);
}

TEST_CASE("cache mode: an unsafe method invalidates in every mode", "[cache][mode]") {
  CacheTestEnv env;
  PrimeV1(env, /*stale=*/false);
  env.Serve(CacheTestEnv::CloseResponse("200 OK", "posted"));
  UrlRequest::Params params = env.Params(kUrl, "POST", "x=1");
  params.request.cache_mode = RequestCacheMode::kNoStore;
  RecordingDelegate d;
  env.Fetch(params, &d);
  CHECK(d.result == OK);
  CHECK(env.backend->GetEntryCount() == 0);
}

}  // namespace
}  // namespace netstack::test
