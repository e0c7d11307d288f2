// DiskBackend's CacheEntry, on the loop thread. An opened entry holds what the cache thread
// read at open (headers, the inline body or the first chunk of the file body, an fd for the
// rest) and checks the body's checksum as sequential reads reach the end. A sequential read
// that has to go to the cache thread reads ahead (up to kReadAheadBytes), so a large body costs
// one thread round trip per 256 KiB rather than one per caller's read. A created entry
// buffers its body until it outgrows inline_body_bytes, then streams it to a temp file through
// the cache thread; Commit hands the row to the thread.
#ifndef CACHE_DISK_ENTRY_H_
#define CACHE_DISK_ENTRY_H_

#include <memory>
#include <string>

#include "cache/backend.h"
#include "cache/disk_worker.h"
#include "net/base/weak_ptr.h"

namespace netstack {

class DiskBackend;

class DiskEntry : public CacheEntry {
 public:
  // The most a sequential body read fetches from the file in one trip to the cache thread
  // (the caller's `len` if larger); what the caller did not ask for yet is kept in the entry
  // and served synchronously by the next reads. Bounds the entry's read buffer.
  static constexpr int64_t kReadAheadBytes = 256 * 1024;

  // Opened: version `id` of `key`, as read by DiskWorker::OpenEntry.
  DiskEntry(WeakPtr<DiskBackend> backend, std::string key, uint64_t id,
            DiskWorker::OpenedEntry opened);
  // Created: `id` is the version it will commit as; `error` is OK or why it cannot be stored.
  DiskEntry(WeakPtr<DiskBackend> backend, std::string key, uint64_t id, int error);
  ~DiskEntry() override;
  DiskEntry(const DiskEntry&) = delete;
  DiskEntry& operator=(const DiskEntry&) = delete;

  // CacheEntry.
  const std::string& key() const override { return key_; }
  const std::string& headers() const override { return headers_; }
  void WriteHeaders(std::string headers) override;
  int64_t body_size() const override { return body_size_; }
  int ReadBody(int64_t offset, char* buf, int len, CompletionCallback callback) override;
  int AppendBody(const char* data, int len) override;
  void Commit(CompletionCallback callback) override;
  void Doom() override;

 private:
  // A read of `len` bytes at `offset` came back from the cache thread (with read-ahead beyond
  // `len` when sequential).
  void OnRead(DiskWorker::ReadResult result, bool extend_crc, int64_t offset, int64_t len,
              char* buf, CompletionCallback callback);
  // A read found the entry damaged: it is doomed and every later read fails with `error`.
  int FailRead(int error);
  // Created entries: records `error` (the first one wins), releases buffered bytes and the
  // temp file. Returns the entry's error.
  int Fail(int error);
  void ReleaseBuffered();

  WeakPtr<DiskBackend> backend_;
  const std::string key_;
  const uint64_t id_;
  const bool created_;
  std::string headers_;
  int64_t body_size_ = 0;

  // Opened entries.
  std::string prefix_;  // the body's first bytes (all of it when inline)
  uint32_t body_crc32_ = 0;
  uint32_t crc_ = 0;  // checksum of body bytes [0, crc_offset_)
  int64_t crc_offset_ = 0;
  std::shared_ptr<BodyReader> file_;
  // Read-ahead: body bytes [ahead_offset_, ahead_offset_ + ahead_.size()) from the last trip.
  std::string ahead_;
  int64_t ahead_offset_ = 0;
  // A sequential pass read the whole body and its checksum is wrong: the read that reaches the
  // end fails (as it would without read-ahead).
  bool crc_mismatch_ = false;
  bool read_pending_ = false;
  int read_error_ = 0;

  // Created entries.
  std::string buffer_;                  // the body while it fits inline_body_bytes
  std::shared_ptr<BodyWriter> writer_;  // once it did not
  int64_t buffered_pending_ = 0;        // our bytes in the pending-write count (headers + buffer_)
  int error_ = 0;
  bool committed_ = false;
  bool doomed_ = false;

  WeakPtrFactory<DiskEntry> weak_factory_{this};
};

}  // namespace netstack

#endif  // CACHE_DISK_ENTRY_H_
