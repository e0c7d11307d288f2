#include "tools/netstack/profile.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace netstack {
namespace {

// What makes a directory a profile for Open(create=false): the cache's database (only a fetch
// creates it).
constexpr char kProfileMarker[] = "cache/index.db";

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// mkdir -p with mode 0700 for every component it creates (a profile holds what the user
// fetched: private by default, as XDG asks of $XDG_CACHE_HOME). False with errno set.
bool MakeDirectories(const std::string& path) {
  for (size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos != path.size() && path[pos] != '/') continue;
    std::string prefix = path.substr(0, pos);
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  if (!IsDirectory(path)) {
    errno = ENOTDIR;
    return false;
  }
  return true;
}

}  // namespace

std::string DefaultProfileDir(const std::function<const char*(const char*)>& getenv) {
  const char* xdg = getenv("XDG_CACHE_HOME");
  // The XDG spec: a relative value is invalid and must be ignored.
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/netstack";
  const char* home = getenv("HOME");
  if (home && home[0] == '/') return std::string(home) + "/.cache/netstack";
  return "";
}

Profile::Status Profile::Open(const std::string& dir, bool create,
                              std::unique_ptr<Profile>* profile, std::string* message) {
  if (dir.empty()) {
    *message = "the profile directory is an empty path";
    return Status::kUnusable;
  }
  // Absolute, so messages and `cache stats` name it unambiguously.
  std::error_code ec;
  std::string path = std::filesystem::absolute(dir, ec).lexically_normal().string();
  if (ec) path = dir;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) {
      *message = "cannot use profile " + path + ": " + std::strerror(errno);
      return Status::kUnusable;
    }
    if (!create) {
      *message = "no netstack profile at " + path + " (nothing has been cached there)";
      return Status::kMissing;
    }
  } else if (!S_ISDIR(st.st_mode)) {
    *message = "cannot use profile " + path + ": not a directory";
    return Status::kUnusable;
  } else if (!create && ::stat((path + "/" + kProfileMarker).c_str(), &st) != 0) {
    // An existing directory that no fetch ever filled (a typo, a wrong --profile): looking
    // must not turn it into a profile, so neither the lock nor the cache is created in it.
    *message = "no netstack profile at " + path + " (nothing has been cached there)";
    return Status::kMissing;
  }
  if (create && !MakeDirectories(path + "/cache")) {
    *message = "cannot create profile " + path + ": " + std::strerror(errno);
    return Status::kUnusable;
  }
  const std::string lock_path = path + "/lock";
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    *message =
        "cannot use profile " + path + ": cannot open " + lock_path + ": " + std::strerror(errno);
    return Status::kUnusable;
  }
  // flock locks belong to the open file description, so a second Profile on the same directory
  // in this process is refused too, exactly like another process.
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) {
      *message = "profile " + path + " is in use by another netstack";
      return Status::kInUse;
    }
    *message = "cannot lock profile " + path + ": " + std::strerror(err);
    return Status::kUnusable;
  }
  // Writable? A read-only profile would fail every cache write later; better say so now.
  if (::access(path.c_str(), W_OK) != 0 ||
      (IsDirectory(path + "/cache") && ::access((path + "/cache").c_str(), W_OK) != 0)) {
    int err = errno;
    ::close(fd);
    *message = "cannot use profile " + path + ": " + std::strerror(err);
    return Status::kUnusable;
  }
  profile->reset(new Profile(path, fd));
  return Status::kOk;
}

Profile::~Profile() { ::close(lock_fd_); }

}  // namespace netstack
