// HttpCacheWriter: writes one response into the cache as it arrives (the storage half of a
// cache miss): creates the entry and its stream 0, appends the body's raw chunks, commits when
// the body ended cleanly, and abandons the entry otherwise. Never fails the request: a failed
// append just drops the entry. Every outcome is logged as HTTP_CACHE_WRITE_DATA on the request's
// source.
#ifndef NET_HTTP_HTTP_CACHE_WRITER_H_
#define NET_HTTP_HTTP_CACHE_WRITER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "cache/backend.h"
#include "net/base/net_log.h"
#include "net/http/http_response_info.h"

namespace netstack {

class HttpCache;

class HttpCacheWriter {
 public:
  // Creates the entry `entry_key` (empty: `info.url`; a Vary variant's derived key otherwise,
  // http_cache_vary.h) in `cache`'s backend (`cache` must outlive this writer) and writes `info`
  // as its stream 0. The entry stays invisible until Finish(0). The writer is registered with
  // `cache` under `info.url` until it finishes, so HttpCache::InvalidateKey of the URL abandons
  // it whichever variant it writes.
  HttpCacheWriter(HttpCache* cache, const HttpResponseInfo& info, const NetLogWithSource& net_log,
                  const std::string& entry_key = "");
  // An entry neither committed nor abandoned yet is abandoned ("cancelled").
  ~HttpCacheWriter();
  HttpCacheWriter(const HttpCacheWriter&) = delete;
  HttpCacheWriter& operator=(const HttpCacheWriter&) = delete;

  // Appends `len` raw body bytes. A failure (ERR_FILE_TOO_BIG, ERR_INSUFFICIENT_RESOURCES,
  // disk errors) abandons the entry; later calls do nothing.
  void Append(const char* data, int len);

  // The body ended: 0 commits the entry (the commit completes later, without this object);
  // an error abandons it.
  void Finish(int result);

  // An unsafe request invalidated the URL while this response was arriving: the entry is
  // abandoned (never committed); later calls do nothing. Called by HttpCache::InvalidateKey.
  void Invalidate();

  // Still writing: neither finished nor failed.
  bool active() const { return entry_ != nullptr; }
  int64_t bytes_written() const { return bytes_written_; }

 private:
  void Abandon(int error, const std::string& why);
  // Drops the entry (after Commit or to abandon it) and leaves the cache's writer list.
  void Release();

  HttpCache* const cache_;
  const std::string key_;
  std::unique_ptr<CacheEntry> entry_;
  const NetLogWithSource net_log_;
  int64_t bytes_written_ = 0;
};

}  // namespace netstack

#endif  // NET_HTTP_HTTP_CACHE_WRITER_H_
