// HtmlScanner: what a browser's network stack would fetch for an HTML document, found by parsing
// it with gumbo (a real HTML5 parser, so malformed markup is recovered as a browser would). From
// the document's bytes and its URL it lists the subresources in document order with Chrome-like
// priorities, and the resource hints (<link rel=dns-prefetch|preconnect|prefetch>) separately,
// for the predictor. A preload (<link rel=preload|modulepreload>) is a subresource at its `as`
// priority and not a hint: the page itself requests it, so a fetch ahead would only fetch it
// twice.
//
// Bounded: the document is parsed up to ScanLimits::max_document_bytes (a bigger one is parsed
// as its prefix, and the result says so) and up to max_nesting_depth nested elements, at most
// max_subresources and max_hints are kept (the rest are counted), and URLs longer than
// max_url_length are skipped as bad. Never fails: an attribute that is not a URL is skipped and
// counted.
#ifndef TOOLS_PAGE_HTML_SCANNER_H_
#define TOOLS_PAGE_HTML_SCANNER_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "net/base/request_priority.h"
#include "net/base/url.h"
#include "predictor/predictor_policy.h"

namespace netstack {

// What kind of subresource a reference is; decides its priority.
enum class SubresourceType {
  kStylesheet,  // <link rel=stylesheet>
  kScript,      // <script src> (blocking, async or defer)
  kImage,       // <img src>, <input type=image src>
  kIframe,      // <iframe src>: the frame's document only
  kPreload,     // <link rel=preload|modulepreload>: for this page, so requested by the loader
};
// <link rel=prefetch> is for a later page: it is only a hint (ScanResult::hints), never a
// subresource of this load.

// "stylesheet", "script", "image", "iframe", "preload".
const char* SubresourceTypeName(SubresourceType type);

struct Subresource {
  Url url;
  SubresourceType type = SubresourceType::kImage;
  RequestPriority priority = LOWEST;
  // For scripts: "blocking", "async", "defer", "module"; for preloads their `as`; else "".
  std::string detail;
};

struct ResourceHint {
  StaticHintKind kind = StaticHintKind::kDnsPrefetch;
  Url url;
  // The rel token as written: "dns-prefetch", "preconnect", "prefetch".
  std::string rel;
};

struct ScanLimits {
  size_t max_document_bytes = 4 * 1024 * 1024;
  // Element nesting, as estimated by a linear pre-scan of the tags: the document is parsed up
  // to the tag that would go deeper. gumbo's tree builder costs O(depth) per tag (scope
  // checks walk the stack of open elements), so a deeply nested document would cost
  // O(size x depth); Chrome's parser also stops nesting at 512.
  size_t max_nesting_depth = 512;
  size_t max_subresources = 500;
  size_t max_hints = 100;
  size_t max_url_length = 8 * 1024;
};

struct ScanResult {
  // The base every reference was resolved against: the first <base href> that resolves, else
  // the document's URL.
  Url base;
  std::vector<Subresource> subresources;  // document order, each URL once
  std::vector<ResourceHint> hints;        // document order, each (kind, URL) once
  bool document_truncated = false;        // only the first max_document_bytes were parsed
  bool nesting_truncated = false;         // parsing stopped before max_nesting_depth was passed
  size_t subresources_dropped = 0;        // past max_subresources
  size_t hints_dropped = 0;               // past max_hints
  size_t bad_urls = 0;                    // not a URL, or longer than max_url_length
  size_t skipped_schemes = 0;             // data:, javascript:, blob:, mailto:, ... (not fetched)
};

// Scans `html`, the body of `document_url`. Pure: no I/O, never fails.
ScanResult ScanHtml(std::string_view html, const Url& document_url,
                    const ScanLimits& limits = ScanLimits());

}  // namespace netstack

#endif  // TOOLS_PAGE_HTML_SCANNER_H_
