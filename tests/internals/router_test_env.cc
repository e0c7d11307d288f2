#include "tests/internals/router_test_env.h"

#include "net/http/http_response_headers.h"
#include "net/http/url_request_context.h"

namespace netstack::test {

std::string PercentDecode(const std::string& s) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out.push_back(' ');
    } else if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

SimStackOptions RouterTestEnv::Options() {
  SimStackOptions options = SimTestEnv::Options(SimTestEnv::WorkedExample());
  options.clock_origin = TimeFromUnixSeconds(kOriginUnixSeconds);
  options.clock_ticks_origin = TimeTicks{};
  options.http_cache = true;
  options.cache.max_bytes = 0;  // MemoryBackend's default
  return options;
}

RouterTestEnv::RouterTestEnv() {
  // SimStack's cache is a MemoryBackend.
  backend = static_cast<MemoryBackend*>(env.context->http_cache()->backend());
  ring.Attach(&env.net_log);
  histograms.Attach(&env.net_log);
  host.context_ = env.context;
  host.predictor_ = predictor;
  host.clock_ = &clock;
  InternalsRouter::Options options;
  options.token = kToken;
  options.port = kPort;
  options.listen_address = "127.0.0.1";
  options.command_line = "netstack internals --port 9333";
  router = std::make_unique<InternalsRouter>(&host, &ring, &histograms, options);
}

RouterTestEnv::~RouterTestEnv() {
  router.reset();
  ring.Attach(nullptr);
  histograms.Attach(nullptr);
}

HttpServerRequest RouterTestEnv::MakeRequest(
    const std::string& method, const std::string& target,
    std::vector<std::pair<std::string, std::string>> headers, const std::string& body) {
  HttpServerRequest request;
  request.method = method;
  request.target = target;
  size_t q = target.find('?');
  request.path = target.substr(0, q);
  if (q != std::string::npos) {
    std::string query = target.substr(q + 1);
    size_t start = 0;
    while (start <= query.size()) {
      size_t end = query.find('&', start);
      if (end == std::string::npos) end = query.size();
      std::string pair = query.substr(start, end - start);
      if (!pair.empty()) {
        size_t eq = pair.find('=');
        request.query[PercentDecode(pair.substr(0, eq))] =
            eq == std::string::npos ? std::string() : PercentDecode(pair.substr(eq + 1));
      }
      start = end + 1;
    }
  }
  bool has_host = false;
  for (const auto& [name, value] : headers) has_host |= name == "host";
  if (!has_host) headers.insert(headers.begin(), {"host", "127.0.0.1:" + std::to_string(kPort)});
  request.headers = std::move(headers);
  request.body = body;
  return request;
}

Answer RouterTestEnv::Call(const HttpServerRequest& request) {
  auto answer = std::make_shared<Answer>();
  router->Handle(request, [answer](HttpServerResponse response) {
    answer->calls++;
    answer->response = std::move(response);
  });
  return *answer;
}

void RouterTestEnv::PutEntry(const std::string& key, const std::string& head,
                             const std::string& body, CacheBackend* into) {
  HttpResponseInfo info;
  info.url = key;
  std::string error;
  info.headers = HttpResponseHeaders::Parse(head, &error);
  INFO(error);
  REQUIRE(info.headers);
  info.request_time = clock.Now();
  info.response_time = clock.Now();
  std::unique_ptr<CacheEntry> entry = (into ? into : backend)->CreateEntry(key);
  entry->WriteHeaders(info.Serialize());
  if (!body.empty()) REQUIRE(entry->AppendBody(body.data(), static_cast<int>(body.size())) == OK);
  int result = ERR_IO_PENDING;
  entry->Commit([&result](int rv) { result = rv; });
  entry.reset();
  env.scheduler.RunUntilIdle();
  REQUIRE(result == OK);
}

}  // namespace netstack::test
