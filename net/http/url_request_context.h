// UrlRequestContext: the stack object, like Chrome's URLRequestContext. It owns one of each
// service (host resolver, socket pool) and is the only thing a tool creates. The edges — the
// scheduler, the DNS transport and the socket factory — are passed in, so one context class runs
// live (libuv, c-ares, OpenSSL) and simulated (virtual time, modelled transports).
#ifndef NET_HTTP_URL_REQUEST_CONTEXT_H_
#define NET_HTTP_URL_REQUEST_CONTEXT_H_

#include <memory>
#include <nlohmann/json.hpp>

#include "net/base/net_log.h"
#include "net/base/scheduler.h"
#include "net/dns/dns_transport.h"
#include "net/dns/host_resolver_manager.h"
#include "net/http/http_basic_stream.h"
#include "net/socket/client_socket_factory.h"
#include "net/socket/client_socket_pool.h"

namespace netstack {

class HttpCache;

class UrlRequestContext {
 public:
  struct Config {
    HostResolverManager::Config resolver;
    ClientSocketPool::Params pool;
    HttpBasicStream::Params stream;
  };

  // `scheduler` and `net_log` (may be null) must outlive the context. The context owns the
  // transport (through the resolver) and the socket factory.
  UrlRequestContext(Scheduler& scheduler, NetLog* net_log,
                    std::unique_ptr<DnsTransport> dns_transport,
                    std::unique_ptr<ClientSocketFactory> socket_factory, const Config& config);
  // Destroys the HTTP cache (cancelling its background revalidations), then the pool (closing
  // sockets, cancelling connect jobs), then the resolver. Requests still alive must be
  // destroyed first.
  ~UrlRequestContext();

  UrlRequestContext(const UrlRequestContext&) = delete;
  UrlRequestContext& operator=(const UrlRequestContext&) = delete;

  Scheduler& scheduler() const { return scheduler_; }
  NetLog* net_log() const { return net_log_; }
  HostResolverManager* host_resolver() const { return host_resolver_.get(); }
  ClientSocketPool* socket_pool() const { return socket_pool_.get(); }
  const Config& config() const { return config_; }

  // Gives the context an HTTP cache (null: none, the default). Requests made afterwards go
  // through it (HttpCacheTransaction); a previous cache is destroyed, so call it before any
  // request exists. The cache's clock must outlive the context.
  void SetHttpCache(std::unique_ptr<HttpCache> cache);
  // The HTTP cache, or null.
  HttpCache* http_cache() const { return http_cache_.get(); }

  // The stack's state for a NetLog file's polledData and the internals page:
  // {"hostResolverInfo": ..., "socketPoolInfo": ...} in Chrome's shapes, plus
  // "httpCacheInfo": {"stats": CacheStats::ToJson(), "background_revalidations": {...}} when
  // there is a cache.
  nlohmann::json GetPolledData() const;

 private:
  Scheduler& scheduler_;
  NetLog* net_log_;
  const Config config_;
  std::unique_ptr<ClientSocketFactory> socket_factory_;
  std::unique_ptr<HostResolverManager> host_resolver_;
  std::unique_ptr<ClientSocketPool> socket_pool_;
  // Declared last so it goes first: its background revalidations use the pool.
  std::unique_ptr<HttpCache> http_cache_;
};

}  // namespace netstack

#endif  // NET_HTTP_URL_REQUEST_CONTEXT_H_
