// LiveStack, the live edge set: a real libuv loop, c-ares, OpenSSL and loopback sockets. A
// request goes to an in-process UvHttpServer on 127.0.0.1 (an IP literal: no DNS query), with
// and without an HTTP cache; bad settings. The loop runs until the request completes, with a
// hang guard that fails the test (never a timing assertion).
#include "net/http/live_stack.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "cache/memory_backend.h"
#include "net/http/url_request.h"
#include "net/server/uv_http_server.h"
#include "tests/support/live_loop.h"

namespace netstack {
namespace {

LiveStackOptions Options() {
  LiveStackOptions options;
  // Never asked (the URLs are IP literals), but named so no resolv.conf is needed.
  options.dns.servers = {*IPEndPoint::Parse("127.0.0.1:53")};
  options.dns.use_search_domains = false;
  return options;
}

class Delegate : public UrlRequest::Delegate {
 public:
  void OnReadData(UrlRequest*, const char* data, int len) override { body.append(data, len); }
  void OnComplete(UrlRequest*, int rv) override {
    done = true;
    result = rv;
  }
  bool done = false;
  int result = ERR_IO_PENDING;
  std::string body;
};

// A server on the stack's loop answering "hello", counting requests. (UvHttpServer, the internals
// page's server, marks every answer Cache-Control: no-store.)
struct Server {
  explicit Server(LiveStack* stack)
      : server(stack->loop(), [this](const HttpServerRequest&, UvHttpServer::Respond respond) {
          ++requests;
          HttpServerResponse response;
          response.content_type = "text/plain";
          response.body = "hello";
          respond(std::move(response));
        }) {
    std::string error;
    REQUIRE(server.Listen("127.0.0.1", 0, &error) == 0);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(server.port()) + "/"; }

  int requests = 0;
  UvHttpServer server;
};

// GETs `url` on the stack's context and runs the stack's loop until it completes (or a 30 s
// guard fails the test).
void Fetch(LiveStack* stack, const std::string& url, Delegate* d, CacheDisposition* disposition) {
  UrlRequest::Params params;
  std::string message;
  REQUIRE(Url::Parse(url, &params.request.url, &message) == OK);
  UrlRequest request(stack->context(), params, d);
  request.Start();
  REQUIRE(test::RunLoopUntil(
      stack->loop(), [d] { return d->done; }, std::chrono::seconds(30)));
  *disposition = request.cache_disposition();
}

TEST_CASE("live stack: a request over loopback, no cache", "[stack][live]") {
  std::string error;
  std::unique_ptr<LiveStack> stack = LiveStack::Create(Options(), &error);
  INFO(error);
  REQUIRE(stack);
  CHECK(stack->context() == nullptr);  // the edges first
  REQUIRE(stack->BuildContext(nullptr, &error));
  REQUIRE(stack->context() != nullptr);
  CHECK(stack->context()->http_cache() == nullptr);
  CHECK(stack->context()->net_log() == stack->net_log());

  auto server = std::make_unique<Server>(stack.get());
  Delegate d;
  CacheDisposition disposition = CacheDisposition::kHit;
  Fetch(stack.get(), server->url(), &d, &disposition);
  CHECK(d.result == OK);
  CHECK(d.body == "hello");
  CHECK(disposition == CacheDisposition::kBypass);
  CHECK(server->requests == 1);
  server.reset();  // its handles close in the stack's teardown
}

TEST_CASE("live stack: with a memory cache requests go through it", "[stack][live]") {
  std::string error;
  std::unique_ptr<LiveStack> stack = LiveStack::Create(Options(), &error);
  REQUIRE(stack);
  CacheConfig config;
  config.max_bytes = 0;
  REQUIRE(stack->BuildContext(
      std::make_unique<MemoryBackend>(stack->scheduler(), stack->clock(), config), &error));
  REQUIRE(stack->context()->http_cache() != nullptr);
  CHECK(&stack->context()->http_cache()->clock() == &stack->clock());

  auto server = std::make_unique<Server>(stack.get());
  Delegate first, second;
  CacheDisposition disposition = CacheDisposition::kBypass;
  Fetch(stack.get(), server->url(), &first, &disposition);
  CHECK(first.result == OK);
  CHECK(disposition == CacheDisposition::kMiss);  // looked up (not "bypass"), from the network
  // The answer said no-store: nothing kept, the next request goes to the server again.
  CHECK(stack->context()->http_cache()->backend()->GetStats().entry_count == 0);
  Fetch(stack.get(), server->url(), &second, &disposition);
  CHECK(second.result == OK);
  CHECK(second.body == "hello");
  CHECK(disposition == CacheDisposition::kMiss);
  CHECK(server->requests == 2);
  server.reset();
}

TEST_CASE("live stack: bad settings give one-line errors", "[stack][live]") {
  std::string error;
  LiveStackOptions options = Options();
  options.ssl.ca_file = "/nonexistent/netstack-test-ca.pem";
  CHECK(LiveStack::Create(options, &error) == nullptr);
  CHECK_FALSE(error.empty());
  CHECK(error.find('\n') == std::string::npos);

  options = Options();
  options.context.pool.max_sockets = 0;
  std::unique_ptr<LiveStack> stack = LiveStack::Create(options, &error);
  REQUIRE(stack);  // the pool's settings are checked when the context is built
  CHECK_FALSE(stack->BuildContext(nullptr, &error));
  CHECK(error == "stack settings: max_sockets is 0 (at least 1)");
  CHECK(stack->context() == nullptr);
  CHECK_FALSE(stack->BuildContext(nullptr, &error));  // once
  CHECK(error.find('\n') == std::string::npos);
}

}  // namespace
}  // namespace netstack
