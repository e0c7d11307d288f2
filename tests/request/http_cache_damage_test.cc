// The HTTP cache facing a backend whose stored bodies fail to read (a decorator around the
// MemoryBackend injects ERR_CACHE_READ_FAILURE): before any byte was handed out the entry is
// doomed and the hop goes to the network; later, the request fails with the error.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "tests/request/cache_test_env.h"

namespace netstack::test {
namespace {

constexpr char kUrl[] = "http://a.test/damaged";

// Reads at or past `fail_at` fail with `error` (and doom the entry, as backends do).
struct ReadFault {
  int64_t fail_at = -1;  // -1: no fault
  int error = ERR_CACHE_READ_FAILURE;
};

class FaultyEntry : public CacheEntry {
 public:
  FaultyEntry(std::unique_ptr<CacheEntry> inner, const ReadFault* fault)
      : inner_(std::move(inner)), fault_(fault) {}
  const std::string& key() const override { return inner_->key(); }
  const std::string& headers() const override { return inner_->headers(); }
  void WriteHeaders(std::string headers) override { inner_->WriteHeaders(std::move(headers)); }
  int64_t body_size() const override { return inner_->body_size(); }
  int ReadBody(int64_t offset, char* buf, int len, CompletionCallback callback) override {
    if (fault_->fail_at >= 0) {
      if (offset >= fault_->fail_at) {
        inner_->Doom();
        return fault_->error;
      }
      len = static_cast<int>(std::min<int64_t>(len, fault_->fail_at - offset));
    }
    return inner_->ReadBody(offset, buf, len, std::move(callback));
  }
  int AppendBody(const char* data, int len) override { return inner_->AppendBody(data, len); }
  void Commit(CompletionCallback callback) override { inner_->Commit(std::move(callback)); }
  void Doom() override { inner_->Doom(); }

 private:
  std::unique_ptr<CacheEntry> inner_;
  const ReadFault* fault_;
};

class FaultyBackend : public CacheBackend {
 public:
  FaultyBackend(std::unique_ptr<CacheBackend> inner, const ReadFault* fault)
      : inner_(std::move(inner)), fault_(fault) {}
  int OpenEntry(const std::string& key, std::unique_ptr<CacheEntry>* entry,
                EntryCallback callback) override {
    // MemoryBackend opens synchronously; the decorator relies on it.
    std::unique_ptr<CacheEntry> inner;
    int rv = inner_->OpenEntry(key, &inner, std::move(callback));
    REQUIRE(rv != ERR_IO_PENDING);
    if (rv == OK) *entry = std::make_unique<FaultyEntry>(std::move(inner), fault_);
    return rv;
  }
  int PeekEntry(const std::string& key, std::unique_ptr<CacheEntry>* entry,
                EntryCallback callback) override {
    return inner_->PeekEntry(key, entry, std::move(callback));
  }
  std::unique_ptr<CacheEntry> CreateEntry(const std::string& key) override {
    return inner_->CreateEntry(key);
  }
  void DoomEntry(const std::string& key) override { inner_->DoomEntry(key); }
  void DoomAllEntries(CompletionCallback callback) override {
    inner_->DoomAllEntries(std::move(callback));
  }
  void DoomEntriesBetween(Time begin, Time end, CompletionCallback callback) override {
    inner_->DoomEntriesBetween(begin, end, std::move(callback));
  }
  bool GetEntryInfo(const std::string& key, CacheEntryInfo* info) const override {
    return inner_->GetEntryInfo(key, info);
  }
  std::vector<CacheEntryInfo> EnumerateEntries() const override {
    return inner_->EnumerateEntries();
  }
  int64_t GetEntryCount() const override { return inner_->GetEntryCount(); }
  int64_t GetSizeOfAllEntries() const override { return inner_->GetSizeOfAllEntries(); }
  CacheStats GetStats() const override { return inner_->GetStats(); }
  void Flush(CompletionCallback callback) override { inner_->Flush(std::move(callback)); }
  size_t EstimateMemoryUsage() const override { return inner_->EstimateMemoryUsage(); }

 private:
  std::unique_ptr<CacheBackend> inner_;
  const ReadFault* fault_;
};

CacheTestEnv::WrapBackend Faulty(const ReadFault* fault) {
  return [fault](std::unique_ptr<MemoryBackend> memory) -> std::unique_ptr<CacheBackend> {
    return std::make_unique<FaultyBackend>(std::move(memory), fault);
  };
}

TEST_CASE("cache: a stored body unreadable from the start is doomed, the network answers",
          "[cache][damage]") {
  ReadFault fault;
  CacheTestEnv env(CacheTestEnv::DefaultCacheConfig(), HttpCache::Params(), Faulty(&fault));
  env.Serve(CacheTestEnv::CloseResponse("200 OK", "first copy", "Cache-Control: max-age=600\r\n"));
  RecordingDelegate d1;
  env.Get(kUrl, &d1);
  REQUIRE(d1.result == OK);
  env.scheduler.RunUntilIdle();
  REQUIRE(env.backend->GetEntryCount() == 1);

  fault.fail_at = 0;
  env.Serve(CacheTestEnv::CloseResponse("200 OK", "second copy", "Cache-Control: max-age=600\r\n"));
  RecordingDelegate d2;
  auto r2 = env.Get(kUrl, &d2);
  CHECK(d2.result == OK);
  CHECK(d2.data == "second copy");
  CHECK(d2.events == std::vector<std::string>{"started", "data", "complete"});
  CHECK(r2->cache_disposition() == CacheDisposition::kMiss);
  uint32_t source = r2->net_log().source().id;
  CHECK(env.recorder.Count(NetLogEventType::HTTP_CACHE_DOOM_ENTRY, source) == 1);
  auto reads = env.recorder.Get(NetLogEventType::HTTP_CACHE_READ_DATA, source);
  REQUIRE(reads.size() == 1);
  CHECK(reads[0].params["net_error"] == ERR_CACHE_READ_FAILURE);

  // The replacement was stored; once the fault is gone it is a hit.
  fault.fail_at = -1;
  env.scheduler.RunUntilIdle();
  RecordingDelegate d3;
  auto r3 = env.Get(kUrl, &d3);
  CHECK(r3->cache_disposition() == CacheDisposition::kHit);
  CHECK(d3.data == "second copy");

  SECTION("only-if-cached does not go to the network") {
    fault.fail_at = 0;
    RecordingDelegate d4;
    auto r4 = env.Get(kUrl, &d4, {"Cache-Control: only-if-cached"});
    // The damaged entry is unusable: the cache's own 504 (RFC 9111 5.2.1.7).
    CHECK(d4.result == OK);
    REQUIRE(r4->response_headers());
    CHECK(r4->response_headers()->response_code() == 504);
  }
}

TEST_CASE("cache: a stored body failing after bytes were handed out fails the request",
          "[cache][damage]") {
  ReadFault fault;
  CacheTestEnv env(CacheTestEnv::DefaultCacheConfig(), HttpCache::Params(), Faulty(&fault));
  const std::string body(100 * 1024, 'z');  // several 32 KiB reads
  env.factory->AddSocket({ScriptedRead::Data(
      CacheTestEnv::CloseResponse("200 OK", body, "Cache-Control: max-age=600\r\n"), IoMode::kAsync,
      Milliseconds(5))});
  RecordingDelegate d1;
  env.Get(kUrl, &d1);
  REQUIRE(d1.data == body);
  env.scheduler.RunUntilIdle();

  fault.fail_at = 40 * 1024;
  const size_t sockets = env.factory->transport_sockets_created();
  RecordingDelegate d2;
  auto r2 = env.Get(kUrl, &d2);
  CHECK(d2.result == ERR_CACHE_READ_FAILURE);
  CHECK(d2.data == body.substr(0, 40 * 1024));
  CHECK(r2->cache_disposition() == CacheDisposition::kHit);
  CHECK(IsOneLine(r2->error_message()));
  CHECK(r2->error_message().find(kUrl) != std::string::npos);
  CHECK(env.factory->transport_sockets_created() == sockets);
  CHECK(env.backend->GetEntryCount() == 0);  // doomed
}

}  // namespace
}  // namespace netstack::test
