// Scaffolding for the router and views tests: the real stack on the simulated network (virtual
// time) with an HttpCache over a MemoryBackend and the chrome predictor (SimPredictorEnv), a fake
// InternalsHost showing it, and a router in front, called with hand-built requests (no socket).
#ifndef TESTS_INTERNALS_ROUTER_TEST_ENV_H_
#define TESTS_INTERNALS_ROUTER_TEST_ENV_H_

#include <catch2/catch.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cache/memory_backend.h"
#include "net/base/clock.h"
#include "net/base/net_log_ring.h"
#include "net/base/stack_histograms.h"
#include "net/http/http_cache.h"
#include "net/http/http_response_info.h"
#include "predictor/predictor.h"
#include "tests/predictor/sim_predictor_env.h"
#include "tools/internals/internals_host.h"
#include "tools/internals/internals_router.h"

namespace netstack::test {

class FakeInternalsHost : public InternalsHost {
 public:
  UrlRequestContext* context() override { return context_; }
  Predictor* predictor() override { return predictor_; }
  const Clock& clock() override { return *clock_; }
  int64_t time_tick_offset_ms() override { return 1'700'000'000'000; }
  nlohmann::json GetInfo() override {
    return {{"mode", "internals"},    {"command_line", "netstack internals"},
            {"profile", nullptr},     {"predictor_policy", "chrome"},
            {"can_fetch", can_fetch}, {"replay", nullptr}};
  }
  InternalsResult Fetch(const std::string& url) override {
    if (!can_fetch) return InternalsHost::Fetch(url);
    fetched.push_back(url);
    return InternalsResult::Ok({{"id", static_cast<int>(fetched.size())}});
  }
  InternalsResult Omnibox(const std::string& text) override {
    if (!can_fetch) return InternalsHost::Omnibox(text);
    return InternalsResult::Ok({{"text", text}, {"suggestion", nullptr}, {"actions", {}}});
  }
  void Quit() override { ++quits; }

  UrlRequestContext* context_ = nullptr;
  Predictor* predictor_ = nullptr;
  const Clock* clock_ = nullptr;
  bool can_fetch = true;
  std::vector<std::string> fetched;
  int quits = 0;
};

// What a router call answered, and how many times.
struct Answer {
  int calls = 0;
  HttpServerResponse response;
  int status() const { return response.status; }
  // The body as JSON (discarded if it is not JSON).
  nlohmann::json json() const { return nlohmann::json::parse(response.body, nullptr, false); }
};

// "%3C" -> '<', '+' -> ' ' (as HttpRequestReader decodes queries).
std::string PercentDecode(const std::string& s);

struct RouterTestEnv {
  static constexpr int kPort = 9333;
  static constexpr char kToken[] = "00112233445566778899aabbccddeeff";
  static constexpr int64_t kOriginUnixSeconds = 1'700'000'000;

  RouterTestEnv();
  ~RouterTestEnv();

  // A request as the server would hand it over. `headers` are (lower-case name, value); a Host
  // header "127.0.0.1:kPort" is added unless `headers` has one.
  static HttpServerRequest MakeRequest(const std::string& method, const std::string& target,
                                       std::vector<std::pair<std::string, std::string>> headers,
                                       const std::string& body = {});
  // Calls the router; runs nothing else.
  Answer Call(const HttpServerRequest& request);
  Answer Get(const std::string& target) { return Call(MakeRequest("GET", target, {})); }
  // A POST with the token and a JSON body.
  Answer Post(const std::string& target, const std::string& body = {}) {
    return Call(MakeRequest("POST", target,
                            {{"x-netstack-token", kToken}, {"content-type", "application/json"}},
                            body));
  }

  // Stores a response directly in the backend: `head` is "HTTP/1.1 200 OK\r\nName: v\r\n...".
  // Into `into` if given, else the stack's cache backend.
  void PutEntry(const std::string& key, const std::string& head, const std::string& body,
                CacheBackend* into = nullptr);
  // Fetches `url` on the stack (keep-alive: the socket goes back idle).
  FetchResult Fetch(const std::string& url) { return env.Fetch(url); }

  // The worked example's network with an HttpCache over a MemoryBackend (MemoryBackend's
  // default size), the wall clock at kOriginUnixSeconds at virtual time zero.
  static SimStackOptions Options();

  SimPredictorEnv env{Options(), "chrome"};
  SchedulerClock& clock = env.clock();
  MemoryBackend* backend = nullptr;  // the stack's cache backend
  Predictor* predictor = env.predictor;
  NetLogRing ring;
  StackHistograms histograms;
  FakeInternalsHost host;
  std::unique_ptr<InternalsRouter> router;
};

}  // namespace netstack::test

#endif  // TESTS_INTERNALS_ROUTER_TEST_ENV_H_
