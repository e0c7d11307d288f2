// PageLoader: one page load as a browser's network stack does it, in either world (the live
// stack or the simulated network): fetch the document, parse it when complete (html_scanner.h),
// hand its resource hints to the predictor, then request every subresource at once with its
// priority (the socket pool's limits queue them), and record every request.
//
// The predictor (optional) hears the load the way predictor_policy.h orders it: OnNavigation
// before the document is requested, OnResourceRequested for each request as it is issued,
// OnStaticHint for each hint as soon as the document is parsed (before the subresources are
// requested; a prefetch hint for a URL this load requests itself is not sent: it would fetch the
// URL twice), OnNavigationComplete when every request has ended.
#ifndef TOOLS_PAGE_PAGE_LOADER_H_
#define TOOLS_PAGE_PAGE_LOADER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "net/base/load_timing_info.h"
#include "net/base/load_timing_phases.h"
#include "net/base/request_priority.h"
#include "net/base/time.h"
#include "net/base/url.h"
#include "net/http/http_transaction.h"
#include "tools/page/html_scanner.h"

namespace netstack {

class Predictor;
class UrlRequest;
class UrlRequestContext;

// One request of a page load, as it ended.
struct PageRequestRecord {
  Url url;
  bool is_document = false;
  // The scanner's type name ("stylesheet", "script", ...); "document" for the document.
  std::string type;
  RequestPriority priority = MEDIUM;
  TimeTicks start{}, end{};
  int result = 0;  // OK or a net error
  std::string error_message;
  int status = 0;  // 0: no response
  std::string status_text;
  // The response headers as HttpResponseHeaders::ToJson gives them; left empty when the
  // record was filled without them (FillRequestRecord's `with_headers`).
  nlohmann::json headers = nlohmann::json::object();
  std::string final_url;
  std::vector<std::string> redirects;
  int64_t bytes = 0;          // decoded body
  int64_t encoded_bytes = 0;  // as received
  LoadTimingInfo timing;      // the last hop's
  LoadTimingPhases phases;    // ComputeLoadTimingPhases(timing, start)
  ConnectionInfo connection;
  CacheDisposition cache = CacheDisposition::kBypass;
};

// Copies what `request` ended with (`result`, OK or a net error) into `record`: everything but
// url, is_document, type and priority, which the issuer sets. The one UrlRequest -> record copy:
// the loader's and a plain `netstack fetch`'s (through FetchRecordFromRequest).
// `with_headers` false leaves `record->headers` an empty object: converting the response
// headers to JSON was a fifth of a keep-alive fetch's instructions, and only a consumer that
// prints or reads them (--json, page loads, the internals fetch box) needs them.
void FillRequestRecord(const UrlRequest& request, int result, PageRequestRecord* record,
                       bool with_headers);

struct PageLoadResult {
  Url page;
  // Every request in the order issued: the document first, then the subresources in
  // document order.
  std::vector<PageRequestRecord> requests;
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
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace netstack

#endif  // TOOLS_PAGE_PAGE_LOADER_H_
