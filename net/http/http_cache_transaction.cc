#include "net/http/http_cache_transaction.h"

#include <algorithm>
#include <string>
#include <utility>

#include "net/http/http_cache.h"
#include "net/http/http_cache_range_transaction.h"
#include "net/http/http_util.h"

namespace netstack {
namespace {

// Raw (encoded) body bytes read from the entry or the network at once; also the most held.
constexpr int kRawBufferBytes = ReadBuffer::kBytes;
// A 304 is bodiless (HttpStreamParser), so draining it reads nothing; the buffer is a formality.
constexpr int kDrainBufferBytes = 1024;

}  // namespace

HttpCacheTransaction::HttpCacheTransaction(HttpCache* cache, RequestPriority priority,
                                           const NetLogWithSource& net_log, bool decode_content,
                                           Mode mode)
    : cache_(cache),
      priority_(priority),
      net_log_(net_log),
      decode_content_(decode_content),
      mode_(mode) {}

HttpCacheTransaction::~HttpCacheTransaction() {
  if (open_event_pending_)
    net_log_.EndEventWithNetErrorCode(NetLogEventType::HTTP_CACHE_OPEN_ENTRY, ERR_ABORTED);
  // Cancel pending reads (entry, network) while the buffers they write into still exist.
  entry_.reset();
  network_.reset();
  writer_.reset();
}

int HttpCacheTransaction::Start(HttpRequestInfo info, CompletionCallback callback) {
  network_info_ = info;
  info_ = std::move(info);
  start_ticks_ = cache_->scheduler().Now();
  key_ = info_.url.spec();
  open_key_ = key_;
  sent_headers_ = info_.extra_headers;
  AddDefaultRequestHeaders(&sent_headers_, info_.omitted_headers);
  policy_ = GetRequestCachePolicy(info_.method, sent_headers_, info_.cache_mode);
  // What the Fetch standard's modes add to the request as sent (not to what the cache matches).
  AddCacheModeRequestHeaders(info_.cache_mode, &info_.extra_headers);
  AddCacheModeRequestHeaders(info_.cache_mode, &network_info_.extra_headers);
  if (policy_.mode != RequestCachePolicy::Mode::kNormal) {
    const bool reload = policy_.mode == RequestCachePolicy::Mode::kReload;
    net_log_.AddEvent(NetLogEventType::HTTP_CACHE_LOOKUP, [this, reload](NetLogParams& p) {
      const bool range = policy_.mode == RequestCachePolicy::Mode::kRange;  // its own lookup
      p.Add("action", reload  ? "network"
                      : range ? "range"
                              : "bypass")
          .Add("key", key_)
          .Add("reason", policy_.reason);
    });
    // A range request answers only-if-cached itself (from what is stored, else a 504).
    if (policy_.only_if_cached && policy_.mode != RequestCachePolicy::Mode::kRange) {
      headers_ticks_ = start_ticks_;
      return OnlyIfCachedMiss("only-if-cached, but the cache does not serve this request (" +
                              policy_.reason + ")");
    }
    if (!reload) return StartBypass(std::move(callback));
    // Not read; the response is stored as a miss's would be.
    disposition_ = CacheDisposition::kMiss;
    next_state_ = State::kSendNetwork;
  } else {
    next_state_ = State::kOpenEntry;
  }
  int rv = DoLoop(OK);
  if (rv == ERR_IO_PENDING) callback_ = std::move(callback);
  return rv;
}

int HttpCacheTransaction::StartBypass(CompletionCallback callback) {
  bypass_ = true;
  disposition_ = CacheDisposition::kBypass;
  if (policy_.mode == RequestCachePolicy::Mode::kRange) {
    network_ =
        std::make_unique<HttpCacheRangeTransaction>(cache_, priority_, net_log_, decode_content_);
  } else {
    network_ = cache_->network_layer()->CreateTransaction(priority_, net_log_, decode_content_);
  }
  request_time_ = cache_->clock().Now();
  int rv = network_->Start(info_, [weak = weak_factory_.GetWeakPtr()](int rv) {
    if (!weak) return;
    rv = weak->OnBypassHeaders(rv);
    if (rv == ERR_IO_PENDING) return;  // the HEAD's update of the stored GET calls back
    CompletionCallback cb = std::move(weak->callback_);
    weak->callback_ = nullptr;
    if (cb) cb(rv);  // May destroy the transaction.
  });
  if (rv != ERR_IO_PENDING) rv = OnBypassHeaders(rv);
  // Pending on the network, or on the HEAD's update of the stored GET.
  if (rv == ERR_IO_PENDING) callback_ = std::move(callback);
  return rv;
}

int HttpCacheTransaction::OnBypassHeaders(int rv) {
  if (policy_.mode == RequestCachePolicy::Mode::kRange)
    disposition_ = network_->cache_disposition();
  if (rv != OK) return rv;
  if (policy_.mode == RequestCachePolicy::Mode::kHead) {
    if (network_->response_headers()->response_code() != 200) return OK;
    head_update_ = std::make_unique<HttpCacheHeadUpdate>(cache_, net_log_);
    return head_update_->Start(key_, sent_headers_, network_->response_headers(), request_time_,
                               cache_->clock().Now(), [weak = weak_factory_.GetWeakPtr()](int rv) {
                                 if (!weak) return;
                                 CompletionCallback cb = std::move(weak->callback_);
                                 weak->callback_ = nullptr;
                                 if (cb) cb(rv);  // May destroy the transaction.
                               });
  }
  if (policy_.mode != RequestCachePolicy::Mode::kInvalidate) return OK;
  for (const std::string& key :
       GetInvalidatedKeys(info_.method, info_.url, *network_->response_headers())) {
    cache_->InvalidateKey(key);
    cache_->InvalidateKey(PartialEntryKey(key));  // its stored pieces (http_cache_range.h)
    net_log_.AddEvent(NetLogEventType::HTTP_CACHE_DOOM_ENTRY, [&key, this] {
      return nlohmann::json{{"key", key}, {"reason", "invalidated by " + info_.method}};
    });
  }
  return OK;
}

int HttpCacheTransaction::DoLoop(int rv) {
  do {
    State state = next_state_;
    next_state_ = State::kNone;
    switch (state) {
      case State::kOpenEntry:
        rv = DoOpenEntry();
        break;
      case State::kOpenEntryComplete:
        rv = DoOpenEntryComplete(rv);
        break;
      case State::kReadFirstChunk:
        rv = DoReadFirstChunk();
        break;
      case State::kReadFirstChunkComplete:
        rv = DoReadFirstChunkComplete(rv);
        break;
      case State::kSendNetwork:
        rv = DoSendNetwork();
        break;
      case State::kSendNetworkComplete:
        rv = DoSendNetworkComplete(rv);
        break;
      case State::kDrainNetwork:
        rv = DoDrainNetwork();
        break;
      case State::kDrainNetworkComplete:
        rv = DoDrainNetworkComplete(rv);
        break;
      case State::kNone:
        return rv;
    }
  } while (rv != ERR_IO_PENDING && next_state_ != State::kNone);
  return rv;
}

void HttpCacheTransaction::OnIoComplete(int rv) {
  rv = DoLoop(rv);
  if (rv != ERR_IO_PENDING && callback_) {
    CompletionCallback cb = std::move(callback_);
    callback_ = nullptr;
    cb(rv);  // May destroy this.
  }
}

int HttpCacheTransaction::DoOpenEntry() {
  next_state_ = State::kOpenEntryComplete;
  open_event_pending_ = true;
  net_log_.BeginEvent(NetLogEventType::HTTP_CACHE_OPEN_ENTRY,
                      [this](NetLogParams& p) { p.Add("key", open_key_); });
  return cache_->backend()->OpenEntry(
      open_key_, &entry_,
      [weak = weak_factory_.GetWeakPtr()](int rv, std::unique_ptr<CacheEntry> entry) {
        if (!weak) return;
        weak->entry_ = std::move(entry);
        weak->OnIoComplete(rv);
      });
}

int HttpCacheTransaction::DoOpenEntryComplete(int rv) {
  open_event_pending_ = false;
  net_log_.EndEventWithNetErrorCode(NetLogEventType::HTTP_CACHE_OPEN_ENTRY, rv);
  // Until a stored response is used (also for only-if-cached failures).
  disposition_ = CacheDisposition::kMiss;
  if (rv != OK || !entry_) {
    entry_.reset();
    if (policy_.only_if_cached)
      return OnlyIfCachedMiss("only-if-cached, and nothing is stored for " + key_);
    action_ = CacheAction::kNetwork;
    disposition_ = CacheDisposition::kMiss;
    next_state_ = State::kSendNetwork;
    return OK;
  }
  if (open_key_ == key_ && VaryIndex::IsIndex(entry_->headers())) return SelectVariant();

  std::string error;
  bool parsed = HttpResponseInfo::Parse(entry_->headers(), &stored_, &error);
  if (parsed && stored_.url != key_) {
    parsed = false;
    error = "stream 0: stored URL does not match the key";
  }
  net_log_.AddEvent(NetLogEventType::HTTP_CACHE_READ_INFO, [&](NetLogParams& p) {
    p.Add("bytes", entry_->headers().size());
    if (!parsed) p.Add("error", SanitizeUtf8(error));
  });
  if (!parsed) {
    DoomOpenedEntry(error);
    return FallBackToNetwork("damaged entry: " + error);
  }

  CacheDecision decision =
      DecideCacheUse(stored_, sent_headers_, cache_->clock().Now(), info_.cache_mode);
  action_ = decision.action;
  if (mode_ == Mode::kBackgroundRevalidation &&
      (action_ == CacheAction::kUse || action_ == CacheAction::kUseStale ||
       action_ == CacheAction::kUseStaleAndRevalidate)) {
    action_ = CacheAction::kValidate;
    decision.reason = "background revalidation";
  }
  net_log_.AddEvent(NetLogEventType::HTTP_CACHE_LOOKUP, [&](NetLogParams& p) {
    p.Add("action", CacheActionName(action_)).BeginObject("freshness");
    decision.freshness.WriteNetLogParams(p);
    p.EndObject().Add("key", key_).Add("reason", SanitizeUtf8(decision.reason));
  });
  switch (action_) {
    case CacheAction::kMiss:
      entry_.reset();
      return OnlyIfCachedMiss("only-if-cached, and the stored response for " + key_ +
                              " cannot be used: " + decision.reason);
    case CacheAction::kUse:
      disposition_ = CacheDisposition::kHit;
      next_state_ = State::kReadFirstChunk;
      return OK;
    case CacheAction::kUseStale:
      disposition_ = CacheDisposition::kStale;
      next_state_ = State::kReadFirstChunk;
      return OK;
    case CacheAction::kUseStaleAndRevalidate:
      disposition_ = CacheDisposition::kStale;
      cache_->StartBackgroundRevalidation(info_, net_log_);
      next_state_ = State::kReadFirstChunk;
      return OK;
    case CacheAction::kValidate:
      // Without validators the request goes out plain; its response replaces the entry.
      validating_ = AddValidationHeaders(*stored_.headers, &network_info_.extra_headers);
      disposition_ = CacheDisposition::kMiss;
      next_state_ = State::kSendNetwork;
      return OK;
    case CacheAction::kNetwork:
      // Another variant (Vary): leave it alone unless the new response replaces it.
      entry_.reset();
      disposition_ = CacheDisposition::kMiss;
      next_state_ = State::kSendNetwork;
      return OK;
  }
  return ERR_FAILED;
}

int HttpCacheTransaction::DoReadFirstChunk() {
  next_state_ = State::kReadFirstChunkComplete;
  source_ = Source::kEntry;
  raw_buf_.Allocate();
  return entry_->ReadBody(0, raw_buf_.data(), kRawBufferBytes,
                          [weak = weak_factory_.GetWeakPtr()](int rv) {
                            if (weak) weak->OnIoComplete(rv);
                          });
}

int HttpCacheTransaction::DoReadFirstChunkComplete(int rv) {
  if (rv < 0) {
    net_log_.AddEvent(NetLogEventType::HTTP_CACHE_READ_DATA, [rv] {
      return nlohmann::json{{"net_error", rv}, {"bytes", 0}};
    });
    DoomOpenedEntry("stored body unreadable: " + ErrorToString(rv));
    return FallBackToNetwork("stored body unreadable: " + ErrorToString(rv));
  }
  raw_bytes_read_ = rv;
  raw_pending_ = std::string_view(raw_buf_.data(), static_cast<size_t>(rv));
  raw_eof_ = rv == 0;
  // Served with its current age, never the stored Age as it was (RFC 9111 4.2.3, 5.1).
  const Time now = cache_->clock().Now();
  response_headers_ = HeadersForServing(
      *stored_.headers,
      GetCurrentAge(*stored_.headers, stored_.request_time, stored_.response_time, now));
  headers_ticks_ = cache_->scheduler().Now();
  return OK;
}

int HttpCacheTransaction::OnlyIfCachedMiss(const std::string& detail) {
  entry_.reset();
  if (info_.cache_mode == RequestCacheMode::kOnlyIfCached) {
    // The Fetch standard's mode: a network error.
    error_detail_ = detail;
    return ERR_CACHE_MISS;
  }
  // The request's Cache-Control: only-if-cached: a 504 (RFC 9111 5.2.1.7), made here.
  auto headers = std::make_shared<HttpResponseHeaders>(HttpVersion{1, 1}, 504, "Gateway Timeout");
  headers->AddHeader("Content-Length", "0");
  response_headers_ = std::move(headers);
  net_log_.AddEvent(NetLogEventType::HTTP_CACHE_LOOKUP, [&](NetLogParams& p) {
    p.Add("action", "504").Add("key", key_).Add("reason", SanitizeUtf8(detail));
  });
  disposition_ = CacheDisposition::kMiss;
  action_ = CacheAction::kMiss;
  source_ = Source::kNone;
  raw_eof_ = true;
  headers_ticks_ = cache_->scheduler().Now();
  return OK;
}

bool HttpCacheTransaction::ServeStaleOnError(const std::string& error) {
  if (!entry_ || !stored_.headers || mode_ == Mode::kBackgroundRevalidation) return false;
  std::string reason;
  const bool serve = MayServeStaleOnError(GetFreshnessInfo(stored_, cache_->clock().Now()),
                                          sent_headers_, &reason);
  net_log_.AddEvent(NetLogEventType::HTTP_CACHE_VALIDATE_RESULT, [&](NetLogParams& p) {
    p.Add("error", SanitizeUtf8(error))
        .Add("reason", reason)
        .Add("result", serve ? "stale-if-error" : "error");
  });
  if (!serve) return false;
  // The failed exchange is dropped (its socket with it); the stored response answers.
  network_.reset();
  validating_ = false;
  error_detail_.clear();
  action_ = CacheAction::kUseStale;
  disposition_ = CacheDisposition::kStale;
  next_state_ = State::kReadFirstChunk;
  return true;
}

int HttpCacheTransaction::FallBackToNetwork(const std::string& reason) {
  entry_.reset();
  network_.reset();
  validating_ = false;
  network_info_ = info_;
  response_headers_.reset();
  source_ = Source::kNone;
  raw_pending_ = {};
  raw_eof_ = false;
  raw_bytes_read_ = 0;
  action_ = CacheAction::kNetwork;
  if (policy_.only_if_cached) {
    return OnlyIfCachedMiss("only-if-cached, and the stored response for " + key_ +
                            " cannot be used: " + reason);
  }
  disposition_ = CacheDisposition::kMiss;
  next_state_ = State::kSendNetwork;
  return OK;
}

void HttpCacheTransaction::DoomOpenedEntry(const std::string& reason) {
  if (entry_) entry_->Doom();
  net_log_.AddEvent(NetLogEventType::HTTP_CACHE_DOOM_ENTRY, [&] {
    return nlohmann::json{{"key", key_}, {"reason", SanitizeUtf8(reason)}};
  });
}

int HttpCacheTransaction::DoSendNetwork() {
  next_state_ = State::kSendNetworkComplete;
  network_ = cache_->network_layer()->CreateTransaction(priority_, net_log_,
                                                        /*decode_content=*/false);
  request_time_ = cache_->clock().Now();
  return network_->Start(network_info_, [weak = weak_factory_.GetWeakPtr()](int rv) {
    if (weak) weak->OnIoComplete(rv);
  });
}

int HttpCacheTransaction::DoSendNetworkComplete(int rv) {
  if (rv != OK) {
    // The stored response (if any) is left as it was: a failed validation proves nothing.
    error_detail_ = network_->error_detail();
    if (ServeStaleOnError(ErrorToString(rv))) return OK;
    entry_.reset();
    return rv;
  }
  response_time_ = cache_->clock().Now();
  const int code = network_->response_headers()->response_code();
  if (validating_ && code == 304) return HandleNotModified();
  if (IsStaleIfErrorStatus(code) && ServeStaleOnError("status " + std::to_string(code))) return OK;
  HandleNetworkResponse();
  return OK;
}

int HttpCacheTransaction::HandleNotModified() {
  std::shared_ptr<const HttpResponseHeaders> merged =
      MergeNotModified(*stored_.headers, *network_->response_headers());
  stored_.headers = merged;
  stored_.request_time = request_time_;
  stored_.response_time = response_time_;
  net_log_.AddEvent(NetLogEventType::HTTP_CACHE_VALIDATE_RESULT, [] {
    return nlohmann::json{{"status", 304}, {"result", "revalidated"}};
  });
  std::string why;
  // The 304 may have changed what makes the response storable (no-store, Vary).
  if (IsStorable(info_.method, sent_headers_, *merged, &why) &&
      stored_.SetVaryFromRequest(sent_headers_)) {
    HttpResponseInfo to_store = stored_;
    to_store.headers = HeadersForStorage(*merged);
    std::string blob = to_store.Serialize();
    const size_t bytes = blob.size();
    entry_->WriteHeaders(std::move(blob));
    net_log_.AddEvent(NetLogEventType::HTTP_CACHE_WRITE_INFO, [bytes] {
      return nlohmann::json{{"bytes", bytes}, {"stored", true}};
    });
  } else {
    DoomOpenedEntry("not storable after the 304: " + (why.empty() ? "Vary" : why));
  }
  disposition_ = CacheDisposition::kRevalidated;
  response_headers_ = merged;
  next_state_ = State::kDrainNetwork;
  return OK;
}

int HttpCacheTransaction::DoDrainNetwork() {
  next_state_ = State::kDrainNetworkComplete;
  if (!drain_buf_) drain_buf_.reset(new char[kDrainBufferBytes]);
  return network_->Read(drain_buf_.get(), kDrainBufferBytes,
                        [weak = weak_factory_.GetWeakPtr()](int rv) {
                          if (weak) weak->OnIoComplete(rv);
                        });
}

int HttpCacheTransaction::DoDrainNetworkComplete(int rv) {
  if (rv > 0) {
    next_state_ = State::kDrainNetwork;
    return OK;
  }
  // 0: the socket went back to the pool; an error only cost the socket.
  if (mode_ == Mode::kBackgroundRevalidation) {
    // The headers were all a revalidation needed; no stored body is read.
    source_ = Source::kNone;
    raw_eof_ = true;
    headers_ticks_ = cache_->scheduler().Now();
    return OK;
  }
  next_state_ = State::kReadFirstChunk;
  return OK;
}

void HttpCacheTransaction::HandleNetworkResponse() {
  std::shared_ptr<const HttpResponseHeaders> headers = network_->response_headers();
  disposition_ = CacheDisposition::kMiss;
  response_headers_ = headers;
  source_ = Source::kNetwork;
  headers_ticks_ = cache_->scheduler().Now();
  if (validating_) {
    net_log_.AddEvent(NetLogEventType::HTTP_CACHE_VALIDATE_RESULT, [&headers] {
      return nlohmann::json{{"status", headers->response_code()}, {"result", "replaced"}};
    });
  }

  HttpResponseInfo info;
  info.url = key_;
  info.headers = HeadersForStorage(*headers);
  info.request_time = request_time_;
  info.response_time = response_time_;
  std::string why;
  bool storable = IsStorable(info_.method, sent_headers_, *headers, &why);
  if (storable && !info.SetVaryFromRequest(sent_headers_)) {
    storable = false;
    why = "Vary names headers that cannot be matched";
  }
  if (entry_) {
    // The stored response was superseded. A storable replacement takes its place at commit;
    // otherwise the outdated one goes now, unless the server only failed (5xx).
    if (!storable && headers->response_code() < 500)
      DoomOpenedEntry("replaced by a response that is not stored: " + why);
    entry_.reset();
  }
  if (!storable) {
    net_log_.AddEvent(NetLogEventType::HTTP_CACHE_WRITE_INFO, [&why] {
      return nlohmann::json{{"stored", false}, {"reason", SanitizeUtf8(why)}};
    });
    return;
  }
  writer_ = std::make_unique<HttpCacheWriter>(cache_, info, net_log_, PrepareStoreKey(info));
}

std::shared_ptr<const HttpResponseHeaders> HttpCacheTransaction::response_headers() const {
  if (bypass_) return network_ ? network_->response_headers() : nullptr;
  return response_headers_;
}

LoadTimingInfo HttpCacheTransaction::GetLoadTimingInfo() const {
  if (bypass_) return network_ ? network_->GetLoadTimingInfo() : LoadTimingInfo();
  LoadTimingInfo timing;
  if (network_) timing = network_->GetLoadTimingInfo();
  timing.request_start = start_ticks_;
  if (source_ == Source::kEntry || (source_ == Source::kNone && response_headers_)) {
    if (!network_) timing.receive_headers_start = timing.receive_headers_end = headers_ticks_;
    timing.receive_end = body_end_ticks_;
  }
  return timing;
}

const ConnectionInfo& HttpCacheTransaction::connection_info() const {
  return network_ ? network_->connection_info() : no_connection_;
}

int64_t HttpCacheTransaction::encoded_body_bytes() const {
  if (bypass_) return network_ ? network_->encoded_body_bytes() : 0;
  return raw_bytes_read_;
}

const std::string& HttpCacheTransaction::error_detail() const {
  if (bypass_ && network_ && error_detail_.empty()) return network_->error_detail();
  return error_detail_;
}

}  // namespace netstack
