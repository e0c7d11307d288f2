#include "tests/sim/sim_test_env.h"

#include <catch2/catch.hpp>
#include <string_view>

#include "net/base/url.h"

namespace netstack::test {

namespace {

class FetchDelegate : public UrlRequest::Delegate {
 public:
  void OnReadData(UrlRequest* request, const char* data, int len) override {
    (void)request;
    (void)data;
    bytes += len;
  }
  void OnComplete(UrlRequest* request, int rv) override {
    (void)request;
    done = true;
    result = rv;
  }

  bool done = false;
  int result = ERR_IO_PENDING;
  int64_t bytes = 0;
};

UrlRequest::Params MakeParams(const std::string& url, const std::string& method,
                              const std::string& body) {
  UrlRequest::Params params;
  std::string message;
  int rv = Url::Parse(url, &params.request.url, &message);
  INFO(url << ": " << message);
  REQUIRE(rv == OK);
  params.request.method = method;
  params.request.body = body;
  return params;
}

FetchResult ResultOf(const UrlRequest& request, const FetchDelegate& delegate) {
  FetchResult r;
  r.result = delegate.result;
  r.error_message = request.error_message();
  r.start = request.start_time();
  r.end = request.end_time();
  r.timing = request.load_timing_info();
  r.connection = request.connection_info();
  r.cache = request.cache_disposition();
  r.body_bytes = delegate.bytes;
  return r;
}

}  // namespace

SimResponse TestResponder::Respond(const SimRequest& request) {
  requests.push_back(request);
  SimResponse response;
  if (auto page = pages.find(request.host + request.target); page != pages.end()) {
    response.head = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " +
                    std::to_string(page->second.size()) + "\r\n\r\n" + page->second;
    response.server_time = server_time;
    return response;
  }
  if (auto it = scripted.find(request.target); it != scripted.end()) return it->second;
  std::string_view target = request.target;
  const bool close = target.rfind("/close/", 0) == 0;
  const bool unframed = target.rfind("/unframed/", 0) == 0;
  const bool fresh = target.rfind("/fresh/", 0) == 0;
  int64_t size = default_body_bytes;
  if (close || unframed || fresh || target.rfind("/size/", 0) == 0) {
    size = std::stoll(std::string(target.substr(target.find('/', 1) + 1)));
  }
  response.head =
      unframed ? "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n" : Head(size, close);
  if (fresh) response.head.insert(response.head.find("\r\n") + 2, "Cache-Control: max-age=600\r\n");
  response.body_bytes = size;
  response.server_time = server_time;
  return response;
}

std::string TestResponder::Head(int64_t body_bytes, bool close) {
  return "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n" +
         std::string(close ? "Connection: close\r\n" : "") +
         "Content-Length: " + std::to_string(body_bytes) + "\r\n\r\n";
}

int64_t TestResponder::BodyForTotal(int64_t total) {
  // The head grows with the digits of the length: try each digit count.
  const int64_t fixed = static_cast<int64_t>(Head(0).size()) - 1;
  for (size_t digits = 1; digits <= 18; ++digits) {
    int64_t body = total - fixed - static_cast<int64_t>(digits);
    if (body >= 0 && std::to_string(body).size() == digits) return body;
  }
  FAIL("no body size gives a response of " << total << " bytes");
  return -1;
}

TimeDelta FetchResult::tcp() const {
  const ConnectTiming& c = timing.connect_timing;
  return (c.ssl_start != TimeTicks{} ? c.ssl_start : c.connect_end) - c.connect_start;
}

UrlRequestContext::Config SimTestEnv::DefaultConfig() {
  UrlRequestContext::Config config;
  config.pool.enable_backup_jobs = false;
  return config;
}

NetworkParams SimTestEnv::WorkedExample() {
  NetworkParams params;
  params.downlink_bps = 0;
  params.uplink_bps = 0;
  params.defaults.dns = Milliseconds(50);
  params.defaults.rtt = Milliseconds(80);
  params.defaults.tls = TlsVersion::kTls12;
  params.defaults.server_time = Milliseconds(100);
  return params;
}

NetworkParams SimTestEnv::PlainNetwork() {
  NetworkParams params;
  params.downlink_bps = 0;
  params.uplink_bps = 0;
  params.defaults.rtt = Milliseconds(100);
  params.defaults.dns = Milliseconds(10);
  params.defaults.server_time = Milliseconds(50);
  return params;
}

SimStackOptions SimTestEnv::Options(const NetworkParams& params) {
  SimStackOptions options;
  options.network = params;
  options.context = DefaultConfig();
  options.clock_origin = TimeFromUnixSeconds(1'700'000'000);
  options.clock_ticks_origin = kEpoch;
  return options;
}

SimTestEnv::SimTestEnv(const NetworkParams& params, const UrlRequestContext::Config& config)
    : SimTestEnv([&] {
        SimStackOptions options = Options(params);
        options.context = config;
        return options;
      }()) {}

SimTestEnv::SimTestEnv(const SimStackOptions& options) {
  std::string error;
  stack = SimStack::Create(scheduler, &net_log, &responder, options, &error);
  INFO(error);
  REQUIRE(stack);
  context = stack->context();
  network = stack->network();
}

SimTestEnv::~SimTestEnv() { stack.reset(); }

FetchResult SimTestEnv::Fetch(const std::string& url, const std::string& method,
                              const std::string& body) {
  FetchDelegate delegate;
  UrlRequest request(context, MakeParams(url, method, body), &delegate);
  request.Start();
  bool done = scheduler.RunUntil([&] { return delegate.done; });
  INFO(url << " never completed");
  REQUIRE(done);
  return ResultOf(request, delegate);
}

std::vector<FetchResult> SimTestEnv::FetchAll(const std::vector<std::string>& urls) {
  std::vector<std::unique_ptr<FetchDelegate>> delegates;
  std::vector<std::unique_ptr<UrlRequest>> requests;
  for (const std::string& url : urls) {
    delegates.push_back(std::make_unique<FetchDelegate>());
    requests.push_back(
        std::make_unique<UrlRequest>(context, MakeParams(url, "GET", {}), delegates.back().get()));
  }
  for (auto& request : requests) request->Start();
  bool done = scheduler.RunUntil([&] {
    for (auto& d : delegates) {
      if (!d->done) return false;
    }
    return true;
  });
  REQUIRE(done);
  std::vector<FetchResult> results;
  for (size_t i = 0; i < requests.size(); ++i) {
    results.push_back(ResultOf(*requests[i], *delegates[i]));
  }
  return results;
}

}  // namespace netstack::test
