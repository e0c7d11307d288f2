// Disk backend test scaffolding: a cross-thread poster the test pumps, a temp directory, a
// FileOperations that can be told to fail writes with ENOSPC, and the disk harness.
#ifndef TESTS_CACHE_DISK_TEST_UTIL_H_
#define TESTS_CACHE_DISK_TEST_UTIL_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "cache/disk_backend.h"
#include "cache/file_operations.h"
#include "net/base/cross_thread_poster.h"
#include "tests/cache/backend_test_util.h"

namespace netstack {

// Tasks from the cache thread wait here until the test runs them (on the test thread).
class TestCrossThreadPoster : public CrossThreadPoster {
 public:
  ~TestCrossThreadPoster() override;
  void PostToLoop(std::function<void()> task) override;
  // Runs posted tasks until `done()` holds or `timeout` passes with nothing to run; returns
  // done().
  bool RunUntil(const std::function<bool()>& done,
                std::chrono::milliseconds timeout = std::chrono::seconds(20));
  // Runs the tasks already posted.
  size_t RunPending();
  // From now on, posted tasks are dropped (as a real poster does while shutting down).
  void Close();

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool closed_ = false;
};

// A fresh directory under the system's temp dir, removed (recursively) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The real file system, except that writes fail with ENOSPC while fail_writes is set.
class FailingFileOperations : public PosixFileOperations {
 public:
  int Write(int fd, const char* data, size_t len) override;
  std::atomic<bool> fail_writes{false};
};

// A DiskBackend in a TempDir, driven by a TestCrossThreadPoster.
class DiskHarness : public BackendHarness {
 public:
  // `dir` (if given) must outlive the harness; otherwise the harness owns a TempDir.
  explicit DiskHarness(const CacheConfig& config, const std::string* dir = nullptr,
                       FileOperations* file_ops = nullptr);
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
