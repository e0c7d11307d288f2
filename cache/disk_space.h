// How much room the cache's file system has, read through a seam (like ninja's DiskInterface)
// so tests can fake it: the disk backend asks on its cache thread, at open and then at a bounded
// rate (DiskBackend: every kSpaceCheckBytes committed or kSpaceCheckInterval), never per write.
// What the cache does with the answer is cache_size_policy.h's business.
#ifndef CACHE_DISK_SPACE_H_
#define CACHE_DISK_SPACE_H_

#include <cstdint>
#include <string>

namespace netstack {

// One reading of a file system's space. Negative values mean "unknown".
struct DiskSpace {
  int64_t free_bytes = -1;   // available to an unprivileged writer (statvfs f_bavail)
  int64_t total_bytes = -1;  // the file system's size
  bool known() const { return free_bytes >= 0 && total_bytes > 0; }
};

class DiskSpaceSource {
 public:
  virtual ~DiskSpaceSource() = default;
  // The space of the file system holding `path` (an existing directory), or an unknown
  // DiskSpace if it cannot be read. Called on the cache thread; must be thread-safe if shared.
  virtual DiskSpace Query(const std::string& path) = 0;
};

// The real file systems, through statvfs(2).
class StatvfsDiskSpaceSource : public DiskSpaceSource {
 public:
  DiskSpace Query(const std::string& path) override;
};

}  // namespace netstack

#endif  // CACHE_DISK_SPACE_H_
