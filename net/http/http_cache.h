// HttpCache: the HTTP cache of a UrlRequestContext (Chrome's net::HttpCache, simplified). It is an
// HttpTransactionFactory over another one, the network layer: it owns the storage backend
// (cache/backend.h's interface: the disk or memory backend is the tool's choice), makes one
// HttpCacheTransaction per hop, which goes to the network through the layer below, and owns the
// background revalidations that stale-while-revalidate starts, so they outlive the request that
// served the stale response.
//
// Single-threaded, on the loop thread (the backend posts its completions there).
//
// Concurrency: requests for the same key do not wait for each other. Two misses both go to
// the network and both write an entry; the last one committed wins (the backend's Commit
// replaces atomically, and a reader keeps the version it opened). Chrome instead makes the
// second request wait for the first writer; the cost here is a duplicate fetch, never a wrong
// response.
#ifndef NET_HTTP_HTTP_CACHE_H_
#define NET_HTTP_HTTP_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "cache/backend.h"
#include "net/base/clock.h"
#include "net/base/net_log.h"
#include "net/base/request_priority.h"
#include "net/base/scheduler.h"
#include "net/base/weak_ptr.h"
#include "net/http/http_transaction.h"
#include "net/http/http_transaction_factory.h"

namespace netstack {

class HttpCacheWriter;

// HttpCache::Params (outside the class so its defaults can serve as a default argument there).
struct HttpCacheParams {
  // Background revalidations (stale-while-revalidate) running at once; past it, more are
  // skipped (the stale response is still served; a later request revalidates).
  size_t max_background_revalidations = 8;
  // Bound on a body decoded by the cache (ERR_RESPONSE_BODY_TOO_BIG past it). A context sets
  // it to its stream's max_body_bytes (HttpBasicStream::Params), whose default this is.
  int64_t max_body_bytes = int64_t{1} << 30;
};

class HttpCache : public HttpTransactionFactory {
 public:
  using Params = HttpCacheParams;

  // Counters since the cache was created (the internals page, tests).
  struct Stats {
    uint64_t background_started = 0;
    uint64_t background_skipped = 0;  // at the bound, or already running for that key
    uint64_t background_finished = 0;
  };

  // Transactions reach the network through `network` (the context's HttpNetworkLayer, or a
  // test's factory), asking it for bodies as received. `network`, `scheduler`, `clock` (wall
  // time: Date/Expires arithmetic and the stored request/response times) and `net_log` (may be
  // null; background revalidations log under sources of their own there) must outlive the
  // cache. The backend is owned; it is destroyed after everything holding its entries
  // (transactions of background revalidations). A stack gets its cache from
  // UrlRequestContextBuilder::EnableHttpCache.
  HttpCache(HttpTransactionFactory* network, std::unique_ptr<CacheBackend> backend,
            Scheduler& scheduler, const Clock& clock, NetLog* net_log,
            const Params& params = Params());
  // Cancels background revalidations (their entries are not committed), then destroys the
  // backend. Callbacks given to WaitForBackgroundWork that have not run never run.
  ~HttpCache() override;
  HttpCache(const HttpCache&) = delete;
  HttpCache& operator=(const HttpCache&) = delete;

  // The storage, owned here; never null.
  CacheBackend* backend() const { return backend_.get(); }
  // The factory misses and validations go to (not owned); never null.
  HttpTransactionFactory* network_layer() const { return network_; }
  // The loop's scheduler and the wall clock freshness is judged by (not owned).
  Scheduler& scheduler() const { return scheduler_; }
  const Clock& clock() const { return clock_; }
  const Params& params() const { return params_; }
  const Stats& stats() const { return stats_; }

  // HttpTransactionFactory: an HttpCacheTransaction for one hop (it must not outlive the cache).
  // Events go to `net_log`, the request's source.
  std::unique_ptr<HttpTransaction> CreateTransaction(RequestPriority priority,
                                                     const NetLogWithSource& net_log,
                                                     bool decode_content) override;

  // Runs `callback` (with OK) once no background revalidation is running and the backend has
  // flushed everything queued (CacheBackend::Flush), so a tool may exit. Never inside this call.
  // Revalidations started after this call are waited for too. The callback must not destroy
  // the cache (or its context) itself: it runs inside the backend's flush completion; stop the
  // loop or post the teardown instead.
  void WaitForBackgroundWork(CompletionCallback callback);

  // Background revalidations running now.
  size_t background_revalidation_count() const { return jobs_.size(); }

  // For HttpCacheTransaction: invalidation by an unsafe method (RFC 9111 4.4). Dooms `key`'s
  // stored entry and its Vary variants (http_cache_vary.h) and abandons every response still being
  // written under `key` (a GET that started before the unsafe request must not store what it
  // fetched once it completes). Commits already handed to the backend are not reached (README.md,
  // "HTTP cache").
  void InvalidateKey(const std::string& key);

  // For HttpCacheWriter: the writers in progress, so InvalidateKey reaches them. A writer
  // registers when it creates its entry and unregisters when it commits, abandons or dies.
  void AddWriter(const std::string& key, HttpCacheWriter* writer);
  void RemoveWriter(const std::string& key, HttpCacheWriter* writer);

  // For HttpCacheTransaction: revalidates `info` (a GET whose stored response was served stale)
  // in the background with a transaction of its own, which updates the entry (304: headers
  // merged; 200: replaced). Its NetLog source is a new URL_REQUEST; `parent` gets an
  // HTTP_CACHE_ASYNC_REVALIDATION event referencing it, or saying why it was skipped. Returns
  // whether it started.
  bool StartBackgroundRevalidation(const HttpRequestInfo& info, const NetLogWithSource& parent);

 private:
  class Revalidation;

  void OnRevalidationDone(Revalidation* job);
  // Flushes the backend for the waiters once no job runs.
  void MaybeFinishWaiting();

  HttpTransactionFactory* const network_;
  // Declared before the jobs so it is destroyed after them: jobs hold its entries.
  std::unique_ptr<CacheBackend> backend_;
  Scheduler& scheduler_;
  const Clock& clock_;
  NetLog* const net_log_;
  const Params params_;
  std::vector<std::unique_ptr<Revalidation>> jobs_;
  // Writers in progress by key (bounded by the transactions alive).
  std::unordered_multimap<std::string, HttpCacheWriter*> writers_;
  std::vector<CompletionCallback> waiters_;
  bool flushing_ = false;
  Stats stats_;
  WeakPtrFactory<HttpCache> weak_factory_{this};
};

}  // namespace netstack

#endif  // NET_HTTP_HTTP_CACHE_H_
