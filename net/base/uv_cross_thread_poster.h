// CrossThreadPoster on a libuv loop: a mutex-guarded task list and a uv_async_t whose callback
// runs the list on the loop thread (libuv coalesces uv_async_send calls, so one wakeup may run
// many tasks).
#ifndef NET_BASE_UV_CROSS_THREAD_POSTER_H_
#define NET_BASE_UV_CROSS_THREAD_POSTER_H_

#include <uv.h>

#include <deque>
#include <functional>
#include <memory>
#include <mutex>

#include "net/base/cross_thread_poster.h"

namespace netstack {

class UvCrossThreadPoster : public CrossThreadPoster {
 public:
  // Call on the loop thread; `loop` must outlive this object.
  explicit UvCrossThreadPoster(uv_loop_t* loop);
  // On the loop thread, after every thread that posts has stopped posting (joined). Drops
  // queued tasks unrun and closes the async handle; its memory is freed in the close callback,
  // so the loop must run once more.
  ~UvCrossThreadPoster() override;
  UvCrossThreadPoster(const UvCrossThreadPoster&) = delete;
  UvCrossThreadPoster& operator=(const UvCrossThreadPoster&) = delete;

  void PostToLoop(std::function<void()> task) override;

  // Whether the async handle keeps the loop alive. Unreferenced by default: a loop with nothing
  // else to do may end while another thread still works, so callers waiting for a completion
  // keep something else alive (or call Ref while they wait).
  void Ref();
  void Unref();

 private:
  // Shared with the async handle so a post racing the destructor never touches freed memory.
  struct State {
    std::mutex mutex;
    std::deque<std::function<void()>> tasks;
    bool closed = false;
  };
  static void OnAsync(uv_async_t* handle);

  std::shared_ptr<State> state_;
  uv_async_t* async_;  // freed in its close callback
};

}  // namespace netstack

#endif  // NET_BASE_UV_CROSS_THREAD_POSTER_H_
