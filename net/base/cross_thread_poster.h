// The one way work comes back to the loop thread from another thread (the cache thread, and
// later the predictor's persistence thread). Everything else in the stack is single-threaded.
//
// Live: UvCrossThreadPoster (a uv_async_t). Unit tests: a poster whose tasks the test runs
// when it chooses (tests/cache). The simulator has no second thread and does not need one.
#ifndef NET_BASE_CROSS_THREAD_POSTER_H_
#define NET_BASE_CROSS_THREAD_POSTER_H_

#include <functional>

namespace netstack {

class CrossThreadPoster {
 public:
  virtual ~CrossThreadPoster() = default;

  // Thread-safe. Queues `task` to run on the loop thread, in posting order, never inside this
  // call. Tasks posted after the poster began shutting down are destroyed without running
  // (on whichever thread destroys them), so a task must not own anything whose destructor
  // needs the loop thread.
  virtual void PostToLoop(std::function<void()> task) = 0;
};

}  // namespace netstack

#endif  // NET_BASE_CROSS_THREAD_POSTER_H_
