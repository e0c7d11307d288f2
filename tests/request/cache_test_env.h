// Scaffolding for HTTP cache tests: a RequestTestEnv whose context has an HttpCache over a
// MemoryBackend, a wall clock that advances with virtual time, and helpers that serve one
// response per scripted connection (each closes after its response, so which exchange used the
// network is plain from the connection records).
#ifndef TESTS_REQUEST_CACHE_TEST_ENV_H_
#define TESTS_REQUEST_CACHE_TEST_ENV_H_

#include <functional>
#include <memory>
#include <string>

#include "cache/memory_backend.h"
#include "net/base/clock.h"
#include "net/http/http_cache.h"
#include "net/http/http_date.h"
#include "net/http/http_response_info.h"
#include "tests/request/request_test_env.h"

namespace netstack::test {

struct CacheTestEnv : RequestTestEnv {
  // Tue, 14 Nov 2023 22:13:20 GMT at virtual time zero.
  static constexpr int64_t kOriginUnixSeconds = 1'700'000'000;

  // Lets a test put a decorator (fault injection) around the MemoryBackend.
  using WrapBackend =
      std::function<std::unique_ptr<CacheBackend>(std::unique_ptr<MemoryBackend> memory)>;

  explicit CacheTestEnv(CacheConfig cache_config = DefaultCacheConfig(),
                        HttpCache::Params params = HttpCache::Params(),
                        const WrapBackend& wrap = nullptr)
      : clock(scheduler, TimeFromUnixSeconds(kOriginUnixSeconds)) {
    auto memory = std::make_unique<MemoryBackend>(scheduler, clock, cache_config);
    backend = memory.get();
    std::unique_ptr<CacheBackend> used =
        wrap ? wrap(std::move(memory)) : std::unique_ptr<CacheBackend>(std::move(memory));
    // The backend needs this env's clock, made after the context: the context takes the cache
    // with ResetHttpCache (what the builder's EnableHttpCache does at Build).
    context->ResetHttpCache(std::move(used), clock, params);
    cache = context->http_cache();
    AddHost("a.test");
  }
  // The context (and its cache) goes before the clock it reads.
  ~CacheTestEnv() {
    context.reset();
    scheduler.RunUntilIdle();
  }

  static CacheConfig DefaultCacheConfig() {
    CacheConfig config;
    config.max_bytes = 0;  // MemoryBackend's default
    return config;
  }

  // Queues a connection that answers one request with `response` (raw bytes) 5 ms after it is
  // asked, then nothing more.
  FakeConnection* Serve(const std::string& response) {
    return factory->AddSocket({ScriptedRead::Data(response, IoMode::kAsync, Milliseconds(5))});
  }

  // "HTTP/1.1 <status>" with `headers` (CRLF-terminated lines), Connection: close and the body.
  static std::string CloseResponse(const std::string& status, const std::string& body,
                                   const std::string& headers = {}) {
    return Response(status, body, headers + "Connection: close\r\n");
  }

  // The wall time now, as an HTTP date `offset_s` seconds away.
  std::string DateIn(int64_t offset_s) const {
    return FormatHttpDate(clock.Now() + Seconds(offset_s));
  }

  // Runs GET `url` (with optional request headers) to completion.
  std::unique_ptr<UrlRequest> Get(const std::string& url, RecordingDelegate* delegate,
                                  const std::vector<std::string>& headers = {},
                                  const std::string& method = "GET") {
    UrlRequest::Params params = Params(url, method);
    for (const std::string& line : headers)
      REQUIRE(params.request.extra_headers.AddHeaderFromString(line));
    return Fetch(params, delegate);
  }

  // Lets virtual (and wall) time pass.
  void Advance(TimeDelta d) { scheduler.AdvanceBy(d); }

  // The stored response info for `key`, read straight from the backend (REQUIREs it exists).
  HttpResponseInfo StoredInfo(const std::string& key) {
    std::unique_ptr<CacheEntry> entry;
    int rv = backend->OpenEntry(key, &entry, [](int, std::unique_ptr<CacheEntry>) {});
    REQUIRE(rv == OK);
    HttpResponseInfo info;
    std::string error;
    bool parsed = HttpResponseInfo::Parse(entry->headers(), &info, &error);
    INFO(error);
    REQUIRE(parsed);
    return info;
  }

  // Stream 0 of `key` as stored (REQUIREs it exists): a response info or a Vary index.
  std::string StoredInfoBlob(const std::string& key) {
    std::unique_ptr<CacheEntry> entry;
    int rv = backend->OpenEntry(key, &entry, [](int, std::unique_ptr<CacheEntry>) {});
    REQUIRE(rv == OK);
    return entry->headers();
  }

  // Puts an entry into the backend directly and commits it.
  void PutEntry(const std::string& key, const std::string& stream0, const std::string& body) {
    std::unique_ptr<CacheEntry> entry = backend->CreateEntry(key);
    entry->WriteHeaders(stream0);
    if (!body.empty()) REQUIRE(entry->AppendBody(body.data(), static_cast<int>(body.size())) == OK);
    int result = ERR_IO_PENDING;
    entry->Commit([&result](int rv) { result = rv; });
    entry.reset();
    scheduler.RunUntilIdle();
    REQUIRE(result == OK);
  }

  SchedulerClock clock;
  MemoryBackend* backend = nullptr;  // owned by the cache (possibly through a decorator)
  HttpCache* cache = nullptr;        // owned by the context
};

// The value of `name` in the request head written first on `conn` (empty when absent).
inline std::string SentHeader(const FakeConnection* conn, const std::string& name) {
  const std::string& written = conn->script->written();
  std::string head = written.substr(0, written.find("\r\n\r\n") + 2);
  std::string needle = "\r\n" + name + ": ";
  size_t pos = head.find(needle);
  if (pos == std::string::npos) return {};
  size_t start = pos + needle.size();
  return head.substr(start, head.find("\r\n", start) - start);
}

}  // namespace netstack::test

#endif  // TESTS_REQUEST_CACHE_TEST_ENV_H_
