#include "net/http/http_cache_writer.h"

#include "net/http/http_cache.h"
#include "net/http/http_util.h"

namespace netstack {

HttpCacheWriter::HttpCacheWriter(HttpCache* cache, const HttpResponseInfo& info,
                                 const NetLogWithSource& net_log, const std::string& entry_key)
    : cache_(cache),
      key_(info.url),
      entry_(cache->backend()->CreateEntry(entry_key.empty() ? info.url : entry_key)),
      net_log_(net_log) {
  cache_->AddWriter(key_, this);
  net_log_.AddEvent(NetLogEventType::HTTP_CACHE_CREATE_ENTRY,
                    [this](NetLogParams& p) { p.Add("key", SanitizeUtf8(entry_->key())); });
  std::string blob = info.Serialize();
  const size_t bytes = blob.size();
  entry_->WriteHeaders(std::move(blob));
  net_log_.AddEvent(NetLogEventType::HTTP_CACHE_WRITE_INFO,
                    [bytes](NetLogParams& p) { p.Add("bytes", bytes).Add("stored", true); });
}

HttpCacheWriter::~HttpCacheWriter() {
  if (entry_) Abandon(ERR_ABORTED, "cancelled before the end of the body");
}

void HttpCacheWriter::Append(const char* data, int len) {
  if (!entry_) return;
  int result = entry_->AppendBody(data, len);
  if (result != OK) {
    // Too large, write queue full, disk full: the response goes on, uncached.
    Abandon(result, "append failed");
    return;
  }
  bytes_written_ += len;
}

void HttpCacheWriter::Finish(int result) {
  if (!entry_) return;
  if (result != OK) {
    Abandon(result, "the body failed");
    return;
  }
  // The commit outlives this writer. The NetLog outlives the context, hence the backend, whose
  // pending callbacks are dropped when it goes.
  const int64_t bytes = bytes_written_;
  if (!net_log_.IsCapturing()) {
    // The callback only logs: without a capture it would cost a posted task per response.
    entry_->Commit(nullptr);
    Release();
    return;
  }
  entry_->Commit([net_log = net_log_, bytes](int rv) {
    net_log.AddEvent(NetLogEventType::HTTP_CACHE_WRITE_DATA, [bytes, rv](NetLogParams& p) {
      p.Add("bytes", bytes).Add("committed", rv == OK);
      if (rv != OK) p.Add("net_error", rv);
    });
  });
  Release();
}

void HttpCacheWriter::Invalidate() {
  if (entry_) Abandon(ERR_ABORTED, "invalidated by an unsafe request");
}

void HttpCacheWriter::Release() {
  entry_.reset();
  cache_->RemoveWriter(key_, this);
}

void HttpCacheWriter::Abandon(int error, const std::string& why) {
  const int64_t bytes = bytes_written_;
  net_log_.AddEvent(NetLogEventType::HTTP_CACHE_WRITE_DATA, [bytes, error, &why] {
    return nlohmann::json{
        {"bytes", bytes}, {"committed", false}, {"net_error", error}, {"reason", why}};
  });
  Release();  // Uncommitted: discarded.
}

}  // namespace netstack
