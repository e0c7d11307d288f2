// The cache on a real, tiny file system (issue 17: a full disk wedged the cache). As root, the
// test mounts a 16 MiB tmpfs in a mount namespace of its own (unshare(CLONE_NEWNS): nothing is
// visible outside this process and its children), keeps a profile there, and checks that:
//   - the cache sizes itself within the file system and never fills it;
//   - once another file has filled it, the cache stores nothing (and counts the refusals);
//   - removing entries works on the full disk, in the backend and through `netstack cache rm`
//     and `netstack cache clear`, and gives the space back.
// Without the privilege to mount, it is skipped (a failure under NETSTACK_REQUIRE_FIXTURES=1).
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "cache/cache_size_policy.h"
#include "cache/disk_worker.h"
#include "tests/cache/disk_test_util.h"
#include "tests/test_skip.h"

namespace netstack {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kFsBytes = 16 * kMiB;
constexpr size_t kBody = 256 * 1024;

// A tmpfs of `bytes` mounted on a fresh directory, in this process's own mount namespace.
class TinyFilesystem {
 public:
  explicit TinyFilesystem(int64_t bytes) : dir_("tinyfs") {
    static int unshared = -1;  // once per process
    if (unshared < 0) {
      unshared = ::unshare(CLONE_NEWNS) == 0 &&
                         ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0
                     ? 1
                     : 0;
      if (!unshared) error_ = std::string("unshare(CLONE_NEWNS): ") + std::strerror(errno);
    }
    if (unshared != 1) {
      if (error_.empty()) error_ = "no private mount namespace";
      return;
    }
    std::string options = "size=" + std::to_string(bytes) + ",mode=0700";
    if (::mount("tmpfs", dir_.path().c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) !=
        0) {
      error_ = "mount -t tmpfs on " + dir_.path() + ": " + std::strerror(errno);
      return;
    }
    mounted_ = true;
  }
  ~TinyFilesystem() {
    if (mounted_) ::umount2(dir_.path().c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  const std::string& error() const { return error_; }
  const std::string& path() const { return dir_.path(); }

  int64_t FreeBytes() const {
    struct statvfs st;
    if (::statvfs(path().c_str(), &st) != 0) return -1;
    return static_cast<int64_t>(st.f_bavail) * static_cast<int64_t>(st.f_frsize);
  }

  // Appends to `name` until the file system is full (another program filling the disk).
  void Fill(const std::string& name) {
    int fd = ::open((path() + "/" + name).c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    REQUIRE(fd >= 0);
    std::string block(64 * 1024, 'f');
    for (size_t len = block.size(); len > 0;) {
      ssize_t n = ::write(fd, block.data(), len);
      if (n < 0 && errno == ENOSPC) {
        len /= 2;  // the last blocks, down to single bytes
        continue;
      }
      REQUIRE(n >= 0);
    }
    ::close(fd);
    REQUIRE(FreeBytes() == 0);
  }

 private:
  TempDir dir_;
  bool mounted_ = false;
  std::string error_;
};

struct CommandResult {
  int status = -1;
  std::string output;
};

// Runs `netstack ARGS` (stdout and stderr together).
CommandResult RunNetstack(const std::string& args) {
  CommandResult result;
  std::string command = std::string(NETSTACK_BIN) + " " + args + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buf;
  while (size_t n = std::fread(buf.data(), 1, buf.size(), pipe))
    result.output.append(buf.data(), n);
  int status = ::pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

TEST_CASE("a full tmpfs: the cache stops storing, and rm and clear give the space back",
          "[cache][space][full-disk]") {
  TinyFilesystem fs(kFsBytes);
  if (!fs.mounted()) SKIP_TEST("cannot mount a tmpfs (needs root): " << fs.error());
  const std::string profile = fs.path();
  const std::string cache = profile + "/cache";

  CacheConfig config;
  config.max_bytes = 64 * kMiB;  // the user asks for more than the file system has
  {
    DiskHarness h(config, &profile);
    REQUIRE(h.disk() != nullptr);
    CacheStats stats = h.backend().GetStats();
    INFO("max_bytes " << stats.max_bytes << ", free " << stats.disk_free_bytes);
    CHECK(stats.free_space_margin_bytes == kMinFreeSpaceMargin);
    CHECK(stats.max_bytes < kFsBytes * 8 / 10);
    CHECK(ListDir(cache).size() >= 2);  // index.db and the reserve among them
    struct stat st;
    CHECK(::stat((cache + "/reserve").c_str(), &st) == 0);  // NOLINT

    // 60 bodies of 256 KiB: about the file system's size, stored one after another.
    int stored = 0;
    for (int i = 0; i < 60; ++i) {
      if (Store(h, "http://a.test/" + std::to_string(i), "h", MakeBody(kBody, i)) == OK) ++stored;
      h.clock().Advance(Seconds(1));
    }
    REQUIRE(FlushSync(h) == OK);
    stats = h.backend().GetStats();
    INFO("stored " << stored << ", evictions " << stats.evictions << ", free " << fs.FreeBytes());
    CHECK(stored == 60);  // every commit landed: the cache evicted to stay within the disk
    CHECK(stats.evictions > 0);
    CHECK(h.backend().GetSizeOfAllEntries() <= stats.max_bytes);
    CHECK(fs.FreeBytes() >= stats.free_space_margin_bytes);  // the cache never filled it
    CHECK_FALSE(stats.low_space);

    // Another program fills the disk. The next reading finds it under the margin: nothing
    // more is stored, and the refusals are counted.
    fs.Fill("filler");
    h.clock().Advance(DiskBackend::kSpaceCheckInterval);
    h.backend().CreateEntry("http://a.test/probe");  // due: starts a reading
    REQUIRE(h.RunUntil([&] { return h.backend().GetStats().low_space; }));
    CHECK(Store(h, "http://a.test/refused", "h", MakeBody(kBody, 99)) == ERR_FILE_NO_SPACE);
    stats = h.backend().GetStats();
    CHECK(stats.low_space_refusals >= 1);
    CHECK(stats.disk_free_bytes < stats.free_space_margin_bytes);
    // Under the margin the limit drops below what the cache holds: it gave space back.
    CHECK(stats.max_bytes < stats.total_bytes + stats.evicted_bytes);
    REQUIRE(FlushSync(h) == OK);
    CHECK(fs.FreeBytes() > 0);

    // A doom on the full disk lands (the backend's own deletion path), and frees its body.
    fs.Fill("filler");
    std::vector<CacheEntryInfo> entries = h.backend().EnumerateEntries();
    REQUIRE(entries.size() >= 3);
    h.backend().DoomEntry(entries.back().key);
    CHECK(FlushSync(h) == OK);
    CHECK(fs.FreeBytes() >= static_cast<int64_t>(kBody) / 2);  // its body, less a WAL page or two
  }

  // `netstack cache rm` and `clear` on a full disk, as a user would run them. First the disk
  // has room again for a while: the backend remakes its reserve.
  REQUIRE(::unlink((profile + "/filler").c_str()) == 0);
  std::string key;
  {
    DiskHarness h(config, &profile);
    REQUIRE(h.disk() != nullptr);
    std::vector<CacheEntryInfo> entries = h.backend().EnumerateEntries();
    REQUIRE(entries.size() >= 2);
    key = entries.front().key;
    for (int i = 0; i < 3; ++i) {  // unsaved WAL frames: the next write must grow the WAL
      REQUIRE(Store(h, "http://b.test/" + std::to_string(i), "h", MakeBody(1000, i)) == OK);
    }
  }
  struct stat st;
  REQUIRE(::stat((cache + "/reserve").c_str(), &st) == 0);
  fs.Fill("filler");
  CommandResult rm = RunNetstack("cache rm '" + key + "' --profile '" + profile + "'");
  INFO(rm.output);
  CHECK(rm.status == 0);
  CHECK(rm.output.find("removed " + key) != std::string::npos);
  CHECK(::stat((cache + "/reserve").c_str(), &st) != 0);     // given to sqlite to delete
  CHECK(fs.FreeBytes() >= static_cast<int64_t>(kBody) / 2);  // its body, less a WAL page or two

  fs.Fill("filler");
  CommandResult clear = RunNetstack("cache clear --profile '" + profile + "'");
  INFO(clear.output);
  CHECK(clear.status == 0);
  CHECK(clear.output.find("removed ") != std::string::npos);
  CHECK(fs.FreeBytes() >= 2 * static_cast<int64_t>(kBody));
  CHECK(ListDir(cache + "/bodies").empty());

  CommandResult ls = RunNetstack("cache ls --profile '" + profile + "'");
  INFO(ls.output);
  CHECK(ls.status == 0);
  CHECK(ls.output.empty());

  // With the filler gone, the cache stores again.
  REQUIRE(::unlink((profile + "/filler").c_str()) == 0);
  DiskHarness h(config, &profile);
  REQUIRE(h.disk() != nullptr);
  CHECK(h.backend().GetEntryCount() == 0);
  CHECK_FALSE(h.backend().GetStats().low_space);
  CHECK(Store(h, "http://a.test/again", "h", MakeBody(kBody, 7)) == OK);
}

}  // namespace
}  // namespace netstack
