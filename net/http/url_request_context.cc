#include "net/http/url_request_context.h"

#include "net/http/http_network_layer.h"

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
                                                      socket_factory_.get(), net_log)),
      network_layer_(std::make_unique<HttpNetworkLayer>(this)) {
  if (config.http2.pool.enabled && (config.http2.offered_in_alpn || config.http2.prior_knowledge)) {
    http2_session_pool_ = std::make_unique<Http2SessionPool>(scheduler, net_log, config.http2.pool);
  }
}

UrlRequestContext::~UrlRequestContext() {
  // Background revalidations hold pool requests; the pool's connect jobs hold resolver
  // requests and factory sockets.
  http_cache_.reset();
  network_layer_.reset();
  http2_session_pool_.reset();  // sessions return their sockets to the pool
  socket_pool_.reset();
  host_resolver_.reset();
  socket_factory_.reset();
}

HttpTransactionFactory* UrlRequestContext::http_transaction_factory() const {
  if (http_cache_) return http_cache_.get();
  return network_layer_.get();
}

void UrlRequestContext::ResetHttpCache(std::unique_ptr<CacheBackend> backend, const Clock& clock,
                                       const HttpCache::Params& params) {
  RemoveHttpCache();
  if (!backend) return;
  HttpCache::Params cache_params = params;
  // The cache decodes the bodies the stream would have: the same bound.
  cache_params.max_body_bytes = config_.stream.max_body_bytes;
  http_cache_ = std::make_unique<HttpCache>(network_layer_.get(), std::move(backend), scheduler_,
                                            clock, net_log_, cache_params);
}

nlohmann::json UrlRequestContext::GetPolledData() const {
  nlohmann::json data{{"hostResolverInfo", host_resolver_->GetPolledData()},
                      {"socketPoolInfo", socket_pool_->GetInfoAsJson()}};
  const std::vector<std::string> alpn = config_.http2.offered_in_alpn
                                            ? std::vector<std::string>{"h2", "http/1.1"}
                                            : std::vector<std::string>{"http/1.1"};
  if (http2_session_pool_) {
    data["spdySessionInfo"] = http2_session_pool_->GetInfoAsJson();
    data["spdyStatus"] = http2_session_pool_->GetStatusAsJson(alpn);
  } else {
    data["spdySessionInfo"] = nlohmann::json::array();
    data["spdyStatus"] = {{"enable_http2", false}, {"alpn_protos", "http/1.1"}};
  }
  if (http_cache_) {
    const HttpCache::Stats& stats = http_cache_->stats();
    data["httpCacheInfo"] = {{"stats", http_cache_->backend()->GetStats().ToJson()},
                             {"background_revalidations",
                              {{"running", http_cache_->background_revalidation_count()},
                               {"started", stats.background_started},
                               {"skipped", stats.background_skipped},
                               {"finished", stats.background_finished}}}};
  }
  return data;
}

}  // namespace netstack
