// The HTTP cache over the real DiskBackend (its cache thread, sqlite and body files in a temp
// directory), through UrlRequest on virtual time. The MemoryBackend tests elsewhere open and read
// synchronously; these exercise the asynchronous open and body reads of HttpCacheTransaction, a
// backend reopened as a new process would, and damaged body files.
//
// Pumping: the cache thread's completions arrive through a poster the test drains. A barrier
// (Flush, whose completion follows every read and write queued before it) tells "nothing is in
// flight on the cache thread" apart from "waiting for virtual time", without sleeping.
#include <catch2/catch.hpp>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>

#include "cache/disk_backend.h"
#include "net/base/cross_thread_poster.h"
#include "net/http/http_cache.h"
#include "tests/request/cache_test_env.h"

namespace netstack::test {
namespace {

constexpr char kUrl[] = "http://a.test/big";

// Completions from the cache thread, run on the test thread when it asks.
class PumpedPoster : public CrossThreadPoster {
 public:
  void PostToLoop(std::function<void()> task) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    cv_.notify_all();
  }
  // Waits for one task (20 s at most, so a bug fails rather than hangs) and runs it.
  bool RunOne() {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!cv_.wait_for(lock, std::chrono::seconds(20), [&] { return !tasks_.empty(); }))
        return false;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
    return true;
  }
  void DropAll() {
    std::deque<std::function<void()>> dropped;
    std::lock_guard<std::mutex> lock(mutex_);
    dropped.swap(tasks_);
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
};

struct DiskCacheEnv : RequestTestEnv {
  DiskCacheEnv() : clock(scheduler, TimeFromUnixSeconds(CacheTestEnv::kOriginUnixSeconds)) {
    std::string templ =
        (std::filesystem::temp_directory_path() / "netstack-httpdisk-XXXXXX").string();
    REQUIRE(::mkdtemp(templ.data()) != nullptr);
    dir = templ;
    AddHost("a.test");
    OpenCache();
  }
  ~DiskCacheEnv() {
    context.reset();  // the cache (and its backend, joined) before the poster and the clock
    poster.DropAll();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }

  // A new backend on the same directory, as a new process would open it.
  void OpenCache() {
    context->RemoveHttpCache();  // the previous backend finishes its writes and exits
    poster.DropAll();
    DiskBackend::Params params;
    params.directory = dir + "/cache";
    params.clock = &clock;
    params.poster = &poster;
    std::optional<int> result;
    std::unique_ptr<DiskBackend> opened;
    DiskBackend::Create(params, [&](int rv, std::unique_ptr<DiskBackend> b, std::string) {
      result = rv;
      opened = std::move(b);
    });
    while (!result) REQUIRE(poster.RunOne());
    REQUIRE(*result == OK);
    backend = opened.get();
    context->ResetHttpCache(std::move(opened), clock);
  }

  // Returns once everything queued on the cache thread so far completed; the tasks run.
  int Barrier() {
    bool flushed = false;
    backend->Flush([&flushed](int) { flushed = true; });
    int ran = 0;
    while (!flushed) {
      REQUIRE(poster.RunOne());
      ++ran;
    }
    return ran;
  }

  // scheduler.RunUntil, also waiting for the cache thread before virtual time moves: until
  // `done`, the cache thread's completions run (and what they post for now) for as long as
  // there are any besides the barrier's own.
  bool RunDiskUntil(const std::function<bool()>& done) {
    return scheduler.RunUntil([&] {
      while (!done()) {
        if (Barrier() <= 1) return false;  // nothing in flight: time may move
        scheduler.RunUntilIdle();
      }
      return true;
    });
  }

  std::unique_ptr<UrlRequest> Get(RecordingDelegate* delegate, const std::string& url = kUrl) {
    auto request = MakeRequest(Params(url), delegate);
    delegate->Start(request.get());
    CHECK(RunDiskUntil([delegate] { return delegate->completions > 0; }));
    Barrier();  // commits land
    return request;
  }

  // The one committed body file.
  std::string BodyFile() {
    std::string found;
    for (const auto& e : std::filesystem::directory_iterator(dir + "/cache/bodies")) {
      std::string name = e.path().filename().string();
      if (name.rfind("tmp-", 0) == 0) continue;
      REQUIRE(found.empty());
      found = e.path().string();
    }
    REQUIRE(!found.empty());
    return found;
  }

  std::string dir;
  SchedulerClock clock;
  PumpedPoster poster;
  DiskBackend* backend = nullptr;  // owned by the context's HttpCache
};

// 100 KB that a shifted copy would not match: larger than the inline limit and the prefetch,
// so it is read from its file in several chunks.
std::string BigBody() {
  std::string body(100'000, '\0');
  uint32_t x = 12345;
  for (char& c : body) {
    x = x * 1103515245 + 12345;
    c = static_cast<char>('a' + (x >> 16) % 26);
  }
  return body;
}

void ServeBig(DiskCacheEnv& env, const std::string& body, const std::string& headers) {
  env.factory->AddSocket({ScriptedRead::Data(CacheTestEnv::CloseResponse("200 OK", body, headers),
                                             IoMode::kAsync, Milliseconds(5))});
}

TEST_CASE("cache on disk: a new backend serves stored responses without the network",
          "[cache][disk]") {
  DiskCacheEnv env;
  const std::string big = BigBody();
  ServeBig(env, big, "Cache-Control: max-age=600\r\n");
  env.factory->AddSocket({ScriptedRead::Data(
      CacheTestEnv::CloseResponse("200 OK", "small", "Cache-Control: max-age=600\r\n"),
      IoMode::kAsync, Milliseconds(5))});
  {
    RecordingDelegate d1, d2;
    auto r1 = env.Get(&d1);
    auto r2 = env.Get(&d2, "http://a.test/small");
    REQUIRE(d1.result == OK);
    REQUIRE(d2.result == OK);
    CHECK(r1->cache_disposition() == CacheDisposition::kMiss);
    CHECK(env.backend->GetEntryCount() == 2);
  }
  env.OpenCache();
  REQUIRE(env.backend->GetEntryCount() == 2);
  // No socket is scripted any more: the network would fail these.
  RecordingDelegate d1, d2;
  auto r1 = env.Get(&d1);
  auto r2 = env.Get(&d2, "http://a.test/small");
  CHECK(d1.result == OK);
  CHECK(r1->cache_disposition() == CacheDisposition::kHit);
  CHECK(d1.data == big);
  CHECK(d2.result == OK);
  CHECK(r2->cache_disposition() == CacheDisposition::kHit);
  CHECK(d2.data == "small");
}

TEST_CASE("cache on disk: a 304 rewrites the stored headers, kept by the next backend",
          "[cache][disk]") {
  DiskCacheEnv env;
  const std::string big = BigBody();
  ServeBig(env, big, "Cache-Control: max-age=10\r\nETag: \"v1\"\r\n");
  {
    RecordingDelegate d;
    env.Get(&d);
    REQUIRE(d.result == OK);
  }
  env.scheduler.AdvanceBy(Seconds(20));
  env.factory->AddSocket({ScriptedRead::Data(
      CacheTestEnv::CloseResponse("304 Not Modified", "", "Cache-Control: max-age=1000\r\n"),
      IoMode::kAsync, Milliseconds(5))});
  {
    RecordingDelegate d;
    auto r = env.Get(&d);
    CHECK(d.result == OK);
    CHECK(r->cache_disposition() == CacheDisposition::kRevalidated);
    CHECK(d.data == big);
  }
  env.OpenCache();
  RecordingDelegate d;
  auto r = env.Get(&d);
  CHECK(d.result == OK);
  CHECK(r->cache_disposition() == CacheDisposition::kHit);  // max-age=1000 from the 304
  CHECK(d.data == big);
}

TEST_CASE("cache on disk: damaged body files", "[cache][disk]") {
  DiskCacheEnv env;
  const std::string big = BigBody();
  ServeBig(env, big, "Cache-Control: max-age=600\r\n");
  {
    RecordingDelegate d;
    env.Get(&d);
    REQUIRE(d.result == OK);
    REQUIRE(env.backend->GetEntryCount() == 1);
  }

  SECTION("a byte changed past the first chunk: bytes were handed out, then the request fails") {
    {
      std::fstream f(env.BodyFile(), std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(big.size() - 1));
      f.put(big.back() == 'x' ? 'y' : 'x');
    }
    RecordingDelegate d;
    auto r = env.Get(&d);
    // The checksum is only known at the end: what was delivered is a true prefix, and the
    // request fails rather than completing with a wrong body (documented in net/http/README.md).
    CHECK(d.result == ERR_CACHE_CHECKSUM_MISMATCH);
    CHECK(r->cache_disposition() == CacheDisposition::kHit);
    CHECK(!d.data.empty());
    CHECK(d.data.size() < big.size());
    CHECK(big.compare(0, d.data.size(), d.data) == 0);
    CHECK(env.backend->GetEntryCount() == 0);  // doomed
    CHECK(env.backend->GetStats().read_failures == 1);
  }
  SECTION("a truncated file is found at open: the network answers, the request succeeds") {
    std::filesystem::resize_file(env.BodyFile(), big.size() / 2);
    ServeBig(env, "fresh", "Cache-Control: max-age=600\r\n");
    RecordingDelegate d;
    auto r = env.Get(&d);
    CHECK(d.result == OK);
    CHECK(r->cache_disposition() == CacheDisposition::kMiss);
    CHECK(d.data == "fresh");
    CHECK(env.backend->GetStats().read_failures == 1);
    CHECK(env.backend->GetEntryCount() == 1);  // the new response replaced it
  }
  SECTION("a missing file is found at open: the network answers") {
    std::filesystem::remove(env.BodyFile());
    ServeBig(env, "fresh", "Cache-Control: max-age=600\r\n");
    RecordingDelegate d;
    auto r = env.Get(&d);
    CHECK(d.result == OK);
    CHECK(d.data == "fresh");
  }
}

}  // namespace
}  // namespace netstack::test
