#include "cache/disk_space.h"

#include <sys/statvfs.h>

#include <limits>

namespace netstack {
namespace {

// blocks × block size, saturated rather than overflowed.
int64_t Bytes(uint64_t blocks, uint64_t block_size) {
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (block_size != 0 && blocks > kMax / block_size) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(blocks * block_size);
}

}  // namespace

DiskSpace StatvfsDiskSpaceSource::Query(const std::string& path) {
  struct statvfs st;
  if (::statvfs(path.c_str(), &st) != 0) return {};
  const uint64_t unit = st.f_frsize != 0 ? st.f_frsize : st.f_bsize;
  DiskSpace space;
  space.free_bytes = Bytes(st.f_bavail, unit);
  space.total_bytes = Bytes(st.f_blocks, unit);
  return space;
}

}  // namespace netstack
