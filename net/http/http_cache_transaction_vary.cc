// HttpCacheTransaction's Vary variants half (http_cache_vary.h has the key layout): choosing the
// stored variant a request selects from the URL's index, and recording a new variant there.
#include <memory>
#include <string>

#include "net/http/http_cache.h"
#include "net/http/http_cache_transaction.h"
#include "net/http/http_cache_vary.h"

namespace netstack {

int HttpCacheTransaction::SelectVariant() {
  std::string error;
  if (!VaryIndex::Parse(entry_->headers(), &vary_index_, &error) || vary_index_.url != key_) {
    if (error.empty()) error = "vary index: stored URL does not match the key";
    vary_index_ = VaryIndex();
    DoomOpenedEntry(error);
    return FallBackToNetwork("damaged entry: " + error);
  }
  has_vary_index_ = true;
  entry_.reset();
  const int slot = vary_index_.FindSlot(sent_headers_);
  net_log_.AddEvent(NetLogEventType::HTTP_CACHE_READ_INFO, [&](NetLogParams& p) {
    p.Add("vary_variants", vary_index_.variants.size()).Add("vary_slot", slot);
  });
  if (slot >= 0) {
    open_key_ = VariantKey(key_, slot);
    next_state_ = State::kOpenEntry;
    return OK;
  }
  if (policy_.only_if_cached) {
    return OnlyIfCachedMiss("only-if-cached, and no stored variant of " + key_ +
                            " matches the request's Vary-named headers");
  }
  action_ = CacheAction::kNetwork;
  next_state_ = State::kSendNetwork;
  return OK;
}

std::string HttpCacheTransaction::PrepareStoreKey(const HttpResponseInfo& info) {
  if (info.vary.empty()) {
    if (has_vary_index_) DoomVariantKeys(cache_->backend(), key_);
    return "";
  }
  // Without a loaded index (none stored, or a reload that did not look) a new one starts.
  if (!has_vary_index_) {
    vary_index_ = VaryIndex();
    vary_index_.url = key_;
    has_vary_index_ = true;
  }
  int evicted = -1;
  const int slot = vary_index_.Add(VaryIndex::SelectionOf(info.vary), cache_->backend(), &evicted);
  std::unique_ptr<CacheEntry> index = cache_->backend()->CreateEntry(key_);
  index->WriteHeaders(vary_index_.Serialize());
  index->Commit(nullptr);
  net_log_.AddEvent(NetLogEventType::HTTP_CACHE_WRITE_INFO, [&](NetLogParams& p) {
    p.Add("vary_slot", slot).Add("vary_evicted_slot", evicted);
  });
  return VariantKey(key_, slot);
}

}  // namespace netstack
