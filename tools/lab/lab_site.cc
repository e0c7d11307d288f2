#include "tools/lab/lab_site.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace netstack {
namespace {

bool IsLabelChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }

// The names in `dir` (without "." and ".."), or false with errno set.
bool ListDir(const std::string& dir, std::vector<std::string>* names, size_t limit,
             bool* over_limit) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return false;
  *over_limit = false;
  errno = 0;
  while (dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    if (names->size() >= limit) {
      *over_limit = true;
      break;
    }
    names->emplace_back(e->d_name);
  }
  const int saved = errno;
  ::closedir(d);
  errno = saved;
  return saved == 0;
}

// Checks every entry under `dir` (a host's folder or below) is a regular file or a folder.
bool CheckTree(const std::string& dir, int depth, size_t* entries, std::string* error) {
  if (depth > kLabSiteMaxDepth) {
    *error = dir + ": folders nested deeper than " + std::to_string(kLabSiteMaxDepth) +
             " levels below the host";
    return false;
  }
  std::vector<std::string> names;
  bool over = false;
  if (!ListDir(dir, &names, kLabSiteMaxFiles - *entries + 1, &over)) {
    *error = dir + ": cannot read the folder: " + std::strerror(errno);
    return false;
  }
  *entries += names.size();
  if (over || *entries > kLabSiteMaxFiles) {
    *error =
        dir + ": the site has more than " + std::to_string(kLabSiteMaxFiles) + " files and folders";
    return false;
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const std::string path = dir + "/" + name;
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) {
      *error = path + ": " + std::strerror(errno);
      return false;
    }
    if (S_ISDIR(st.st_mode)) {
      if (!CheckTree(path, depth + 1, entries, error)) return false;
    } else if (!S_ISREG(st.st_mode)) {
      *error = path + ": not a regular file or folder (" +
               (S_ISLNK(st.st_mode) ? "a symbolic link" : "a special file") + ")";
      return false;
    }
  }
  return true;
}

}  // namespace

bool IsValidLabHostName(const std::string& name) {
  if (name.empty() || name.size() > 253) return false;
  size_t start = 0;
  bool last_all_digits = false;
  while (start <= name.size()) {
    size_t end = name.find('.', start);
    if (end == std::string::npos) end = name.size();
    const size_t len = end - start;
    if (len == 0 || len > 63) return false;
    if (name[start] == '-' || name[end - 1] == '-') return false;
    last_all_digits = true;
    for (size_t i = start; i < end; ++i) {
      if (!IsLabelChar(name[i])) return false;
      if (name[i] < '0' || name[i] > '9') last_all_digits = false;
    }
    start = end + 1;
  }
  return !last_all_digits;
}

bool ReadLabSite(const std::string& site_dir, std::vector<std::string>* hosts, std::string* error) {
  hosts->clear();
  struct stat st;
  if (::stat(site_dir.c_str(), &st) != 0) {
    *error = "site folder " + site_dir + ": " + std::strerror(errno);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    *error = "site folder " + site_dir + ": not a folder";
    return false;
  }
  std::vector<std::string> names;
  bool over = false;
  if (!ListDir(site_dir, &names, kLabSiteMaxHosts, &over)) {
    *error = "site folder " + site_dir + ": cannot read it: " + std::strerror(errno);
    return false;
  }
  if (over) {
    *error =
        "site folder " + site_dir + ": more than " + std::to_string(kLabSiteMaxHosts) + " hosts";
    return false;
  }
  if (names.empty()) {
    *error = "site folder " + site_dir + ": no host folders in it (SITE/<host>/<path>)";
    return false;
  }
  std::sort(names.begin(), names.end());
  size_t entries = 0;
  for (const std::string& name : names) {
    const std::string path = site_dir + "/" + name;
    if (::lstat(path.c_str(), &st) != 0) {
      *error = path + ": " + std::strerror(errno);
      return false;
    }
    if (!S_ISDIR(st.st_mode)) {
      *error = path + ": not a folder (the site holds one folder per host: SITE/<host>/<path>)";
      return false;
    }
    if (!IsValidLabHostName(name)) {
      *error = path + ": the folder name is not a valid lowercase host name";
      return false;
    }
    if (!CheckTree(path, 0, &entries, error)) return false;
  }
  *hosts = std::move(names);
  return true;
}

bool WriteLabFile(const std::string& path, const std::string& content, std::string* error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) {
    *error = "cannot write " + path;
    return false;
  }
  return true;
}

}  // namespace netstack
