#include "net/http/http_cache_range_transaction.h"

#include <algorithm>
#include <utility>

#include "net/http/http_cache.h"
#include "net/http/http_cache_policy.h"
#include "net/http/http_cache_writer.h"
#include "net/http/http_network_transaction.h"
#include "net/http/http_util.h"

namespace netstack {
namespace {

// The stored partial body is read in chunks of this size.
constexpr int kPartialReadBytes = 64 * 1024;

// Only identity-coded bodies are stored or served from the cache here: a range of an encoded
// body is not something a reader can decode on its own.
bool IsIdentityCoded(const HttpResponseHeaders& headers) {
  std::string coding;
  if (!headers.GetNormalizedHeader("content-encoding", &coding)) return true;
  coding = std::string(TrimHttpWhitespace(coding));
  return coding.empty() || EqualsCaseInsensitiveAscii(coding, "identity");
}

}  // namespace

HttpCacheRangeTransaction::HttpCacheRangeTransaction(HttpCache* cache, RequestPriority priority,
                                                     const NetLogWithSource& net_log,
                                                     bool decode_content)
    : cache_(cache), priority_(priority), net_log_(net_log), decode_content_(decode_content) {}

HttpCacheRangeTransaction::~HttpCacheRangeTransaction() {
  // Pending reads write into members: cancel them first.
  entry_.reset();
  network_.reset();
}

int HttpCacheRangeTransaction::Start(HttpRequestInfo info, CompletionCallback callback) {
  info_ = std::move(info);
  start_ticks_ = cache_->scheduler().Now();
  key_ = info_.url.spec();
  sent_headers_ = info_.extra_headers;
  AddDefaultRequestHeaders(&sent_headers_);
  std::string why;
  if (!ParseRangeHeader(info_.extra_headers.GetHeader("range").value_or(""), &range_, &why)) {
    error_detail_ = why;
    return ERR_INVALID_ARGUMENT;
  }
  next_state_ = State::kOpenWhole;
  int rv = DoLoop(OK);
  if (rv == ERR_IO_PENDING) callback_ = std::move(callback);
  return rv;
}

int HttpCacheRangeTransaction::DoLoop(int rv) {
  do {
    State state = next_state_;
    next_state_ = State::kNone;
    switch (state) {
      case State::kOpenWhole:
        rv = DoOpenWhole();
        break;
      case State::kOpenWholeComplete:
        rv = DoOpenWholeComplete(rv);
        break;
      case State::kOpenPartial:
        rv = DoOpenPartial();
        break;
      case State::kOpenPartialComplete:
        rv = DoOpenPartialComplete(rv);
        break;
      case State::kReadPartial:
        rv = DoReadPartial();
        break;
      case State::kReadPartialComplete:
        rv = DoReadPartialComplete(rv);
        break;
      case State::kSendNetwork:
        rv = DoSendNetwork();
        break;
      case State::kSendNetworkComplete:
        rv = DoSendNetworkComplete(rv);
        break;
      case State::kNone:
        return rv;
    }
  } while (rv != ERR_IO_PENDING && next_state_ != State::kNone);
  return rv;
}

void HttpCacheRangeTransaction::OnIoComplete(int rv) {
  rv = DoLoop(rv);
  if (rv != ERR_IO_PENDING && callback_) {
    CompletionCallback cb = std::move(callback_);
    callback_ = nullptr;
    cb(rv);  // May destroy this.
  }
}

int HttpCacheRangeTransaction::DoOpenWhole() {
  next_state_ = State::kOpenWholeComplete;
  return cache_->backend()->OpenEntry(
      key_, &entry_,
      [weak = weak_factory_.GetWeakPtr()](int rv, std::unique_ptr<CacheEntry> entry) {
        if (!weak) return;
        weak->entry_ = std::move(entry);
        weak->OnIoComplete(rv);
      });
}

bool HttpCacheRangeTransaction::Usable(const HttpResponseInfo& stored,
                                       CacheDisposition* disposition) {
  CacheDecision decision =
      DecideCacheUse(stored, sent_headers_, cache_->clock().Now(), info_.cache_mode);
  net_log_.AddEvent(NetLogEventType::HTTP_CACHE_LOOKUP, [&] {
    return nlohmann::json{{"key", stored.url},
                          {"action", CacheActionName(decision.action)},
                          {"reason", SanitizeUtf8(decision.reason)},
                          {"range", range_.ToString()}};
  });
  if (decision.action == CacheAction::kUse) {
    *disposition = CacheDisposition::kHit;
    return true;
  }
  if (decision.action == CacheAction::kUseStale) {
    *disposition = CacheDisposition::kStale;
    return true;
  }
  return false;
}

int HttpCacheRangeTransaction::DoOpenWholeComplete(int rv) {
  if (rv == OK && entry_) {
    HttpResponseInfo stored;
    std::string error;
    CacheDisposition disposition = CacheDisposition::kMiss;
    // A damaged or mismatched whole entry is HttpCacheTransaction's to doom; here it only
    // does not answer.
    if (HttpResponseInfo::Parse(entry_->headers(), &stored, &error) && stored.url == key_ &&
        stored.headers->response_code() == 200 && IsIdentityCoded(*stored.headers) &&
        Usable(stored, &disposition)) {
      AnswerFromCache(stored, entry_->body_size(), Source::kWholeEntry, 0, disposition);
      return OK;
    }
  }
  entry_.reset();
  next_state_ = State::kOpenPartial;
  return OK;
}

int HttpCacheRangeTransaction::DoOpenPartial() {
  next_state_ = State::kOpenPartialComplete;
  return cache_->backend()->OpenEntry(
      PartialEntryKey(key_), &entry_,
      [weak = weak_factory_.GetWeakPtr()](int rv, std::unique_ptr<CacheEntry> entry) {
        if (!weak) return;
        weak->entry_ = std::move(entry);
        weak->OnIoComplete(rv);
      });
}

int HttpCacheRangeTransaction::DoOpenPartialComplete(int rv) {
  if (rv != OK || !entry_) {
    entry_.reset();
    next_state_ = State::kSendNetwork;
    return OK;
  }
  if (entry_->body_size() > PartialContent::kMaxBytes)
    return PartialDamaged("stored pieces over the bound");
  partial_body_.assign(static_cast<size_t>(entry_->body_size()), '\0');
  partial_read_ = 0;
  next_state_ = State::kReadPartial;
  return OK;
}

int HttpCacheRangeTransaction::DoReadPartial() {
  next_state_ = State::kReadPartialComplete;
  const int64_t left = static_cast<int64_t>(partial_body_.size()) - partial_read_;
  if (left == 0) return 0;
  return entry_->ReadBody(partial_read_, partial_body_.data() + partial_read_,
                          static_cast<int>(std::min<int64_t>(left, kPartialReadBytes)),
                          [weak = weak_factory_.GetWeakPtr()](int rv) {
                            if (weak) weak->OnIoComplete(rv);
                          });
}

int HttpCacheRangeTransaction::DoReadPartialComplete(int rv) {
  if (rv < 0) return PartialDamaged("stored pieces unreadable: " + ErrorToString(rv));
  partial_read_ += rv;
  if (rv > 0 && partial_read_ < static_cast<int64_t>(partial_body_.size())) {
    next_state_ = State::kReadPartial;
    return OK;
  }
  if (partial_read_ != static_cast<int64_t>(partial_body_.size()))
    return PartialDamaged("stored pieces shorter than their size");
  HttpResponseInfo stored;
  std::string error;
  const std::string partial_key = PartialEntryKey(key_);
  if (!HttpResponseInfo::Parse(entry_->headers(), &stored, &error))
    return PartialDamaged("stream 0: " + error);
  if (stored.url != partial_key) return PartialDamaged("stored URL does not match the key");
  std::string list;
  if (!stored.headers->GetNormalizedHeader(kPiecesHeader, &list))
    return PartialDamaged(std::string("no ") + kPiecesHeader);
  if (!PartialContent::FromStored(list, StrongValidator(*stored.headers), std::move(partial_body_),
                                  &pieces_, &error))
    return PartialDamaged(error);
  partial_body_.clear();
  have_pieces_ = true;
  CacheDisposition disposition = CacheDisposition::kMiss;
  int64_t first = 0, last = 0, offset = 0;
  const int64_t length = pieces_.complete_length();
  const bool satisfiable = ResolveByteRange(range_, length, &first, &last);
  if ((!satisfiable || pieces_.Covers(first, last, &offset)) && Usable(stored, &disposition)) {
    AnswerFromCache(stored, length, Source::kMemory, offset, disposition);
    return OK;
  }
  entry_.reset();
  next_state_ = State::kSendNetwork;
  return OK;
}

int HttpCacheRangeTransaction::PartialDamaged(const std::string& why) {
  if (entry_) entry_->Doom();
  entry_.reset();
  partial_body_.clear();
  net_log_.AddEvent(NetLogEventType::HTTP_CACHE_DOOM_ENTRY, [&] {
    return nlohmann::json{{"key", PartialEntryKey(key_)}, {"reason", SanitizeUtf8(why)}};
  });
  next_state_ = State::kSendNetwork;
  return OK;
}

void HttpCacheRangeTransaction::AnswerFromCache(const HttpResponseInfo& stored, int64_t length,
                                                Source source, int64_t body_offset,
                                                CacheDisposition disposition) {
  disposition_ = disposition;
  headers_ticks_ = cache_->scheduler().Now();
  const Time now = cache_->clock().Now();
  std::shared_ptr<HttpResponseHeaders> served = HeadersForServing(
      *stored.headers,
      GetCurrentAge(*stored.headers, stored.request_time, stored.response_time, now));
  int64_t first = 0, last = 0;
  if (!ResolveByteRange(range_, length, &first, &last)) {
    // What the origin would answer (RFC 9110 15.5.17): the representation's length, no body.
    response_headers_ = UnsatisfiableRangeHeaders(*served, length);
    source_ = Source::kNone;
    remaining_ = 0;
    return;
  }
  response_headers_ = RangeResponseHeaders(*served, first, last, length);
  source_ = source;
  remaining_ = last - first + 1;
  if (source == Source::kWholeEntry) {
    read_offset_ = first;
  } else {
    served_ =
        pieces_.Body().substr(static_cast<size_t>(body_offset), static_cast<size_t>(remaining_));
    read_offset_ = 0;
    entry_.reset();
  }
}

int HttpCacheRangeTransaction::DoSendNetwork() {
  disposition_ = CacheDisposition::kMiss;
  if (ParseRequestCacheControl(sent_headers_).only_if_cached) {
    // Nothing stored answers it: a 504 made here, never the network (RFC 9111 5.2.1.7).
    auto headers = std::make_shared<HttpResponseHeaders>(HttpVersion{1, 1}, 504, "Gateway Timeout");
    headers->AddHeader("Content-Length", "0");
    response_headers_ = std::move(headers);
    headers_ticks_ = cache_->scheduler().Now();
    source_ = Source::kNone;
    remaining_ = 0;
    return OK;
  }
  next_state_ = State::kSendNetworkComplete;
  network_ = cache_->network_layer()->CreateTransaction(priority_, net_log_, decode_content_);
  request_time_ = cache_->clock().Now();
  return network_->Start(info_, [weak = weak_factory_.GetWeakPtr()](int rv) {
    if (weak) weak->OnIoComplete(rv);
  });
}

int HttpCacheRangeTransaction::DoSendNetworkComplete(int rv) {
  if (rv != OK) return rv;
  response_time_ = cache_->clock().Now();
  response_headers_ = network_->response_headers();
  source_ = Source::kNetwork;
  headers_ticks_ = cache_->scheduler().Now();
  DecideStore();
  return OK;
}

void HttpCacheRangeTransaction::DecideStore() {
  const HttpResponseHeaders& headers = *response_headers_;
  const int code = headers.response_code();
  if (code != 200 && code != 206) return LogNotStored("status " + std::to_string(code));
  if (!IsIdentityCoded(headers)) return LogNotStored("a range of an encoded body");
  std::string why;
  if (!IsStorable(info_.method, sent_headers_, headers, &why)) return LogNotStored(why);
  if (code == 200) {
    store_ = Store::kWhole;
    return;
  }
  std::string value;
  if (!headers.GetNormalizedHeader("content-range", &value))
    return LogNotStored("206 without Content-Range");
  if (!ParseContentRange(value, &piece_range_, &why)) return LogNotStored(why);
  if (piece_range_.complete_length < 0) return LogNotStored("206 with an unknown complete length");
  const int64_t length = headers.GetContentLength();
  if (length >= 0 && length != piece_range_.last - piece_range_.first + 1)
    return LogNotStored("Content-Length does not match Content-Range");
  validator_ = StrongValidator(headers);
  if (validator_.empty()) return LogNotStored("206 without a strong validator");
  store_ = Store::kPiece;
}

void HttpCacheRangeTransaction::LogNotStored(const std::string& why) {
  store_ = Store::kNone;
  net_log_.AddEvent(NetLogEventType::HTTP_CACHE_WRITE_INFO, [&why] {
    return nlohmann::json{{"stored", false}, {"reason", SanitizeUtf8(why)}};
  });
}

int HttpCacheRangeTransaction::Read(char* buf, int len, CompletionCallback callback) {
  if (!response_headers_) return ERR_FAILED;
  if (source_ == Source::kNetwork) {
    int rv = network_->Read(
        buf, len, [weak = weak_factory_.GetWeakPtr(), buf, cb = std::move(callback)](int rv) {
          if (!weak) return;
          rv = weak->OnNetworkRead(buf, rv);
          cb(rv);  // May destroy this.
        });
    return rv == ERR_IO_PENDING ? rv : OnNetworkRead(buf, rv);
  }
  const int n = static_cast<int>(std::min<int64_t>(len, remaining_));
  if (n == 0) {
    body_end_ticks_ = cache_->scheduler().Now();
    return 0;
  }
  if (source_ == Source::kMemory) {
    served_.copy(buf, static_cast<size_t>(n), static_cast<size_t>(read_offset_));
    read_offset_ += n;
    remaining_ -= n;
    body_bytes_ += n;
    return n;
  }
  auto done = [this](int rv) {
    // The entry ended before the range did: the stored body is shorter than it said.
    if (rv == 0) rv = ERR_CACHE_READ_FAILURE;
    if (rv < 0) {
      error_detail_ = "the stored body of " + key_ + " became unreadable";
      return rv;
    }
    read_offset_ += rv;
    remaining_ -= rv;
    body_bytes_ += rv;
    return rv;
  };
  int rv =
      entry_->ReadBody(read_offset_, buf, n,
                       [weak = weak_factory_.GetWeakPtr(), done, cb = std::move(callback)](int rv) {
                         if (!weak) return;
                         cb(done(rv));  // May destroy this.
                       });
  return rv == ERR_IO_PENDING ? rv : done(rv);
}

int HttpCacheRangeTransaction::OnNetworkRead(const char* buf, int rv) {
  if (rv < 0) {
    store_ = Store::kNone;
    error_detail_ = network_->error_detail();
    return rv;
  }
  if (rv == 0) {
    body_end_ticks_ = cache_->scheduler().Now();
    if (store_ != Store::kNone) FinishStore();
    store_ = Store::kNone;
    return 0;
  }
  body_bytes_ += rv;
  if (store_ != Store::kNone) {
    if (static_cast<int64_t>(store_body_.size()) + rv > PartialContent::kMaxBytes) {
      LogNotStored("body over " + std::to_string(PartialContent::kMaxBytes) + " bytes");
      store_body_.clear();
    } else {
      store_body_.append(buf, static_cast<size_t>(rv));
    }
  }
  return rv;
}

void HttpCacheRangeTransaction::FinishStore() {
  std::shared_ptr<HttpResponseHeaders> stored = HeadersForStorage(*response_headers_);
  if (store_ == Store::kWhole) {
    // The whole representation supersedes any pieces.
    cache_->InvalidateKey(PartialEntryKey(key_));
    WriteEntry(key_, std::move(stored), store_body_);
    return;
  }
  const int64_t size = piece_range_.last - piece_range_.first + 1;
  if (static_cast<int64_t>(store_body_.size()) != size)
    return LogNotStored("the body does not match Content-Range");
  if (!have_pieces_ || !pieces_.SameRepresentation(validator_, piece_range_.complete_length)) {
    // Another representation (or none stored): the new piece replaces the old ones.
    pieces_ = PartialContent(validator_, piece_range_.complete_length);
  }
  if (!pieces_.Add(piece_range_.first, std::move(store_body_))) {
    net_log_.AddEvent(NetLogEventType::HTTP_CACHE_DOOM_ENTRY, [this] {
      return nlohmann::json{{"key", PartialEntryKey(key_)},
                            {"reason", "over " + std::to_string(PartialContent::kMaxPiecesPerUrl) +
                                           " pieces: the older ones evicted"}};
    });
  }
  store_body_.clear();
  if (pieces_.total_bytes() > PartialContent::kMaxBytes)
    return LogNotStored("pieces over " + std::to_string(PartialContent::kMaxBytes) + " bytes");
  if (pieces_.IsComplete()) {
    cache_->InvalidateKey(PartialEntryKey(key_));
    WriteEntry(key_, CompletedEntryHeaders(*stored, pieces_.complete_length()), pieces_.Body());
    return;
  }
  WriteEntry(PartialEntryKey(key_), PartialEntryHeaders(*stored, pieces_), pieces_.Body());
}

void HttpCacheRangeTransaction::WriteEntry(const std::string& key,
                                           std::shared_ptr<HttpResponseHeaders> headers,
                                           const std::string& body) {
  HttpResponseInfo info;
  info.url = key;
  info.headers = std::move(headers);
  info.request_time = request_time_;
  info.response_time = response_time_;
  // A URL's Vary variants live under an index at the URL's key (http_cache_vary.h); the range
  // path keeps one representation per URL, so storing a varying one here would replace that
  // index and orphan the variants. It is served, not stored.
  if (info.headers->HasHeader("vary"))
    return LogNotStored("a range response with Vary is not stored (variants are not ranged)");
  if (!info.SetVaryFromRequest(sent_headers_))
    return LogNotStored("Vary names headers that cannot be matched");
  HttpCacheWriter writer(cache_, info, net_log_);
  if (!body.empty()) writer.Append(body.data(), static_cast<int>(body.size()));
  writer.Finish(0);
}

std::shared_ptr<const HttpResponseHeaders> HttpCacheRangeTransaction::response_headers() const {
  return response_headers_;
}

LoadTimingInfo HttpCacheRangeTransaction::GetLoadTimingInfo() const {
  LoadTimingInfo timing;
  if (network_) timing = network_->GetLoadTimingInfo();
  timing.request_start = start_ticks_;
  if (!network_) {
    timing.receive_headers_start = timing.receive_headers_end = headers_ticks_;
    timing.receive_end = body_end_ticks_;
  }
  return timing;
}

const ConnectionInfo& HttpCacheRangeTransaction::connection_info() const {
  return network_ ? network_->connection_info() : no_connection_;
}

const std::string& HttpCacheRangeTransaction::error_detail() const {
  if (network_ && error_detail_.empty()) return network_->error_detail();
  return error_detail_;
}

}  // namespace netstack
