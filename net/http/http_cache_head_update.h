// HttpCacheHeadUpdate: what a HEAD request's 200 does to the stored GET response of its URL
// (RFC 9111 4.3.5): when the HEAD's validators (and Content-Length, if sent) match the stored
// ones, the stored headers are updated with the HEAD's as a 304 would update them (3.2) and the
// response counts as received now (fresh again); otherwise the stored response is invalidated
// (doomed), as one the HEAD shows to be out of date. The decision is DecideHeadUpdate's
// (http_cache_headers.h); this class does the entry I/O for HttpCacheTransaction.
#ifndef NET_HTTP_HTTP_CACHE_HEAD_UPDATE_H_
#define NET_HTTP_HTTP_CACHE_HEAD_UPDATE_H_

#include <memory>
#include <string>

#include "cache/backend.h"
#include "net/base/clock.h"
#include "net/base/net_error.h"
#include "net/base/net_log.h"
#include "net/base/weak_ptr.h"
#include "net/http/http_request_headers.h"
#include "net/http/http_response_headers.h"

namespace netstack {

class HttpCache;

class HttpCacheHeadUpdate {
 public:
  // `cache` must outlive this object. Events go to `net_log` (the HEAD request's source).
  HttpCacheHeadUpdate(HttpCache* cache, const NetLogWithSource& net_log);
  // Drops a pending open; the stored entry is left as it was.
  ~HttpCacheHeadUpdate();
  HttpCacheHeadUpdate(const HttpCacheHeadUpdate&) = delete;
  HttpCacheHeadUpdate& operator=(const HttpCacheHeadUpdate&) = delete;

  // Applies `head` (a 200 to HEAD `key`, requested with `sent` at `request_time`, its headers
  // received at `response_time`) to the stored GET response of `key`, if there is one and its
  // Vary-named request headers match `sent` (for a URL with Vary variants, the variant `sent`
  // selects: http_cache_vary.h). Returns OK or ERR_IO_PENDING (then `callback` gets
  // OK). Never fails: no entry, a damaged one or a Vary mismatch leave the cache as it was. Call
  // once.
  int Start(const std::string& key, const HttpRequestHeaders& sent,
            std::shared_ptr<const HttpResponseHeaders> head, Time request_time, Time response_time,
            CompletionCallback callback);

 private:
  // Opens `key` (the URL's, or a variant's) into entry_; OnOpened follows, now or later.
  int Open(const std::string& key);
  // The entry was opened (rv OK) or not; applies the update. Returns OK, or ERR_IO_PENDING
  // while the variant a Vary index selects is being opened.
  int OnOpened(int rv);

  HttpCache* const cache_;
  const NetLogWithSource net_log_;
  std::string key_;
  HttpRequestHeaders sent_;
  std::shared_ptr<const HttpResponseHeaders> head_;
  Time request_time_{};
  Time response_time_{};
  std::unique_ptr<CacheEntry> entry_;
  CompletionCallback callback_;
  WeakPtrFactory<HttpCacheHeadUpdate> weak_factory_{this};
};

}  // namespace netstack

#endif  // NET_HTTP_HTTP_CACHE_HEAD_UPDATE_H_
