// H2Env: a UrlRequestContext over H2SocketFactory's in-memory HTTP/2 servers and scripted DNS,
// on virtual time, with helpers to start GETs and run until they complete. For tests of the
// stack above HTTP/2 (tests/http2) and of what shows it (tests/internals' HTTP/2 view).
#ifndef TESTS_HTTP2_H2_STACK_ENV_H_
#define TESTS_HTTP2_H2_STACK_ENV_H_

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "net/base/virtual_scheduler.h"
#include "net/http/url_request.h"
#include "net/http/url_request_context_builder.h"
#include "tests/http2/h2_socket_factory.h"
#include "tests/request/request_test_env.h"
#include "tests/support/scripted_dns_transport.h"

namespace netstack::test {

struct H2Env {
  explicit H2Env(H2SocketFactory::Options options = {},
                 UrlRequestContext::Config config = RequestTestEnv::DefaultConfig()) {
    auto dns_transport = std::make_unique<ScriptedDnsTransport>(scheduler);
    auto socket_factory = std::make_unique<H2SocketFactory>(scheduler, std::move(options));
    dns = dns_transport.get();
    factory = socket_factory.get();
    UrlRequestContextBuilder builder;
    builder.set_config(config);
    builder.set_scheduler(&scheduler);
    builder.set_net_log(&net_log);
    builder.set_dns_transport(std::move(dns_transport));
    builder.set_socket_factory(std::move(socket_factory));
    std::string error;
    context = builder.Build(&error);
    INFO(error);
    REQUIRE(context);
  }
  ~H2Env() {
    requests.clear();
    context.reset();
    scheduler.RunUntilIdle();
  }

  void AddHost(const std::string& host, const std::string& address = "192.0.2.1") {
    dns->SetAddresses(host, {address}, Seconds(60), Milliseconds(5));
  }

  // Starts a GET of `url` at `priority`; the delegate is kept in `delegates`.
  UrlRequest* Start(const std::string& url, RequestPriority priority = MEDIUM) {
    UrlRequest::Params params;
    std::string message;
    REQUIRE(Url::Parse(url, &params.request.url, &message) == OK);
    params.priority = priority;
    delegates.push_back(std::make_unique<RecordingDelegate>());
    requests.push_back(std::make_unique<UrlRequest>(context.get(), params, delegates.back().get()));
    requests.back()->Start();
    return requests.back().get();
  }
  // Runs until every request started so far has completed (bounded).
  void RunUntilDone() {
    scheduler.RunUntil([&] {
      for (const auto& d : delegates) {
        if (d->completions == 0) return false;
      }
      return true;
    });
  }
  // Connections that carried at least one request.
  size_t ConnectionsUsed() const {
    size_t n = 0;
    for (const auto& c : factory->connections()) n += c->requests > 0;
    return n;
  }

  VirtualScheduler scheduler;
  NetLog net_log{scheduler};
  NetLogRecorder recorder{&net_log};
  ScriptedDnsTransport* dns = nullptr;
  H2SocketFactory* factory = nullptr;
  std::unique_ptr<UrlRequestContext> context;
  std::vector<std::unique_ptr<RecordingDelegate>> delegates;
  std::vector<std::unique_ptr<UrlRequest>> requests;
};

}  // namespace netstack::test

#endif  // TESTS_HTTP2_H2_STACK_ENV_H_
