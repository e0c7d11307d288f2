#include "cache/disk_backend.h"

#include <algorithm>

#include "cache/cache_size_policy.h"
#include "cache/disk_entry.h"
#include "net/base/memory_usage_estimator.h"

namespace netstack {

// What Create hands from the loop to the cache thread and back.
struct DiskBackend::Opening {
  Params params;
  CreateCallback callback;
  std::unique_ptr<FileOperations> owned_ops;
  std::unique_ptr<DiskSpaceSource> owned_space;
  std::unique_ptr<CacheThread> thread;
  std::unique_ptr<DiskWorker> worker;
  DiskWorker::OpenResult result;
};

void DiskBackend::Create(const Params& params, CreateCallback callback) {
  auto opening = std::make_shared<Opening>();
  opening->params = params;
  opening->callback = std::move(callback);
  FileOperations* ops = params.file_ops;
  if (!ops) {
    opening->owned_ops = std::make_unique<PosixFileOperations>();
    ops = opening->owned_ops.get();
  }
  DiskSpaceSource* space = nullptr;
  if (params.watch_disk_space) {
    space = params.disk_space;
    if (!space) {
      opening->owned_space = std::make_unique<StatvfsDiskSpaceSource>();
      space = opening->owned_space.get();
    }
  }
  opening->thread = std::make_unique<CacheThread>(params.poster);
  opening->worker =
      std::make_unique<DiskWorker>(opening->thread.get(), params.directory, ops, space);
  Time now = params.clock->Now();
  CacheThread* thread = opening->thread.get();
  thread->PostRead([opening, now]() mutable {
    opening->result = opening->worker->Open(now);
    CrossThreadPoster* poster = opening->params.poster;
    poster->PostToLoop([opening] {
      DiskWorker::OpenResult& result = opening->result;
      CreateCallback callback = std::move(opening->callback);
      if (result.rv != OK) {
        opening->thread.reset();  // joins; the thread releases what it opened
        callback(result.rv, nullptr, result.message);
        return;
      }
      std::unique_ptr<DiskBackend> backend(
          new DiskBackend(opening->params, std::move(opening->thread), std::move(opening->worker),
                          std::move(opening->owned_ops), std::move(opening->owned_space),
                          std::move(result.entries), result.message, result.space));
      callback(OK, std::move(backend), result.message);
    });
    // If the poster dropped the completion, this was the last reference: the thread handle
    // is destroyed here, on its own thread, and the thread winds down by itself.
    opening.reset();
  });
}

DiskBackend::DiskBackend(const Params& params, std::unique_ptr<CacheThread> thread,
                         std::unique_ptr<DiskWorker> worker,
                         std::unique_ptr<FileOperations> owned_ops,
                         std::unique_ptr<DiskSpaceSource> owned_space,
                         std::vector<IndexEntry> entries, std::string recovery_message,
                         DiskSpace space)
    : directory_(params.directory),
      config_([&] {
        CacheConfig config = params.config;
        if (config.max_bytes <= 0) config.max_bytes = kDefaultDiskCacheBytes;
        return config;
      }()),
      clock_(*params.clock),
      poster_(params.poster),
      owned_ops_(std::move(owned_ops)),
      owned_space_(std::move(owned_space)),
      configured_max_bytes_(params.config.max_bytes),
      watch_disk_space_(params.watch_disk_space),
      thread_(std::move(thread)),
      worker_(std::move(worker)),
      index_(config_) {
  for (const IndexEntry& entry : entries) next_id_ = std::max(next_id_, entry.id + 1);
  index_.Adopt(std::move(entries));
  stats_.type = "disk";
  stats_.path = directory_;
  stats_.eviction = config_.eviction;
  stats_.recovery_message = std::move(recovery_message);
  last_space_check_ = clock_.Now();
  if (watch_disk_space_) {
    ApplyDiskSpace(space);  // evicts: the limit may have shrunk since the last run
  } else {
    EvictIfNeeded();
  }
}

void DiskBackend::ApplyDiskSpace(const DiskSpace& space) {
  CacheSizeChoice choice = ChooseCacheSize(configured_max_bytes_, space, index_.total_bytes());
  stats_.space_checks++;
  stats_.disk_free_bytes = space.known() ? space.free_bytes : -1;
  stats_.free_space_margin_bytes = choice.margin_bytes;
  stats_.low_space = low_space_ = choice.low_space;
  config_.max_bytes = choice.max_bytes;
  index_.SetMaxBytes(choice.max_bytes);
  EvictIfNeeded();
}

void DiskBackend::MaybeCheckSpace() {
  if (!watch_disk_space_ || space_check_running_) return;
  const Time now = clock_.Now();
  if (bytes_since_space_check_ < kSpaceCheckBytes && now - last_space_check_ < kSpaceCheckInterval)
    return;
  space_check_running_ = true;
  bytes_since_space_check_ = 0;
  last_space_check_ = now;
  thread_->PostRead([worker = worker_.get(), poster = poster_, weak = weak_factory_.GetWeakPtr()] {
    DiskSpace space = worker->CheckSpace();
    poster->PostToLoop([weak, space] {
      if (DiskBackend* backend = weak.get()) {
        backend->space_check_running_ = false;
        backend->ApplyDiskSpace(space);
      }
    });
  });
}

DiskBackend::~DiskBackend() {
  FlushUses();
  weak_factory_.InvalidateWeakPtrs();
  thread_->Shutdown();
}

std::function<void(int)> DiskBackend::Guard(CompletionCallback callback) {
  if (!callback) return nullptr;
  return [weak = weak_factory_.GetWeakPtr(), callback = std::move(callback)](int result) {
    if (weak) callback(result);
  };
}

void DiskBackend::PostResult(CompletionCallback callback, int result) {
  if (!callback) return;
  poster_->PostToLoop([guarded = Guard(std::move(callback)), result] { guarded(result); });
}

int DiskBackend::OpenEntry(const std::string& key, std::unique_ptr<CacheEntry>* entry,
                           EntryCallback callback) {
  return Open(key, entry, std::move(callback), /*count_use=*/true);
}

int DiskBackend::PeekEntry(const std::string& key, std::unique_ptr<CacheEntry>* entry,
                           EntryCallback callback) {
  return Open(key, entry, std::move(callback), /*count_use=*/false);
}

int DiskBackend::Open(const std::string& key, std::unique_ptr<CacheEntry>* entry,
                      EntryCallback callback, bool count_use) {
  const IndexEntry* found = IsUsableCacheKey(config_, key) ? index_.Find(key) : nullptr;
  if (!found) {
    if (count_use) stats_.open_misses++;
    return ERR_CACHE_MISS;
  }
  const uint64_t id = found->id;
  if (count_use) {
    const Time now = clock_.Now();
    index_.Touch(key, now);
    dirty_uses_[id] = {now, index_.Find(key)->info.use_count};
    if (dirty_uses_.size() >= kMaxDirtyUses) FlushUses();
  }
  DiskWorker* worker = worker_.get();
  thread_->PostRead([worker, poster = poster_, id, key, count_use,
                     weak = weak_factory_.GetWeakPtr(), callback = std::move(callback)]() mutable {
    auto opened =
        std::make_shared<DiskWorker::OpenedEntry>(worker->OpenEntry(static_cast<int64_t>(id)));
    poster->PostToLoop([weak = std::move(weak), opened, key = std::move(key), id, count_use,
                        callback = std::move(callback)] {
      if (DiskBackend* backend = weak.get()) {
        backend->OnOpened(key, id, std::move(*opened), count_use, callback);
      }
    });
  });
  return ERR_IO_PENDING;
}

void DiskBackend::OnOpened(const std::string& key, uint64_t id, DiskWorker::OpenedEntry opened,
                           bool count_use, EntryCallback callback) {
  if (opened.rv == OK) {
    if (count_use) stats_.open_hits++;
    auto it = pending_headers_.find(id);
    if (it != pending_headers_.end()) opened.headers = it->second.second;
    callback(OK,
             std::make_unique<DiskEntry>(weak_factory_.GetWeakPtr(), key, id, std::move(opened)));
    return;
  }
  if (count_use) stats_.open_misses++;
  if (opened.rv == ERR_CACHE_MISS) {
    // The row went away meanwhile (replaced by a commit whose completion is on its way, or
    // removed behind our back): forget this version.
    IndexEntry removed;
    if (index_.Remove(key, id, &removed)) DeleteOnDisk({removed}, nullptr);
  } else {
    OnEntryDamaged(key, id);
  }
  callback(ERR_CACHE_MISS, nullptr);
}

std::unique_ptr<CacheEntry> DiskBackend::CreateEntry(const std::string& key) {
  stats_.creates++;
  MaybeCheckSpace();  // at most once per kSpaceCheckInterval when nothing is committed
  int error = IsUsableCacheKey(config_, key) ? OK : ERR_CACHE_CREATE_FAILURE;
  if (error == OK && low_space_) {
    error = ERR_FILE_NO_SPACE;
    stats_.low_space_refusals++;
  }
  return std::make_unique<DiskEntry>(weak_factory_.GetWeakPtr(), key, next_id_++, error);
}

void DiskBackend::DoomEntry(const std::string& key) { DoomVersion(key, 0); }

bool DiskBackend::DoomVersion(const std::string& key, uint64_t id) {
  IndexEntry removed;
  if (!index_.Remove(key, id, &removed)) return false;
  stats_.dooms++;
  pending_headers_.erase(removed.id);
  DeleteOnDisk({removed}, nullptr);
  return true;
}

void DiskBackend::OnEntryDamaged(const std::string& key, uint64_t id) {
  stats_.read_failures++;
  IndexEntry removed;
  if (index_.Remove(key, id, &removed)) {
    pending_headers_.erase(removed.id);
    DeleteOnDisk({removed}, nullptr);
  }
}

void DiskBackend::DoomAllEntries(CompletionCallback callback) {
  std::vector<IndexEntry> removed = index_.RemoveAll();
  stats_.dooms += removed.size();
  pending_headers_.clear();
  DeleteOnDisk(removed, std::move(callback));
}

void DiskBackend::DoomEntriesBetween(Time begin, Time end, CompletionCallback callback) {
  std::vector<IndexEntry> removed = index_.RemoveUsedBetween(begin, end);
  stats_.dooms += removed.size();
  for (const IndexEntry& entry : removed) pending_headers_.erase(entry.id);
  DeleteOnDisk(removed, std::move(callback));
}

void DiskBackend::DeleteOnDisk(const std::vector<IndexEntry>& removed,
                               CompletionCallback callback) {
  if (removed.empty() && !callback) return;
  std::vector<DiskWorker::Victim> victims;
  victims.reserve(removed.size());
  for (const IndexEntry& entry : removed) {
    victims.push_back({static_cast<int64_t>(entry.id), entry.body_in_file});
  }
  // Alone: a commit that finds the disk full must not roll the deletion back with it.
  thread_->PostWriteAlone([worker = worker_.get(), victims = std::move(victims),
                           done = Guard(std::move(callback))](CacheThread::Batch& batch) {
    worker->DeleteEntries(batch, victims, done);
  });
}

void DiskBackend::EvictIfNeeded() {
  std::vector<IndexEntry> victims = index_.Evict(clock_.Now());
  if (victims.empty()) return;
  for (const IndexEntry& victim : victims) {
    stats_.evictions++;
    stats_.evicted_bytes += victim.info.total_size();
    pending_headers_.erase(victim.id);
  }
  DeleteOnDisk(victims, nullptr);
}

bool DiskBackend::GetEntryInfo(const std::string& key, CacheEntryInfo* info) const {
  const IndexEntry* found = index_.Find(key);
  if (!found) return false;
  *info = found->info;
  return true;
}

std::vector<CacheEntryInfo> DiskBackend::EnumerateEntries() const { return index_.Enumerate(); }

int64_t DiskBackend::GetEntryCount() const { return index_.entry_count(); }

int64_t DiskBackend::GetSizeOfAllEntries() const { return index_.total_bytes(); }

CacheStats DiskBackend::GetStats() const {
  CacheStats stats = stats_;
  stats.entry_count = index_.entry_count();
  stats.total_bytes = index_.total_bytes();
  stats.max_bytes = config_.max_bytes;
  stats.pending_write_bytes = thread_->pending_write_bytes().load();
  stats.full_disk_deletes = worker_->full_disk_deletes();
  return stats;
}

void DiskBackend::FlushUses() {
  if (dirty_uses_.empty()) return;
  std::vector<DiskWorker::UseUpdate> updates;
  updates.reserve(dirty_uses_.size());
  for (const auto& [id, use] : dirty_uses_) {
    updates.push_back({static_cast<int64_t>(id), use.first, use.second});
  }
  dirty_uses_.clear();
  thread_->PostWrite([worker = worker_.get(), updates = std::move(updates)](
                         CacheThread::Batch& batch) { worker->UpdateUses(batch, updates); });
}

size_t DiskBackend::EstimateMemoryUsage() const {
  return index_.EstimateMemoryUsage() + netstack::EstimateMemoryUsage(pending_headers_) +
         netstack::EstimateMemoryUsage(dirty_uses_);
}

void DiskBackend::Flush(CompletionCallback callback) {
  FlushUses();
  thread_->PostWrite(
      [done = Guard(std::move(callback))](CacheThread::Batch& batch) { batch.Complete(done, OK); });
}

void DiskBackend::QueueCommit(IndexEntry entry, StoredEntry row, std::shared_ptr<BodyWriter> writer,
                              CompletionCallback callback) {
  FlushUses();  // rides along in the commit's transaction
  auto done = [weak = weak_factory_.GetWeakPtr(), entry = std::move(entry),
               callback = std::move(callback)](int result) {
    if (DiskBackend* backend = weak.get()) backend->OnCommitted(entry, result, callback);
  };
  thread_->PostWrite([worker = worker_.get(), row = std::move(row), writer = std::move(writer),
                      done = std::move(done)](CacheThread::Batch& batch) mutable {
    worker->CommitEntry(batch, std::move(row), writer.get(), std::move(done));
  });
}

void DiskBackend::OnCommitted(IndexEntry entry, int result, CompletionCallback callback) {
  const int64_t entry_size = entry.info.total_size();
  if (result == OK) {
    IndexEntry replaced;
    if (index_.Insert(std::move(entry), &replaced)) pending_headers_.erase(replaced.id);
    stats_.commits++;
    bytes_since_space_check_ += entry_size;
    EvictIfNeeded();
    MaybeCheckSpace();
  } else {
    stats_.commit_failures++;
  }
  if (callback) callback(result);
}

void DiskBackend::QueueBodyWrite(std::shared_ptr<BodyWriter> writer, std::string data) {
  int64_t bytes = static_cast<int64_t>(data.size());
  thread_->PostWrite([worker = worker_.get(), writer = std::move(writer), data = std::move(data)](
                         CacheThread::Batch&) { worker->WriteBody(*writer, data); },
                     bytes);
}

void DiskBackend::QueueAbandon(std::shared_ptr<BodyWriter> writer) {
  thread_->PostWrite([worker = worker_.get(), writer = std::move(writer)](CacheThread::Batch&) {
    worker->AbandonBody(*writer);
  });
}

void DiskBackend::QueueClose(std::shared_ptr<BodyReader> file) {
  thread_->PostRead([worker = worker_.get(), file = std::move(file)] { worker->CloseBody(*file); });
}

void DiskBackend::UpdateHeaders(const std::string& key, uint64_t id, std::string headers) {
  if (!index_.SetHeadersSize(key, id, static_cast<int64_t>(headers.size()))) return;
  const uint64_t seq = next_headers_seq_++;
  pending_headers_[id] = {seq, headers};
  auto done = [weak = weak_factory_.GetWeakPtr(), id, seq](int) {
    DiskBackend* backend = weak.get();
    if (!backend) return;
    auto it = backend->pending_headers_.find(id);
    if (it != backend->pending_headers_.end() && it->second.first == seq) {
      backend->pending_headers_.erase(it);
    }
  };
  thread_->PostWrite([worker = worker_.get(), id, headers = std::move(headers),
                      done = std::move(done)](CacheThread::Batch& batch) {
    worker->UpdateHeaders(batch, static_cast<int64_t>(id), headers, done);
  });
  EvictIfNeeded();
}

}  // namespace netstack
