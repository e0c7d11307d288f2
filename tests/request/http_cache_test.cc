// The HTTP cache through UrlRequest, on virtual time: storing, hits without the network, what
// is bypassed, and what is never stored (cut bodies, failed appends, damaged entries).
#include <catch2/catch.hpp>
#include <string>

#include "net/http/http_cache_policy.h"
#include "tests/http/compression_test_util.h"
#include "tests/request/cache_test_env.h"

namespace netstack::test {
namespace {

constexpr char kUrl[] = "http://a.test/page";

TEST_CASE("cache: a fresh response is stored, then served without the network", "[cache]") {
  CacheTestEnv env;
  FakeConnection* conn = env.Serve(CacheTestEnv::CloseResponse(
      "200 OK", "cached body",
      "Cache-Control: max-age=60\r\nX-Origin: yes\r\nSet-Cookie: session=secret\r\n"));

  RecordingDelegate d1;
  auto r1 = env.Get(std::string(kUrl) + "#fragment", &d1);
  CHECK(d1.result == OK);
  CHECK(d1.data == "cached body");
  CHECK(r1->cache_disposition() == CacheDisposition::kMiss);
  CHECK(env.backend->GetEntryCount() == 1);
  // The key is the URL without its fragment; stream 0 holds the response info.
  HttpResponseInfo info = env.StoredInfo(kUrl);
  CHECK(info.url == kUrl);
  CHECK(info.headers->response_code() == 200);
  // Wall time of the headers' arrival (the clock follows virtual time from its origin).
  CHECK(info.response_time == TimeFromUnixSeconds(CacheTestEnv::kOriginUnixSeconds) +
                                  r1->load_timing_info().receive_headers_end.time_since_epoch());
  CHECK(info.request_time <= info.response_time);
  // Cookies reach the caller of the network response but are not stored.
  CHECK(r1->response_headers()->HasHeader("set-cookie"));
  CHECK_FALSE(info.headers->HasHeader("set-cookie"));
  CHECK(RequestLines(conn->script->written()).size() == 1);

  env.Advance(Seconds(30));
  const size_t sockets = env.factory->transport_sockets_created();
  RecordingDelegate d2;
  auto r2 = env.Get(kUrl, &d2);
  CHECK(d2.result == OK);
  CHECK(d2.data == "cached body");
  CHECK(d2.events == std::vector<std::string>{"started", "data", "complete"});
  CHECK(d2.calls_inside_start == 0);
  CHECK(r2->cache_disposition() == CacheDisposition::kHit);
  CHECK(env.factory->transport_sockets_created() == sockets);  // no socket used
  CHECK(env.factory->unscripted_sockets() == 0);
  std::string value;
  REQUIRE(r2->response_headers());
  CHECK(r2->response_headers()->GetNormalizedHeader("x-origin", &value));
  CHECK(value == "yes");
  CHECK_FALSE(r2->response_headers()->HasHeader("set-cookie"));
  CHECK(r2->encoded_body_bytes() == 11);
  CHECK(r2->decoded_body_bytes() == 11);

  // Timing of a hit: no connect, no send; the receive points and the request start.
  const LoadTimingInfo& t = r2->load_timing_info();
  CHECK(t.request_start == r2->start_time());
  CHECK(t.connect_timing.dns_start == TimeTicks{});
  CHECK(t.connect_timing.connect_start == TimeTicks{});
  CHECK(t.send_start == TimeTicks{});
  CHECK(t.send_end == TimeTicks{});
  CHECK(t.receive_headers_end != TimeTicks{});
  CHECK(t.receive_headers_start == t.receive_headers_end);
  CHECK(t.receive_end >= t.receive_headers_end);
  CHECK(r2->connection_info().socket_id == 0);

  // The NetLog tells the story.
  uint32_t source = r2->net_log().source().id;
  CHECK(env.recorder.Count(NetLogEventType::HTTP_CACHE_OPEN_ENTRY, NetLogEventPhase::BEGIN,
                           source) == 1);
  CHECK(env.recorder.Count(NetLogEventType::HTTP_CACHE_OPEN_ENTRY, NetLogEventPhase::END, source) ==
        1);
  auto lookups = env.recorder.Get(NetLogEventType::HTTP_CACHE_LOOKUP, source);
  REQUIRE(lookups.size() == 1);
  CHECK(lookups[0].params["action"] == "use");
  CHECK(env.recorder.Count(NetLogEventType::HTTP_CACHE_READ_DATA, source) == 1);
  CHECK(env.recorder.Count(NetLogEventType::HTTP_TRANSACTION_SEND_REQUEST, source) == 0);
  // The miss wrote and committed.
  uint32_t first = r1->net_log().source().id;
  CHECK(env.recorder.Count(NetLogEventType::HTTP_CACHE_CREATE_ENTRY, first) == 1);
  auto writes = env.recorder.Get(NetLogEventType::HTTP_CACHE_WRITE_DATA, first);
  REQUIRE(writes.size() == 1);
  CHECK(writes[0].params["committed"] == true);
  CHECK(writes[0].params["bytes"] == 11);
}

TEST_CASE("cache: without a cache, or for HEAD, the disposition is bypass", "[cache]") {
  SECTION("no cache in the context") {
    RequestTestEnv env;
    env.AddHost("a.test");
    env.factory->AddSocket(
        {ScriptedRead::Data(Response("200 OK", "x", "Cache-Control: max-age=60\r\n"),
                            IoMode::kAsync, Milliseconds(5))});
    RecordingDelegate d;
    auto r = env.Fetch(env.Params(kUrl), &d);
    CHECK(d.result == OK);
    CHECK(r->cache_disposition() == CacheDisposition::kBypass);
    CHECK(std::string(CacheDispositionName(r->cache_disposition())) == "bypass");
  }
  SECTION("HEAD is never answered from the GET entry") {
    CacheTestEnv env;
    env.Serve(CacheTestEnv::CloseResponse("200 OK", "get body", "Cache-Control: max-age=60\r\n"));
    RecordingDelegate d1;
    env.Get(kUrl, &d1);
    REQUIRE(d1.result == OK);

    // HEAD goes to the network even though a fresh GET response is stored.
    FakeConnection* head_conn = env.factory->AddSocket({ScriptedRead::Data(
        "HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nX-Head: 1\r\nContent-Length: 99\r\n"
        "Connection: close\r\n\r\n",
        IoMode::kAsync, Milliseconds(5))});
    RecordingDelegate d2;
    auto r2 = env.Get(kUrl, &d2, {}, "HEAD");
    CHECK(d2.result == OK);
    CHECK(d2.data.empty());
    CHECK(r2->cache_disposition() == CacheDisposition::kBypass);
    CHECK(RequestLines(head_conn->script->written()) ==
          std::vector<std::string>{"HEAD /page HTTP/1.1"});

    // Its 200 carries no validator, so nothing shows the stored body is still current: the GET
    // entry is invalidated (RFC 9111 4.3.5; http_cache_semantics_test.cc has the update).
    env.scheduler.RunUntilIdle();
    CHECK(env.backend->GetEntryCount() == 0);
  }
}

TEST_CASE("cache: no-store responses and requests are not written", "[cache]") {
  CacheTestEnv env;
  env.Serve(
      CacheTestEnv::CloseResponse("200 OK", "secret", "Cache-Control: no-store, max-age=60\r\n"));
  RecordingDelegate d1;
  auto r1 = env.Get(kUrl, &d1);
  CHECK(d1.data == "secret");
  CHECK(r1->cache_disposition() == CacheDisposition::kMiss);
  CHECK(env.backend->GetEntryCount() == 0);

  // A request's no-store bypasses the cache entirely.
  env.Serve(CacheTestEnv::CloseResponse("200 OK", "other", "Cache-Control: max-age=60\r\n"));
  RecordingDelegate d2;
  auto r2 = env.Get(kUrl, &d2, {"Cache-Control: no-store"});
  CHECK(d2.data == "other");
  CHECK(r2->cache_disposition() == CacheDisposition::kBypass);
  CHECK(env.backend->GetEntryCount() == 0);
}

TEST_CASE("cache: a gzip body is stored encoded and served decoded", "[cache]") {
  CacheTestEnv env;
  std::string plain;
  for (int i = 0; i < 2000; ++i) plain += "line " + std::to_string(i) + " of the document\n";
  const std::string gz = Gzip(plain);
  REQUIRE(gz.size() < plain.size());
  env.Serve(CacheTestEnv::CloseResponse("200 OK", gz,
                                        "Content-Encoding: gzip\r\nCache-Control: max-age=60\r\n"));
  RecordingDelegate d1;
  auto r1 = env.Get(kUrl, &d1);
  CHECK(d1.result == OK);
  CHECK(d1.data == plain);
  CHECK(r1->encoded_body_bytes() == static_cast<int64_t>(gz.size()));
  CHECK(r1->decoded_body_bytes() == static_cast<int64_t>(plain.size()));
  CacheEntryInfo entry_info;
  REQUIRE(env.backend->GetEntryInfo(kUrl, &entry_info));
  CHECK(entry_info.body_size == static_cast<int64_t>(gz.size()));  // stored as received

  RecordingDelegate d2;
  auto r2 = env.Get(kUrl, &d2);
  CHECK(r2->cache_disposition() == CacheDisposition::kHit);
  CHECK(d2.result == OK);
  CHECK(d2.data == plain);
  CHECK(r2->encoded_body_bytes() == static_cast<int64_t>(gz.size()));
  CHECK(r2->decoded_body_bytes() == static_cast<int64_t>(plain.size()));
}

TEST_CASE("cache: a body cut by a network error is not committed", "[cache]") {
  CacheTestEnv env;
  env.factory->AddSocket(
      {ScriptedRead::Data(
           "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 100\r\n\r\n"
           "only part of it",
           IoMode::kAsync, Milliseconds(5)),
       ScriptedRead::Error(ERR_CONNECTION_RESET, IoMode::kAsync, Milliseconds(5))});
  RecordingDelegate d1;
  auto r1 = env.Get(kUrl, &d1);
  CHECK(d1.result == ERR_CONNECTION_RESET);
  CHECK(d1.data == "only part of it");
  env.scheduler.RunUntilIdle();
  CHECK(env.backend->GetEntryCount() == 0);
  auto writes = env.recorder.Get(NetLogEventType::HTTP_CACHE_WRITE_DATA, r1->net_log().source().id);
  REQUIRE(writes.size() == 1);
  CHECK(writes[0].params["committed"] == false);

  // The next request goes to the network again.
  env.Serve(CacheTestEnv::CloseResponse("200 OK", "whole", "Cache-Control: max-age=60\r\n"));
  RecordingDelegate d2;
  auto r2 = env.Get(kUrl, &d2);
  CHECK(r2->cache_disposition() == CacheDisposition::kMiss);
  CHECK(d2.data == "whole");
  CHECK(env.backend->GetEntryCount() == 1);
}

TEST_CASE("cache: a failed append leaves the response uncached but the request succeeds",
          "[cache]") {
  CacheConfig config = CacheTestEnv::DefaultCacheConfig();
  config.max_entry_bytes = 600;  // headers fit, the body does not
  CacheTestEnv env(config);
  const std::string body(5000, 'b');
  env.factory->AddSocket(
      {ScriptedRead::Data("HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 5000\r\n"
                          "Connection: close\r\n\r\n" +
                              body.substr(0, 1000),
                          IoMode::kAsync, Milliseconds(5)),
       ScriptedRead::Data(body.substr(1000), IoMode::kAsync, Milliseconds(5))});
  RecordingDelegate d1;
  auto r1 = env.Get(kUrl, &d1);
  CHECK(d1.result == OK);
  CHECK(d1.data == body);
  CHECK(r1->cache_disposition() == CacheDisposition::kMiss);
  env.scheduler.RunUntilIdle();
  CHECK(env.backend->GetEntryCount() == 0);
  auto writes = env.recorder.Get(NetLogEventType::HTTP_CACHE_WRITE_DATA, r1->net_log().source().id);
  REQUIRE(writes.size() == 1);
  CHECK(writes[0].params["committed"] == false);
  CHECK(writes[0].params["net_error"] == ERR_FILE_TOO_BIG);
}

TEST_CASE("cache: a malformed stream 0 is a miss and the entry is doomed", "[cache]") {
  CacheTestEnv env;
  env.PutEntry(kUrl, "{\"format\": \"not ours\"", "stale bytes");
  REQUIRE(env.backend->GetEntryCount() == 1);
  env.Serve(
      CacheTestEnv::CloseResponse("200 OK", "fresh from network", "Cache-Control: max-age=60\r\n"));
  RecordingDelegate d1;
  auto r1 = env.Get(kUrl, &d1);
  CHECK(d1.result == OK);
  CHECK(d1.data == "fresh from network");
  CHECK(r1->cache_disposition() == CacheDisposition::kMiss);
  uint32_t source = r1->net_log().source().id;
  auto reads = env.recorder.Get(NetLogEventType::HTTP_CACHE_READ_INFO, source);
  REQUIRE(reads.size() == 1);
  CHECK(reads[0].params["error"] == "stream 0: not JSON");
  CHECK(env.recorder.Count(NetLogEventType::HTTP_CACHE_DOOM_ENTRY, source) == 1);
  CHECK(env.backend->GetStats().dooms >= 1);
  // Replaced by the good response.
  env.scheduler.RunUntilIdle();
  CHECK(env.StoredInfo(kUrl).headers->response_code() == 200);
  RecordingDelegate d2;
  auto r2 = env.Get(kUrl, &d2);
  CHECK(r2->cache_disposition() == CacheDisposition::kHit);
  CHECK(d2.data == "fresh from network");

  SECTION("a stream 0 of another URL is damaged too") {
    HttpResponseInfo other = env.StoredInfo(kUrl);
    other.url = "http://a.test/elsewhere";
    env.PutEntry(kUrl, other.Serialize(), "x");
    env.Serve(CacheTestEnv::CloseResponse("200 OK", "again", "Cache-Control: max-age=60\r\n"));
    RecordingDelegate d3;
    auto r3 = env.Get(kUrl, &d3);
    CHECK(r3->cache_disposition() == CacheDisposition::kMiss);
    CHECK(d3.data == "again");
  }
}

TEST_CASE("cache: only-if-cached serves what is stored or answers 504", "[cache]") {
  CacheTestEnv env;
  // Nothing stored: a 504 made by the cache (RFC 9111 5.2.1.7), no network.
  RecordingDelegate d1;
  auto r1 = env.Get(kUrl, &d1, {"Cache-Control: only-if-cached"});
  CHECK(d1.result == OK);
  REQUIRE(r1->response_headers());
  CHECK(r1->response_headers()->response_code() == 504);
  CHECK(d1.data.empty());
  CHECK(r1->cache_disposition() == CacheDisposition::kMiss);
  CHECK(env.factory->transport_sockets_created() == 0);

  env.Serve(CacheTestEnv::CloseResponse("200 OK", "stored", "Cache-Control: max-age=10\r\n"));
  RecordingDelegate d2;
  env.Get(kUrl, &d2);
  REQUIRE(d2.result == OK);

  RecordingDelegate d3;
  auto r3 = env.Get(kUrl, &d3, {"Cache-Control: only-if-cached"});
  CHECK(d3.result == OK);
  CHECK(d3.data == "stored");
  CHECK(r3->cache_disposition() == CacheDisposition::kHit);

  // Stale: served as stale without the network (Chrome's only-if-cached).
  env.Advance(Seconds(20));
  const size_t sockets = env.factory->transport_sockets_created();
  RecordingDelegate d4;
  auto r4 = env.Get(kUrl, &d4, {"Cache-Control: only-if-cached"});
  CHECK(d4.result == OK);
  CHECK(r4->cache_disposition() == CacheDisposition::kStale);
  CHECK(env.factory->transport_sockets_created() == sockets);

  // HEAD is never served from the cache: 504 too.
  RecordingDelegate d5;
  auto r5 = env.Get(kUrl, &d5, {"Cache-Control: only-if-cached"}, "HEAD");
  CHECK(d5.result == OK);
  REQUIRE(r5->response_headers());
  CHECK(r5->response_headers()->response_code() == 504);
  CHECK(env.factory->transport_sockets_created() == sockets);
}

TEST_CASE("cache: a cached redirect hop is followed without the network", "[cache]") {
  CacheTestEnv env;
  env.Serve(CacheTestEnv::CloseResponse("301 Moved Permanently", "moved",
                                        "Location: /new\r\nCache-Control: max-age=3600\r\n"));
  env.Serve(CacheTestEnv::CloseResponse("200 OK", "new page", "Cache-Control: max-age=3600\r\n"));
  RecordingDelegate d1;
  auto r1 = env.Get("http://a.test/old", &d1);
  CHECK(d1.data == "new page");
  CHECK(env.backend->GetEntryCount() == 2);

  const size_t sockets = env.factory->transport_sockets_created();
  RecordingDelegate d2;
  auto r2 = env.Get("http://a.test/old", &d2);
  CHECK(d2.result == OK);
  CHECK(d2.data == "new page");
  CHECK(r2->redirect_chain() == std::vector<std::string>{"http://a.test/new"});
  CHECK(r2->cache_disposition() == CacheDisposition::kHit);
  CHECK(env.factory->transport_sockets_created() == sockets);
}

TEST_CASE("cache: destroying the request mid-way leaves nothing half-written",
          "[cache][lifetime]") {
  CacheTestEnv env;
  auto balanced = [&env](NetLogEventType type) {
    return env.recorder.Count(type, NetLogEventPhase::BEGIN, 0) ==
           env.recorder.Count(type, NetLogEventPhase::END, 0);
  };
  SECTION("during a miss's body: not committed") {
    env.factory->AddSocket({ScriptedRead::Data("HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\n"
                                               "Content-Length: 100\r\n\r\nfirst part",
                                               IoMode::kAsync, Milliseconds(5)),
                            ScriptedRead::Hang()});
    RecordingDelegate d;
    auto r = env.MakeRequest(env.Params(kUrl), &d);
    d.Start(r.get());
    REQUIRE(env.scheduler.RunUntil([&] { return !d.data.empty(); }));
    r.reset();
    env.scheduler.RunUntilIdle();
    CHECK(d.completions == 0);
    CHECK(env.backend->GetEntryCount() == 0);
    auto writes = env.recorder.Get(NetLogEventType::HTTP_CACHE_WRITE_DATA);
    REQUIRE(writes.size() == 1);
    CHECK(writes[0].params["committed"] == false);
  }
  SECTION("from OnResponseStarted of a hit, and from OnComplete") {
    env.Serve(CacheTestEnv::CloseResponse("200 OK", "body", "Cache-Control: max-age=60\r\n"));
    RecordingDelegate d1;
    env.Get(kUrl, &d1);
    REQUIRE(d1.result == OK);

    RecordingDelegate d2;
    std::unique_ptr<UrlRequest> r2 = env.MakeRequest(env.Params(kUrl), &d2);
    d2.on_response_started = [&r2](UrlRequest*) { r2.reset(); };
    d2.Start(r2.get());
    env.scheduler.RunUntilIdle();
    CHECK(r2 == nullptr);
    CHECK(d2.completions == 0);

    RecordingDelegate d3;
    std::unique_ptr<UrlRequest> r3 = env.MakeRequest(env.Params(kUrl), &d3);
    d3.on_complete = [&r3](UrlRequest*, int) { r3.reset(); };
    d3.Start(r3.get());
    env.scheduler.RunUntilIdle();
    CHECK(r3 == nullptr);
    CHECK(d3.data == "body");
    CHECK(env.backend->GetEntryCount() == 1);  // the stored entry is untouched
  }
  CHECK(balanced(NetLogEventType::HTTP_CACHE_OPEN_ENTRY));
  CHECK(balanced(NetLogEventType::REQUEST_ALIVE));
}

}  // namespace
}  // namespace netstack::test
