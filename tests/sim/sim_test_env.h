// Scaffolding for the net/sim tests: the real stack (UrlRequestContext, UrlRequest) over a
// SimNetwork on virtual time, built by SimStack (net/http/sim_stack.h), no HTTP cache unless
// asked; a responder whose answers the request target chooses; fetch helpers that return each
// request's timing.
#ifndef TESTS_SIM_SIM_TEST_ENV_H_
#define TESTS_SIM_SIM_TEST_ENV_H_

#include <catch2/catch.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "net/base/load_timing_info.h"
#include "net/base/net_log.h"
#include "net/base/virtual_scheduler.h"
#include "net/http/sim_stack.h"
#include "net/http/url_request.h"
#include "net/http/url_request_context.h"
#include "net/sim/network_params.h"
#include "net/sim/sim_network.h"

namespace netstack::test {

// The servers of the tests. The target chooses the answer:
//   /size/N   200 with a body of N bytes (Content-Length)
//   /close/N  the same with `Connection: close`
//   /fresh/N  the same with `Cache-Control: max-age=600` (an HTTP cache serves it again)
//   /unframed/N  N body bytes with neither Content-Length nor chunking (ended by the close)
//   other     200 with a body of `default_body_bytes` (100)
// unless `pages` has an HTML document for "host/target" (the page loads' tests: the sim's bodies
// are filler, so the document is sent in the response head, framed by its Content-Length), or
// `scripted` an answer for the target (the head as given, for raw-head tests).
// Every request that reaches a server is kept, in arrival order.
class TestResponder : public SimResponder {
 public:
  SimResponse Respond(const SimRequest& request) override;

  // The head sent for a body of `body_bytes`.
  static std::string Head(int64_t body_bytes, bool close = false);
  // The body size whose response (head + body) is exactly `total` bytes.
  static int64_t BodyForTotal(int64_t total);

  std::vector<SimRequest> requests;
  std::optional<TimeDelta> server_time;         // set on every response when present
  std::map<std::string, std::string> pages;     // "host/target" -> HTML document
  std::map<std::string, SimResponse> scripted;  // target -> answer
  int64_t default_body_bytes = 100;
};

// What one fetch left.
struct FetchResult {
  int result = ERR_IO_PENDING;
  std::string error_message;
  TimeTicks start{}, end{};
  LoadTimingInfo timing;
  ConnectionInfo connection;
  CacheDisposition cache = CacheDisposition::kBypass;
  int64_t body_bytes = 0;

  TimeDelta total() const { return end - start; }
  TimeDelta dns() const { return timing.connect_timing.dns_end - timing.connect_timing.dns_start; }
  // TCP only (connect_start to the TLS start, or to connect_end for http).
  TimeDelta tcp() const;
  TimeDelta tls() const { return timing.connect_timing.ssl_end - timing.connect_timing.ssl_start; }
  // send_end -> first response byte.
  TimeDelta ttfb() const { return timing.receive_headers_start - timing.send_end; }
  // send_end -> last response byte.
  TimeDelta response() const { return timing.receive_end - timing.send_end; }
};

class SimTestEnv {
 public:
  // Virtual time starts here (not zero: zero is "unset" in LoadTimingInfo).
  static constexpr TimeTicks kEpoch = TimeTicks(TimeDelta(1'000'000'000));

  // Chrome's pool, without backup connect jobs (they would open extra sockets on slow
  // profiles and blur exact timings).
  static UrlRequestContext::Config DefaultConfig();
  // The worked example's network, unlimited bandwidth: dns 50, rtt 80, TLS 1.2, server 100.
  static NetworkParams WorkedExample();
  // Unlimited links, dns 10, rtt 100, server 50 (TLS as the defaults): the network of the tests
  // where only round trips, slow start and the server's time shape a plain HTTP exchange.
  static NetworkParams PlainNetwork();

  explicit SimTestEnv(const NetworkParams& params,
                      const UrlRequestContext::Config& config = DefaultConfig());
  // The stack `options` describe (their network, config, cache); the wall clock reads
  // 1'700'000'000 s at kEpoch unless they say otherwise.
  explicit SimTestEnv(const SimStackOptions& options);
  // Options over `params` with DefaultConfig() and the wall clock's origin at kEpoch.
  static SimStackOptions Options(const NetworkParams& params);
  // The stack goes first (its context, the tasks it posted, the network).
  ~SimTestEnv();

  // Fetches `url` and runs until it completes.
  FetchResult Fetch(const std::string& url, const std::string& method = "GET",
                    const std::string& body = {});
  // Starts every fetch at once; runs until all complete. Results in the order given.
  std::vector<FetchResult> FetchAll(const std::vector<std::string>& urls);
  // Advances virtual time by `delta`, running what falls due.
  void Advance(TimeDelta delta) { scheduler.AdvanceBy(delta); }

  const SimNetwork::Stats& stats() const { return network->stats(); }
  // The stack's wall clock (its HTTP cache's).
  SchedulerClock& clock() { return stack->clock(); }

  VirtualScheduler scheduler{kEpoch};
  NetLog net_log{scheduler};
  TestResponder responder;
  std::unique_ptr<SimStack> stack;
  UrlRequestContext* context = nullptr;  // stack's
  SimNetwork* network = nullptr;         // stack's
};

}  // namespace netstack::test

// Readable durations and times in failure messages (microseconds; times since the epoch).
namespace Catch {
template <>
struct StringMaker<netstack::TimeDelta> {
  static std::string convert(netstack::TimeDelta d) { return std::to_string(d.count()) + " us"; }
};
template <>
struct StringMaker<netstack::TimeTicks> {
  static std::string convert(netstack::TimeTicks t) {
    return "t+" + std::to_string((t - netstack::test::SimTestEnv::kEpoch).count()) + " us";
  }
};
}  // namespace Catch

#endif  // TESTS_SIM_SIM_TEST_ENV_H_
