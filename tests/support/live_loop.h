// LiveLoop: a real libuv loop for one test, with the live scheduler on it; the one way the
// tests on loopback (sockets, TLS, DNS, the HTTP server, the live stack) wait: run the loop
// until a condition holds, with a deadline that fails the test instead of hanging it (never a
// timing assertion). RunLoopUntil does the same on a loop the test does not own (LiveStack's).
#ifndef TESTS_SUPPORT_LIVE_LOOP_H_
#define TESTS_SUPPORT_LIVE_LOOP_H_

#include <uv.h>

#include <chrono>
#include <functional>
#include <memory>

#include "net/base/uv_scheduler.h"

namespace netstack::test {

// How long a wait may last before the test fails.
inline constexpr std::chrono::milliseconds kLiveWaitTimeout = std::chrono::seconds(10);

// Runs `loop` until `done()` holds or `timeout` passes; returns done(). Call from outside the
// loop's callbacks. The condition is checked after every loop iteration, and a timer wakes the
// loop every millisecond while it waits, so a condition no loop event reports (a plain POSIX
// client's socket, another thread's progress) is seen too. Runs nothing after `done()` holds;
// the wake timer's close callback runs with the loop's next iteration.
bool RunLoopUntil(uv_loop_t* loop, const std::function<bool()>& done,
                  std::chrono::milliseconds timeout = kLiveWaitTimeout);

class LiveLoop {
 public:
  // Ignores SIGPIPE (a write to a peer that reset is an error, not the end of the test program,
  // as in the netstack program).
  LiveLoop();
  // Shutdown() if the test did not (a failed REQUIRE): the next test starts clean.
  ~LiveLoop();
  LiveLoop(const LiveLoop&) = delete;
  LiveLoop& operator=(const LiveLoop&) = delete;

  uv_loop_t* get() { return &loop_; }
  // The live scheduler on this loop (a UvScheduler); gone after Shutdown().
  UvScheduler& scheduler() { return *scheduler_; }

  // RunLoopUntil on this loop.
  bool RunUntil(const std::function<bool()>& done,
                std::chrono::milliseconds timeout = kLiveWaitTimeout) {
    return RunLoopUntil(&loop_, done, timeout);
  }
  // Runs the loop for `duration` of real time (for TTLs to expire).
  void RunFor(std::chrono::milliseconds duration) {
    RunUntil([] { return false; }, duration);
  }
  // Runs a few non-blocking iterations (lets close callbacks run).
  void RunPending();

  // Destroys the scheduler, lets every closing handle finish (without blocking: a handle still
  // open is a leak, not something to wait for) and closes the loop. Returns uv_loop_close()'s
  // result: 0 means no handle was leaked; otherwise the leaked handles' types are printed to
  // stderr and they are closed, so the process stays clean. Everything using the loop must be
  // destroyed first. Once only.
  int Shutdown();

 private:
  uv_loop_t loop_;
  std::unique_ptr<UvScheduler> scheduler_;
  bool closed_ = false;
};

}  // namespace netstack::test

#endif  // TESTS_SUPPORT_LIVE_LOOP_H_
