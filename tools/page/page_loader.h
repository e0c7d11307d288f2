// PageLoader: one page load as a browser's network stack does it, in either world (the live
// stack or the simulated network): fetch the document, parse it when complete (html_scanner.h),
// hand its resource hints to the predictor, then request every subresource at once with its
// priority (the socket pool's limits queue them), and record every request.
//
// The predictor (optional) hears the load the way predictor_policy.h orders it: OnNavigation
// before the document is requested, OnResourceRequested for each request as it is issued and
// OnResourceServed as it completes (its cache disposition decides a fetch ahead of its URL),
// OnStaticHint for each hint as soon as the document is parsed (before the subresources are
// requested; a prefetch hint for a URL this load requests itself is not sent: it would fetch the
// URL twice), OnNavigationComplete when every request has ended.
//
// Each request is recorded with FillRequestRecord (net/http/request_record.h), the one copy a
// plain `netstack fetch` and a replay make too.
#ifndef TOOLS_PAGE_PAGE_LOADER_H_
#define TOOLS_PAGE_PAGE_LOADER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "net/base/load_timing_phases.h"
#include "net/base/request_priority.h"
#include "net/base/time.h"
#include "net/base/url.h"
#include "net/base/weak_ptr.h"
#include "net/http/http_transaction.h"
#include "net/http/request_record.h"
#include "tools/page/html_scanner.h"

namespace netstack {

class Predictor;
class UrlRequest;
class UrlRequestContext;

struct PageLoadResult {
  Url page;
  // Every request in the order issued: the document first, then the subresources in
  // document order. Each record (net/http/request_record.h) has its placement (type: the
  // scanner's type name, "document" for the document; priority; the navigation's start) and its
  // response headers.
  std::vector<RequestRecord> requests;
  ScanResult scan;      // empty when the document failed or was not HTML
  bool parsed = false;  // the document was scanned
  TimeTicks start{}, document_end{}, end{};
  double document_ms() const;  // navigation start -> document complete
  double load_ms() const;      // navigation start -> last request complete
  size_t failed = 0;           // requests that ended with an error
};

struct PageLoadOptions {
  ScanLimits scan;
  // Headers added to every request (a User-Agent, ...).
  std::vector<std::pair<std::string, std::string>> headers;
  // Default headers not sent (HttpRequestInfo::omitted_headers; `fetch -H 'Accept:'`).
  std::vector<std::string> omitted_headers;
  // The Fetch standard's request cache mode for the document and every subresource: a user's
  // reload applies to the whole page (`fetch --page --cache-mode`). The predictor's own fetches
  // ahead keep the default: they are not part of the load the user asked for.
  RequestCacheMode cache_mode = RequestCacheMode::kDefault;
  bool follow_redirects = true;  // false: a 3xx document ends the load unparsed
  int max_redirects = 20;
};

class PageLoader {
 public:
  // `context` and `predictor` (may be null) must outlive the loader.
  PageLoader(UrlRequestContext* context, Predictor* predictor, PageLoadOptions options);
  // Cancels requests still running; `done` is not called then.
  ~PageLoader();
  PageLoader(const PageLoader&) = delete;
  PageLoader& operator=(const PageLoader&) = delete;

  // Loads `page`. `done` runs once, from the loop (never inside Start), when every request
  // has ended; a failed document (or one that is not HTML, or a 204/304/3xx) ends the load
  // with that one record. Call once.
  void Start(const Url& page, std::function<void(const PageLoadResult&)> done);

  const PageLoadResult& result() const { return result_; }
  bool finished() const { return finished_; }

 private:
  class Request;
  void Issue(const Url& url, bool is_document, std::string type, RequestPriority priority);
  void OnRequestComplete(Request* request, int result);
  void OnDocumentComplete(Request* request);
  void MaybeFinish();

  UrlRequestContext* const context_;
  Predictor* const predictor_;
  const PageLoadOptions options_;
  PageLoadResult result_;
  std::vector<std::unique_ptr<Request>> requests_;  // parallel to result_.requests
  size_t outstanding_ = 0;
  bool finished_ = false;
  std::function<void(const PageLoadResult&)> done_;
  WeakPtrFactory<PageLoader> weak_factory_{this};  // last: invalidated first
};

}  // namespace netstack

#endif  // TOOLS_PAGE_PAGE_LOADER_H_
