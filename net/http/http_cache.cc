#include "net/http/http_cache.h"

#include <algorithm>

#include "net/http/http_cache_transaction.h"
#include "net/http/http_cache_vary.h"
#include "net/http/http_cache_writer.h"

namespace netstack {
namespace {

constexpr int kRevalidationBufferBytes = 32 * 1024;

}  // namespace

// One stale-while-revalidate revalidation: an HttpCacheTransaction in background mode, read to
// its end (that is what stores a replacement body), under a NetLog source of its own.
class HttpCache::Revalidation {
  // The foreground request's info, as a request of its own: its connect wait counts from its
  // own start.
  static HttpRequestInfo OwnRequest(HttpRequestInfo info) {
    info.request_start = TimeTicks{};
    return info;
  }

 public:
  Revalidation(HttpCache* cache, NetLog* net_log, const HttpRequestInfo& info)
      : cache_(cache),
        scheduler_(cache->scheduler()),
        info_(OwnRequest(info)),
        key_(info.url.spec()),
        net_log_(NetLogWithSource::Make(net_log, NetLogSourceType::URL_REQUEST)),
        transaction_(std::make_unique<HttpCacheTransaction>(
            cache, IDLE, net_log_, /*decode_content=*/true,
            HttpCacheTransaction::Mode::kBackgroundRevalidation)),
        buffer_(new char[kRevalidationBufferBytes]) {}

  ~Revalidation() {
    // The transaction's own events (an abandoned write) come before the end of the source.
    transaction_.reset();
    if (!done_) net_log_.EndEventWithNetErrorCode(NetLogEventType::REQUEST_ALIVE, ERR_ABORTED);
  }

  const std::string& key() const { return key_; }
  const NetLogWithSource& net_log() const { return net_log_; }
  bool done() const { return done_; }

  void Start() {
    net_log_.BeginEvent(NetLogEventType::REQUEST_ALIVE, [this] {
      return nlohmann::json{{"url", key_},
                            {"method", info_.method},
                            {"priority", RequestPriorityToString(IDLE)},
                            {"background_revalidation", true}};
    });
    // The transaction's callbacks run only while it lives, and it lives as long as this job.
    int rv = transaction_->Start(info_, [this](int rv) { OnStarted(rv); });
    if (rv == ERR_IO_PENDING) return;
    // Finish on the loop, never inside the request that started this job.
    scheduler_.PostTask([weak = weak_factory_.GetWeakPtr(), rv] {
      if (weak) weak->OnStarted(rv);
    });
  }

 private:
  void OnStarted(int rv) {
    if (rv != OK) {
      Done(rv);
      return;
    }
    ReadLoop();
  }

  void ReadLoop() {
    for (;;) {
      int rv = transaction_->Read(buffer_.get(), kRevalidationBufferBytes,
                                  [this](int rv) { OnRead(rv); });
      if (rv == ERR_IO_PENDING) return;
      if (rv <= 0) {
        Done(rv);
        return;
      }
    }
  }

  void OnRead(int rv) {
    if (rv <= 0) {
      Done(rv);
      return;
    }
    ReadLoop();
  }

  void Done(int rv) {
    done_ = true;
    net_log_.EndEvent(NetLogEventType::REQUEST_ALIVE, [this, rv] {
      nlohmann::json params{{"cache_action", CacheActionName(transaction_->cache_action())}};
      if (rv < 0) params["net_error"] = rv;
      return params;
    });
    cache_->OnRevalidationDone(this);
  }

  HttpCache* const cache_;
  Scheduler& scheduler_;
  const HttpRequestInfo info_;
  const std::string key_;
  const NetLogWithSource net_log_;
  std::unique_ptr<HttpCacheTransaction> transaction_;
  std::unique_ptr<char[]> buffer_;
  bool done_ = false;
  WeakPtrFactory<Revalidation> weak_factory_{this};
};

HttpCache::HttpCache(HttpTransactionFactory* network, std::unique_ptr<CacheBackend> backend,
                     Scheduler& scheduler, const Clock& clock, NetLog* net_log,
                     const Params& params)
    : network_(network),
      backend_(std::move(backend)),
      scheduler_(scheduler),
      clock_(clock),
      net_log_(net_log),
      params_(params) {}

HttpCache::~HttpCache() {
  // Jobs hold entries of the backend: they go first.
  jobs_.clear();
}

std::unique_ptr<HttpTransaction> HttpCache::CreateTransaction(RequestPriority priority,
                                                              const NetLogWithSource& net_log,
                                                              bool decode_content) {
  return std::make_unique<HttpCacheTransaction>(this, priority, net_log, decode_content);
}

void HttpCache::InvalidateKey(const std::string& key) {
  backend_->DoomEntry(key);
  // Every Vary variant of the URL too (writers of variants are registered under the URL).
  DoomVariantKeys(backend_.get(), key);
  auto [begin, end] = writers_.equal_range(key);
  // Abandoning unregisters the writer, so collect them first.
  std::vector<HttpCacheWriter*> doomed;
  for (auto it = begin; it != end; ++it) doomed.push_back(it->second);
  for (HttpCacheWriter* writer : doomed) writer->Invalidate();
}

void HttpCache::AddWriter(const std::string& key, HttpCacheWriter* writer) {
  writers_.emplace(key, writer);
}

void HttpCache::RemoveWriter(const std::string& key, HttpCacheWriter* writer) {
  auto [begin, end] = writers_.equal_range(key);
  for (auto it = begin; it != end; ++it) {
    if (it->second == writer) {
      writers_.erase(it);
      return;
    }
  }
}

bool HttpCache::StartBackgroundRevalidation(const HttpRequestInfo& info,
                                            const NetLogWithSource& parent) {
  const std::string key = info.url.spec();
  size_t running = 0;
  bool duplicate = false;
  for (const auto& job : jobs_) {
    if (job->done()) continue;
    ++running;
    duplicate |= job->key() == key;
  }
  if (duplicate || running >= params_.max_background_revalidations) {
    ++stats_.background_skipped;
    parent.AddEvent(NetLogEventType::HTTP_CACHE_ASYNC_REVALIDATION, [duplicate] {
      return nlohmann::json{{"started", false},
                            {"reason", duplicate ? "already revalidating this URL"
                                                 : "too many background revalidations"}};
    });
    return false;
  }
  ++stats_.background_started;
  jobs_.push_back(std::make_unique<Revalidation>(this, net_log_, info));
  Revalidation* job = jobs_.back().get();
  parent.AddEvent(NetLogEventType::HTTP_CACHE_ASYNC_REVALIDATION, [job] {
    nlohmann::json params{{"started", true}};
    params["source_dependency"] = job->net_log().source().ToJson();
    return params;
  });
  job->Start();
  return true;
}

void HttpCache::OnRevalidationDone(Revalidation* job) {
  ++stats_.background_finished;
  // Destroyed on the loop, not inside its own transaction's callback.
  scheduler_.PostTask([weak = weak_factory_.GetWeakPtr(), job] {
    if (!weak) return;
    std::erase_if(weak->jobs_,
                  [job](const std::unique_ptr<Revalidation>& j) { return j.get() == job; });
    weak->MaybeFinishWaiting();
  });
}

void HttpCache::WaitForBackgroundWork(CompletionCallback callback) {
  waiters_.push_back(std::move(callback));
  MaybeFinishWaiting();
}

void HttpCache::MaybeFinishWaiting() {
  if (waiters_.empty() || flushing_ || !jobs_.empty()) return;
  flushing_ = true;
  // Flush's callback always runs later (posted), never inside this call.
  backend_->Flush([weak = weak_factory_.GetWeakPtr()](int) {
    if (!weak) return;
    weak->flushing_ = false;
    // A revalidation started while flushing: wait for it, then flush again.
    if (!weak->jobs_.empty()) return;
    std::vector<CompletionCallback> waiters = std::move(weak->waiters_);
    weak->waiters_.clear();
    for (CompletionCallback& waiter : waiters) {
      if (waiter) waiter(OK);  // Must not destroy the cache (documented on the caller side).
    }
  });
}

}  // namespace netstack
