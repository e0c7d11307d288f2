// SimStack: the simulated world's edge set around one UrlRequestContext: SimNetwork's modelled
// DNS transport and socket factory on a VirtualScheduler, a SchedulerClock for wall time, and
// (optionally) an HTTP cache over a MemoryBackend, handed to UrlRequestContextBuilder. The
// replay engine and the tests build their simulated stack with it. Library net_http_sim, above
// net_http and net_sim (net/sim knows nothing of the context).
//
//   VirtualScheduler scheduler(epoch);                      // the caller runs virtual time
//   NetLog net_log(scheduler);
//   auto stack = SimStack::Create(scheduler, &net_log, &responder, options, &error);
//   UrlRequest request(stack->context(), params, &delegate); ...
#ifndef NET_HTTP_SIM_STACK_H_
#define NET_HTTP_SIM_STACK_H_

#include <functional>
#include <memory>
#include <string>

#include "cache/backend.h"
#include "net/base/clock.h"
#include "net/base/net_log.h"
#include "net/base/virtual_scheduler.h"
#include "net/dns/dns_transport.h"
#include "net/http/http_cache.h"
#include "net/http/url_request_context.h"
#include "net/sim/network_params.h"
#include "net/sim/sim_network.h"

namespace netstack {

struct SimStackOptions {
  UrlRequestContext::Config context;
  NetworkParams network;
  // The wall clock (SchedulerClock) reads `clock_origin` when the scheduler reads
  // `clock_ticks_origin`; SimStack::clock().SetOrigin moves it later.
  Time clock_origin = TimeFromUnixSeconds(1'700'000'000);
  TimeTicks clock_ticks_origin{};
  // An HTTP cache over a MemoryBackend bounded by `cache` (max_bytes 0: MemoryBackend's
  // default), or none.
  bool http_cache = false;
  CacheConfig cache;
  HttpCache::Params cache_params;
  // The TLS session cache's bound (servers), as the live stack's SslClientContext takes it.
  size_t max_tls_sessions = kDefaultSslSessionCacheSize;
  // A test's decorator around the modelled DNS transport (null: the transport itself).
  std::function<std::unique_ptr<DnsTransport>(std::unique_ptr<DnsTransport>)> wrap_dns;
};

class SimStack {
 public:
  // Builds the network (answered by `responder`) and the context. `scheduler`, `net_log` (may
  // be null) and `responder` must outlive the stack. Returns null with the builder's one-line
  // `error` when a setting is out of range.
  static std::unique_ptr<SimStack> Create(VirtualScheduler& scheduler, NetLog* net_log,
                                          SimResponder* responder, const SimStackOptions& options,
                                          std::string* error);
  // Destroys the context (requests must be gone; cache, pool and resolver go), runs the tasks
  // due now (the context's close tasks among them; nothing when Create failed), then destroys
  // the network, so nothing the context left runs against a destroyed model.
  ~SimStack();
  SimStack(const SimStack&) = delete;
  SimStack& operator=(const SimStack&) = delete;

  // The context the stack owns; never null once Create returned the stack.
  UrlRequestContext* context() const { return context_.get(); }
  // The modelled network (servers, links, counters) the stack owns; never null.
  SimNetwork* network() const { return network_.get(); }
  // The wall clock of the stack (its HTTP cache's).
  SchedulerClock& clock() { return clock_; }

 private:
  SimStack(VirtualScheduler& scheduler, const SimStackOptions& options);

  VirtualScheduler& scheduler_;
  SchedulerClock clock_;
  std::unique_ptr<SimNetwork> network_;
  std::unique_ptr<UrlRequestContext> context_;
};

}  // namespace netstack

#endif  // NET_HTTP_SIM_STACK_H_
