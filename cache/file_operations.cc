#include "cache/file_operations.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "net/base/net_error.h"

namespace netstack {

int PosixFileOperations::CreateForWrite(const std::string& path) {
  int fd;
  do {
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  } while (fd < 0 && errno == EINTR);
  return fd < 0 ? -errno : fd;
}

int PosixFileOperations::Write(int fd, const char* data, size_t len) {
  while (len > 0) {
    ssize_t n = ::write(fd, data, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    data += n;
    len -= static_cast<size_t>(n);
  }
  return 0;
}

int PosixFileOperations::Close(int fd) { return ::close(fd) == 0 ? 0 : -errno; }

int PosixFileOperations::Rename(const std::string& from, const std::string& to) {
  return std::rename(from.c_str(), to.c_str()) == 0 ? 0 : -errno;
}

int PosixFileOperations::Remove(const std::string& path) {
  return ::unlink(path.c_str()) == 0 ? 0 : -errno;
}

int FileErrorToNetError(int negative_errno) {
  if (negative_errno == -ENOSPC || negative_errno == -EDQUOT) return ERR_FILE_NO_SPACE;
  return ERR_CACHE_WRITE_FAILURE;
}

}  // namespace netstack
