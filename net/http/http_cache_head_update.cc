#include "net/http/http_cache_head_update.h"

#include <utility>

#include "net/http/http_cache.h"
#include "net/http/http_cache_policy.h"
#include "net/http/http_cache_vary.h"
#include "net/http/http_response_info.h"
#include "net/http/http_util.h"

namespace netstack {

HttpCacheHeadUpdate::HttpCacheHeadUpdate(HttpCache* cache, const NetLogWithSource& net_log)
    : cache_(cache), net_log_(net_log) {}

HttpCacheHeadUpdate::~HttpCacheHeadUpdate() = default;

int HttpCacheHeadUpdate::Start(const std::string& key, const HttpRequestHeaders& sent,
                               std::shared_ptr<const HttpResponseHeaders> head, Time request_time,
                               Time response_time, CompletionCallback callback) {
  key_ = key;
  sent_ = sent;
  head_ = std::move(head);
  request_time_ = request_time;
  response_time_ = response_time;
  int rv = Open(key_);
  if (rv == ERR_IO_PENDING) callback_ = std::move(callback);
  return rv;
}

int HttpCacheHeadUpdate::Open(const std::string& key) {
  int rv = cache_->backend()->OpenEntry(
      key, &entry_, [weak = weak_factory_.GetWeakPtr()](int rv, std::unique_ptr<CacheEntry> entry) {
        if (!weak) return;
        weak->entry_ = std::move(entry);
        rv = weak->OnOpened(rv);
        if (rv == ERR_IO_PENDING) return;  // the variant's open calls back
        CompletionCallback cb = std::move(weak->callback_);
        if (cb) cb(rv);  // May destroy this.
      });
  if (rv == ERR_IO_PENDING) return rv;
  return OnOpened(rv);
}

int HttpCacheHeadUpdate::OnOpened(int rv) {
  std::unique_ptr<CacheEntry> entry = std::move(entry_);
  if (rv != OK || !entry) return OK;  // nothing stored: nothing to update
  // Vary variants: the update is for the variant this HEAD would have selected, if any.
  if (entry->key() == key_ && VaryIndex::IsIndex(entry->headers())) {
    VaryIndex index;
    if (!VaryIndex::Parse(entry->headers(), &index, nullptr)) return OK;  // the GET's business
    const int slot = index.FindSlot(sent_);
    if (slot < 0) return OK;
    return Open(VariantKey(key_, slot));
  }
  HttpResponseInfo stored;
  std::string error;
  // A damaged or foreign entry is the GET's business (it dooms it when it reads it).
  if (!HttpResponseInfo::Parse(entry->headers(), &stored, &error) || stored.url != key_ ||
      !stored.headers) {
    return OK;
  }
  // Another variant than the HEAD would have selected (RFC 9111 4.3.5: "that could have been
  // chosen for that request").
  if (!VaryMatches(stored, sent_)) return OK;
  HeadUpdateDecision decision = DecideHeadUpdate(*stored.headers, *head_);
  if (!decision.update) {
    entry->Doom();
    net_log_.AddEvent(NetLogEventType::HTTP_CACHE_DOOM_ENTRY, [&] {
      return nlohmann::json{{"key", key_}, {"reason", "HEAD response: " + decision.reason}};
    });
    return OK;
  }
  stored.headers = HeadersForStorage(*MergeNotModified(*stored.headers, *head_));
  stored.request_time = request_time_;
  stored.response_time = response_time_;
  std::string why;
  // The HEAD may have made it unstorable (no-store); then it goes.
  if (!IsStorable("GET", sent_, *stored.headers, &why)) {
    entry->Doom();
    net_log_.AddEvent(NetLogEventType::HTTP_CACHE_DOOM_ENTRY, [&] {
      return nlohmann::json{{"key", key_}, {"reason", "not storable after the HEAD: " + why}};
    });
    return OK;
  }
  std::string blob = stored.Serialize();
  const size_t bytes = blob.size();
  entry->WriteHeaders(std::move(blob));
  net_log_.AddEvent(NetLogEventType::HTTP_CACHE_VALIDATE_RESULT, [bytes] {
    return nlohmann::json{{"status", 200}, {"result", "freshened by HEAD"}, {"bytes", bytes}};
  });
  return OK;
}

}  // namespace netstack
