// UrlRequestContextBuilder over fake edges (ScriptedDnsTransport, FakeClientSocketFactory) on
// virtual time (RequestTestEnv's scheduler, NetLog and helpers): what it builds (services, resolve
// overrides, the HTTP cache or none, the transaction factory UrlRequest uses) and the one-line
// errors of bad settings.
#include "net/http/url_request_context_builder.h"

#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <string>

#include "cache/memory_backend.h"
#include "net/base/clock.h"
#include "net/http/http_network_layer.h"
#include "net/http/url_request.h"
#include "tests/request/request_test_env.h"

namespace netstack::test {
namespace {

// A builder over new fakes on a RequestTestEnv's scheduler and NetLog (the env's own context
// is not used); its Fetch runs a request to completion on a context built here.
struct FakeEdges {
  FakeEdges() {
    auto dns_transport = std::make_unique<ScriptedDnsTransport>(env.scheduler);
    auto socket_factory = std::make_unique<FakeClientSocketFactory>(env.scheduler);
    socket_factory->set_default_rule(
        FakeConnectRule::After(Milliseconds(20), ERR_CONNECTION_REFUSED));
    dns = dns_transport.get();
    factory = socket_factory.get();
    builder.set_scheduler(&env.scheduler);
    builder.set_net_log(&env.net_log);
    builder.set_dns_transport(std::move(dns_transport));
    builder.set_socket_factory(std::move(socket_factory));
  }

  std::unique_ptr<UrlRequestContext> Build() {
    std::string error;
    std::unique_ptr<UrlRequestContext> context = builder.Build(&error);
    INFO(error);
    REQUIRE(context);
    return context;
  }

  // GET `url` on `context` until it completes; returns its cache disposition.
  CacheDisposition Fetch(UrlRequestContext* context, const std::string& url,
                         RecordingDelegate* delegate) {
    UrlRequest request(context, env.Params(url), delegate);
    delegate->Start(&request);
    REQUIRE(env.scheduler.RunUntil([delegate] { return delegate->completions > 0; }));
    return request.cache_disposition();
  }

  RequestTestEnv env;
  SchedulerClock clock{env.scheduler, TimeFromUnixSeconds(1'700'000'000)};
  ScriptedDnsTransport* dns = nullptr;
  FakeClientSocketFactory* factory = nullptr;
  UrlRequestContextBuilder builder;
};

// Gives a builder Chrome's config with one edit.
std::function<void(FakeEdges&)> WithConfig(std::function<void(UrlRequestContext::Config&)> edit) {
  return [edit](FakeEdges& e) {
    UrlRequestContext::Config config;
    edit(config);
    e.builder.set_config(config);
  };
}

TEST_CASE("builder: a context over fake edges, no cache: the network layer serves the request",
          "[stack][builder]") {
  FakeEdges e;
  WithConfig([](auto& c) { c.pool.max_sockets_per_group = 3; })(e);
  auto context = e.Build();
  CHECK(&context->scheduler() == &e.env.scheduler);
  CHECK(context->net_log() == &e.env.net_log);
  CHECK(context->host_resolver()->transport() == e.dns);
  CHECK(context->socket_pool()->params().max_sockets_per_group == 3);
  CHECK(context->http_cache() == nullptr);
  CHECK(dynamic_cast<HttpNetworkLayer*>(context->http_transaction_factory()) != nullptr);

  e.dns->SetAddresses("a.test", {"192.0.2.1"}, Seconds(60), Milliseconds(10));
  e.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "hello"), IoMode::kAsync)});
  RecordingDelegate d;
  CHECK(e.Fetch(context.get(), "http://a.test/", &d) == CacheDisposition::kBypass);
  CHECK(d.result == OK);
  CHECK(d.data == "hello");
  CHECK(e.factory->transport_sockets_created() == 1);
}

TEST_CASE("builder: EnableHttpCache puts the cache on top, a second fetch is a hit",
          "[stack][builder]") {
  FakeEdges e;
  WithConfig([](auto& c) { c.stream.max_body_bytes = 5000; })(e);
  CacheConfig cache_config;
  cache_config.max_bytes = 0;
  e.builder.EnableHttpCache(std::make_unique<MemoryBackend>(e.env.scheduler, e.clock, cache_config),
                            e.clock);
  auto context = e.Build();
  REQUIRE(context->http_cache() != nullptr);
  CHECK(context->http_transaction_factory() == context->http_cache());
  // The cache decodes under the streams' bound.
  CHECK(context->http_cache()->params().max_body_bytes == 5000);
  CHECK(&context->http_cache()->clock() == &e.clock);

  e.dns->SetAddresses("a.test", {"192.0.2.1"}, Seconds(60), Milliseconds(10));
  e.factory->AddSocket({ScriptedRead::Data(
      Response("200 OK", "cached", "Cache-Control: max-age=600\r\n"), IoMode::kAsync)});
  RecordingDelegate first, second;
  CHECK(e.Fetch(context.get(), "http://a.test/x", &first) == CacheDisposition::kMiss);
  CHECK(first.result == OK);
  CHECK(e.Fetch(context.get(), "http://a.test/x", &second) == CacheDisposition::kHit);
  CHECK(second.result == OK);
  CHECK(second.data == "cached");
  CHECK(e.factory->transport_sockets_created() == 1);  // the hit used no connection
}

TEST_CASE("builder: a resolve override answers without DNS", "[stack][builder]") {
  FakeEdges e;
  e.builder.AddResolveOverride({"b.test", 80, *IPAddress::Parse("192.0.2.9")});
  auto context = e.Build();
  FakeConnection* conn =
      e.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "ok"), IoMode::kAsync)});
  RecordingDelegate d;
  e.Fetch(context.get(), "http://b.test/", &d);  // the scripted DNS knows no b.test
  CHECK(d.result == OK);
  CHECK(conn->endpoint.ToString() == "192.0.2.9:80");
}

TEST_CASE("builder: bad settings give one-line errors and no context", "[stack][builder]") {
  struct Case {
    const char* what;
    std::function<void(FakeEdges&)> spoil;
    const char* says;
  };
  const Case cases[] = {
      {"no scheduler", [](FakeEdges& e) { e.builder.set_scheduler(nullptr); }, "no scheduler"},
      {"no DNS", [](FakeEdges& e) { e.builder.set_dns_transport(nullptr); }, "no DNS transport"},
      {"no sockets", [](FakeEdges& e) { e.builder.set_socket_factory(nullptr); },
       "no socket factory"},
      {"max_sockets 0", WithConfig([](auto& c) { c.pool.max_sockets = 0; }), "max_sockets is 0"},
      {"per group 0", WithConfig([](auto& c) { c.pool.max_sockets_per_group = 0; }),
       "max_sockets_per_group is 0"},
      {"no pending request", WithConfig([](auto& c) { c.pool.max_pending_requests = 0; }),
       "max_pending_requests is 0"},
      {"zero connect timeout",
       WithConfig([](auto& c) { c.pool.connect_timeout = TimeDelta::zero(); }), "connect timeout"},
      {"negative body bound", WithConfig([](auto& c) { c.stream.max_body_bytes = -1; }),
       "max_body_bytes is negative"},
      {"zero idle timeout", WithConfig([](auto& c) { c.stream.idle_timeout = TimeDelta::zero(); }),
       "idle timeout"},
      {"zero header bound", WithConfig([](auto& c) { c.stream.max_header_bytes = 0; }),
       "max_header_bytes is 0"},
      {"zero read size", WithConfig([](auto& c) { c.stream.read_buffer_bytes = 0; }),
       "read_buffer_bytes is 0"},
      {"override without address",
       [](FakeEdges& e) {
         e.builder.AddResolveOverride({"a.test", 80, IPAddress()});
       },
       "has no address"},
      {"cache without backend", [](FakeEdges& e) { e.builder.EnableHttpCache(nullptr, e.clock); },
       "an HTTP cache without a backend"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    FakeEdges e;
    c.spoil(e);
    std::string error;
    CHECK(e.builder.Build(&error) == nullptr);
    CHECK_FALSE(error.empty());
    CHECK(IsOneLine(error));
    CHECK(error.rfind("stack settings: ", 0) == 0);
    CHECK(error.find(c.says) != std::string::npos);
  }

  FakeEdges e;
  auto context = e.Build();
  std::string error;
  CHECK(e.builder.Build(&error) == nullptr);  // a builder builds once
  CHECK(error == "stack settings: the builder already built its context");
}

}  // namespace
}  // namespace netstack::test
