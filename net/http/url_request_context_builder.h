// UrlRequestContextBuilder: the one way to make a UrlRequestContext (Chrome's
// URLRequestContextBuilder). It takes the settings (resolver, pool, HTTP streams), the NetLog,
// the edges (the scheduler, the DNS transport, the socket factory), curl-style resolve
// overrides and the HTTP cache (a CacheBackend and the wall clock, or none), checks them, and
// builds the stack in its one order. It knows only interfaces: which edges are live or
// simulated, and which backend stores the cache, is decided by whoever fills it (LiveStack and
// SimStack, live_stack.h and sim_stack.h; tests with fakes).
//
//   UrlRequestContextBuilder builder;
//   builder.set_scheduler(&scheduler);
//   builder.set_net_log(&net_log);
//   builder.set_dns_transport(std::move(dns));
//   builder.set_socket_factory(std::move(factory));
//   builder.EnableHttpCache(std::move(backend), clock);    // optional
//   std::unique_ptr<UrlRequestContext> context = builder.Build(&error);
#ifndef NET_HTTP_URL_REQUEST_CONTEXT_BUILDER_H_
#define NET_HTTP_URL_REQUEST_CONTEXT_BUILDER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cache/backend.h"
#include "net/base/clock.h"
#include "net/base/ip_address.h"
#include "net/base/net_log.h"
#include "net/base/scheduler.h"
#include "net/dns/dns_transport.h"
#include "net/http/http_cache.h"
#include "net/http/url_request_context.h"
#include "net/socket/client_socket_factory.h"

namespace netstack {

// One curl-style `--resolve HOST:PORT:ADDR`: `host` on `port` (0: any port) is `address`,
// without DNS.
struct ResolveOverride {
  std::string host;
  uint16_t port = 0;
  IPAddress address;
};

class UrlRequestContextBuilder {
 public:
  UrlRequestContextBuilder();
  ~UrlRequestContextBuilder();
  UrlRequestContextBuilder(const UrlRequestContextBuilder&) = delete;
  UrlRequestContextBuilder& operator=(const UrlRequestContextBuilder&) = delete;

  // The resolver's, the pool's and the streams' settings (default: Chrome's, Config's defaults).
  void set_config(const UrlRequestContext::Config& config) { config_ = config; }
  const UrlRequestContext::Config& config() const { return config_; }

  // The clock and timers every service runs on. Required; must outlive the context.
  void set_scheduler(Scheduler* scheduler) { scheduler_ = scheduler; }
  // Where the services log (may stay null: no NetLog). Must outlive the context.
  void set_net_log(NetLog* net_log) { net_log_ = net_log; }
  // The DNS edge, owned by the context's resolver. Required.
  void set_dns_transport(std::unique_ptr<DnsTransport> transport);
  // The transport edge, owned by the context. Required.
  void set_socket_factory(std::unique_ptr<ClientSocketFactory> factory);

  // Answers `override.host` from `override.address` without DNS or the host cache; a later
  // override of the same host and port replaces an earlier one (HostResolverManager::AddOverride).
  void AddResolveOverride(const ResolveOverride& override);

  // Gives the context an HTTP cache (HttpCache) over `backend`, with `clock` as its wall clock
  // (Date/Expires arithmetic; must outlive the context) and `params`. Its decoded-body bound is
  // the streams' max_body_bytes. Without a call there is no cache: every hop goes to the network
  // and reports "bypass".
  void EnableHttpCache(std::unique_ptr<CacheBackend> backend, const Clock& clock,
                       const HttpCache::Params& params = HttpCache::Params());

  // Builds the context: resolver (with the overrides), pool, network layer, then the cache.
  // The edges and the backend move into it, so a builder builds once. Returns null with a
  // one-line `error` ("stack settings: ...") when a required edge is missing, a setting is out
  // of range (no socket or pending request allowed, a negative body bound, a zero timeout,
  // header bound or read size), an override has no host or address, EnableHttpCache was given
  // no backend, or the builder was used already.
  std::unique_ptr<UrlRequestContext> Build(std::string* error);

 private:
  // The first problem with the settings, or empty.
  std::string Check() const;

  UrlRequestContext::Config config_;
  Scheduler* scheduler_ = nullptr;
  NetLog* net_log_ = nullptr;
  std::unique_ptr<DnsTransport> dns_transport_;
  std::unique_ptr<ClientSocketFactory> socket_factory_;
  std::vector<ResolveOverride> overrides_;
  bool cache_enabled_ = false;
  std::unique_ptr<CacheBackend> cache_backend_;
  const Clock* cache_clock_ = nullptr;
  HttpCache::Params cache_params_;
  bool built_ = false;
};

}  // namespace netstack

#endif  // NET_HTTP_URL_REQUEST_CONTEXT_BUILDER_H_
