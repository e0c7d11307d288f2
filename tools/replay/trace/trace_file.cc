#include "tools/replay/trace/trace_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace netstack {

namespace {

bool ReadBounded(const std::string& path, uint64_t max_bytes, bool whole, std::string* out,
                 std::string* error) {
  out->clear();
  uint64_t size = 0;
  int fd = OpenTraceFile(path, whole ? max_bytes : UINT64_MAX, &size, error);
  if (fd < 0) return false;
  uint64_t want = whole ? size : max_bytes;
  out->reserve(static_cast<size_t>(std::min<uint64_t>(want, max_bytes)));
  char buffer[65536];
  while (out->size() < max_bytes || whole) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      *error = std::string("cannot read: ") + std::strerror(errno);
      ::close(fd);
      return false;
    }
    if (n == 0) break;
    out->append(buffer, static_cast<size_t>(n));
    if (out->size() > max_bytes) {
      if (!whole) {
        out->resize(static_cast<size_t>(max_bytes));
        break;
      }
      // The file grew while being read.
      ::close(fd);
      *error = "larger than the limit of " + FormatByteLimit(max_bytes);
      return false;
    }
  }
  ::close(fd);
  return true;
}

}  // namespace

int OpenTraceFile(const std::string& path, uint64_t max_bytes, uint64_t* size, std::string* error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    *error = std::string("cannot open: ") + std::strerror(errno);
    return -1;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    *error = std::string("cannot stat: ") + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    *error = S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file";
    return -1;
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    *error = "larger than the limit of " + FormatByteLimit(max_bytes);
    return -1;
  }
  *size = static_cast<uint64_t>(st.st_size);
  return fd;
}

bool ReadTraceFile(const std::string& path, uint64_t max_bytes, std::string* out,
                   std::string* error) {
  return ReadBounded(path, max_bytes, true, out, error);
}

bool ReadTraceFilePrefix(const std::string& path, uint64_t max_bytes, std::string* out,
                         std::string* error) {
  return ReadBounded(path, max_bytes, false, out, error);
}

std::string TraceDirName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string TraceJoinPath(const std::string& base_dir, const std::string& relative) {
  if (!relative.empty() && relative[0] == '/') return relative;
  if (base_dir.empty() || base_dir == ".") return relative;
  if (base_dir.back() == '/') return base_dir + relative;
  return base_dir + "/" + relative;
}

std::string FormatByteLimit(uint64_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) {
    return std::to_string(bytes >> 20) + " MiB";
  }
  return std::to_string(bytes) + " bytes";
}

}  // namespace netstack
