#include "net/http/url_request_context.h"

namespace netstack {

UrlRequestContext::UrlRequestContext(Scheduler& scheduler, NetLog* net_log,
                                     std::unique_ptr<DnsTransport> dns_transport,
                                     std::unique_ptr<ClientSocketFactory> socket_factory,
                                     const Config& config)
    : scheduler_(scheduler),
      net_log_(net_log),
      config_(config),
      socket_factory_(std::move(socket_factory)),
      host_resolver_(std::make_unique<HostResolverManager>(scheduler, std::move(dns_transport),
                                                           net_log, config.resolver)),
      socket_pool_(std::make_unique<ClientSocketPool>(config.pool, scheduler, host_resolver_.get(),
                                                      socket_factory_.get(), net_log)) {}

UrlRequestContext::~UrlRequestContext() {
  // The pool's connect jobs hold resolver requests and factory sockets: it goes first.
  socket_pool_.reset();
  host_resolver_.reset();
  socket_factory_.reset();
}

nlohmann::json UrlRequestContext::GetPolledData() const {
  return {{"hostResolverInfo", host_resolver_->GetPolledData()},
          {"socketPoolInfo", socket_pool_->GetInfoAsJson()}};
}

}  // namespace netstack
