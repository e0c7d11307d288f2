// UrlRequestContext: the stack object, like Chrome's URLRequestContext. It owns one of each
// service (host resolver, socket pool, the network layer and, optionally, the HTTP cache over
// it) and is the only thing a tool creates, through UrlRequestContextBuilder. The edges — the
// scheduler, the DNS transport and the socket factory — are passed in, so one context class runs
// live (libuv, c-ares, OpenSSL) and simulated (virtual time, modelled transports).
#ifndef NET_HTTP_URL_REQUEST_CONTEXT_H_
#define NET_HTTP_URL_REQUEST_CONTEXT_H_

#include <memory>
#include <nlohmann/json.hpp>

#include "cache/backend.h"
#include "net/base/clock.h"
#include "net/base/net_log.h"
#include "net/base/scheduler.h"
#include "net/dns/dns_transport.h"
#include "net/dns/host_resolver_manager.h"
#include "net/http/http_basic_stream.h"
#include "net/http/http_cache.h"
#include "net/http/http_transaction_factory.h"
#include "net/http/url_request_limits.h"
#include "net/http2/http2_session_pool.h"
#include "net/socket/client_socket_factory.h"
#include "net/socket/client_socket_pool.h"

namespace netstack {

class HttpNetworkLayer;

class UrlRequestContext {
 public:
  // HTTP/2 (fetch's --http1.1, --http2-prior-knowledge; replay's http2 key).
  struct Http2Config {
    // The TLS layer offers h2 in ALPN (the edges' SslConfig::alpn says so; the builder keeps the
    // two in step): https origins may then get sessions.
    bool offered_in_alpn = true;
    // http:// origins speak h2 from the first byte (h2c, curl's --http2-prior-knowledge).
    bool prior_knowledge = false;
    Http2SessionPool::Params pool;
  };

  struct Config {
    HostResolverManager::Config resolver;
    ClientSocketPool::Params pool;
    HttpBasicStream::Params stream;
    Http2Config http2;
    // Every fetch's total time, minimum rate and headers deadline (url_request_limits.h).
    TransferLimits limits;
  };

  // Destroys the HTTP cache (cancelling its background revalidations), then the network layer,
  // the pool (closing sockets, cancelling connect jobs), then the resolver. Requests still alive
  // must be destroyed first.
  ~UrlRequestContext();

  UrlRequestContext(const UrlRequestContext&) = delete;
  UrlRequestContext& operator=(const UrlRequestContext&) = delete;

  Scheduler& scheduler() const { return scheduler_; }
  NetLog* net_log() const { return net_log_; }
  HostResolverManager* host_resolver() const { return host_resolver_.get(); }
  ClientSocketPool* socket_pool() const { return socket_pool_.get(); }
  // The HTTP/2 sessions; null when HTTP/2 is off (neither offered in ALPN nor prior knowledge).
  Http2SessionPool* http2_session_pool() const { return http2_session_pool_.get(); }
  const Config& config() const { return config_; }

  // What makes every hop's transaction (UrlRequest uses nothing else): the HTTP cache when there
  // is one, else the network layer. Never null.
  HttpTransactionFactory* http_transaction_factory() const;
  // The HTTP cache, or null.
  HttpCache* http_cache() const { return http_cache_.get(); }

  // Replaces the HTTP cache by one over `backend` (null: no cache from now on), as
  // UrlRequestContextBuilder::EnableHttpCache describes; the previous cache is destroyed first
  // (its background revalidations cancelled, its backend closed). For what reopens or swaps a
  // backend on a running stack (a test of the disk backend reopening it as a new process would,
  // one putting a decorator around the backend); a stack gets its cache from the builder. Call
  // it while no request exists. `clock` must outlive the cache.
  void ResetHttpCache(std::unique_ptr<CacheBackend> backend, const Clock& clock,
                      const HttpCache::Params& params = HttpCache::Params());
  // Destroys the HTTP cache, if any, as ResetHttpCache does: from now on there is none.
  void RemoveHttpCache() { http_cache_.reset(); }

  // The stack's state for a NetLog file's polledData and the internals page:
  // {"hostResolverInfo": ..., "socketPoolInfo": ..., "spdySessionInfo": [...], "spdyStatus":
  // {...}} in Chrome's shapes (the last two: Http2SessionPool::GetInfoAsJson/GetStatusAsJson),
  // plus
  // "httpCacheInfo": {"stats": CacheStats::ToJson(), "background_revalidations": {...}} when
  // there is a cache.
  nlohmann::json GetPolledData() const;

 private:
  friend class UrlRequestContextBuilder;

  // `scheduler` and `net_log` (may be null) must outlive the context. The context owns the
  // transport (through the resolver) and the socket factory.
  UrlRequestContext(Scheduler& scheduler, NetLog* net_log,
                    std::unique_ptr<DnsTransport> dns_transport,
                    std::unique_ptr<ClientSocketFactory> socket_factory, const Config& config);

  Scheduler& scheduler_;
  NetLog* net_log_;
  const Config config_;
  std::unique_ptr<ClientSocketFactory> socket_factory_;
  std::unique_ptr<HostResolverManager> host_resolver_;
  std::unique_ptr<ClientSocketPool> socket_pool_;
  // After the socket pool: its sessions hold the pool's handles, so it goes first.
  std::unique_ptr<Http2SessionPool> http2_session_pool_;
  std::unique_ptr<HttpNetworkLayer> network_layer_;
  // Declared last so it goes first: its transactions and background revalidations use the
  // network layer and the pool.
  std::unique_ptr<HttpCache> http_cache_;
};

}  // namespace netstack

#endif  // NET_HTTP_URL_REQUEST_CONTEXT_H_
