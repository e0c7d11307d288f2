// Helpers for integration tests on a real libuv loop: a loop with a UvScheduler that checks
// its own clean shutdown, and RunUntil() with a guard timeout so a broken test fails instead of
// hanging.
#ifndef TESTS_DNS_LIVE_TEST_UTIL_H_
#define TESTS_DNS_LIVE_TEST_UTIL_H_

#include <uv.h>

#include <chrono>
#include <functional>
#include <memory>

#include "net/base/uv_scheduler.h"

namespace netstack {

class LiveLoop {
 public:
  LiveLoop() {
    uv_loop_init(&loop_);
    scheduler_ = std::make_unique<UvScheduler>(&loop_);
  }
  // If Shutdown() was not called (a failed REQUIRE), still leave nothing behind.
  ~LiveLoop() {
    if (!closed_) Shutdown();
  }

  uv_loop_t* loop() { return &loop_; }
  UvScheduler& scheduler() { return *scheduler_; }

  // Runs the loop until `done()` is true or `timeout` passes. Returns `done()`.
  bool RunUntil(const std::function<bool()>& done,
                std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    bool timed_out = false;
    auto* guard = new uv_timer_t;
    uv_timer_init(&loop_, guard);
    guard->data = &timed_out;
    uv_timer_start(
        guard, [](uv_timer_t* t) { *static_cast<bool*>(t->data) = true; },
        static_cast<uint64_t>(timeout.count()), 0);
    while (!done() && !timed_out) uv_run(&loop_, UV_RUN_ONCE);
    uv_close(reinterpret_cast<uv_handle_t*>(guard),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
    uv_run(&loop_, UV_RUN_NOWAIT);  // Lets the guard's close callback run.
    return done();
  }

  // Runs the loop for `duration` of real time (for TTLs to expire).
  void RunFor(std::chrono::milliseconds duration) {
    RunUntil([] { return false; }, duration);
  }

  // Destroys the scheduler, runs the loop until every handle has closed, and closes the loop.
  // Returns uv_loop_close()'s result: 0 means nothing leaked a handle. Everything using the
  // loop must be destroyed first.
  int Shutdown() {
    scheduler_.reset();
    uv_run(&loop_, UV_RUN_DEFAULT);
    closed_ = true;
    int rv = uv_loop_close(&loop_);
    if (rv != 0) {
      // Leave no dangling handle for the next test: walk and report.
      uv_walk(
          &loop_,
          [](uv_handle_t* h, void*) {
            if (!uv_is_closing(h)) uv_close(h, nullptr);
          },
          nullptr);
      uv_run(&loop_, UV_RUN_DEFAULT);
      uv_loop_close(&loop_);
    }
    return rv;
  }

 private:
  uv_loop_t loop_;
  std::unique_ptr<UvScheduler> scheduler_;
  bool closed_ = false;
};

}  // namespace netstack

#endif  // TESTS_DNS_LIVE_TEST_UTIL_H_
