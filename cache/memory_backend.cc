#include "cache/memory_backend.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>
#include <utility>

#include "net/base/memory_usage_estimator.h"

namespace netstack {

namespace {

// An append smaller than this goes into the last chunk while that chunk is under it, so a
// body written in tiny pieces does not cost a chunk (and an allocation) per piece.
constexpr size_t kMinChunkBytes = 16 * 1024;

}  // namespace

size_t MemoryBackend::Body::Chunk::EstimateMemoryUsage() const {
  return netstack::EstimateMemoryUsage(bytes);
}

void MemoryBackend::Body::Append(const char* data, size_t len) {
  if (len == 0) return;
  // One byte repeated: the data equals itself shifted by one. A body that is not padding
  // differs within its first bytes, so the check costs little when it fails.
  if (len >= kMinRunBytes && std::memcmp(data, data + 1, len - 1) == 0) {
    AppendRun(data[0], len);
    return;
  }
  size_t last_capacity = 0;
  if (!chunks.empty() && chunks.back().run == 0 && chunks.back().bytes.size() < kMinChunkBytes) {
    // Fill the last chunk's room, never past it: growing the string would copy what it holds.
    std::string& last = chunks.back().bytes;
    last_capacity = last.capacity();
    const size_t n = std::min(len, last_capacity - last.size());
    last.append(data, n);
    size += static_cast<int64_t>(n);
    ends.back() = size;
    data += n;
    len -= n;
    if (len == 0) return;
  }
  // A new chunk: exactly what arrived when it is a chunk on its own; else room to fill up to the
  // minimum, at least twice the last one's (small appends make few chunks, none copied).
  chunks.emplace_back();
  std::string& bytes = chunks.back().bytes;
  bytes.reserve(std::max(len, std::min(kMinChunkBytes, std::max(len * 4, last_capacity * 2))));
  ends.push_back(size);
  bytes.append(data, len);
  size += static_cast<int64_t>(len);
  ends.back() = size;
}

void MemoryBackend::Body::AppendRun(char fill, size_t len) {
  if (chunks.empty() || chunks.back().run == 0 || chunks.back().fill != fill) {
    chunks.emplace_back();
    chunks.back().fill = fill;
    ends.push_back(size);
  }
  chunks.back().run += static_cast<int64_t>(len);
  size += static_cast<int64_t>(len);
  ends.back() = size;
}

size_t MemoryBackend::Body::Read(int64_t offset, char* out, size_t len) const {
  // The first chunk ending after `offset`.
  size_t i = static_cast<size_t>(std::upper_bound(ends.begin(), ends.end(), offset) - ends.begin());
  size_t copied = 0;
  while (copied < len && i < chunks.size()) {
    const Chunk& chunk = chunks[i];
    const int64_t length = chunk.run > 0 ? chunk.run : static_cast<int64_t>(chunk.bytes.size());
    const size_t at = static_cast<size_t>(offset - (ends[i] - length));
    const size_t n = std::min(len - copied, static_cast<size_t>(length) - at);
    if (chunk.run > 0) {
      std::memset(out + copied, chunk.fill, n);
    } else {
      std::memcpy(out + copied, chunk.bytes.data() + at, n);
    }
    copied += n;
    offset += static_cast<int64_t>(n);
    ++i;
  }
  return copied;
}

// An opened entry reads one committed Data; a created one accumulates headers and body until
// Commit hands them to the backend.
class MemoryBackend::Entry : public CacheEntry {
 public:
  // Opened: `data` is the version `id` of `key`.
  Entry(WeakPtr<MemoryBackend> backend, std::string key, uint64_t id,
        std::shared_ptr<const Data> data)
      : backend_(std::move(backend)), key_(std::move(key)), id_(id), data_(std::move(data)) {}
  // Created: `error` is OK, or why the entry cannot be stored (a bad key).
  Entry(WeakPtr<MemoryBackend> backend, std::string key, int error)
      : backend_(std::move(backend)), key_(std::move(key)), created_(true), error_(error) {}

  ~Entry() override { ReleasePending(); }

  const std::string& key() const override { return key_; }
  const std::string& headers() const override { return created_ ? headers_ : data_->headers; }

  void WriteHeaders(std::string headers) override {
    MemoryBackend* backend = backend_.get();
    if (!backend) return;
    size_t limit = backend->config_.max_headers_bytes;
    if (!created_) {
      if (headers.size() > limit) return;
      auto updated = std::make_shared<Data>(Data{std::move(headers), data_->body});
      data_ = updated;
      backend->UpdateHeaders(key_, id_, updated->headers);
      return;
    }
    if (error_ != OK || committed_) return;
    if (headers.size() > limit ||
        static_cast<int64_t>(headers.size()) + body_.size > backend->config_.entry_limit()) {
      Fail(ERR_FILE_TOO_BIG);
      return;
    }
    int64_t delta = static_cast<int64_t>(headers.size()) - static_cast<int64_t>(headers_.size());
    if (!Reserve(delta)) return;
    headers_ = std::move(headers);
  }

  int64_t body_size() const override { return created_ ? body_.size : data_->body->size; }

  int ReadBody(int64_t offset, char* buf, int len, CompletionCallback callback) override {
    if (created_ || offset < 0 || len <= 0) return ERR_INVALID_ARGUMENT;
    const Body& body = *data_->body;
    if (offset >= body.size) return 0;
    return static_cast<int>(body.Read(offset, buf, static_cast<size_t>(len)));
  }

  int AppendBody(const char* data, int len) override {
    if (!created_) return ERR_INVALID_ARGUMENT;
    if (committed_ && error_ == OK) error_ = ERR_CACHE_WRITE_FAILURE;
    if (error_ != OK) return error_;
    MemoryBackend* backend = backend_.get();
    if (!backend) return Fail(ERR_CACHE_WRITE_FAILURE);
    if (len < 0) return Fail(ERR_INVALID_ARGUMENT);
    if (static_cast<int64_t>(headers_.size()) + body_.size + len > backend->config_.entry_limit()) {
      return Fail(ERR_FILE_TOO_BIG);
    }
    if (!Reserve(len)) return error_;
    body_.Append(data, static_cast<size_t>(len));
    return OK;
  }

  void Commit(CompletionCallback callback) override {
    MemoryBackend* backend = backend_.get();
    if (!backend) return;
    int result = error_;
    if (!created_ || committed_) {
      result = ERR_INVALID_ARGUMENT;
    } else if (doomed_) {
      result = ERR_ABORTED;
    } else if (result == OK) {
      ReleasePending();
      result = backend->CommitEntry(key_, std::move(headers_),
                                    std::make_shared<const Body>(std::move(body_)));
    }
    if (created_ && !committed_) {
      committed_ = true;
      if (result == OK) {
        backend->stats_.commits++;
      } else {
        backend->stats_.commit_failures++;
      }
    }
    backend->PostResult(std::move(callback), result);
  }

  void Doom() override {
    doomed_ = true;
    if (created_) return;
    if (MemoryBackend* backend = backend_.get()) backend->DoomVersion(key_, id_);
  }

 private:
  // Counts `bytes` more (or fewer, if negative) pending; fails the entry past the bound.
  bool Reserve(int64_t bytes) {
    MemoryBackend* backend = backend_.get();
    if (!backend) return false;
    if (bytes > 0 && backend->pending_bytes_ + bytes > backend->config_.max_pending_write_bytes) {
      Fail(ERR_INSUFFICIENT_RESOURCES);
      return false;
    }
    backend->pending_bytes_ += bytes;
    pending_ += bytes;
    return true;
  }
  void ReleasePending() {
    if (MemoryBackend* backend = backend_.get()) backend->pending_bytes_ -= pending_;
    pending_ = 0;
  }
  int Fail(int error) {
    if (error_ == OK) error_ = error;
    ReleasePending();
    body_ = Body();
    return error_;
  }

  WeakPtr<MemoryBackend> backend_;
  const std::string key_;
  const bool created_ = false;
  // Opened entries.
  uint64_t id_ = 0;
  std::shared_ptr<const Data> data_;
  // Created entries.
  std::string headers_;
  Body body_;
  int error_ = OK;
  bool committed_ = false;
  int64_t pending_ = 0;  // our share of the backend's pending_bytes_
  bool doomed_ = false;
};

MemoryBackend::MemoryBackend(Scheduler& scheduler, const Clock& clock, CacheConfig config)
    : scheduler_(scheduler),
      clock_(clock),
      config_([&] {
        if (config.max_bytes <= 0) config.max_bytes = kDefaultMaxBytes;
        return config;
      }()),
      index_(config_) {
  stats_.type = "memory";
  stats_.eviction = config_.eviction;
}

MemoryBackend::~MemoryBackend() = default;

int MemoryBackend::OpenEntry(const std::string& key, std::unique_ptr<CacheEntry>* entry,
                             EntryCallback callback) {
  return Open(key, entry, std::move(callback), /*count_use=*/true);
}

int MemoryBackend::PeekEntry(const std::string& key, std::unique_ptr<CacheEntry>* entry,
                             EntryCallback callback) {
  return Open(key, entry, std::move(callback), /*count_use=*/false);
}

int MemoryBackend::Open(const std::string& key, std::unique_ptr<CacheEntry>* entry,
                        EntryCallback callback, bool count_use) {
  const IndexEntry* found = IsUsableCacheKey(config_, key) ? index_.Find(key) : nullptr;
  if (!found) {
    if (count_use) stats_.open_misses++;
    return ERR_CACHE_MISS;
  }
  uint64_t id = found->id;
  if (count_use) {
    stats_.open_hits++;
    index_.Touch(key, clock_.Now());
  }
  *entry = std::make_unique<Entry>(weak_factory_.GetWeakPtr(), key, id, data_.at(id));
  return OK;
}

std::unique_ptr<CacheEntry> MemoryBackend::CreateEntry(const std::string& key) {
  stats_.creates++;
  int error = IsUsableCacheKey(config_, key) ? OK : ERR_CACHE_CREATE_FAILURE;
  return std::make_unique<Entry>(weak_factory_.GetWeakPtr(), key, error);
}

void MemoryBackend::DoomEntry(const std::string& key) { DoomVersion(key, 0); }

void MemoryBackend::DoomAllEntries(CompletionCallback callback) {
  std::vector<IndexEntry> removed = index_.RemoveAll();
  stats_.dooms += removed.size();
  DropData(removed);
  PostResult(std::move(callback), OK);
}

void MemoryBackend::DoomEntriesBetween(Time begin, Time end, CompletionCallback callback) {
  std::vector<IndexEntry> removed = index_.RemoveUsedBetween(begin, end);
  stats_.dooms += removed.size();
  DropData(removed);
  PostResult(std::move(callback), OK);
}

bool MemoryBackend::GetEntryInfo(const std::string& key, CacheEntryInfo* info) const {
  const IndexEntry* found = index_.Find(key);
  if (!found) return false;
  *info = found->info;
  return true;
}

std::vector<CacheEntryInfo> MemoryBackend::EnumerateEntries() const { return index_.Enumerate(); }

int64_t MemoryBackend::GetEntryCount() const { return index_.entry_count(); }

int64_t MemoryBackend::GetSizeOfAllEntries() const { return index_.total_bytes(); }

CacheStats MemoryBackend::GetStats() const {
  CacheStats stats = stats_;
  stats.entry_count = index_.entry_count();
  stats.total_bytes = index_.total_bytes();
  stats.max_bytes = config_.max_bytes;
  stats.pending_write_bytes = pending_bytes_;
  return stats;
}

void MemoryBackend::Flush(CompletionCallback callback) { PostResult(std::move(callback), OK); }

size_t MemoryBackend::EstimateMemoryUsage() const {
  // make_shared puts the object and its control block (two counts, a vtable) in one block.
  constexpr size_t kControlBlockBytes = 2 * sizeof(void*);
  size_t bytes = index_.EstimateMemoryUsage() + data_.bucket_count() * sizeof(void*) +
                 data_.size() * HashNodeBytes<decltype(data_)::value_type>();
  std::unordered_set<const Body*> bodies;
  for (const auto& [id, data] : data_) {
    bytes += kControlBlockBytes + sizeof(Data) + netstack::EstimateMemoryUsage(data->headers);
    const Body* body = data->body.get();
    if (!body || !bodies.insert(body).second) continue;
    bytes += kControlBlockBytes + sizeof(Body) + netstack::EstimateMemoryUsage(body->chunks) +
             netstack::EstimateMemoryUsage(body->ends);
  }
  return bytes + static_cast<size_t>(std::max<int64_t>(pending_bytes_, 0));
}

void MemoryBackend::PostResult(CompletionCallback callback, int result) {
  if (!callback) return;
  scheduler_.PostTask([weak = weak_factory_.GetWeakPtr(), callback = std::move(callback), result] {
    if (weak) callback(result);
  });
}

int MemoryBackend::CommitEntry(const std::string& key, std::string headers,
                               std::shared_ptr<const Body> body) {
  IndexEntry entry;
  entry.id = next_id_++;
  entry.info.key = key;
  entry.info.headers_size = static_cast<int64_t>(headers.size());
  entry.info.body_size = body->size;
  entry.info.created = entry.info.last_used = clock_.Now();
  data_[entry.id] = std::make_shared<const Data>(Data{std::move(headers), std::move(body)});
  IndexEntry replaced;
  if (index_.Insert(std::move(entry), &replaced)) data_.erase(replaced.id);
  EvictIfNeeded();
  return OK;
}

void MemoryBackend::UpdateHeaders(const std::string& key, uint64_t id, std::string headers) {
  auto it = data_.find(id);
  if (it == data_.end() || !index_.SetHeadersSize(key, id, static_cast<int64_t>(headers.size())))
    return;
  it->second = std::make_shared<const Data>(Data{std::move(headers), it->second->body});
  EvictIfNeeded();
}

void MemoryBackend::DoomVersion(const std::string& key, uint64_t id) {
  IndexEntry removed;
  if (!index_.Remove(key, id, &removed)) return;
  stats_.dooms++;
  data_.erase(removed.id);
}

void MemoryBackend::EvictIfNeeded() {
  std::vector<IndexEntry> victims = index_.Evict(clock_.Now());
  for (const IndexEntry& victim : victims) {
    stats_.evictions++;
    stats_.evicted_bytes += victim.info.total_size();
  }
  DropData(victims);
}

void MemoryBackend::DropData(const std::vector<IndexEntry>& removed) {
  for (const IndexEntry& entry : removed) data_.erase(entry.id);
}

}  // namespace netstack
