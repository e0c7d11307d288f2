#include "tests/support/temp_dir.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace netstack::test {

TempDir::TempDir(const std::string& prefix) {
  const char* base = std::getenv("TMPDIR");
  std::error_code ec;
  std::string dir = base && *base ? base : std::filesystem::temp_directory_path(ec).string();
  if (dir.empty()) dir = "/tmp";
  std::string pattern = dir + "/netstack-" + prefix + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) return;
  path_ = pattern;
  ::chmod(path_.c_str(), 0755);
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  if (std::getenv("NETSTACK_KEEP_TEST_DIRS")) {
    std::fprintf(stderr, "kept test dir %s\n", path_.c_str());
    return;
  }
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::Write(const std::string& name, const std::string& contents) const {
  const std::filesystem::path file = std::filesystem::path(path_) / name;
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  WriteStringToFile(file.string(), contents);
  return file.string();
}

bool ReadFileToString(const std::string& path, std::string* out, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->clear();
  char buf[65536];
  while (in && out->size() < max_bytes) {
    in.read(buf, sizeof(buf));
    out->append(buf, static_cast<size_t>(in.gcount()));
  }
  if (out->size() > max_bytes) out->resize(max_bytes);
  return true;
}

bool WriteStringToFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return false;
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  out.close();
  return static_cast<bool>(out);
}

}  // namespace netstack::test
