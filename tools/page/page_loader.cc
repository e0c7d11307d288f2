#include "tools/page/page_loader.h"

#include <set>
#include <string>
#include <utility>

#include "net/base/net_error.h"
#include "net/http/http_response_headers.h"
#include "net/http/url_request.h"
#include "net/http/url_request_context.h"
#include "predictor/predictor.h"

namespace netstack {

double PageLoadResult::document_ms() const { return MillisecondsBetween(start, document_end); }
double PageLoadResult::load_ms() const { return MillisecondsBetween(start, end); }

// One request of the load: its UrlRequest, and the document's body while it arrives.
class PageLoader::Request : public UrlRequest::Delegate {
 public:
  Request(PageLoader* loader, size_t index, const Url& url, size_t max_body_kept)
      : loader_(loader), index_(index), url_(url), max_body_kept_(max_body_kept) {}

  void Start(UrlRequestContext* context, const UrlRequest::Params& params) {
    request_ = std::make_unique<UrlRequest>(context, params, this);
    request_->Start();
  }

  void OnReadData(UrlRequest*, const char* data, int len) override {
    if (max_body_kept_ == 0) return;
    size_t room = max_body_kept_ - std::min(max_body_kept_, body_.size());
    size_t take = std::min(room, static_cast<size_t>(len));
    body_.append(data, take);
    // Read on past the bound (the socket stays reusable); the scanner sees the cut.
  }

  void OnComplete(UrlRequest*, int result) override { loader_->OnRequestComplete(this, result); }

  const UrlRequest& request() const { return *request_; }
  size_t index() const { return index_; }
  const Url& url() const { return url_; }
  const std::string& body() const { return body_; }

 private:
  PageLoader* const loader_;
  const size_t index_;
  const Url url_;
  const size_t max_body_kept_;  // 0 for subresources: their bodies are counted, not kept
  std::unique_ptr<UrlRequest> request_;
  std::string body_;
};

PageLoader::PageLoader(UrlRequestContext* context, Predictor* predictor, PageLoadOptions options)
    : context_(context), predictor_(predictor), options_(std::move(options)) {}

PageLoader::~PageLoader() {
  weak_factory_.InvalidateWeakPtrs();  // before the body's clear: nothing re-enters this loader
  // UrlRequests cancel in their destructors; none calls back after this.
  requests_.clear();
}

void PageLoader::Start(const Url& page, std::function<void(const PageLoadResult&)> done) {
  done_ = std::move(done);
  result_.page = page;
  result_.start = context_->scheduler().Now();
  if (predictor_) predictor_->OnNavigation(page);
  Issue(page, /*is_document=*/true, "document", HIGHEST);
}

void PageLoader::Issue(const Url& url, bool is_document, std::string type,
                       RequestPriority priority) {
  RequestRecord record;
  record.url = url.spec();
  record.placement = RequestPlacement{std::move(type), priority, result_.start};
  result_.requests.push_back(std::move(record));
  // The document's body is kept one byte past the scan bound, so the scanner sees the cut.
  requests_.push_back(std::make_unique<Request>(
      this, requests_.size(), url, is_document ? options_.scan.max_document_bytes + 1 : 0));
  ++outstanding_;

  UrlRequest::Params params;
  params.request.url = url;
  params.request.method = "GET";
  for (const auto& [name, value] : options_.headers)
    params.request.extra_headers.SetHeader(name, value);
  params.request.omitted_headers = options_.omitted_headers;
  params.request.cache_mode = options_.cache_mode;
  params.follow_redirects = options_.follow_redirects;
  params.max_redirects = options_.max_redirects;
  params.priority = priority;
  if (predictor_) predictor_->OnResourceRequested(result_.page, url);
  requests_.back()->Start(context_, params);
}

void PageLoader::OnRequestComplete(Request* request, int result) {
  RequestRecord& rec = result_.requests[request->index()];
  // With headers: the document's Content-Type decides parsing, and every report prints them.
  FillRequestRecord(request->request(), /*with_headers=*/true, &rec);
  // How it was served decides a fetch ahead of its URL (served from what the fetch stored?).
  if (predictor_) {
    predictor_->OnResourceServed(result_.page, request->url(), rec.cache,
                                 rec.connection.socket_source);
  }
  if (result != OK) ++result_.failed;
  if (rec.end > result_.end) result_.end = rec.end;
  --outstanding_;

  if (request->index() == 0) OnDocumentComplete(request);
  MaybeFinish();
}

void PageLoader::OnDocumentComplete(Request* request) {
  // Not used once subresources are issued below (that grows result_.requests).
  const RequestRecord& doc = result_.requests[request->index()];
  result_.document_end = doc.end;
  // A browser renders what the server sent, error pages included; only an answer without
  // content has nothing to parse.
  if (doc.error != OK || doc.status < 200 || doc.status == 204 ||
      (doc.status >= 300 && doc.status < 400)) {
    return;
  }
  // Parsed when the server calls it HTML, or says nothing (a browser would sniff).
  if (doc.headers) {
    auto type = doc.headers->find("content-type");
    if (type != doc.headers->end() && type->is_string() &&
        type->get<std::string>().find("html") == std::string::npos) {
      return;
    }
  }

  // Resolved against the final URL (after redirects); the page stays the one navigated to.
  Url document_url;
  std::string message;
  if (Url::Parse(doc.final_url, &document_url, &message) != OK) document_url = request->url();
  result_.scan = ScanHtml(request->body(), document_url, options_.scan);
  result_.parsed = true;
  if (predictor_) {
    // A fetch-ahead hint for a URL this load requests anyway would reach the network twice
    // (the cache does not merge requests in flight) and always be late: not sent.
    std::set<std::string> requested;
    for (const Subresource& s : result_.scan.subresources) requested.insert(s.url.spec());
    for (const ResourceHint& hint : result_.scan.hints) {
      const bool fetches =
          hint.kind == StaticHintKind::kPreload || hint.kind == StaticHintKind::kPrefetch;
      if (fetches && requested.count(hint.url.spec())) continue;
      predictor_->OnStaticHint(result_.page, hint.kind, hint.url);
    }
  }
  for (const Subresource& s : result_.scan.subresources)
    Issue(s.url, /*is_document=*/false, SubresourceTypeName(s.type), s.priority);
}

void PageLoader::MaybeFinish() {
  if (outstanding_ > 0 || finished_) return;
  finished_ = true;
  if (result_.end < result_.document_end) result_.end = result_.document_end;
  if (predictor_) predictor_->OnNavigationComplete(result_.page);
  // Posted: the caller may destroy the loader, and this runs inside a request's callback.
  context_->scheduler().PostTask([weak = weak_factory_.GetWeakPtr()] {
    if (weak && weak->done_) weak->done_(weak->result_);
  });
}

}  // namespace netstack
