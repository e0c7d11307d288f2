// Vary variants (RFC 9111 4.1): how the HTTP cache keeps several responses for one URL, each
// found by the request header values it was selected by, and how those values are compared.
//
// Key layout. A URL whose response carries Vary has, under its own key (the URL), a small
// index (`VaryIndex`: stream 0 only, no body) naming at most kMaxVariantsPerUrl variants, each
// with the normalized request values it was selected by and a slot number; the variant itself
// is an ordinary entry (HttpResponseInfo + body) under the derived key `VariantKey(url, slot)`.
// A URL without Vary keeps its response under the URL itself, as before.
//
// Why slots rather than a key per selection: the derived keys of a URL are a fixed, bounded
// set, so dooming a URL (unsafe methods, `netstack cache rm`) reaches every variant without
// reading the index first. Why it survives a crash between the two commits: the index and each
// variant are separate entries, and nothing trusts the index alone. A slot it names that is
// missing is a miss; a slot holding another variant (an index older or newer than the entry) is
// caught by the variant's own stored Vary values (VaryMatches), also a miss.
#ifndef NET_HTTP_HTTP_CACHE_VARY_H_
#define NET_HTTP_HTTP_CACHE_VARY_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cache/backend.h"
#include "net/http/http_request_headers.h"
#include "net/http/http_response_info.h"

namespace netstack {

// Variants kept per URL; storing one more evicts the least recently used (the backend's
// last_used of its entry; a missing entry goes first).
inline constexpr int kMaxVariantsPerUrl = 4;

// How a request field named by Vary is compared (the table is in http_cache_vary.cc and
// docs/cache.md). Fields not in the table are compared exactly, after trimming surrounding
// whitespace (Cookie, Authorization, User-Agent...).
struct VaryFieldRule {
  bool list = false;              // comma-separated list whose order carries no meaning
  bool case_insensitive = false;  // values compared ASCII case-insensitively
};

// The rule for `name` (any case).
VaryFieldRule GetVaryFieldRule(std::string_view name);

// `value` of the request field `name` in its normalized form: surrounding whitespace removed;
// for list fields also the whitespace around "," and ";", empty items dropped, and the items
// sorted (joined by ","); lowercased where the field is case-insensitive. Quoted strings are
// kept as they are: a comma inside one does not split, its case and spaces count.
std::string NormalizeVaryValue(std::string_view name, std::string_view value);

// Whether two values of `name` are the same after normalization; absent (nullopt) only equals
// absent, so a present-but-empty field is another selection.
bool VaryValuesMatch(std::string_view name, const std::optional<std::string>& a,
                     const std::optional<std::string>& b);

// The derived key of `url`'s variant in `slot` (0 <= slot < kMaxVariantsPerUrl): the URL, a
// space (never in a URL's spec, so no URL's key can collide) and "vary-variant=N".
std::string VariantKey(const std::string& url, int slot);

// Dooms every variant key of `url` (not the URL's own key): what removing a URL must add.
void DoomVariantKeys(CacheBackend* backend, const std::string& url);

// The index stored under a URL whose responses vary (stream 0, versioned JSON):
//   {"format": "netstack-http-vary-index", "version": 1, "url": ...,
//    "variants": [{"slot": 0, "vary": {"accept-language": "en", "cookie": null}}, ...]}
// with the values normalized (NormalizeVaryValue). Variants are in the order they were stored,
// oldest first.
struct VaryIndex {
  struct Variant {
    int slot = 0;
    // Lowercased names, sorted, normalized values (nullopt: the request had none).
    std::vector<HttpResponseInfo::VaryValue> selection;
  };

  std::string url;
  std::vector<Variant> variants;  // at most kMaxVariantsPerUrl, distinct slots

  // Whether a stream 0 blob is an index (rather than an HttpResponseInfo). Cheap: a prefix test.
  static bool IsIndex(std::string_view blob);
  // Parses a blob IsIndex accepted. False with *error (one line: what is wrong) for anything
  // malformed: another version, a slot out of range or repeated, more than kMaxVariantsPerUrl
  // variants or HttpResponseInfo::kMaxVaryHeaders names.
  static bool Parse(std::string_view blob, VaryIndex* out, std::string* error);
  std::string Serialize() const;

  // The selection `stored` (an HttpResponseInfo's Vary-named request values) stands for, in the
  // index's normalized, sorted form.
  static std::vector<HttpResponseInfo::VaryValue> SelectionOf(
      const std::vector<HttpResponseInfo::VaryValue>& stored);

  // The slot of the newest variant whose selection `request` matches, or -1.
  int FindSlot(const HttpRequestHeaders& request) const;

  // Records `selection` and returns its slot: the slot of an equal selection (moved to the end,
  // the newest), else a free slot, else the least recently used one (by `backend`'s last_used
  // of its VariantKey; a missing entry counts as oldest, ties go to the oldest stored), whose
  // entry is doomed. *evicted_slot (if given) is that slot, or -1.
  int Add(const std::vector<HttpResponseInfo::VaryValue>& selection, CacheBackend* backend,
          int* evicted_slot = nullptr);
};

}  // namespace netstack

#endif  // NET_HTTP_HTTP_CACHE_VARY_H_
