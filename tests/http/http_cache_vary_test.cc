// http_cache_vary: the normalization of Vary-named request values (RFC 9111 4.1), the variant
// keys, and the index of variants a URL's key holds (format, bounds, malformed blobs).
#include "net/http/http_cache_vary.h"

#include <catch2/catch.hpp>
#include <string>

#include "net/http/http_cache_policy.h"

namespace netstack {
namespace {

using VaryValue = HttpResponseInfo::VaryValue;

TEST_CASE("vary: list fields compare without whitespace, case or order", "[cache][vary]") {
  CHECK(NormalizeVaryValue("Accept-Language", " EN-us , fr;q=0.5 ") == "en-us,fr;q=0.5");
  CHECK(NormalizeVaryValue("accept-language", "fr ; q=0.5,en-US") == "en-us,fr;q=0.5");
  CHECK(NormalizeVaryValue("Accept-Encoding", "br, gzip,,deflate") == "br,deflate,gzip");
  CHECK(NormalizeVaryValue("accept", "text/html;level=1 , */*;q=0.1") ==
        "*/*;q=0.1,text/html;level=1");
  // The q weight stays with its item: another preference is another selection.
  CHECK(NormalizeVaryValue("accept-language", "en;q=0.5, fr") !=
        NormalizeVaryValue("accept-language", "en, fr;q=0.5"));
  // Inside a quoted string nothing changes: case, spaces and commas count.
  CHECK(NormalizeVaryValue("accept", "a/b;x=\"Q, R\" , c/d") == "a/b;x=\"Q, R\",c/d");
}

TEST_CASE("vary: other fields are compared as sent, trimmed", "[cache][vary]") {
  CHECK_FALSE(GetVaryFieldRule("Cookie").list);
  CHECK_FALSE(GetVaryFieldRule("authorization").case_insensitive);
  CHECK(GetVaryFieldRule("ACCEPT-ENCODING").list);
  CHECK(NormalizeVaryValue("Cookie", "  a=1; B=2 ") == "a=1; B=2");
  CHECK(NormalizeVaryValue("user-agent", "X/1, Y") == "X/1, Y");
  CHECK_FALSE(VaryValuesMatch("cookie", "a=1", "A=1"));
  CHECK_FALSE(VaryValuesMatch("cookie", "a=1, b=2", "b=2, a=1"));
  CHECK(VaryValuesMatch("cookie", " a=1", "a=1\t"));
}

TEST_CASE("vary: absent and present-but-empty are different selections", "[cache][vary]") {
  CHECK(VaryValuesMatch("x-mode", std::nullopt, std::nullopt));
  CHECK_FALSE(VaryValuesMatch("x-mode", std::nullopt, std::string()));
  CHECK_FALSE(VaryValuesMatch("accept-language", std::string(" "), std::nullopt));
  CHECK(VaryValuesMatch("accept-language", std::string(" "), std::string()));
}

TEST_CASE("vary: VaryMatches uses the normalized comparison", "[cache][vary]") {
  HttpResponseInfo stored;
  stored.headers = std::make_shared<HttpResponseHeaders>(HttpVersion{1, 1}, 200, "OK");
  stored.vary = {{"accept-language", "en, fr"}, {"cookie", "id=1"}};
  HttpRequestHeaders request;
  request.SetHeader("Accept-Language", "FR ,en");
  request.SetHeader("Cookie", "id=1");
  CHECK(VaryMatches(stored, request));
  request.SetHeader("Cookie", "ID=1");
  std::string mismatch;
  CHECK_FALSE(VaryMatches(stored, request, &mismatch));
  CHECK(mismatch == "cookie");
}

TEST_CASE("vary: variant keys are a bounded set that no URL key can equal", "[cache][vary]") {
  const std::string url = "http://a.test/doc";
  CHECK(VariantKey(url, 0) == "http://a.test/doc vary-variant=0");
  CHECK(VariantKey(url, kMaxVariantsPerUrl - 1) != VariantKey(url, 0));
  CHECK(VariantKey(url, 1).find(' ') != std::string::npos);
  STATIC_REQUIRE(kMaxVariantsPerUrl == 4);
}

VaryIndex TwoVariants() {
  VaryIndex index;
  index.url = "http://a.test/doc";
  index.variants.push_back({0, VaryIndex::SelectionOf({{"accept-language", "EN"}})});
  index.variants.push_back({2, VaryIndex::SelectionOf({{"accept-language", std::nullopt}})});
  return index;
}

TEST_CASE("vary: the index round-trips and selects by normalized values", "[cache][vary]") {
  VaryIndex index = TwoVariants();
  const std::string blob = index.Serialize();
  CHECK(VaryIndex::IsIndex(blob));
  VaryIndex parsed;
  std::string error;
  REQUIRE(VaryIndex::Parse(blob, &parsed, &error));
  CHECK(parsed.url == index.url);
  REQUIRE(parsed.variants.size() == 2);
  CHECK(parsed.variants[0].slot == 0);
  CHECK(parsed.variants[0].selection == std::vector<VaryValue>{{"accept-language", "en"}});
  CHECK(parsed.variants[1].selection == std::vector<VaryValue>{{"accept-language", std::nullopt}});

  HttpRequestHeaders en;
  en.SetHeader("Accept-Language", " en ");
  CHECK(parsed.FindSlot(en) == 0);
  CHECK(parsed.FindSlot(HttpRequestHeaders()) == 2);
  HttpRequestHeaders fr;
  fr.SetHeader("Accept-Language", "fr");
  CHECK(parsed.FindSlot(fr) == -1);

  // Variants selected by different Vary names that both match: the newest is used.
  VaryIndex mixed = parsed;
  mixed.variants.push_back({3, VaryIndex::SelectionOf({{"accept-language", "en"}, {"dnt", "1"}})});
  HttpRequestHeaders en_dnt = en;
  en_dnt.SetHeader("DNT", "1");
  CHECK(mixed.FindSlot(en_dnt) == 3);
  CHECK(mixed.FindSlot(en) == 0);

  // A response's stream 0 is not an index.
  HttpResponseInfo info;
  info.url = index.url;
  info.headers = std::make_shared<HttpResponseHeaders>(HttpVersion{1, 1}, 200, "OK");
  CHECK_FALSE(VaryIndex::IsIndex(info.Serialize()));
}

TEST_CASE("vary: a malformed index is refused with a one-line reason", "[cache][vary]") {
  const std::string head = R"({"format":"netstack-http-vary-index",)";
  struct Case {
    std::string blob;
    std::string reason;
  };
  const Case cases[] = {
      {head + "", "not a JSON object"},
      {head + R"("url":"u","variants":[],"version":2})", "unsupported \"version\""},
      {head + R"("variants":[],"version":1})", "\"url\" missing"},
      {head + R"("url":"u","version":1})", "\"variants\" missing"},
      {head + R"("url":"u","variants":[{"slot":4,"vary":{}}],"version":1})", "out of range"},
      {head + R"("url":"u","variants":[{"slot":1,"vary":{}},{"slot":1,"vary":{}}],"version":1})",
       "slot 1 twice"},
      {head + R"("url":"u","variants":[{"slot":0,"vary":{"A":"x"}}],"version":1})",
       "lowercase token"},
      {head + R"("url":"u","variants":[{"slot":0,"vary":{"a":1}}],"version":1})",
       "not a string or null"},
      {head +
           R"("url":"u","variants":[{"slot":0,"vary":{}},{"slot":1,"vary":{}},{"slot":2,"vary":{}},)"
           R"({"slot":3,"vary":{}},{"slot":3,"vary":{}}],"version":1})",
       "more than 4 variants"},
  };
  for (const Case& c : cases) {
    INFO(c.blob);
    VaryIndex out;
    std::string error;
    CHECK(VaryIndex::IsIndex(c.blob));
    CHECK_FALSE(VaryIndex::Parse(c.blob, &out, &error));
    CHECK(error.find(c.reason) != std::string::npos);
    CHECK(error.find('\n') == std::string::npos);
  }
}

}  // namespace
}  // namespace netstack
