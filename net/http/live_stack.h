// LiveStack: the live world's edge set around one UrlRequestContext: a libuv loop, its
// UvScheduler, the wall clock, the cross-thread poster a disk cache answers through, c-ares,
// OpenSSL and the NetLog, handed to UrlRequestContextBuilder. Library net_http_live (it links
// the *_live libraries; net_http does not).
//
// Two steps, because a disk cache opens on the loop (its thread answers through the poster)
// before the context that uses it exists:
//
//   auto stack = LiveStack::Create(options, &error);     // the edges; context() is null
//   ... open the cache on stack->loop() / poster() / clock() (the tool's choice of backend) ...
//   stack->BuildContext(std::move(backend), &error);     // the context, through the builder
//   ... stack->Run() ...
//
// Destroying it closes every handle (reporting any left open by a lifetime bug, so exit never
// hangs on one) and closes the loop.
#ifndef NET_HTTP_LIVE_STACK_H_
#define NET_HTTP_LIVE_STACK_H_

#include <uv.h>

#include <memory>
#include <string>
#include <vector>

#include "cache/backend.h"
#include "net/base/clock.h"
#include "net/base/net_log.h"
#include "net/base/uv_cross_thread_poster.h"
#include "net/base/uv_scheduler.h"
#include "net/dns/ares_dns_transport.h"
#include "net/http/url_request_context.h"
#include "net/http/url_request_context_builder.h"
#include "net/socket/ssl_client_context.h"
#include "net/socket/ssl_config.h"

namespace netstack {

struct LiveStackOptions {
  UrlRequestContext::Config context;
  AresDnsTransport::Options dns;
  SslConfig ssl;
  std::vector<ResolveOverride> overrides;
};

class LiveStack {
 public:
  // Makes the edges on a new loop: scheduler, clock, poster, NetLog, OpenSSL, c-ares and the
  // socket factory, with `options` kept for BuildContext. Returns null with a one-line `error`
  // when a setting cannot be applied (unreadable CA file, bad DNS server list).
  static std::unique_ptr<LiveStack> Create(const LiveStackOptions& options, std::string* error);
  // Destroys the context (and with it the HTTP cache and its backend, whose thread is joined),
  // then the poster, then runs the loop until every handle's close callback has run.
  ~LiveStack();

  // Builds the context through UrlRequestContextBuilder from the edges and options, with an
  // HTTP cache over `cache` (null: none) on this stack's wall clock. Call once, before the
  // first request. Returns false with the builder's one-line `error`.
  bool BuildContext(std::unique_ptr<CacheBackend> cache, std::string* error);

  Scheduler& scheduler() { return *scheduler_; }
  const Clock& clock() const { return clock_; }
  uv_loop_t* loop() { return &loop_; }
  // Unreferenced: it does not keep Run() going by itself (see RunLoopUntil in
  // tools/netstack/cache_loop.h).
  UvCrossThreadPoster* poster() { return poster_.get(); }
  NetLog* net_log() { return net_log_.get(); }
  // Null until BuildContext succeeded.
  UrlRequestContext* context() { return context_.get(); }

  // Runs the loop until Stop() or until nothing is left to do.
  void Run() { uv_run(&loop_, UV_RUN_DEFAULT); }
  // Makes Run() return after the current callback (idle sockets would keep the loop alive).
  void Stop() { uv_stop(&loop_); }
  // Wall-clock milliseconds since the Unix epoch at TimeTicks zero (the NetLog's
  // timeTickOffset).
  int64_t time_tick_offset_ms() const { return time_tick_offset_ms_; }

 private:
  LiveStack();

  uv_loop_t loop_;
  std::unique_ptr<UvScheduler> scheduler_;
  SystemClock clock_;
  std::unique_ptr<UvCrossThreadPoster> poster_;
  std::unique_ptr<NetLog> net_log_;
  std::unique_ptr<SslClientContext> ssl_context_;
  // Holds the DNS transport and socket factory from Create until BuildContext.
  std::unique_ptr<UrlRequestContextBuilder> builder_;
  std::unique_ptr<UrlRequestContext> context_;
  int64_t time_tick_offset_ms_ = 0;
};

}  // namespace netstack

#endif  // NET_HTTP_LIVE_STACK_H_
