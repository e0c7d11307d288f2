#include "tests/support/live_loop.h"

#include <signal.h>

#include <cstdio>

namespace netstack::test {

bool RunLoopUntil(uv_loop_t* loop, const std::function<bool()>& done,
                  std::chrono::milliseconds timeout) {
  if (done()) return true;
  // Heap-allocated and freed in its close callback, so returning never waits for the close.
  auto* wake = new uv_timer_t;
  uv_timer_init(loop, wake);
  uv_timer_start(
      wake, [](uv_timer_t*) {}, 1, 1);
  const uint64_t deadline = uv_hrtime() + static_cast<uint64_t>(timeout.count()) * 1'000'000ull;
  bool ok = false;
  while (!(ok = done()) && uv_hrtime() < deadline) uv_run(loop, UV_RUN_ONCE);
  uv_close(reinterpret_cast<uv_handle_t*>(wake),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
  return ok;
}

LiveLoop::LiveLoop() {
  signal(SIGPIPE, SIG_IGN);
  uv_loop_init(&loop_);
  scheduler_ = std::make_unique<UvScheduler>(&loop_);
}

LiveLoop::~LiveLoop() {
  if (!closed_) Shutdown();
}

void LiveLoop::RunPending() {
  for (int i = 0; i < 5; ++i) uv_run(&loop_, UV_RUN_NOWAIT);
}

int LiveLoop::Shutdown() {
  scheduler_.reset();
  // Closing handles finish within an iteration or two; the bound keeps a leaked active handle
  // from holding the test.
  for (int i = 0; i < 1000 && uv_loop_alive(&loop_); ++i) uv_run(&loop_, UV_RUN_NOWAIT);
  closed_ = true;
  const int rv = uv_loop_close(&loop_);
  if (rv != 0) {
    uv_walk(
        &loop_,
        [](uv_handle_t* handle, void*) {
          std::fprintf(stderr, "leaked handle: %s\n", uv_handle_type_name(handle->type));
          if (!uv_is_closing(handle)) uv_close(handle, nullptr);
        },
        nullptr);
    for (int i = 0; i < 5; ++i) uv_run(&loop_, UV_RUN_NOWAIT);
    uv_loop_close(&loop_);
  }
  return rv;
}

}  // namespace netstack::test
