// HttpCache: the HTTP cache of a UrlRequestContext (Chrome's net::HttpCache, simplified). It owns
// the storage backend (cache/backend.h: disk or memory), makes one HttpCacheTransaction per hop,
// and owns the background revalidations that stale-while-revalidate starts, so they outlive the
// request that served the stale response.
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
#include "net/base/weak_ptr.h"
#include "net/http/http_transaction.h"

namespace netstack {

class HttpCacheWriter;
class UrlRequestContext;

class HttpCache {
 public:
  struct Params {
    // Background revalidations (stale-while-revalidate) running at once; past it, more are
    // skipped (the stale response is still served; a later request revalidates).
    size_t max_background_revalidations = 8;
  };

  // Counters since the cache was created (the internals page, tests).
  struct Stats {
    uint64_t background_started = 0;
    uint64_t background_skipped = 0;  // at the bound, or already running for that key
    uint64_t background_finished = 0;
  };

  // `clock` (wall time: Date/Expires arithmetic and the stored request/response times) must
  // outlive the cache. The backend is owned; it is destroyed after everything holding its
  // entries (transactions of background revalidations). Give it to a context with
  // UrlRequestContext::SetHttpCache.
  HttpCache(std::unique_ptr<CacheBackend> backend, const Clock& clock);
  HttpCache(std::unique_ptr<CacheBackend> backend, const Clock& clock, const Params& params);
  // Cancels background revalidations (their entries are not committed), then destroys the
  // backend. Callbacks given to WaitForBackgroundWork that have not run never run.
  ~HttpCache();
  HttpCache(const HttpCache&) = delete;
  HttpCache& operator=(const HttpCache&) = delete;

  CacheBackend* backend() const { return backend_.get(); }
  const Clock& clock() const { return clock_; }
  const Params& params() const { return params_; }
  const Stats& stats() const { return stats_; }

  // A transaction for one hop of a request in `context` (which must outlive it and own this
  // cache). Events go to `net_log`, the request's source.
  std::unique_ptr<HttpTransaction> CreateTransaction(UrlRequestContext* context,
                                                     RequestPriority priority,
                                                     const NetLogWithSource& net_log);

  // Runs `callback` (with OK) once no background revalidation is running and the backend has
  // flushed everything queued (CacheBackend::Flush), so a tool may exit. Never inside this call.
  // Revalidations started after this call are waited for too. The callback must not destroy
  // the cache (or its context) itself: it runs inside the backend's flush completion; stop the
  // loop or post the teardown instead.
  void WaitForBackgroundWork(CompletionCallback callback);

  // Background revalidations running now.
  size_t background_revalidation_count() const { return jobs_.size(); }

  // For HttpCacheTransaction: invalidation by an unsafe method (RFC 9111 4.4). Dooms `key`'s
  // stored entry and abandons every response still being written under `key` (a GET that
  // started before the unsafe request must not store what it fetched once it completes).
  // Commits already handed to the backend are not reached (README.md, "HTTP cache").
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
  bool StartBackgroundRevalidation(UrlRequestContext* context, const HttpRequestInfo& info,
                                   const NetLogWithSource& parent);

 private:
  class Revalidation;

  void OnRevalidationDone(Revalidation* job);
  // Flushes the backend for the waiters once no job runs.
  void MaybeFinishWaiting();

  // Declared first so it is destroyed last: jobs hold its entries.
  std::unique_ptr<CacheBackend> backend_;
  const Clock& clock_;
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
