// TestCrossThreadPoster: the CrossThreadPoster of tests whose other thread is real (the disk
// cache's thread, the predictor store's writer) while the test thread plays the loop: posted
// tasks wait in a queue until the test runs them, so the test decides when completions land.
#ifndef TESTS_SUPPORT_TEST_CROSS_THREAD_POSTER_H_
#define TESTS_SUPPORT_TEST_CROSS_THREAD_POSTER_H_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>

#include "net/base/cross_thread_poster.h"

namespace netstack::test {

class TestCrossThreadPoster : public CrossThreadPoster {
 public:
  // Waits that find nothing to run give up after this long (a guard so a bug fails instead of
  // hanging; nothing asserts a timing).
  static constexpr std::chrono::milliseconds kDefaultTimeout = std::chrono::seconds(20);

  // Drops the tasks still queued (Close()).
  ~TestCrossThreadPoster() override;

  // Any thread. Queues `task` for the test thread; dropped once Close() was called.
  void PostToLoop(std::function<void()> task) override;

  // Test thread. Runs posted tasks, waiting for them, until `done()` holds; false if `timeout`
  // passes first (then done() is false).
  bool RunUntil(const std::function<bool()>& done,
                std::chrono::milliseconds timeout = kDefaultTimeout);
  // Waits for one task (at most `timeout`) and runs it; false if none came.
  bool RunOne(std::chrono::milliseconds timeout = kDefaultTimeout);
  // Runs the tasks already posted, without waiting; returns how many ran.
  size_t RunPending();
  // Destroys the tasks already posted without running them (on this thread).
  void DropPending();
  // DropPending(), and from now on posted tasks are dropped (as a real poster does while
  // shutting down).
  void Close();
  // Tasks posted and not yet run or dropped.
  size_t queued();

 private:
  // Waits until `deadline` for a task and runs it; false if none came.
  bool RunNext(std::chrono::steady_clock::time_point deadline);

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool closed_ = false;
};

}  // namespace netstack::test

#endif  // TESTS_SUPPORT_TEST_CROSS_THREAD_POSTER_H_
