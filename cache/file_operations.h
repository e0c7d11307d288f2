// The seam between the disk backend and the file system for body files (like ninja's
// DiskInterface): creating, writing, renaming and removing them. The backend only writes body
// files through this interface, so a test can make writes fail (ENOSPC) without filling a disk.
// Reads of committed bodies use POSIX directly; they need no seam.
//
// Every method runs on the cache thread. Results are 0 (or an fd) on success, -errno on failure.
#ifndef CACHE_FILE_OPERATIONS_H_
#define CACHE_FILE_OPERATIONS_H_

#include <cstddef>
#include <string>

namespace netstack {

class FileOperations {
 public:
  virtual ~FileOperations() = default;
  // Creates (or truncates) `path` for writing; an fd >= 0, or -errno.
  virtual int CreateForWrite(const std::string& path) = 0;
  // Writes all `len` bytes (retrying short writes); 0 or -errno (-ENOSPC on a full disk).
  virtual int Write(int fd, const char* data, size_t len) = 0;
  // Closes `fd`; 0 or -errno (a delayed write error can surface here).
  virtual int Close(int fd) = 0;
  // Atomically renames `from` to `to`, replacing `to`; 0 or -errno.
  virtual int Rename(const std::string& from, const std::string& to) = 0;
  // Removes `path`; 0 or -errno (-ENOENT if it was not there).
  virtual int Remove(const std::string& path) = 0;
};

// The real file system.
class PosixFileOperations : public FileOperations {
 public:
  int CreateForWrite(const std::string& path) override;
  int Write(int fd, const char* data, size_t len) override;
  int Close(int fd) override;
  int Rename(const std::string& from, const std::string& to) override;
  int Remove(const std::string& path) override;
};

// -errno from a FileOperations call as a net error: ERR_FILE_NO_SPACE for ENOSPC (and EDQUOT),
// ERR_CACHE_WRITE_FAILURE otherwise.
int FileErrorToNetError(int negative_errno);

}  // namespace netstack

#endif  // CACHE_FILE_OPERATIONS_H_
