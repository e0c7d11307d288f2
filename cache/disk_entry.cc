#include "cache/disk_entry.h"

#include <algorithm>
#include <cstring>

#include "cache/disk_backend.h"

namespace netstack {

DiskEntry::DiskEntry(WeakPtr<DiskBackend> backend, std::string key, uint64_t id,
                     DiskWorker::OpenedEntry opened)
    : backend_(std::move(backend)),
      key_(std::move(key)),
      id_(id),
      created_(false),
      headers_(std::move(opened.headers)),
      body_size_(opened.body_size),
      prefix_(std::move(opened.prefix)),
      body_crc32_(opened.body_crc32),
      crc_(opened.prefix_crc32),
      crc_offset_(static_cast<int64_t>(prefix_.size())),
      file_(std::move(opened.file)) {}

DiskEntry::DiskEntry(WeakPtr<DiskBackend> backend, std::string key, uint64_t id, int error)
    : backend_(std::move(backend)), key_(std::move(key)), id_(id), created_(true), error_(error) {}

DiskEntry::~DiskEntry() {
  DiskBackend* backend = backend_.get();
  if (created_) {
    if (committed_) return;  // the commit task owns what is left
    ReleaseBuffered();
    if (writer_ && backend) backend->QueueAbandon(std::move(writer_));
  } else if (file_ && backend) {
    backend->QueueClose(std::move(file_));
  }
}

void DiskEntry::WriteHeaders(std::string headers) {
  DiskBackend* backend = backend_.get();
  if (!backend) return;
  const CacheConfig& config = backend->config_;
  if (!created_) {
    if (headers.size() > config.max_headers_bytes) return;
    headers_ = headers;
    backend->UpdateHeaders(key_, id_, std::move(headers));
    return;
  }
  if (error_ != OK || committed_) return;
  if (headers.size() > config.max_headers_bytes ||
      static_cast<int64_t>(headers.size()) + body_size_ > config.entry_limit()) {
    Fail(ERR_FILE_TOO_BIG);
    return;
  }
  int64_t delta = static_cast<int64_t>(headers.size()) - static_cast<int64_t>(headers_.size());
  std::atomic<int64_t>& pending = backend->thread_->pending_write_bytes();
  if (delta > 0 && pending.load() + delta > config.max_pending_write_bytes) {
    Fail(ERR_INSUFFICIENT_RESOURCES);
    return;
  }
  pending += delta;
  buffered_pending_ += delta;
  headers_ = std::move(headers);
}

int DiskEntry::ReadBody(int64_t offset, char* buf, int len, CompletionCallback callback) {
  if (created_ || offset < 0 || len <= 0 || read_pending_) return ERR_INVALID_ARGUMENT;
  if (read_error_ != OK) return read_error_;
  if (offset >= body_size_) return 0;
  int64_t n = std::min<int64_t>(len, body_size_ - offset);
  if (offset < static_cast<int64_t>(prefix_.size())) {
    n = std::min<int64_t>(n, static_cast<int64_t>(prefix_.size()) - offset);
    std::memcpy(buf, prefix_.data() + offset, static_cast<size_t>(n));
    return static_cast<int>(n);
  }
  const int64_t ahead_end = ahead_offset_ + static_cast<int64_t>(ahead_.size());
  if (offset >= ahead_offset_ && offset < ahead_end) {
    n = std::min<int64_t>(n, ahead_end - offset);
    std::memcpy(buf, ahead_.data() + (offset - ahead_offset_), static_cast<size_t>(n));
    if (offset + n == body_size_) {
      std::string().swap(ahead_);  // read to the end: the buffer is not needed any more
      if (crc_mismatch_) return FailRead(ERR_CACHE_CHECKSUM_MISMATCH);
    }
    return static_cast<int>(n);
  }
  DiskBackend* backend = backend_.get();
  if (!backend || !file_) return FailRead(ERR_CACHE_READ_FAILURE);
  // Sequential reads extend the running checksum, and read ahead; a read that skips ahead
  // cannot be checked.
  const bool extend = offset == crc_offset_;
  const int64_t fetch = extend ? std::max(n, std::min(kReadAheadBytes, body_size_ - offset)) : n;
  read_pending_ = true;
  backend->thread_->PostRead([worker = backend->worker_.get(), poster = backend->poster_,
                              file = file_, offset, n, fetch, size = body_size_, crc = crc_, extend,
                              weak = weak_factory_.GetWeakPtr(), buf,
                              callback = std::move(callback)]() mutable {
    auto result = std::make_shared<DiskWorker::ReadResult>(
        worker->ReadBody(*file, offset, static_cast<int>(fetch), size, crc, extend));
    poster->PostToLoop(
        [weak = std::move(weak), result, extend, offset, n, buf, callback = std::move(callback)] {
          if (DiskEntry* entry = weak.get())
            entry->OnRead(std::move(*result), extend, offset, n, buf, callback);
        });
  });
  return ERR_IO_PENDING;
}

void DiskEntry::OnRead(DiskWorker::ReadResult result, bool extend_crc, int64_t offset, int64_t len,
                       char* buf, CompletionCallback callback) {
  read_pending_ = false;
  if (result.rv < 0) {
    callback(FailRead(result.rv));
    return;
  }
  const int64_t got = static_cast<int64_t>(result.data.size());
  const int64_t served = std::min(got, len);
  std::memcpy(buf, result.data.data(), static_cast<size_t>(served));
  if (extend_crc) {
    crc_ = result.crc32;
    crc_offset_ += got;
    if (crc_offset_ == body_size_ && crc_ != body_crc32_) crc_mismatch_ = true;
  }
  if (served < got) {
    ahead_ = std::move(result.data);
    ahead_offset_ = offset;
  } else {
    std::string().swap(ahead_);
  }
  if (crc_mismatch_ && offset + served == body_size_) {
    callback(FailRead(ERR_CACHE_CHECKSUM_MISMATCH));
    return;
  }
  callback(static_cast<int>(served));
}

int DiskEntry::FailRead(int error) {
  read_error_ = error;
  if (DiskBackend* backend = backend_.get()) backend->OnEntryDamaged(key_, id_);
  return error;
}

int DiskEntry::AppendBody(const char* data, int len) {
  if (!created_) return ERR_INVALID_ARGUMENT;
  if (committed_) return error_ != OK ? error_ : ERR_CACHE_WRITE_FAILURE;
  if (error_ != OK) return error_;
  DiskBackend* backend = backend_.get();
  if (!backend) return Fail(ERR_CACHE_WRITE_FAILURE);
  if (writer_ && writer_->error.load() != OK) return Fail(writer_->error.load());
  if (len < 0) return Fail(ERR_INVALID_ARGUMENT);
  if (len == 0) return OK;
  const CacheConfig& config = backend->config_;
  if (static_cast<int64_t>(headers_.size()) + body_size_ + len > config.entry_limit()) {
    return Fail(ERR_FILE_TOO_BIG);
  }
  std::atomic<int64_t>& pending = backend->thread_->pending_write_bytes();
  if (pending.load() + len > config.max_pending_write_bytes) {
    return Fail(ERR_INSUFFICIENT_RESOURCES);
  }
  pending += len;
  body_size_ += len;
  if (!writer_ && body_size_ <= config.inline_body_bytes) {
    buffer_.append(data, static_cast<size_t>(len));
    buffered_pending_ += len;
    return OK;
  }
  std::string chunk;
  if (!writer_) {
    // The body outgrew the row: from now on it streams to bodies/tmp-<id>.
    writer_ = std::make_shared<BodyWriter>(static_cast<int64_t>(id_));
    buffered_pending_ -= static_cast<int64_t>(buffer_.size());
    chunk.swap(buffer_);
  }
  chunk.append(data, static_cast<size_t>(len));
  backend->QueueBodyWrite(writer_, std::move(chunk));
  return OK;
}

void DiskEntry::Commit(CompletionCallback callback) {
  DiskBackend* backend = backend_.get();
  if (!backend) return;
  if (!created_ || committed_) {
    backend->PostResult(std::move(callback), ERR_INVALID_ARGUMENT);
    return;
  }
  int result = error_;
  if (result == OK && writer_) result = writer_->error.load();
  if (result == OK && doomed_) result = ERR_ABORTED;
  if (result != OK) {
    Fail(result);
    committed_ = true;
    backend->stats_.commit_failures++;
    backend->PostResult(std::move(callback), result);
    return;
  }
  committed_ = true;
  Time now = backend->clock_.Now();
  IndexEntry entry;
  entry.id = id_;
  entry.body_in_file = writer_ != nullptr;
  entry.info.key = key_;
  entry.info.headers_size = static_cast<int64_t>(headers_.size());
  entry.info.body_size = body_size_;
  entry.info.created = entry.info.last_used = now;
  StoredEntry row;
  row.id = static_cast<int64_t>(id_);
  row.key = key_;
  row.headers = headers_;
  row.body_in_file = writer_ != nullptr;
  row.inline_body = std::move(buffer_);
  row.body_size = body_size_;
  row.created = row.last_used = now;
  buffered_pending_ = 0;  // the commit task releases headers and inline body from the count
  backend->QueueCommit(std::move(entry), std::move(row), std::move(writer_), std::move(callback));
}

void DiskEntry::Doom() {
  doomed_ = true;
  if (created_) return;
  if (DiskBackend* backend = backend_.get()) backend->DoomVersion(key_, id_);
}

int DiskEntry::Fail(int error) {
  if (error_ == OK) error_ = error;
  ReleaseBuffered();
  if (writer_) {
    if (DiskBackend* backend = backend_.get()) backend->QueueAbandon(writer_);
    writer_.reset();
  }
  return error_;
}

void DiskEntry::ReleaseBuffered() {
  if (DiskBackend* backend = backend_.get()) {
    backend->thread_->pending_write_bytes() -= buffered_pending_;
  }
  buffered_pending_ = 0;
  std::string().swap(buffer_);
}

}  // namespace netstack
