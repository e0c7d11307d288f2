// Vary variants through UrlRequest on virtual time over a MemoryBackend (http_cache_vary.h):
// several variants of one URL stored side by side and each found by its request values, the
// values compared after normalization, the bound of kMaxVariantsPerUrl with the least recently
// used evicted, invalidation reaching every variant, and an index left inconsistent (a crash
// between the index's and a variant's commits) read as a miss.
#include "net/http/http_cache_vary.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/request/cache_test_env.h"

namespace netstack::test {
namespace {

constexpr char kUrl[] = "http://a.test/doc";
constexpr char kVaryLang[] = "Cache-Control: max-age=600\r\nVary: Accept-Language\r\n";

struct Got {
  CacheDisposition disposition = CacheDisposition::kBypass;
  std::string body;
};

// GET kUrl with `headers`; when `serve` is non-empty, a connection answers it (200, `serve` as
// the body, `response_headers`). Completes the request and the cache's writes.
Got Fetch(CacheTestEnv& env, const std::vector<std::string>& headers, const std::string& serve = "",
          const std::string& response_headers = kVaryLang) {
  if (!serve.empty()) env.Serve(CacheTestEnv::CloseResponse("200 OK", serve, response_headers));
  RecordingDelegate d;
  auto r = env.Get(kUrl, &d, headers);
  REQUIRE(d.result == OK);
  env.scheduler.RunUntilIdle();
  return {r->cache_disposition(), d.data};
}

bool Stored(CacheTestEnv& env, const std::string& key) {
  CacheEntryInfo info;
  return env.backend->GetEntryInfo(key, &info);
}

TEST_CASE("vary: several variants of one URL are stored and each is served", "[cache][vary]") {
  CacheTestEnv env;
  CHECK(Fetch(env, {"Accept-Language: en"}, "english").disposition == CacheDisposition::kMiss);
  CHECK(Fetch(env, {"Accept-Language: fr"}, "francais").disposition == CacheDisposition::kMiss);
  CHECK(Fetch(env, {}, "default").disposition == CacheDisposition::kMiss);
  // The URL's index and three variants.
  CHECK(env.backend->GetEntryCount() == 4);
  CHECK(VaryIndex::IsIndex(env.StoredInfoBlob(kUrl)));

  // Served from the variants: no further connection.
  Got en = Fetch(env, {"Accept-Language: en"});
  CHECK(en.disposition == CacheDisposition::kHit);
  CHECK(en.body == "english");
  Got fr = Fetch(env, {"Accept-Language: fr"});
  CHECK(fr.disposition == CacheDisposition::kHit);
  CHECK(fr.body == "francais");
  Got none = Fetch(env, {});
  CHECK(none.disposition == CacheDisposition::kHit);
  CHECK(none.body == "default");
  // Present but empty is another selection than absent.
  Got empty = Fetch(env, {"Accept-Language:"}, "empty");
  CHECK(empty.disposition == CacheDisposition::kMiss);
  CHECK(empty.body == "empty");
  CHECK(env.factory->transport_sockets_created() == 4);
}

TEST_CASE("vary: values are compared after normalization", "[cache][vary]") {
  CacheTestEnv env;
  REQUIRE(Fetch(env, {"Accept-Language: en-US, fr;q=0.5"}, "both").disposition ==
          CacheDisposition::kMiss);
  for (const char* same :
       {"Accept-Language: fr;q=0.5,en-US", "Accept-Language:  EN-us ,FR ; q=0.5 "}) {
    INFO(same);
    Got g = Fetch(env, {same});
    CHECK(g.disposition == CacheDisposition::kHit);
    CHECK(g.body == "both");
  }
  // Another weight is another preference.
  CHECK(Fetch(env, {"Accept-Language: en-US;q=0.5, fr"}, "other").disposition ==
        CacheDisposition::kMiss);

  SECTION("Cookie is compared as sent: case and order count") {
    const std::string vary_cookie = "Cache-Control: max-age=600\r\nVary: Cookie\r\n";
    REQUIRE(Fetch(env, {"Cookie: a=1; b=2"}, "c1", vary_cookie).disposition ==
            CacheDisposition::kMiss);
    CHECK(Fetch(env, {"Cookie:  a=1; b=2 "}).disposition == CacheDisposition::kHit);
    CHECK(Fetch(env, {"Cookie: A=1; b=2"}, "c2", vary_cookie).disposition ==
          CacheDisposition::kMiss);
    CHECK(Fetch(env, {"Cookie: b=2; a=1"}, "c3", vary_cookie).disposition ==
          CacheDisposition::kMiss);
  }
}

TEST_CASE("vary: at most kMaxVariantsPerUrl variants, the least recently used evicted",
          "[cache][vary]") {
  CacheTestEnv env;
  const std::vector<std::string> langs = {"a", "b", "c", "d"};
  for (const std::string& l : langs) {
    REQUIRE(Fetch(env, {"Accept-Language: " + l}, "body-" + l).disposition ==
            CacheDisposition::kMiss);
    env.Advance(Seconds(1));
  }
  REQUIRE(env.backend->GetEntryCount() == 1 + kMaxVariantsPerUrl);
  // "a" is used again, so "b" is now the least recently used.
  REQUIRE(Fetch(env, {"Accept-Language: a"}).disposition == CacheDisposition::kHit);
  env.Advance(Seconds(1));
  REQUIRE(Fetch(env, {"Accept-Language: e"}, "body-e").disposition == CacheDisposition::kMiss);
  CHECK(env.backend->GetEntryCount() == 1 + kMaxVariantsPerUrl);

  for (const char* l : {"a", "c", "d", "e"}) {
    INFO(l);
    Got g = Fetch(env, {std::string("Accept-Language: ") + l});
    CHECK(g.disposition == CacheDisposition::kHit);
    CHECK(g.body == std::string("body-") + l);
  }
  Got b = Fetch(env, {"Accept-Language: b"}, "body-b2");
  CHECK(b.disposition == CacheDisposition::kMiss);
  CHECK(b.body == "body-b2");
}

TEST_CASE("vary: an unsafe method invalidates every variant", "[cache][vary]") {
  CacheTestEnv env;
  Fetch(env, {"Accept-Language: en"}, "english");
  Fetch(env, {"Accept-Language: fr"}, "francais");
  REQUIRE(env.backend->GetEntryCount() == 3);
  env.Serve(CacheTestEnv::CloseResponse("200 OK", "posted"));
  RecordingDelegate d;
  env.Fetch(env.Params(kUrl, "POST", "x=1"), &d);
  REQUIRE(d.result == OK);
  CHECK(env.backend->GetEntryCount() == 0);
  CHECK(Fetch(env, {"Accept-Language: fr"}, "new").disposition == CacheDisposition::kMiss);
}

TEST_CASE("vary: a response without Vary replaces the index and its variants", "[cache][vary]") {
  CacheTestEnv env;
  Fetch(env, {"Accept-Language: en"}, "english");
  Fetch(env, {"Accept-Language: fr"}, "francais");
  env.Advance(Seconds(700));  // stale: the next request goes to the network
  Got plain = Fetch(env, {"Accept-Language: en"}, "plain", "Cache-Control: max-age=600\r\n");
  CHECK(plain.disposition == CacheDisposition::kMiss);
  CHECK(env.backend->GetEntryCount() == 1);
  CHECK_FALSE(VaryIndex::IsIndex(env.StoredInfoBlob(kUrl)));
  CHECK(Fetch(env, {"Accept-Language: fr"}).body == "plain");
}

TEST_CASE("vary: Vary: * and a response selected by nothing storable stay unstored",
          "[cache][vary]") {
  CacheTestEnv env;
  Fetch(env, {"Accept-Language: en"}, "star", "Cache-Control: max-age=600\r\nVary: *\r\n");
  CHECK(env.backend->GetEntryCount() == 0);
}

TEST_CASE("vary: an index that does not match the stored variants is a miss, never an error",
          "[cache][vary]") {
  CacheTestEnv env;
  Fetch(env, {"Accept-Language: en"}, "english");
  Fetch(env, {"Accept-Language: fr"}, "francais");
  VaryIndex index;
  std::string error;
  REQUIRE(VaryIndex::Parse(env.StoredInfoBlob(kUrl), &index, &error));
  REQUIRE(index.variants.size() == 2);
  const int en_slot = index.variants[0].slot;

  SECTION("the index names a variant whose entry never got committed") {
    env.backend->DoomEntry(VariantKey(kUrl, en_slot));
    Got g = Fetch(env, {"Accept-Language: en"}, "english again");
    CHECK(g.disposition == CacheDisposition::kMiss);
    CHECK(g.body == "english again");
    CHECK(Fetch(env, {"Accept-Language: en"}).disposition == CacheDisposition::kHit);
    CHECK(Fetch(env, {"Accept-Language: fr"}).body == "francais");
  }
  SECTION("a slot holds another variant than the index says") {
    std::swap(index.variants[0].slot, index.variants[1].slot);
    env.PutEntry(kUrl, index.Serialize(), "");
    Got g = Fetch(env, {"Accept-Language: en"}, "english again");
    CHECK(g.disposition == CacheDisposition::kMiss);
    CHECK(g.body == "english again");
  }
  SECTION("a damaged index is doomed with its URL's entry and refetched") {
    env.PutEntry(kUrl, R"({"format":"netstack-http-vary-index","version":7})", "");
    Got g = Fetch(env, {"Accept-Language: en"}, "english again");
    CHECK(g.disposition == CacheDisposition::kMiss);
    CHECK(g.body == "english again");
    CHECK(Fetch(env, {"Accept-Language: en"}).disposition == CacheDisposition::kHit);
  }
}

TEST_CASE("vary: only-if-cached without a matching variant is a 504", "[cache][vary]") {
  CacheTestEnv env;
  Fetch(env, {"Accept-Language: en"}, "english");
  RecordingDelegate d;
  auto r = env.Get(kUrl, &d, {"Accept-Language: fr", "Cache-Control: only-if-cached"});
  REQUIRE(d.result == OK);
  CHECK(r->response_headers()->response_code() == 504);
  CHECK(env.factory->transport_sockets_created() == 1);
}

TEST_CASE("vary: a stale variant is revalidated in place", "[cache][vary]") {
  CacheTestEnv env;
  const std::string headers =
      "Cache-Control: max-age=10\r\nVary: Accept-Language\r\nETag: \"v\"\r\n";
  Fetch(env, {"Accept-Language: en"}, "english", headers);
  Fetch(env, {"Accept-Language: fr"}, "francais", headers);
  env.Advance(Seconds(20));
  FakeConnection* conn = env.Serve(Response(
      "304 Not Modified", "", "Cache-Control: max-age=10\r\nETag: \"v\"\r\nConnection: close\r\n"));
  Got g = Fetch(env, {"Accept-Language: fr"});
  CHECK(g.disposition == CacheDisposition::kRevalidated);
  CHECK(g.body == "francais");
  CHECK(SentHeader(conn, "If-None-Match") == "\"v\"");
  CHECK(Fetch(env, {"Accept-Language: fr"}).disposition == CacheDisposition::kHit);
  CHECK(env.backend->GetEntryCount() == 3);
}

TEST_CASE("vary: a HEAD freshens or invalidates only the variant it selects", "[cache][vary]") {
  CacheTestEnv env;
  const std::string headers =
      "Cache-Control: max-age=10\r\nVary: Accept-Language\r\nETag: \"v\"\r\n";
  Fetch(env, {"Accept-Language: en"}, "english", headers);
  Fetch(env, {"Accept-Language: fr"}, "francais", headers);
  env.Advance(Seconds(20));  // both stale
  std::string etag;
  std::string expect;
  SECTION("same validator: the selected variant is fresh again") {
    etag = "\"v\"";
    expect = "hit";
  }
  SECTION("another validator: the selected variant is doomed") {
    etag = "\"w\"";
    expect = "doomed";
  }
  env.Serve("HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nVary: Accept-Language\r\nETag: " +
            etag + "\r\nContent-Length: 8\r\nConnection: close\r\n\r\n");
  RecordingDelegate dh;
  env.Get(kUrl, &dh, {"Accept-Language: fr"}, "HEAD");
  REQUIRE(dh.result == OK);
  env.scheduler.RunUntilIdle();
  VaryIndex index;
  REQUIRE(VaryIndex::Parse(env.StoredInfoBlob(kUrl), &index, nullptr));
  HttpRequestHeaders fr;
  fr.SetHeader("Accept-Language", "fr");
  const std::string fr_key = VariantKey(kUrl, index.FindSlot(fr));
  if (expect == "hit") {
    Got g = Fetch(env, {"Accept-Language: fr"});
    CHECK(g.disposition == CacheDisposition::kHit);
    CHECK(g.body == "francais");
  } else {
    CHECK_FALSE(Stored(env, fr_key));
  }
  // The other variant is untouched: still stored, still stale.
  HttpRequestHeaders en;
  en.SetHeader("Accept-Language", "en");
  CHECK(Stored(env, VariantKey(kUrl, index.FindSlot(en))));
  CHECK(env.StoredInfo(VariantKey(kUrl, index.FindSlot(en))).response_time <
        env.clock.Now() - Seconds(15));
}

}  // namespace
}  // namespace netstack::test
