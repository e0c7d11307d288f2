#include "cache/disk_worker.h"

#include <dirent.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <unordered_set>

#include "cache/cache_size_policy.h"
#include "net/base/net_error.h"

namespace netstack {
namespace {

uint32_t Crc32(uint32_t crc, const char* data, size_t len) {
  while (len > 0) {
    uInt n = static_cast<uInt>(std::min<size_t>(len, 1u << 30));
    crc = static_cast<uint32_t>(crc32(crc, reinterpret_cast<const Bytef*>(data), n));
    data += n;
    len -= n;
  }
  return crc;
}

// Reads up to `len` bytes at `offset`, retrying short reads; the bytes read or -errno.
int64_t PreadFully(int fd, char* buf, size_t len, int64_t offset) {
  size_t done = 0;
  while (done < len) {
    ssize_t n = ::pread(fd, buf + done, len - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return static_cast<int64_t>(done);
}

// The result for a task that found no store: the batch's own error if it failed (reported by
// Batch::Complete for OK), else a plain write failure (the backend never opened its store).
int NoStoreError(const CacheThread::Batch& batch, const SqliteStore* store) {
  return store || batch.failed() ? OK : ERR_CACHE_WRITE_FAILURE;
}

bool ParseHexId(const char* name, int64_t* id) {
  if (std::strlen(name) != 16) return false;
  uint64_t value = 0;
  for (const char* p = name; *p; ++p) {
    int digit;
    if (*p >= '0' && *p <= '9') {
      digit = *p - '0';
    } else if (*p >= 'a' && *p <= 'f') {
      digit = *p - 'a' + 10;
    } else {
      return false;
    }
    value = value * 16 + static_cast<uint64_t>(digit);
  }
  *id = static_cast<int64_t>(value);
  return true;
}

}  // namespace

BodyWriter::~BodyWriter() {
  if (fd >= 0) ::close(fd);
}

BodyReader::~BodyReader() {
  if (fd >= 0) ::close(fd);
}

DiskWorker::Resources::~Resources() {
  store.reset();
  if (lock_fd >= 0) ::close(lock_fd);
}

DiskWorker::DiskWorker(CacheThread* thread, std::string directory, FileOperations* file_ops,
                       DiskSpaceSource* disk_space)
    : thread_(thread),
      directory_(std::move(directory)),
      file_ops_(file_ops),
      disk_space_(disk_space),
      resources_(std::make_shared<Resources>()) {}

DiskWorker::~DiskWorker() = default;

std::string DiskWorker::BodyPath(int64_t id) const {
  return directory_ + "/bodies/" + SqliteStore::BodyFileName(id);
}

std::string DiskWorker::ReservePath() const { return directory_ + "/reserve"; }

std::string DiskWorker::TempPath(int64_t id) const {
  return directory_ + "/bodies/tmp-" + SqliteStore::BodyFileName(id);
}

int DiskWorker::LockDirectory(std::string* error) {
  std::string path = directory_ + "/lock";
  int& lock_fd = resources_->lock_fd;
  lock_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd < 0) {
    *error = "cannot use cache directory " + directory_ + ": " + std::strerror(errno);
    return ERR_CACHE_OPEN_FAILURE;
  }
  if (::flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
    *error = "cache directory " + directory_ + " is in use by another process";
    ::close(lock_fd);
    lock_fd = -1;
    return ERR_CACHE_OPEN_FAILURE;
  }
  return OK;
}

DiskWorker::OpenResult DiskWorker::Open(Time now) {
  OpenResult result;
  // Whatever happens, the store and the lock are released on this thread when it exits.
  thread_->SetExitTask([resources = resources_]() mutable { resources.reset(); });
  if (directory_.empty()) {
    result.rv = ERR_CACHE_OPEN_FAILURE;
    result.message = "no cache directory given";
    return result;
  }
  std::error_code ec;
  std::filesystem::create_directories(directory_ + "/bodies", ec);
  if (ec) {
    result.rv = ERR_CACHE_OPEN_FAILURE;
    result.message = "cannot use cache directory " + directory_ + ": " + ec.message();
    return result;
  }
  if ((result.rv = LockDirectory(&result.message)) != OK) return result;
  std::string warning, error;
  for (int attempt = 0;; ++attempt) {
    resources_->store = std::make_unique<SqliteStore>();
    result.rv = resources_->store->OpenAndLoad(directory_ + "/index.db", now, &result.entries,
                                               &warning, &error);
    // On a full disk sqlite cannot even start its WAL and shared-memory files: the reserve
    // file's space is given to it, once (README.md, "A full disk").
    if (result.rv == OK || attempt > 0 || !ReleaseReserve()) break;
    full_disk_deletes_++;
    warning.clear();
    error.clear();
  }
  if (result.rv != OK) {
    result.message = error;
    resources_->store.reset();
    return result;
  }
  result.message = warning;
  store_ = resources_->store.get();
  thread_->SetStore(store_);
  CleanBodies(result.entries);
  struct stat st;
  reserve_present_ = ::stat(ReservePath().c_str(), &st) == 0 && st.st_size >= kReserveBytes;
  result.space = CheckSpace();
  return result;
}

DiskSpace DiskWorker::CheckSpace() {
  if (!disk_space_) return {};
  DiskSpace space = disk_space_->Query(directory_);
  if (space.known() && !reserve_present_ &&
      space.free_bytes - kReserveBytes >= FreeSpaceMargin(space.total_bytes) && CreateReserve()) {
    space.free_bytes -= kReserveBytes;
  }
  return space;
}

bool DiskWorker::CreateReserve() {
  const std::string path = ReservePath();
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  // Allocated, not sparse: its blocks are what a deletion on a full disk gets back.
  bool ok = ::posix_fallocate(fd, 0, kReserveBytes) == 0;
  ok = ::close(fd) == 0 && ok;
  if (!ok) ::unlink(path.c_str());
  reserve_present_ = ok;
  return ok;
}

bool DiskWorker::ReleaseReserve() {
  const bool removed = ::unlink(ReservePath().c_str()) == 0;
  reserve_present_ = false;
  return removed;
}

void DiskWorker::CleanBodies(const std::vector<IndexEntry>& entries) {
  std::unordered_set<int64_t> referenced;
  for (const IndexEntry& entry : entries) {
    if (entry.body_in_file) referenced.insert(static_cast<int64_t>(entry.id));
  }
  std::string dir = directory_ + "/bodies";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  int removed = 0;
  while (dirent* e = ::readdir(d)) {
    if (removed >= kMaxCleanupRemovals) break;
    int64_t id;
    bool leftover = std::strncmp(e->d_name, "tmp-", 4) == 0 ||
                    (ParseHexId(e->d_name, &id) && referenced.count(id) == 0);
    if (leftover && file_ops_->Remove(dir + "/" + e->d_name) == 0) ++removed;
  }
  ::closedir(d);
}

DiskWorker::OpenedEntry DiskWorker::OpenEntry(int64_t id) {
  OpenedEntry out;
  StoredEntry row;
  int rc = store_ ? store_->Read(id, &row) : SQLITE_DONE;
  if (rc != SQLITE_ROW) {
    if (store_ && SqliteStore::IsCorruption(rc)) store_->MarkDamaged();
    out.rv = ERR_CACHE_MISS;
    return out;
  }
  out.headers = std::move(row.headers);
  out.body_size = row.body_size;
  out.body_crc32 = row.body_crc32;
  if (!row.body_in_file) {
    if (static_cast<int64_t>(row.inline_body.size()) != row.body_size ||
        Crc32(0, row.inline_body.data(), row.inline_body.size()) != row.body_crc32) {
      out.rv = ERR_CACHE_CHECKSUM_MISMATCH;
      return out;
    }
    out.prefix = std::move(row.inline_body);
    out.prefix_crc32 = row.body_crc32;
    return out;
  }
  int fd = ::open(BodyPath(id).c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || ::fstat(fd, &st) != 0 || st.st_size != row.body_size) {
    if (fd >= 0) ::close(fd);
    out.rv = ERR_CACHE_READ_FAILURE;
    return out;
  }
  out.prefix.resize(static_cast<size_t>(std::min(row.body_size, kPrefetchBytes)));
  int64_t n = PreadFully(fd, out.prefix.data(), out.prefix.size(), 0);
  if (n != static_cast<int64_t>(out.prefix.size())) {
    ::close(fd);
    out.rv = ERR_CACHE_READ_FAILURE;
    return out;
  }
  out.prefix_crc32 = Crc32(0, out.prefix.data(), out.prefix.size());
  if (static_cast<int64_t>(out.prefix.size()) == row.body_size) {
    ::close(fd);
    if (out.prefix_crc32 != row.body_crc32) out.rv = ERR_CACHE_CHECKSUM_MISMATCH;
    return out;
  }
  out.file = std::make_shared<BodyReader>();
  out.file->fd = fd;
  return out;
}

DiskWorker::ReadResult DiskWorker::ReadBody(BodyReader& file, int64_t offset, int len,
                                            int64_t body_size, uint32_t crc_in, bool extend_crc) {
  ReadResult out;
  int64_t want = std::min<int64_t>(len, body_size - offset);
  if (file.fd < 0 || want <= 0) {
    out.rv = want == 0 ? 0 : ERR_CACHE_READ_FAILURE;
    return out;
  }
  out.data.resize(static_cast<size_t>(want));
  int64_t n = PreadFully(file.fd, out.data.data(), out.data.size(), offset);
  if (n != want) {  // an error, or the file shrank: the data is gone
    out.rv = ERR_CACHE_READ_FAILURE;
    out.data.clear();
    return out;
  }
  out.rv = static_cast<int>(n);
  if (extend_crc) out.crc32 = Crc32(crc_in, out.data.data(), out.data.size());
  return out;
}

void DiskWorker::CloseBody(BodyReader& file) {
  if (file.fd >= 0) ::close(file.fd);
  file.fd = -1;
}

void DiskWorker::WriteBody(BodyWriter& writer, const std::string& data) {
  int rv = writer.error.load() == OK ? 0 : -1;
  if (rv == 0 && !writer.created) {
    writer.created = true;
    rv = file_ops_->CreateForWrite(TempPath(writer.id));
    if (rv >= 0) writer.fd = rv;
  }
  if (rv >= 0) rv = file_ops_->Write(writer.fd, data.data(), data.size());
  if (rv >= 0) {
    writer.crc = Crc32(writer.crc, data.data(), data.size());
  } else if (writer.error.load() == OK) {
    writer.error = FileErrorToNetError(rv);
    AbandonBody(writer);
  }
  // Written (or dropped): no longer pending.
  thread_->pending_write_bytes() -= static_cast<int64_t>(data.size());
}

void DiskWorker::AbandonBody(BodyWriter& writer) {
  int expected = OK;
  writer.error.compare_exchange_strong(expected, ERR_ABORTED);  // drop any later write
  if (writer.fd >= 0) file_ops_->Close(writer.fd);
  writer.fd = -1;
  if (writer.created) file_ops_->Remove(TempPath(writer.id));
  writer.created = false;
}

void DiskWorker::CommitEntry(CacheThread::Batch& batch, StoredEntry row, BodyWriter* writer,
                             std::function<void(int)> done) {
  thread_->pending_write_bytes() -=
      static_cast<int64_t>(row.inline_body.size() + row.headers.size());
  int64_t id = row.id;
  if (writer) {
    int rv = writer->error.load();
    if (rv == OK && !writer->created) rv = ERR_CACHE_WRITE_FAILURE;  // nothing was written
    if (rv == OK) {
      int closed = file_ops_->Close(writer->fd);
      writer->fd = -1;
      if (closed < 0) rv = FileErrorToNetError(closed);
    }
    if (rv == OK) {
      int renamed = file_ops_->Rename(TempPath(id), BodyPath(id));
      if (renamed < 0) rv = FileErrorToNetError(renamed);
    }
    if (rv != OK) {
      AbandonBody(*writer);
      batch.Complete(std::move(done), rv);
      return;
    }
    writer->created = false;  // the temp file is now the body file
    row.body_crc32 = writer->crc;
    row.body_in_file = true;
  } else {
    row.body_crc32 = Crc32(0, row.inline_body.data(), row.inline_body.size());
  }
  SqliteStore* store = batch.store();
  int64_t old_id = 0;
  bool old_in_file = false;
  int rc = store ? store->Replace(row, &old_id, &old_in_file) : SQLITE_DONE;
  if (!store || rc != SQLITE_DONE) {
    if (store) batch.FailDatabase(rc);
    if (writer) file_ops_->Remove(BodyPath(id));
    batch.Complete(std::move(done), NoStoreError(batch, store));
    return;
  }
  if (writer) batch.OnRollback([this, id] { file_ops_->Remove(BodyPath(id)); });
  if (old_in_file) batch.AfterCommit([this, old_id] { file_ops_->Remove(BodyPath(old_id)); });
  batch.Complete(std::move(done), OK);
}

void DiskWorker::DeleteEntries(CacheThread::Batch& batch, const std::vector<Victim>& victims,
                               std::function<void(int)> done) {
  // The WAL could not grow (the batch rolled back with SQLITE_FULL): redo the deletion now,
  // making room for it; its result replaces the batch's. The hook runs inside batch.Finish(),
  // before the completion below is posted.
  constexpr int kNotRedone = 1;
  auto redone = std::make_shared<int>(kNotRedone);
  batch.OnRollback([this, failed = &batch, copy = victims, redone] {
    if (failed->error() == ERR_FILE_NO_SPACE) *redone = DeleteOnFullDisk(copy);
  });
  if (done) {
    done = [done = std::move(done), redone](int result) {
      done(*redone != kNotRedone ? *redone : result);
    };
  }
  SqliteStore* store = batch.store();
  for (const Victim& victim : victims) {
    if (!store) break;
    int rc = store->Delete(victim.id);
    if (rc != SQLITE_DONE) {
      batch.FailDatabase(rc);
      break;
    }
    if (victim.body_in_file) {
      batch.AfterCommit([this, id = victim.id] { file_ops_->Remove(BodyPath(id)); });
    }
  }
  batch.Complete(std::move(done), NoStoreError(batch, store));
}

int DiskWorker::DeleteRows(const std::vector<Victim>& victims, size_t begin, size_t end) {
  int rc = store_->Begin();
  for (size_t i = begin; rc == SQLITE_OK && i < end; ++i) {
    rc = store_->Delete(victims[i].id);
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
  }
  if (rc == SQLITE_OK) rc = store_->Commit();
  if (rc != SQLITE_OK) store_->Rollback();
  return rc;
}

void DiskWorker::RemoveBodies(const std::vector<Victim>& victims, size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) {
    if (victims[i].body_in_file) file_ops_->Remove(BodyPath(victims[i].id));
  }
}

int DiskWorker::DeleteOnFullDisk(const std::vector<Victim>& victims) {
  if (!store_) return ERR_CACHE_WRITE_FAILURE;
  full_disk_deletes_++;
  ReleaseReserve();
  for (size_t begin = 0; begin < victims.size(); begin += kFullDiskDeleteChunk) {
    const size_t end = std::min(victims.size(), begin + kFullDiskDeleteChunk);
    int rc = DeleteRows(victims, begin, end);
    if ((rc & 0xff) == SQLITE_FULL) {
      RemoveBodies(victims, begin, end);
      rc = DeleteRows(victims, begin, end);
    }
    if (rc != SQLITE_OK) {
      if (SqliteStore::IsCorruption(rc)) store_->MarkDamaged();
      return SqliteStore::ToNetError(rc, ERR_CACHE_WRITE_FAILURE);
    }
    RemoveBodies(victims, begin, end);
  }
  return OK;
}

void DiskWorker::UpdateUses(CacheThread::Batch& batch, const std::vector<UseUpdate>& updates) {
  SqliteStore* store = batch.store();
  for (const UseUpdate& update : updates) {
    if (!store) return;
    int rc = store->UpdateUse(update.id, update.last_used, update.use_count);
    if (rc != SQLITE_DONE) {
      batch.FailDatabase(rc);
      return;
    }
  }
}

void DiskWorker::UpdateHeaders(CacheThread::Batch& batch, int64_t id, const std::string& headers,
                               std::function<void(int)> done) {
  SqliteStore* store = batch.store();
  int rc = store ? store->UpdateHeaders(id, headers) : SQLITE_DONE;
  if (store && rc != SQLITE_DONE) batch.FailDatabase(rc);
  batch.Complete(std::move(done), NoStoreError(batch, store));
}

}  // namespace netstack
