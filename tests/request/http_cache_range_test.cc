// Partial content through the cache (RFC 9111 3.3, 3.4) over the memory backend: a stored whole
// response answers Range requests, 206 pieces are stored, answer what they cover, combine into
// a whole, and are replaced by a piece of another representation; what is not stored.
#include "net/http/http_cache_range.h"

#include <catch2/catch.hpp>
#include <string>

#include "tests/request/cache_test_env.h"

namespace netstack::test {
namespace {

constexpr char kUrl[] = "http://a.test/file";
constexpr char kBody[] = "0123456789";

// The response's status, -1 when there is none (the request failed).
int Status(const UrlRequest& r) {
  return r.response_headers() ? r.response_headers()->response_code() : -1;
}

std::string Header(const UrlRequest& r, const std::string& name) {
  std::string value;
  if (r.response_headers()) r.response_headers()->GetNormalizedHeader(name, &value);
  return value;
}

// A 206 for bytes [first, last] of kBody with `validator` lines.
std::string Piece(int first, int last, const std::string& validator = "ETag: \"v1\"\r\n") {
  return CacheTestEnv::CloseResponse(
      "206 Partial Content", std::string(kBody).substr(first, last - first + 1),
      "Cache-Control: max-age=60\r\n" + validator + "Content-Range: bytes " +
          std::to_string(first) + "-" + std::to_string(last) + "/10\r\n");
}

TEST_CASE("cache range: a stored whole response answers Range requests", "[cache][range]") {
  CacheTestEnv env;
  env.Serve(CacheTestEnv::CloseResponse("200 OK", kBody,
                                        "Cache-Control: max-age=60\r\nETag: \"v1\"\r\n"));
  RecordingDelegate d0;
  env.Get(kUrl, &d0);
  REQUIRE(d0.data == kBody);
  const size_t sockets = env.factory->transport_sockets_created();

  struct Case {
    const char* range;
    int status;
    const char* body;
    const char* content_range;
  };
  for (const Case& c :
       {Case{"bytes=2-4", 206, "234", "bytes 2-4/10"}, Case{"bytes=-3", 206, "789", "bytes 7-9/10"},
        Case{"bytes=8-", 206, "89", "bytes 8-9/10"},
        Case{"bytes=5-100", 206, "56789", "bytes 5-9/10"},
        Case{"bytes=10-", 416, "", "bytes */10"}}) {
    INFO(c.range);
    RecordingDelegate d;
    auto r = env.Get(kUrl, &d, {std::string("Range: ") + c.range});
    CHECK(d.result == OK);
    CHECK(Status(*r) == c.status);
    CHECK(d.data == c.body);
    CHECK(Header(*r, "content-range") == c.content_range);
    CHECK(Header(*r, "content-length") == std::to_string(std::string(c.body).size()));
    CHECK(Header(*r, "etag") == "\"v1\"");
    CHECK(r->cache_disposition() == CacheDisposition::kHit);
  }
  CHECK(env.factory->transport_sockets_created() == sockets);  // no network at all
}

TEST_CASE("cache range: pieces are stored, answer what they cover, and combine into a whole",
          "[cache][range]") {
  CacheTestEnv env;
  FakeConnection* c1 = env.Serve(Piece(0, 3));
  RecordingDelegate d1;
  auto r1 = env.Get(kUrl, &d1, {"Range: bytes=0-3"});
  CHECK(d1.data == "0123");
  CHECK(Status(*r1) == 206);
  CHECK(r1->cache_disposition() == CacheDisposition::kMiss);
  CHECK(SentHeader(c1, "Range") == "bytes=0-3");
  HttpResponseInfo partial = env.StoredInfo(PartialEntryKey(kUrl));
  std::string pieces;
  CHECK(partial.headers->GetNormalizedHeader(kPiecesHeader, &pieces));
  CHECK(pieces == "bytes 0-3/10");
  CHECK(env.backend->GetEntryCount() == 1);  // no whole entry

  // Covered: from the pieces, no network.
  const size_t sockets = env.factory->transport_sockets_created();
  RecordingDelegate d2;
  auto r2 = env.Get(kUrl, &d2, {"Range: bytes=1-2"});
  CHECK(d2.data == "12");
  CHECK(Status(*r2) == 206);
  CHECK(Header(*r2, "content-range") == "bytes 1-2/10");
  CHECK(Header(*r2, kPiecesHeader).empty());
  CHECK(r2->cache_disposition() == CacheDisposition::kHit);
  CHECK(env.factory->transport_sockets_created() == sockets);

  // Not covered: the request goes out as asked; the new piece makes the whole.
  FakeConnection* c3 = env.Serve(Piece(2, 9));
  RecordingDelegate d3;
  auto r3 = env.Get(kUrl, &d3, {"Range: bytes=2-"});
  CHECK(d3.data == "23456789");
  CHECK(r3->cache_disposition() == CacheDisposition::kMiss);
  CHECK(SentHeader(c3, "Range") == "bytes=2-");
  env.scheduler.RunUntilIdle();
  HttpResponseInfo whole = env.StoredInfo(kUrl);
  CHECK(whole.headers->response_code() == 200);
  CHECK(whole.headers->GetContentLength() == 10);
  CHECK_FALSE(whole.headers->HasHeader("content-range"));
  CHECK_FALSE(whole.headers->HasHeader(kPiecesHeader));
  CHECK(env.backend->GetEntryCount() == 1);  // the pieces went

  // The combined whole answers a plain GET.
  RecordingDelegate d4;
  auto r4 = env.Get(kUrl, &d4);
  CHECK(d4.data == kBody);
  CHECK(Status(*r4) == 200);
  CHECK(r4->cache_disposition() == CacheDisposition::kHit);
}

TEST_CASE("cache range: a piece with another validator replaces the stored pieces",
          "[cache][range]") {
  CacheTestEnv env;
  env.Serve(Piece(0, 3, "ETag: \"a\"\r\n"));
  RecordingDelegate d1;
  env.Get(kUrl, &d1, {"Range: bytes=0-3"});
  env.Serve(Piece(4, 9, "ETag: \"b\"\r\n"));
  RecordingDelegate d2;
  env.Get(kUrl, &d2, {"Range: bytes=4-9"});
  CHECK(d2.data == "456789");
  env.scheduler.RunUntilIdle();
  HttpResponseInfo partial = env.StoredInfo(PartialEntryKey(kUrl));
  std::string pieces;
  CHECK(partial.headers->GetNormalizedHeader(kPiecesHeader, &pieces));
  CHECK(pieces == "bytes 4-9/10");  // not combined into a whole made of two representations
  std::string etag;
  CHECK(partial.headers->GetNormalizedHeader("etag", &etag));
  CHECK(etag == "\"b\"");
}

TEST_CASE("cache range: 206s that cannot be combined are served but not stored", "[cache][range]") {
  struct Case {
    const char* name;
    std::string response;
  };
  const std::string cc = "Cache-Control: max-age=60\r\n";
  for (const Case& c : {
           Case{"no Content-Range",
                CacheTestEnv::CloseResponse("206 Partial Content", "0123", cc + "ETag: \"v\"\r\n")},
           Case{"malformed Content-Range",
                CacheTestEnv::CloseResponse("206 Partial Content", "0123",
                                            cc + "ETag: \"v\"\r\nContent-Range: bytes 0-3/x\r\n")},
           Case{"unknown complete length",
                CacheTestEnv::CloseResponse("206 Partial Content", "0123",
                                            cc + "ETag: \"v\"\r\nContent-Range: bytes 0-3/*\r\n")},
           Case{"Content-Range and body disagree",
                CacheTestEnv::CloseResponse("206 Partial Content", "0123",
                                            cc + "ETag: \"v\"\r\nContent-Range: bytes 0-5/10\r\n")},
           Case{"weak ETag", Piece(0, 3, "ETag: W/\"v\"\r\n")},
           Case{"no validator", Piece(0, 3, "")},
           Case{"no-store", Piece(0, 3, "ETag: \"v\"\r\nCache-Control: no-store\r\n")},
           Case{"Vary", Piece(0, 3, "ETag: \"v\"\r\nVary: Accept-Language\r\n")},
       }) {
    INFO(c.name);
    CacheTestEnv env;
    env.Serve(c.response);
    RecordingDelegate d;
    auto r = env.Get(kUrl, &d, {"Range: bytes=0-3"});
    CHECK(d.result == OK);
    CHECK(d.data == "0123");
    CHECK(Status(*r) == 206);
    env.scheduler.RunUntilIdle();
    CHECK(env.backend->GetEntryCount() == 0);
  }
}

TEST_CASE("cache range: a piece over the per-URL byte bound is served, not stored",
          "[cache][range]") {
  // A backend far larger than the bound, so that only the range path's own bound refuses it.
  CacheConfig config;
  config.max_bytes = 1024 * 1024 * 1024;
  CacheTestEnv env(config);
  const int64_t last = PartialContent::kMaxBytes;  // kMaxBytes + 1 bytes: one over the bound
  const std::string body(static_cast<size_t>(last + 1), 'x');
  env.Serve(CacheTestEnv::CloseResponse(
      "206 Partial Content", body,
      "Cache-Control: max-age=60\r\nETag: \"big\"\r\nContent-Range: bytes 0-" +
          std::to_string(last) + "/" + std::to_string(last + 10) + "\r\n"));
  RecordingDelegate d;
  auto r = env.Get(kUrl, &d, {"Range: bytes=0-" + std::to_string(last)});
  CHECK(d.result == OK);
  CHECK(Status(*r) == 206);
  CHECK(d.data.size() == body.size());
  env.scheduler.RunUntilIdle();
  CHECK(env.backend->GetEntryCount() == 0);
}

TEST_CASE("cache range: a 200 to a Range request is stored whole, other requests bypass",
          "[cache][range]") {
  CacheTestEnv env;
  // The server ignored Range: the whole representation, stored as such.
  env.Serve(CacheTestEnv::CloseResponse("200 OK", kBody, "Cache-Control: max-age=60\r\n"));
  RecordingDelegate d1;
  env.Get(kUrl, &d1, {"Range: bytes=0-3"});
  CHECK(d1.data == kBody);
  env.scheduler.RunUntilIdle();
  CHECK(env.StoredInfo(kUrl).headers->response_code() == 200);

  // Several ranges, another unit, or If-Range: the cache stays out of it.
  for (const char* range : {"Range: bytes=0-1,4-5", "Range: items=0-1"}) {
    INFO(range);
    FakeConnection* conn = env.Serve(CacheTestEnv::CloseResponse("200 OK", kBody, ""));
    RecordingDelegate d;
    auto r = env.Get(kUrl, &d, {range});
    CHECK(r->cache_disposition() == CacheDisposition::kBypass);
    CHECK(RequestLines(conn->script->written()).size() == 1);
  }
}

TEST_CASE("cache range: a Range request leaves a URL's Vary variants reachable", "[cache][range]") {
  CacheTestEnv env;
  env.Serve(CacheTestEnv::CloseResponse("200 OK", kBody,
                                        "Cache-Control: max-age=60\r\nVary: Accept-Language\r\n"));
  RecordingDelegate d1;
  env.Get(kUrl, &d1, {"Accept-Language: en"});
  REQUIRE(d1.data == kBody);
  env.scheduler.RunUntilIdle();

  // The URL's key holds the variants' index, not a whole response: the range goes out, and its
  // varying 206 is served without replacing the index.
  env.Serve(Piece(0, 3, "ETag: \"v1\"\r\nVary: Accept-Language\r\n"));
  RecordingDelegate d2;
  auto r2 = env.Get(kUrl, &d2, {"Accept-Language: en", "Range: bytes=0-3"});
  CHECK(d2.data == "0123");
  CHECK(Status(*r2) == 206);
  env.scheduler.RunUntilIdle();

  RecordingDelegate d3;
  auto r3 = env.Get(kUrl, &d3, {"Accept-Language: en"});
  CHECK(d3.data == kBody);
  CHECK(r3->cache_disposition() == CacheDisposition::kHit);
}

TEST_CASE("cache range: an unsafe method invalidates the stored pieces", "[cache][range]") {
  CacheTestEnv env;
  env.Serve(Piece(0, 3));
  RecordingDelegate d1;
  env.Get(kUrl, &d1, {"Range: bytes=0-3"});
  env.scheduler.RunUntilIdle();
  REQUIRE(env.backend->GetEntryCount() == 1);
  env.Serve(CacheTestEnv::CloseResponse("204 No Content", ""));
  RecordingDelegate d2;
  env.Get(kUrl, &d2, {}, "DELETE");
  env.scheduler.RunUntilIdle();
  CHECK(env.backend->GetEntryCount() == 0);
}

TEST_CASE("cache range: damaged stored pieces are doomed and the request goes out",
          "[cache][range]") {
  CacheTestEnv env;
  HttpResponseInfo info;
  info.url = PartialEntryKey(kUrl);
  info.headers = HttpResponseHeaders::Parse(
      "HTTP/1.1 206 Partial Content\r\nCache-Control: max-age=60\r\nETag: \"v1\"\r\n"
      "Netstack-Pieces: bytes 0-3/10\r\n\r\n");
  REQUIRE(info.headers);
  info.request_time = info.response_time = env.clock.Now();
  // The pieces header says 4 bytes; the body has 2.
  env.PutEntry(PartialEntryKey(kUrl), info.Serialize(), "01");
  FakeConnection* conn = env.Serve(Piece(1, 2));
  RecordingDelegate d;
  auto r = env.Get(kUrl, &d, {"Range: bytes=1-2"});
  CHECK(d.data == "12");
  CHECK(r->cache_disposition() == CacheDisposition::kMiss);
  CHECK(RequestLines(conn->script->written()).size() == 1);
  env.scheduler.RunUntilIdle();
  // Replaced by the new piece.
  std::string pieces;
  CHECK(env.StoredInfo(PartialEntryKey(kUrl)).headers->GetNormalizedHeader(kPiecesHeader, &pieces));
  CHECK(pieces == "bytes 1-2/10");
}

TEST_CASE("cache range: stale pieces and a stale whole go to the network as asked",
          "[cache][range]") {
  CacheTestEnv env;
  env.Serve(CacheTestEnv::CloseResponse("200 OK", kBody,
                                        "Cache-Control: max-age=60\r\nETag: \"v1\"\r\n"));
  RecordingDelegate d0;
  env.Get(kUrl, &d0);
  env.Advance(Seconds(120));
  FakeConnection* conn = env.Serve(Piece(0, 3));
  RecordingDelegate d1;
  auto r1 = env.Get(kUrl, &d1, {"Range: bytes=0-3"});
  CHECK(d1.data == "0123");
  CHECK(r1->cache_disposition() == CacheDisposition::kMiss);
  CHECK(SentHeader(conn, "Range") == "bytes=0-3");
  CHECK(SentHeader(conn, "If-None-Match").empty());  // not validated: a plain Range request
  // The fresh piece now answers what it covers.
  const size_t sockets = env.factory->transport_sockets_created();
  RecordingDelegate d2;
  auto r2 = env.Get(kUrl, &d2, {"Range: bytes=0-1"});
  CHECK(d2.data == "01");
  CHECK(r2->cache_disposition() == CacheDisposition::kHit);
  CHECK(env.factory->transport_sockets_created() == sockets);
}

TEST_CASE("cache range: only-if-cached with a Range is answered from the cache or a 504",
          "[cache][range]") {
  CacheTestEnv env;
  const size_t sockets = env.factory->transport_sockets_created();
  RecordingDelegate d1;
  auto r1 = env.Get(kUrl, &d1, {"Range: bytes=0-3", "Cache-Control: only-if-cached"});
  CHECK(Status(*r1) == 504);  // nothing stored, no network
  CHECK(d1.data.empty());
  CHECK(env.factory->transport_sockets_created() == sockets);

  env.Serve(CacheTestEnv::CloseResponse("200 OK", kBody, "Cache-Control: max-age=60\r\n"));
  RecordingDelegate d0;
  env.Get(kUrl, &d0);
  const size_t after = env.factory->transport_sockets_created();
  RecordingDelegate d2;
  auto r2 = env.Get(kUrl, &d2, {"Range: bytes=0-3", "Cache-Control: only-if-cached"});
  CHECK(Status(*r2) == 206);
  CHECK(d2.data == "0123");
  CHECK(r2->cache_disposition() == CacheDisposition::kHit);
  CHECK(env.factory->transport_sockets_created() == after);
}

}  // namespace
}  // namespace netstack::test
