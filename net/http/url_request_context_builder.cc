#include "net/http/url_request_context_builder.h"

#include <utility>

namespace netstack {

UrlRequestContextBuilder::UrlRequestContextBuilder() = default;
UrlRequestContextBuilder::~UrlRequestContextBuilder() = default;

void UrlRequestContextBuilder::set_dns_transport(std::unique_ptr<DnsTransport> transport) {
  dns_transport_ = std::move(transport);
}

void UrlRequestContextBuilder::set_socket_factory(std::unique_ptr<ClientSocketFactory> factory) {
  socket_factory_ = std::move(factory);
}

void UrlRequestContextBuilder::AddResolveOverride(const ResolveOverride& override) {
  overrides_.push_back(override);
}

void UrlRequestContextBuilder::EnableHttpCache(std::unique_ptr<CacheBackend> backend,
                                               const Clock& clock,
                                               const HttpCache::Params& params) {
  cache_enabled_ = true;
  cache_backend_ = std::move(backend);
  cache_clock_ = &clock;
  cache_params_ = params;
}

std::string UrlRequestContextBuilder::Check() const {
  if (built_) return "the builder already built its context";
  if (!scheduler_) return "no scheduler";
  if (!dns_transport_) return "no DNS transport";
  if (!socket_factory_) return "no socket factory";
  const ClientSocketPool::Params& pool = config_.pool;
  if (pool.max_sockets < 1)
    return "max_sockets is " + std::to_string(pool.max_sockets) + " (at least 1)";
  if (pool.max_sockets_per_group < 1) {
    return "max_sockets_per_group is " + std::to_string(pool.max_sockets_per_group) +
           " (at least 1)";
  }
  if (pool.max_pending_requests < 1) return "max_pending_requests is 0 (at least 1)";
  if (pool.connect_timeout <= TimeDelta::zero()) return "the connect timeout is not positive";
  const HttpBasicStream::Params& stream = config_.stream;
  if (stream.idle_timeout <= TimeDelta::zero()) return "the idle timeout is not positive";
  if (stream.max_body_bytes < 0) return "max_body_bytes is negative";
  if (stream.max_header_bytes == 0) return "max_header_bytes is 0";
  if (stream.read_buffer_bytes == 0) return "read_buffer_bytes is 0";
  for (const ResolveOverride& o : overrides_) {
    if (o.host.empty()) return "a resolve override without a host";
    if (!o.address.IsValid()) return "the resolve override of " + o.host + " has no address";
  }
  if (cache_enabled_ && !cache_backend_) return "an HTTP cache without a backend";
  return {};
}

std::unique_ptr<UrlRequestContext> UrlRequestContextBuilder::Build(std::string* error) {
  std::string problem = Check();
  if (!problem.empty()) {
    *error = "stack settings: " + problem;
    return nullptr;
  }
  built_ = true;
  std::unique_ptr<UrlRequestContext> context(new UrlRequestContext(
      *scheduler_, net_log_, std::move(dns_transport_), std::move(socket_factory_), config_));
  for (const ResolveOverride& o : overrides_)
    context->host_resolver()->AddOverride(o.host, o.port, {o.address});
  if (cache_backend_)
    context->ResetHttpCache(std::move(cache_backend_), *cache_clock_, cache_params_);
  return context;
}

}  // namespace netstack
