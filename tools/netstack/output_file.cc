#include "tools/netstack/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace netstack {
namespace {

std::string Errno() { return std::strerror(errno); }

// The directory part of `path` ("." when it has none) and its last component.
void SplitPath(const std::string& path, std::string* dir, std::string* name) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) {
    *dir = ".";
    *name = path;
  } else {
    *dir = slash == 0 ? "/" : path.substr(0, slash);
    *name = path.substr(slash + 1);
  }
}

// The permission bits a new file gets from open(2) with mode 0666 under the process's umask.
mode_t NewFileMode() {
  mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

}  // namespace

OutputFile::~OutputFile() { Abandon(); }

bool OutputFile::Open(const std::string& path, std::string* error) {
  Abandon();
  path_ = path;
  temp_path_.clear();
  if (path == "-") {
    file_ = stdout;
    return true;
  }
  if (path.empty() || path.back() == '/') {
    *error = "cannot write '" + path + "': not a file name";
    return false;
  }
  struct stat st;
  bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    // A device, a FIFO: written in place, never removed (nor is a directory opened).
    if (S_ISDIR(st.st_mode)) {
      *error = "cannot write " + path + ": Is a directory";
      return false;
    }
    file_ = std::fopen(path.c_str(), "wb");
    if (!file_) {
      *error = "cannot write " + path + ": " + Errno();
      return false;
    }
    return true;
  }
  // A symbolic link to a file: replace the file, not the link.
  struct stat lst;
  if (exists && ::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved)) path_ = resolved;
  }
  std::string dir, name;
  SplitPath(path_, &dir, &name);
  std::string temp = dir + "/." + name + ".XXXXXX";
  int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    if (!exists) {
      // Nothing to keep safe, and nowhere to write: the directory is the problem.
      *error = "cannot write " + path + ": " + Errno();
      return false;
    }
    // The directory takes no new files but the file may be writable: write it in place.
    file_ = std::fopen(path_.c_str(), "wb");
    if (!file_) {
      *error = "cannot write " + path + ": " + Errno();
      return false;
    }
    return true;
  }
  ::fchmod(fd, exists ? (st.st_mode & 07777) : NewFileMode());
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    *error = "cannot write " + path + ": " + Errno();
    ::close(fd);
    ::unlink(temp.c_str());
    return false;
  }
  temp_path_ = temp;
  return true;
}

bool OutputFile::Commit(std::string* error) {
  if (!file_) {
    *error = "no output open";
    return false;
  }
  if (file_ == stdout) {
    file_ = nullptr;
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
      *error = "write error: " + Errno();
      return false;
    }
    return true;
  }
  bool ok = std::fflush(file_) == 0 && !std::ferror(file_);
  int saved = errno;
  if (std::fclose(file_) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  file_ = nullptr;
  if (!ok) {
    *error = std::string("write error: ") + std::strerror(saved);
    Abandon();
    return false;
  }
  if (!temp_path_.empty()) {
    if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
      *error = "cannot replace " + path_ + ": " + Errno();
      Abandon();
      return false;
    }
    temp_path_.clear();
  }
  return true;
}

void OutputFile::Abandon() {
  if (file_ && file_ != stdout) std::fclose(file_);
  file_ = nullptr;
  // Only the temporary this object created is ever removed.
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
  temp_path_.clear();
}

}  // namespace netstack
