// HttpCache over the HttpTransactionFactory seam, without a context: a test factory below the
// cache hands out scripted transactions and records what the cache asked of it (bodies as
// received for what it may store, decoded for what it bypasses), so the cache's network side is
// checked on its own.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cache/memory_backend.h"
#include "net/base/clock.h"
#include "net/base/net_log.h"
#include "net/base/virtual_scheduler.h"
#include "net/http/http_cache.h"
#include "net/http/http_transaction_factory.h"
#include "tests/http/compression_test_util.h"

namespace netstack::test {
namespace {

// One hop answered from a script: Start completes at once with `head`'s headers; Read hands
// out the body in one piece, then 0. Records the request it was started with.
class ScriptedTransaction : public HttpTransaction {
 public:
  ScriptedTransaction(std::string head, std::string body, std::vector<HttpRequestInfo>* started)
      : head_(std::move(head)), body_(std::move(body)), started_(started) {}

  int Start(HttpRequestInfo info, CompletionCallback) override {
    started_->push_back(std::move(info));
    headers_ = HttpResponseHeaders::Parse(head_);
    return headers_ ? OK : ERR_INVALID_HTTP_RESPONSE;
  }
  int Read(char* buf, int len, CompletionCallback) override {
    size_t n = std::min(static_cast<size_t>(len), body_.size() - offset_);
    body_.copy(buf, n, offset_);
    offset_ += n;
    return static_cast<int>(n);
  }
  std::shared_ptr<const HttpResponseHeaders> response_headers() const override { return headers_; }
  LoadTimingInfo GetLoadTimingInfo() const override { return {}; }
  const ConnectionInfo& connection_info() const override { return connection_; }
  int64_t encoded_body_bytes() const override { return static_cast<int64_t>(offset_); }
  const std::string& error_detail() const override { return error_; }
  CacheDisposition cache_disposition() const override { return CacheDisposition::kBypass; }

 private:
  const std::string head_;
  const std::string body_;
  std::vector<HttpRequestInfo>* started_;
  std::shared_ptr<const HttpResponseHeaders> headers_;
  size_t offset_ = 0;
  ConnectionInfo connection_;
  std::string error_;
};

// The layer under the cache: every transaction answers `head` + `body`.
class ScriptedFactory : public HttpTransactionFactory {
 public:
  std::unique_ptr<HttpTransaction> CreateTransaction(RequestPriority priority,
                                                     const NetLogWithSource&,
                                                     bool decode_content) override {
    asked_decoded.push_back(decode_content);
    return std::make_unique<ScriptedTransaction>(head, body, &started);
  }
  std::string head;
  std::string body;
  std::vector<bool> asked_decoded;  // one per transaction made
  std::vector<HttpRequestInfo> started;
};

struct Env {
  Env() {
    CacheConfig config;
    config.max_bytes = 0;
    cache = std::make_unique<HttpCache>(&factory,
                                        std::make_unique<MemoryBackend>(scheduler, clock, config),
                                        scheduler, clock, &net_log);
  }

  // One hop through the cache, run to its end: OK and the body, or the error.
  int Run(const std::string& method, bool decode_content, std::string* body,
          CacheDisposition* disposition) {
    auto transaction = cache->CreateTransaction(MEDIUM, NetLogWithSource(), decode_content);
    HttpRequestInfo info;
    std::string message;
    REQUIRE(Url::Parse("http://a.test/x", &info.url, &message) == OK);
    info.method = method;
    int result = ERR_IO_PENDING;
    int rv = transaction->Start(std::move(info), [&result](int r) { result = r; });
    scheduler.RunUntilIdle();
    if (rv != ERR_IO_PENDING) result = rv;
    REQUIRE(result != ERR_IO_PENDING);
    if (result != OK) return result;
    char buf[4096];
    for (;;) {
      int n = ERR_IO_PENDING;
      rv = transaction->Read(buf, sizeof(buf), [&n](int r) { n = r; });
      scheduler.RunUntilIdle();
      if (rv != ERR_IO_PENDING) n = rv;
      REQUIRE(n != ERR_IO_PENDING);
      if (n < 0) return n;
      if (n == 0) break;
      body->append(buf, static_cast<size_t>(n));
    }
    *disposition = transaction->cache_disposition();
    return OK;
  }

  VirtualScheduler scheduler{TimeTicks(Seconds(1))};
  NetLog net_log{scheduler};
  SchedulerClock clock{scheduler, TimeFromUnixSeconds(1'700'000'000), TimeTicks(Seconds(1))};
  ScriptedFactory factory;
  std::unique_ptr<HttpCache> cache;
};

TEST_CASE("HttpCache asks the layer below for bodies as received and stores them",
          "[request][cache][factory]") {
  Env env;
  const std::string text = SampleBody(3000);
  env.factory.head =
      "HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nContent-Encoding: gzip\r\n\r\n";
  env.factory.body = Gzip(text);

  std::string body;
  CacheDisposition disposition = CacheDisposition::kBypass;
  REQUIRE(env.Run("GET", /*decode_content=*/true, &body, &disposition) == OK);
  CHECK(body == text);  // decoded by the cache
  CHECK(disposition == CacheDisposition::kMiss);
  REQUIRE(env.factory.asked_decoded == std::vector<bool>{false});
  CHECK(env.factory.started.at(0).url.spec() == "http://a.test/x");

  // Served from the entry: the layer below is not asked again.
  body.clear();
  REQUIRE(env.Run("GET", /*decode_content=*/true, &body, &disposition) == OK);
  CHECK(body == text);
  CHECK(disposition == CacheDisposition::kHit);
  CHECK(env.factory.asked_decoded.size() == 1);

  // A caller that wants the body as stored gets the encoded bytes.
  body.clear();
  REQUIRE(env.Run("GET", /*decode_content=*/false, &body, &disposition) == OK);
  CHECK(body == env.factory.body);
  CHECK(disposition == CacheDisposition::kHit);
}

TEST_CASE("HttpCache passes a bypassed hop's decoding choice to the layer below",
          "[request][cache][factory]") {
  Env env;
  env.factory.head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n";
  env.factory.body = "posted";
  std::string body;
  CacheDisposition disposition = CacheDisposition::kMiss;
  REQUIRE(env.Run("POST", /*decode_content=*/true, &body, &disposition) == OK);
  CHECK(body == "posted");
  CHECK(disposition == CacheDisposition::kBypass);
  REQUIRE(env.factory.started.size() == 1);
  CHECK(env.factory.started[0].method == "POST");
  CHECK(env.factory.asked_decoded == std::vector<bool>{true});
  body.clear();
  REQUIRE(env.Run("HEAD", /*decode_content=*/false, &body, &disposition) == OK);
  CHECK(env.factory.asked_decoded == std::vector<bool>{true, false});
}

}  // namespace
}  // namespace netstack::test
