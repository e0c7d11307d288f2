// Linear-time header lists (issue 17): every list a response carries is walked item by item,
// never re-split, and the cache's lists stop at their bounds. The proof is a step count, not a
// clock: HttpListBytesScannedForTesting() counts the value bytes the list walker examined.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "net/http/http_cache_policy.h"
#include "net/http/http_response_headers.h"
#include "net/http/http_response_info.h"
#include "net/http/http_util.h"

namespace netstack {
namespace {

// Bytes the list walker scans while `f` runs.
template <typename F>
uint64_t Scanned(F f) {
  const uint64_t before = HttpListBytesScannedForTesting();
  f();
  return HttpListBytesScannedForTesting() - before;
}

// "x0, x1, ..." with `n` items.
std::string ManyItems(size_t n, const std::string& item = "x") {
  std::string v;
  for (size_t i = 0; i < n; ++i) {
    if (i) v += ", ";
    v += item + std::to_string(i);
  }
  return v;
}

std::shared_ptr<HttpResponseHeaders> WithHeader(const std::string& name, const std::string& value,
                                                int code = 200) {
  auto h = std::make_shared<HttpResponseHeaders>(HttpVersion{1, 1}, code, "OK");
  h->AddHeader("Date", "Tue, 14 Nov 2023 22:13:20 GMT");
  h->AddHeader(name, value);
  return h;
}

TEST_CASE("header lists: the iterator splits as SplitHttpList did and resumes at offsets") {
  const std::string v = " a ,, \"b, c\" ,d\t, \"e\\\", f\" ,";
  std::vector<std::string> items;
  HttpListIterator it(v);
  std::string_view item;
  while (it.GetNext(&item)) items.emplace_back(item);
  CHECK(items == std::vector<std::string>{"a", "\"b, c\"", "d", "\"e\\\", f\""});
  // Resuming from a saved offset gives the rest.
  HttpListIterator first(v);
  REQUIRE(first.GetNext(&item));
  HttpListIterator rest(v, first.offset());
  REQUIRE(rest.GetNext(&item));
  CHECK(item == "\"b, c\"");
  HttpListIterator past(v, v.size() + 10);
  CHECK_FALSE(past.GetNext(&item));
  CHECK(SplitHttpList("").empty());
  CHECK(SplitHttpList(" , ,").empty());
}

TEST_CASE("header lists: enumerating every item scans each byte once") {
  for (size_t n : {1000, 10'000, 40'000}) {
    INFO(n << " items");
    auto h = WithHeader("X-List", ManyItems(n));
    const size_t size = h->headers().back().value.size();
    size_t count = 0;
    const uint64_t steps = Scanned([&] {
      size_t iter = 0;
      std::string value;
      while (h->EnumerateHeader(&iter, "x-list", &value)) ++count;
    });
    CHECK(count == n);
    // Each byte once, plus nothing: O(size), where re-splitting per call was O(size * n).
    CHECK(steps <= size + 1);
    CHECK(steps >= size);
  }
  // Across several lines of the same name, too.
  auto h = WithHeader("X-List", ManyItems(5000));
  h->AddHeader("Other", "z");
  h->AddHeader("x-list", ManyItems(5000));
  size_t total = 0;
  for (const auto& line : h->headers()) total += line.value.size();
  size_t count = 0;
  const uint64_t steps = Scanned([&] {
    size_t iter = 0;
    std::string value;
    while (h->EnumerateHeader(&iter, "x-list", &value)) ++count;
  });
  CHECK(count == 10'000);
  CHECK(steps <= total);
  CHECK(h->HasHeaderValue("x-list", "x4999"));
}

TEST_CASE("header lists: a Cache-Control over the bound is no-store, and read only to the bound") {
  // 40,000 items (the repro, ~270 KB of value): only the first bound's worth is read.
  auto h = WithHeader("Cache-Control", ManyItems(40'000, "max-age="));
  CacheControl cc;
  const uint64_t steps = Scanned([&] { cc = ParseResponseCacheControl(*h); });
  CHECK(cc.too_many_directives);
  CHECK(cc.no_store);
  CHECK(cc.no_cache);
  const size_t bound_bytes = ManyItems(kMaxCacheControlDirectives + 1, "max-age=").size();
  CHECK(steps <= bound_bytes + 1);

  std::string why;
  CHECK_FALSE(IsStorable("GET", HttpRequestHeaders(), *h, &why));
  CHECK(why == "response Cache-Control over 100 directives");
  // A stored entry like it (from before the bound) is always validated.
  HttpResponseInfo info;
  info.headers = h;
  FreshnessInfo f;
  const uint64_t info_steps = Scanned([&] { f = GetFreshnessInfo(info, Time{}); });
  CHECK(f.no_cache);
  CHECK(info_steps <= 2 * (bound_bytes + 1));

  // Exactly at the bound: read whole, and the directives count.
  auto at = WithHeader("Cache-Control",
                       ManyItems(kMaxCacheControlDirectives - 1, "x-ext") + ", max-age=60");
  CacheControl ok = ParseResponseCacheControl(*at);
  CHECK_FALSE(ok.too_many_directives);
  REQUIRE(ok.max_age);
  CHECK(*ok.max_age == Seconds(60));
  CHECK(IsStorable("GET", HttpRequestHeaders(), *at, nullptr));
  // Split over lines, the bound is for all of them together.
  auto lines = WithHeader("Cache-Control", ManyItems(60, "a"));
  lines->AddHeader("Cache-Control", ManyItems(60, "b"));
  CHECK(ParseResponseCacheControl(*lines).too_many_directives);
}

TEST_CASE("header lists: the request's Cache-Control and Pragma have the same bounds") {
  // Request headers are bounded at 64 KiB in all: 5,000 items fit.
  HttpRequestHeaders request;
  REQUIRE(request.SetHeader("Cache-Control", ManyItems(5000, "s")));
  CacheControl cc;
  const uint64_t steps = Scanned([&] { cc = ParseRequestCacheControl(request); });
  CHECK(cc.too_many_directives);
  CHECK(steps <= ManyItems(kMaxCacheControlDirectives + 1, "s").size() + 1);
  RequestCachePolicy policy = GetRequestCachePolicy("GET", request);
  CHECK(policy.mode == RequestCachePolicy::Mode::kBypass);
  CHECK(policy.reason == "request Cache-Control over 100 directives");

  HttpRequestHeaders pragma;
  REQUIRE(pragma.SetHeader("Pragma", ManyItems(5000, "p")));
  CHECK(ParseRequestCacheControl(pragma).no_cache);
  HttpRequestHeaders few;
  REQUIRE(few.SetHeader("Pragma", ManyItems(kMaxPragmaItems, "p")));
  CHECK_FALSE(ParseRequestCacheControl(few).no_cache);
}

TEST_CASE("header lists: a long Pragma counts as no-cache and is read only to the bound") {
  auto h = WithHeader("Pragma", ManyItems(40'000, "p"));
  CacheControl cc;
  const uint64_t steps = Scanned([&] { cc = ParseResponseCacheControl(*h); });
  CHECK(cc.no_cache);
  CHECK_FALSE(cc.no_store);
  CHECK(steps <= ManyItems(kMaxPragmaItems + 1, "p").size() + 1);
  CHECK_FALSE(
      ParseResponseCacheControl(*WithHeader("Pragma", ManyItems(kMaxPragmaItems, "p"))).no_cache);
  CHECK(
      ParseResponseCacheControl(*WithHeader("Pragma", ManyItems(50, "p") + ", no-cache")).no_cache);
}

TEST_CASE("header lists: a long Vary is not stored and is read only to the bound") {
  auto h = WithHeader("Vary", ManyItems(40'000, "accept"));
  std::string why;
  bool storable = true;
  const uint64_t steps =
      Scanned([&] { storable = IsStorable("GET", HttpRequestHeaders(), *h, &why); });
  CHECK_FALSE(storable);
  CHECK(why == "Vary over 128 items");
  CHECK(steps <= ManyItems(kMaxVaryItems + 1, "accept").size() + 1);
  // Duplicates count: 129 times the same name is over the bound too.
  std::string same;
  for (size_t i = 0; i <= kMaxVaryItems; ++i) same += i ? ", accept" : "accept";
  CHECK_FALSE(IsStorable("GET", HttpRequestHeaders(), *WithHeader("Vary", same), nullptr));
  // At the bound, IsStorable reads it all (SetVaryFromRequest then applies its own bound on
  // distinct names, HttpResponseInfo::kMaxVaryHeaders).
  CHECK(IsStorable("GET", HttpRequestHeaders(),
                   *WithHeader("Vary", ManyItems(kMaxVaryItems, "accept")), nullptr));
  // "*" anywhere under the bound still means never stored.
  CHECK_FALSE(IsStorable("GET", HttpRequestHeaders(),
                         *WithHeader("Vary", ManyItems(100, "a") + ", *"), &why));
  CHECK(why == "Vary: *");
}

TEST_CASE("header lists: the worst case under every bound is linear in the value") {
  // 100 directives (the bound), each as long as the 256 KiB header bound allows: quoted strings
  // full of commas and quoted-pairs, and one unterminated quote to the end.
  std::string value;
  for (size_t i = 0; i < kMaxCacheControlDirectives; ++i) {
    if (i) value += ", ";
    value += "x=\"" + std::string(1000, ',') + "\\\"" + std::string(1000, ',') + "\"";
  }
  value += ", y=\"" + std::string(50'000, ',');
  REQUIRE(value.size() < 256 * 1024);
  auto h = WithHeader("Cache-Control", value);
  const uint64_t steps = Scanned([&] { ParseResponseCacheControl(*h); });
  CHECK(steps <= value.size() + 1);
}

TEST_CASE("header lists: a 304 merge of many headers stays correct") {
  // MergeNotModified indexes names in hash sets: linear however many names there are (it
  // searched a vector per header before). The count checks the merge did the right thing.
  auto stored = std::make_shared<HttpResponseHeaders>(HttpVersion{1, 1}, 200, "OK");
  auto not_modified = std::make_shared<HttpResponseHeaders>(HttpVersion{1, 1}, 304, "NM");
  for (int i = 0; i < 20'000; ++i) {
    stored->AddHeader("X-S" + std::to_string(i), "s");
    not_modified->AddHeader("X-N" + std::to_string(i), "n");
  }
  stored->AddHeader("X-Both", "old");
  not_modified->AddHeader("x-both", "new");
  not_modified->AddHeader("Connection", ManyItems(20'000, "X-N"));
  auto merged = MergeNotModified(*stored, *not_modified);
  CHECK(merged->response_code() == 200);
  // The 304's X-N* are all named by its Connection: none is taken. X-Both is replaced.
  CHECK(merged->headers().size() == 20'000 + 1);
  std::string v;
  CHECK(merged->GetNormalizedHeader("x-both", &v));
  CHECK(v == "new");
  CHECK_FALSE(merged->HasHeader("x-n0"));
}

}  // namespace
}  // namespace netstack
