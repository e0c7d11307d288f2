#include "net/base/uv_cross_thread_poster.h"

#include <utility>

namespace netstack {
namespace {

// What the handle owns until its close callback: the handle and a reference to the state.
struct AsyncBox {
  uv_async_t handle;
  std::shared_ptr<void> state;
};

}  // namespace

UvCrossThreadPoster::UvCrossThreadPoster(uv_loop_t* loop) : state_(std::make_shared<State>()) {
  auto* box = new AsyncBox{};
  box->state = state_;
  async_ = &box->handle;
  uv_async_init(loop, async_, &UvCrossThreadPoster::OnAsync);
  async_->data = state_.get();
  uv_unref(reinterpret_cast<uv_handle_t*>(async_));
}

UvCrossThreadPoster::~UvCrossThreadPoster() {
  std::deque<std::function<void()>> dropped;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->closed = true;
    dropped.swap(state_->tasks);
  }
  async_->data = nullptr;
  uv_close(reinterpret_cast<uv_handle_t*>(async_), [](uv_handle_t* h) {
    delete reinterpret_cast<AsyncBox*>(reinterpret_cast<char*>(h) - offsetof(AsyncBox, handle));
  });
}

void UvCrossThreadPoster::PostToLoop(std::function<void()> task) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (state_->closed) return;  // `task` is destroyed here, unrun.
  state_->tasks.push_back(std::move(task));
  // Under the lock, so the destructor cannot close the handle between the check and the send.
  uv_async_send(async_);
}

void UvCrossThreadPoster::Ref() { uv_ref(reinterpret_cast<uv_handle_t*>(async_)); }
void UvCrossThreadPoster::Unref() { uv_unref(reinterpret_cast<uv_handle_t*>(async_)); }

void UvCrossThreadPoster::OnAsync(uv_async_t* handle) {
  auto* state = static_cast<State*>(handle->data);
  if (!state) return;
  std::deque<std::function<void()>> batch;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    batch.swap(state->tasks);
  }
  // A task may destroy the poster: the state stays alive through the box until the close
  // callback, and the rest of the batch is then dropped like any task posted after shutdown.
  for (auto& task : batch) {
    {
      std::lock_guard<std::mutex> lock(state->mutex);
      if (state->closed) return;
    }
    task();
  }
}

}  // namespace netstack
