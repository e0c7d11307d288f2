#include "tests/support/test_cross_thread_poster.h"

#include <utility>

namespace netstack::test {

TestCrossThreadPoster::~TestCrossThreadPoster() { Close(); }

void TestCrossThreadPoster::PostToLoop(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closed_) return;
    tasks_.push_back(std::move(task));
  }
  cv_.notify_all();
}

bool TestCrossThreadPoster::RunNext(std::chrono::steady_clock::time_point deadline) {
  std::function<void()> task;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!cv_.wait_until(lock, deadline, [this] { return !tasks_.empty(); })) return false;
    task = std::move(tasks_.front());
    tasks_.pop_front();
  }
  task();
  return true;
}

bool TestCrossThreadPoster::RunUntil(const std::function<bool()>& done,
                                     std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (!RunNext(deadline)) return done();
  }
  return true;
}

bool TestCrossThreadPoster::RunOne(std::chrono::milliseconds timeout) {
  return RunNext(std::chrono::steady_clock::now() + timeout);
}

size_t TestCrossThreadPoster::RunPending() {
  std::deque<std::function<void()>> tasks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tasks.swap(tasks_);
  }
  for (auto& task : tasks) task();
  return tasks.size();
}

void TestCrossThreadPoster::DropPending() {
  std::deque<std::function<void()>> dropped;
  std::lock_guard<std::mutex> lock(mutex_);
  dropped.swap(tasks_);
}

void TestCrossThreadPoster::Close() {
  std::deque<std::function<void()>> dropped;
  std::lock_guard<std::mutex> lock(mutex_);
  closed_ = true;
  dropped.swap(tasks_);
}

size_t TestCrossThreadPoster::queued() {
  std::lock_guard<std::mutex> lock(mutex_);
  return tasks_.size();
}

}  // namespace netstack::test
