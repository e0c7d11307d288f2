#include "predictor/context_speculation_target.h"

#include <algorithm>
#include <utility>

#include "net/base/ip_address.h"
#include "net/dns/host_cache.h"
#include "net/dns/host_resolver_manager.h"
#include "net/http/http_cache.h"
#include "net/http/url_request.h"
#include "net/http/url_request_context.h"
#include "net/http2/http2_session_pool.h"
#include "net/socket/client_socket_pool.h"

namespace netstack {

// One pre-resolve (a resolver request) or fetch ahead (a UrlRequest whose body is dropped).
class ContextSpeculationTarget::Work : public UrlRequest::Delegate {
 public:
  Work(ContextSpeculationTarget* target, CompletionCallback done)
      : target_(target), done_(std::move(done)) {}

  void OnReadData(UrlRequest* request, const char* data, int len) override {}
  void OnComplete(UrlRequest* request, int result) override {
    // A fresh hit stored nothing: say so, so the page's own hit is not credited to the fetch.
    const bool hit = result == OK && request->cache_disposition() == CacheDisposition::kHit;
    target_->OnWorkDone(this, hit ? kFetchAheadAlreadyCached : result);
  }

  CompletionCallback TakeDone() { return std::move(done_); }

  std::unique_ptr<HostResolver::Request> resolve;
  std::unique_ptr<UrlRequest> fetch;

 private:
  ContextSpeculationTarget* const target_;
  CompletionCallback done_;
};

ContextSpeculationTarget::ContextSpeculationTarget(UrlRequestContext* context)
    : context_(context) {}

ContextSpeculationTarget::~ContextSpeculationTarget() {
  // Posted completions hold a WeakPtr: they do nothing from here on.
  weak_factory_.InvalidateWeakPtrs();
  work_.clear();  // cancels resolves and fetches; their callbacks never run
}

int ContextSpeculationTarget::Preresolve(const SchemeHostPort& origin,
                                         const NetLogWithSource& net_log, CompletionCallback done) {
  auto work = std::make_unique<Work>(this, std::move(done));
  work->resolve = context_->host_resolver()->CreateRequest(origin.host, origin.port, IDLE, net_log);
  Work* raw = work.get();
  int rv = work->resolve->Start([this, raw](int result) { OnWorkDone(raw, result); });
  if (rv != ERR_IO_PENDING) return rv;  // the request goes now, outside any callback of its own
  work_.push_back(std::move(work));
  return ERR_IO_PENDING;
}

int ContextSpeculationTarget::Preconnect(const SchemeHostPort& origin, int sockets,
                                         const NetLogWithSource& net_log) {
  // An HTTP/2 origin needs one connection whatever a page asks of it (Chrome's preconnect to a
  // known h2 server opens one): none while its session is open, else one.
  if (Http2SessionPool* h2 = context_->http2_session_pool(); h2 && origin.scheme == "https") {
    if (h2->FindAvailableSession(origin)) return OK;
    if (h2->IsKnownHttp2(origin)) sockets = std::min(sockets, 1);
  }
  return context_->socket_pool()->RequestSockets(origin, sockets, net_log);
}

int ContextSpeculationTarget::FetchAhead(const Url& url, const NetLogWithSource& net_log,
                                         CompletionCallback done) {
  if (!CanFetchAhead()) return ERR_NOT_IMPLEMENTED;
  if (!url.is_valid()) return ERR_INVALID_URL;
  auto work = std::make_unique<Work>(this, std::move(done));
  UrlRequest::Params params;
  params.request.url = url;
  params.request.method = "GET";  // only safe methods are fetched ahead
  params.priority = IDLE;
  // Not a page's need: the pool reports its connection as speculative, so the accounting
  // leaves it out of recall and of the policy's tables.
  params.request.speculative = true;
  work->fetch = std::make_unique<UrlRequest>(context_, params, work.get());
  work->fetch->Start();  // never completes inside Start()
  work_.push_back(std::move(work));
  return ERR_IO_PENDING;
}

bool ContextSpeculationTarget::CanFetchAhead() const { return context_->http_cache() != nullptr; }

int ContextSpeculationTarget::SocketCount(const SchemeHostPort& origin) const {
  const ClientSocketPool* pool = context_->socket_pool();
  return static_cast<int>(pool->IdleSocketCountInGroup(origin) +
                          pool->NumConnectJobsInGroup(origin)) +
         pool->NumActiveSocketsInGroup(origin);
}

bool ContextSpeculationTarget::IsResolved(const SchemeHostPort& origin) const {
  std::string host = origin.host;
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (IPAddress::Parse(host)) return true;  // nothing to resolve
  const HostResolverManager* resolver = context_->host_resolver();
  const HostCache::Key key(host, resolver->config().family);
  const HostCache::Entry* entry = resolver->GetCache().Lookup(key, context_->scheduler().Now());
  return entry && entry->error() == OK;
}

void ContextSpeculationTarget::OnWorkDone(Work* work, int result) {
  // Inside the work's own callback: destroy it, and tell the caller, from a posted task.
  context_->scheduler().PostTask([weak = weak_factory_.GetWeakPtr(), work, result] {
    ContextSpeculationTarget* target = weak.get();
    if (!target) return;
    CompletionCallback done;
    for (auto it = target->work_.begin(); it != target->work_.end(); ++it) {
      if (it->get() != work) continue;
      std::unique_ptr<Work> owned = std::move(*it);
      target->work_.erase(it);
      done = owned->TakeDone();
      break;  // `owned` is destroyed here, before `done` runs
    }
    if (done) done(result);
  });
}

}  // namespace netstack
