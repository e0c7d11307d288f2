// libFuzzer target for the HTML scanner (tools/page/html_scanner.h). Input: one flags byte that
// picks small limits now and then (so every bound is reached), then the document. Promises
// checked: the bounds hold (subresources, hints, document and URL length), subresources are
// distinct http(s) URLs, hints are distinct (kind, URL) pairs, and truncation is reported
// exactly when the document is longer than the limit.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "net/base/net_error.h"
#include "net/base/url.h"
#include "tests/fuzz/fuzz_check.h"
#include "tools/page/html_scanner.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t flags = data[0];
  std::string_view html(reinterpret_cast<const char*>(data + 1), size - 1);
  netstack::ScanLimits limits;
  if (flags & 1) {
    limits.max_document_bytes = 16 + 8 * (flags >> 1);
    limits.max_nesting_depth = 1 + (flags >> 3);
    limits.max_subresources = flags >> 4;
    limits.max_hints = flags >> 5;
    limits.max_url_length = 8 + (flags >> 1);
  }
  netstack::Url document;
  std::string message;
  if (netstack::Url::Parse("https://a.test/dir/page.html?q=1", &document, &message) !=
      netstack::OK) {
    __builtin_trap();
  }
  netstack::ScanResult result = netstack::ScanHtml(html, document, limits);

  FUZZ_CHECK(result.base.is_valid());
  FUZZ_CHECK(result.document_truncated == (html.size() > limits.max_document_bytes));
  FUZZ_CHECK(result.subresources.size() <= limits.max_subresources);
  FUZZ_CHECK(result.hints.size() <= limits.max_hints);
  std::set<std::string> urls;
  for (const netstack::Subresource& sub : result.subresources) {
    FUZZ_CHECK(sub.url.is_valid());
    FUZZ_CHECK(sub.url.spec().size() <= limits.max_url_length);
    FUZZ_CHECK(urls.insert(sub.url.spec()).second);
    netstack::SubresourceTypeName(sub.type);
  }
  std::set<std::pair<int, std::string>> hints;
  for (const netstack::ResourceHint& hint : result.hints) {
    FUZZ_CHECK(hint.url.is_valid());
    FUZZ_CHECK(hints.insert({static_cast<int>(hint.kind), hint.url.spec()}).second);
  }
  return 0;
}
