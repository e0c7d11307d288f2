// Disk backend test scaffolding: a FileOperations that can be told to fail writes with ENOSPC,
// and the disk harness (over tests/support's cross-thread poster and temp directory).
#ifndef TESTS_CACHE_DISK_TEST_UTIL_H_
#define TESTS_CACHE_DISK_TEST_UTIL_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cache/disk_backend.h"
#include "cache/disk_space.h"
#include "cache/file_operations.h"
#include "tests/cache/backend_test_util.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_cross_thread_poster.h"

namespace netstack {

// The cache thread's completions wait in a TestCrossThreadPoster until the test runs them; every
// disk test works in a TempDir (tests/support).
using test::TempDir;
using test::TestCrossThreadPoster;

// The real file system, except that writes fail with ENOSPC while fail_writes is set.
class FailingFileOperations : public PosixFileOperations {
 public:
  int Write(int fd, const char* data, size_t len) override;
  std::atomic<bool> fail_writes{false};
};

// A file system whose space the test sets; counts the readings. Thread-safe.
class FakeDiskSpaceSource : public DiskSpaceSource {
 public:
  DiskSpace Query(const std::string& path) override;
  std::atomic<int64_t> free_bytes{int64_t{10} << 30};
  std::atomic<int64_t> total_bytes{int64_t{100} << 30};
  std::atomic<int> queries{0};
};

// A DiskBackend in a TempDir, driven by a TestCrossThreadPoster.
class DiskHarness : public BackendHarness {
 public:
  // `dir` (if given) must outlive the harness; otherwise the harness owns a TempDir. The
  // cache lives in `dir`/cache. `disk_space` (if given) must outlive the harness; otherwise
  // the real free space (statvfs) is watched.
  explicit DiskHarness(const CacheConfig& config, const std::string* dir = nullptr,
                       FileOperations* file_ops = nullptr, DiskSpaceSource* disk_space = nullptr);
  ~DiskHarness() override;
  CacheBackend& backend() override { return *backend_; }
  DiskBackend* disk() { return backend_.get(); }
  bool RunUntil(const std::function<bool()>& done) override { return poster_.RunUntil(done); }
  bool Reopen() override;
  bool is_disk() const override { return true; }

  // Creates a backend; OK or the error. *message gets Create's message.
  int Open(std::string* message = nullptr);
  void Close();
  const std::string& dir() const { return *dir_; }
  TestCrossThreadPoster& poster() { return poster_; }
  const std::string& last_message() const { return message_; }

 private:
  std::unique_ptr<TempDir> owned_dir_;
  const std::string* dir_;
  CacheConfig config_;
  FileOperations* file_ops_;
  DiskSpaceSource* disk_space_;
  TestCrossThreadPoster poster_;
  std::unique_ptr<DiskBackend> backend_;
  std::string message_;
};

struct DiskBackendKind {
  static std::unique_ptr<BackendHarness> Make(const CacheConfig& config);
};

// Files in `dir` (names only, sorted), for checking what is on disk.
std::vector<std::string> ListDir(const std::string& dir);
std::string ReadFile(const std::string& path);
void WriteFile(const std::string& path, const std::string& data);

}  // namespace netstack

#endif  // TESTS_CACHE_DISK_TEST_UTIL_H_
