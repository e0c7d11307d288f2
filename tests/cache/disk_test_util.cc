#include "tests/cache/disk_test_util.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace netstack {

int FailingFileOperations::Write(int fd, const char* data, size_t len) {
  if (fail_writes.load()) return -ENOSPC;
  return PosixFileOperations::Write(fd, data, len);
}

DiskSpace FakeDiskSpaceSource::Query(const std::string&) {
  queries++;
  DiskSpace space;
  space.free_bytes = free_bytes.load();
  space.total_bytes = total_bytes.load();
  return space;
}

DiskHarness::DiskHarness(const CacheConfig& config, const std::string* dir,
                         FileOperations* file_ops, DiskSpaceSource* disk_space)
    : config_(config), file_ops_(file_ops), disk_space_(disk_space) {
  if (!dir) {
    owned_dir_ = std::make_unique<TempDir>("cache");
    dir = &owned_dir_->path();
  }
  dir_ = dir;
  Open();
}

DiskHarness::~DiskHarness() { Close(); }

int DiskHarness::Open(std::string* message) {
  std::optional<int> result;
  DiskBackend::Params params;
  params.directory = *dir_ + "/cache";
  params.config = config_;
  params.clock = &clock_;
  params.poster = &poster_;
  params.file_ops = file_ops_;
  params.disk_space = disk_space_;
  DiskBackend::Create(params, [&](int rv, std::unique_ptr<DiskBackend> backend, std::string msg) {
    result = rv;
    backend_ = std::move(backend);
    message_ = std::move(msg);
  });
  if (!poster_.RunUntil([&] { return result.has_value(); })) return ERR_TIMED_OUT;
  if (message) *message = message_;
  return *result;
}

void DiskHarness::Close() {
  backend_.reset();
  poster_.RunPending();  // completions of the drained writes: dropped by their weak checks
}

bool DiskHarness::Reopen() {
  Close();
  return Open() == OK;
}

std::unique_ptr<BackendHarness> DiskBackendKind::Make(const CacheConfig& config) {
  auto harness = std::make_unique<DiskHarness>(config);
  REQUIRE(harness->disk() != nullptr);
  return harness;
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

}  // namespace netstack
