#include "net/http/live_stack.h"

#include <chrono>
#include <cstdio>

#include "net/socket/uv_client_socket_factory.h"

namespace netstack {

LiveStack::LiveStack() { uv_loop_init(&loop_); }

std::unique_ptr<LiveStack> LiveStack::Create(const LiveStackOptions& options, std::string* error) {
  std::unique_ptr<LiveStack> stack(new LiveStack());
  stack->scheduler_ = std::make_unique<UvScheduler>(&stack->loop_);
  stack->poster_ = std::make_unique<UvCrossThreadPoster>(&stack->loop_);
  auto wall_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count();
  stack->time_tick_offset_ms_ = wall_ms - std::chrono::duration_cast<std::chrono::milliseconds>(
                                              stack->scheduler_->Now().time_since_epoch())
                                              .count();
  stack->net_log_ = std::make_unique<NetLog>(*stack->scheduler_);
  stack->ssl_context_ = SslClientContext::Create(
      options.ssl, error, SslClientContext::kDefaultMaxSessions, &stack->clock_);
  if (!stack->ssl_context_) return nullptr;
  auto dns = AresDnsTransport::Create(&stack->loop_, *stack->scheduler_, options.dns, error);
  if (!dns) return nullptr;
  stack->builder_ = std::make_unique<UrlRequestContextBuilder>();
  UrlRequestContextBuilder& builder = *stack->builder_;
  builder.set_config(options.context);
  builder.set_scheduler(stack->scheduler_.get());
  builder.set_net_log(stack->net_log_.get());
  builder.set_dns_transport(std::move(dns));
  builder.set_socket_factory(
      std::make_unique<UvClientSocketFactory>(&stack->loop_, stack->ssl_context_.get()));
  for (const ResolveOverride& r : options.overrides) builder.AddResolveOverride(r);
  return stack;
}

bool LiveStack::BuildContext(std::unique_ptr<CacheBackend> cache, std::string* error) {
  if (!builder_) {
    *error = "stack settings: the context was built already";
    return false;
  }
  if (cache) builder_->EnableHttpCache(std::move(cache), clock_);
  context_ = builder_->Build(error);
  builder_.reset();
  return context_ != nullptr;
}

LiveStack::~LiveStack() {
  // The context owns the HTTP cache; the disk backend posts through the poster until its
  // thread is joined, so the poster goes after it. Edges the builder still holds (no context
  // was built) go with it.
  context_.reset();
  builder_.reset();
  poster_.reset();
  ssl_context_.reset();
  net_log_.reset();
  scheduler_.reset();
  // Every object that owned a handle has started closing it. A handle still open now is a
  // lifetime bug: say so, and close it so the loop below cannot hang on it.
  uv_walk(
      &loop_,
      [](uv_handle_t* h, void*) {
        if (uv_is_closing(h)) return;
        std::fprintf(stderr, "netstack: internal: a %s handle was left open at exit\n",
                     uv_handle_type_name(h->type));
        uv_close(h, nullptr);
      },
      nullptr);
  // Close callbacks free the handles' memory; run until they have all run.
  uv_run(&loop_, UV_RUN_DEFAULT);
  if (uv_loop_close(&loop_) != 0)
    std::fprintf(stderr, "netstack: internal: the event loop did not close\n");
}

}  // namespace netstack
