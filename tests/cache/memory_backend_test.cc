#include "cache/memory_backend.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "net/base/virtual_scheduler.h"

namespace netstack {
namespace {

TEST_CASE("MemoryBackend defaults to 10 MiB and reports itself", "[cache]") {
  VirtualScheduler scheduler;
  ManualClock clock;
  CacheConfig config;
  config.max_bytes = 0;
  MemoryBackend backend(scheduler, clock, config);
  CacheStats stats = backend.GetStats();
  CHECK(stats.max_bytes == 10 * 1024 * 1024);
  CHECK(stats.type == "memory");
  CHECK(stats.path.empty());
  CHECK(stats.ToJson()["eviction"] == "lru");
}

TEST_CASE("MemoryBackend opens synchronously and posts its callbacks", "[cache]") {
  VirtualScheduler scheduler;
  ManualClock clock;
  MemoryBackend backend(scheduler, clock, CacheConfig{});
  auto created = backend.CreateEntry("k");
  created->WriteHeaders("h");
  REQUIRE(created->AppendBody("body", 4) == OK);
  CHECK(backend.GetStats().pending_write_bytes == 5);
  int commit_result = 1;
  created->Commit([&](int r) { commit_result = r; });
  CHECK(commit_result == 1);
  CHECK(backend.GetStats().pending_write_bytes == 0);
  CHECK(scheduler.RunUntilIdle() == 1);
  CHECK(commit_result == OK);

  std::unique_ptr<CacheEntry> entry;
  REQUIRE(backend.OpenEntry("k", &entry, nullptr) == OK);
  char buf[8];
  CHECK(entry->ReadBody(0, buf, 8, nullptr) == 4);
  CHECK(std::string(buf, 4) == "body");
  CHECK(entry->ReadBody(4, buf, 8, nullptr) == 0);
  CHECK(entry->ReadBody(2, buf, 1, nullptr) == 1);
  CHECK(buf[0] == 'd');

  bool flushed = false, doomed = false;
  backend.Flush([&](int) { flushed = true; });
  backend.DoomAllEntries([&](int) { doomed = true; });
  CHECK_FALSE(flushed);
  CHECK_FALSE(doomed);
  scheduler.RunUntilIdle();
  CHECK(flushed);
  CHECK(doomed);
}

// Appends that overflow a chunk's room start a new chunk instead of growing it: the body must
// read back byte for byte across every boundary, whatever the mix of sizes.
TEST_CASE("MemoryBackend reads back a body appended in mixed sizes at every offset", "[cache]") {
  VirtualScheduler scheduler;
  ManualClock clock;
  MemoryBackend backend(scheduler, clock, CacheConfig{});
  std::string body;
  for (size_t i = 0; body.size() < 200 * 1024; ++i) {
    const size_t sizes[] = {1, 10, 5000, 16384, 3, 40000, 700, 16383, 2};
    const size_t n = sizes[i % 9];
    for (size_t j = 0; j < n; ++j) body.push_back(static_cast<char>('a' + (body.size() * 7) % 26));
  }
  auto created = backend.CreateEntry("k");
  created->WriteHeaders("h");
  size_t at = 0;
  for (size_t i = 0; at < body.size(); ++i) {
    const size_t sizes[] = {1, 10, 5000, 16384, 3, 40000, 700, 16383, 2};
    const size_t n = std::min(sizes[i % 9], body.size() - at);
    REQUIRE(created->AppendBody(body.data() + at, static_cast<int>(n)) == OK);
    at += n;
  }
  created->Commit(nullptr);
  scheduler.RunUntilIdle();

  std::unique_ptr<CacheEntry> entry;
  REQUIRE(backend.OpenEntry("k", &entry, nullptr) == OK);
  CHECK(entry->body_size() == static_cast<int64_t>(body.size()));
  std::string buf(70000, '\0');
  for (size_t offset = 0; offset < body.size(); offset += 997) {
    const int len = static_cast<int>(std::min<size_t>(1 + offset % 69999, body.size() - offset));
    REQUIRE(entry->ReadBody(static_cast<int64_t>(offset), buf.data(), len, nullptr) == len);
    REQUIRE(buf.compare(0, static_cast<size_t>(len), body, offset, static_cast<size_t>(len)) == 0);
  }
}

// Runs of one byte (kept by count) between ordinary bytes, each kind cut anywhere by a read.
TEST_CASE("MemoryBackend reads back runs of one byte between other bytes at every offset",
          "[cache]") {
  VirtualScheduler scheduler;
  ManualClock clock;
  MemoryBackend backend(scheduler, clock, CacheConfig{});
  std::vector<std::string> pieces = {
      std::string(5000, 'x'),  "abc",
      std::string(100, 'x'),   std::string(63, 'y'),  // under the run minimum: bytes
      std::string(20000, 'z'), std::string(70, 'z'),
      std::string(4096, 'x')};
  std::string varied;
  for (int i = 0; i < 9000; ++i) varied.push_back(static_cast<char>('a' + i % 26));
  pieces.push_back(varied);
  pieces.push_back(std::string(64, '\0'));
  std::string body;
  auto created = backend.CreateEntry("k");
  created->WriteHeaders("h");
  for (const std::string& piece : pieces) {
    REQUIRE(created->AppendBody(piece.data(), static_cast<int>(piece.size())) == OK);
    body += piece;
  }
  created->Commit(nullptr);
  scheduler.RunUntilIdle();

  std::unique_ptr<CacheEntry> entry;
  REQUIRE(backend.OpenEntry("k", &entry, nullptr) == OK);
  CHECK(entry->body_size() == static_cast<int64_t>(body.size()));
  std::string buf(body.size(), '\0');
  for (size_t offset = 0; offset < body.size(); offset += 331) {
    const int len = static_cast<int>(std::min<size_t>(1 + offset % 12000, body.size() - offset));
    REQUIRE(entry->ReadBody(static_cast<int64_t>(offset), buf.data(), len, nullptr) == len);
    REQUIRE(buf.compare(0, static_cast<size_t>(len), body, offset, static_cast<size_t>(len)) == 0);
  }
}

TEST_CASE("MemoryBackend drops callbacks not yet run when destroyed", "[cache]") {
  VirtualScheduler scheduler;
  ManualClock clock;
  bool ran = false;
  {
    MemoryBackend backend(scheduler, clock, CacheConfig{});
    backend.Flush([&](int) { ran = true; });
  }
  scheduler.RunUntilIdle();
  CHECK_FALSE(ran);
}

}  // namespace
}  // namespace netstack
