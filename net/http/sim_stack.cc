#include "net/http/sim_stack.h"

#include <utility>

#include "cache/memory_backend.h"
#include "net/http/url_request_context_builder.h"

namespace netstack {

SimStack::SimStack(VirtualScheduler& scheduler, const SimStackOptions& options)
    : scheduler_(scheduler), clock_(scheduler, options.clock_origin, options.clock_ticks_origin) {}

std::unique_ptr<SimStack> SimStack::Create(VirtualScheduler& scheduler, NetLog* net_log,
                                           SimResponder* responder, const SimStackOptions& options,
                                           std::string* error) {
  std::unique_ptr<SimStack> stack(new SimStack(scheduler, options));
  stack->network_ = std::make_unique<SimNetwork>(scheduler, options.network, responder);
  UrlRequestContextBuilder builder;
  builder.set_config(options.context);
  builder.set_scheduler(&scheduler);
  builder.set_net_log(net_log);
  std::unique_ptr<DnsTransport> dns = stack->network_->CreateDnsTransport();
  builder.set_dns_transport(options.wrap_dns ? options.wrap_dns(std::move(dns)) : std::move(dns));
  builder.set_socket_factory(stack->network_->CreateSocketFactory(options.max_tls_sessions));
  if (options.http_cache) {
    builder.EnableHttpCache(
        std::make_unique<MemoryBackend>(scheduler, stack->clock_, options.cache), stack->clock_,
        options.cache_params);
  }
  stack->context_ = builder.Build(error);
  if (!stack->context_) return nullptr;
  return stack;
}

SimStack::~SimStack() {
  if (context_) {  // a failed Create built none: the caller's tasks are not ours to run
    context_.reset();
    scheduler_.RunUntilIdle();
  }
  network_.reset();
}

}  // namespace netstack
