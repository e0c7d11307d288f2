#include "cache/cache_thread.h"

#include "cache/sqlite_store.h"
#include "net/base/net_error.h"

namespace netstack {

SqliteStore* CacheThread::Batch::store() {
  if (!store_ || error_ != 0) return nullptr;
  if (!began_) {
    int rc = store_->Begin();
    if (rc != 0) {
      FailDatabase(rc);
      return nullptr;
    }
    began_ = true;
  }
  return store_;
}

void CacheThread::Batch::FailDatabase(int rc) {
  if (error_ == 0) error_ = SqliteStore::ToNetError(rc, ERR_CACHE_WRITE_FAILURE);
  if (store_ && SqliteStore::IsCorruption(rc)) store_->MarkDamaged();
}

void CacheThread::Batch::Complete(std::function<void(int)> done, int result) {
  if (done) completions_.emplace_back(std::move(done), result);
}

std::vector<std::function<void()>> CacheThread::Batch::Finish() {
  if (began_ && error_ == 0) {
    int rc = store_->Commit();
    if (rc != 0) FailDatabase(rc);
  }
  if (error_ != 0) {
    if (began_) store_->Rollback();
    for (auto& fn : on_rollback_) fn();
  } else {
    for (auto& fn : after_commit_) fn();
  }
  std::vector<std::function<void()>> out;
  out.reserve(completions_.size());
  for (auto& [done, result] : completions_) {
    int r = result != OK ? result : error_;
    out.push_back([done = std::move(done), r] { done(r); });
  }
  return out;
}

CacheThread::CacheThread(CrossThreadPoster* poster)
    : state_(std::make_shared<State>(poster)), thread_(&CacheThread::Run, state_) {}

CacheThread::~CacheThread() { Shutdown(); }

void CacheThread::PostRead(ReadTask task) {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (state_->stopping) return;
    state_->reads.push_back(std::move(task));
  }
  state_->cv.notify_one();
}

void CacheThread::PostWrite(WriteTask task, int64_t bytes) {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (state_->stopping) return;
    state_->writes.push_back({std::move(task), bytes, false});
  }
  state_->cv.notify_one();
}

void CacheThread::PostWriteAlone(WriteTask task) {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (state_->stopping) return;
    state_->writes.push_back({std::move(task), 0, true});
  }
  state_->cv.notify_one();
}

void CacheThread::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->stopping = true;
  }
  state_->cv.notify_one();
  if (!thread_.joinable()) return;
  // The last owner may be a task destroyed on this very thread (a completion the poster
  // dropped); the thread then finishes on its own, keeping its State alive.
  if (std::this_thread::get_id() == thread_.get_id()) {
    thread_.detach();
  } else {
    thread_.join();
  }
}

void CacheThread::Run(std::shared_ptr<State> state) {
  State& s = *state;
  for (;;) {
    std::unique_lock<std::mutex> lock(s.mutex);
    s.cv.wait(lock, [&] { return s.stopping || !s.reads.empty() || !s.writes.empty(); });
    std::deque<ReadTask> reads;
    reads.swap(s.reads);
    if (!reads.empty()) {
      // Reads run unless the backend is going away; then they are dropped unrun. `stopping`
      // is read under the lock: Shutdown writes it from the loop thread.
      const bool stopping = s.stopping;
      lock.unlock();
      if (!stopping) {
        for (ReadTask& task : reads) task();
      }
      reads.clear();  // destroyed here, outside the lock, like the tasks run
      continue;
    }
    if (!s.writes.empty()) {
      std::deque<QueuedWrite> batch;
      int64_t bytes = 0;
      while (!s.writes.empty() && batch.size() < kMaxBatchTasks &&
             (batch.empty() || (bytes + s.writes.front().bytes <= kMaxBatchBytes &&
                                !s.writes.front().alone && !batch.front().alone))) {
        bytes += s.writes.front().bytes;
        batch.push_back(std::move(s.writes.front()));
        s.writes.pop_front();
      }
      lock.unlock();
      RunWriteBatch(s, std::move(batch));
      continue;
    }
    if (s.stopping) break;
  }
  if (s.exit_task) s.exit_task();
  s.exit_task = nullptr;
}

void CacheThread::RunWriteBatch(State& state, std::deque<QueuedWrite> tasks) {
  Batch batch(state.store);
  size_t i = 0;
  for (; i < tasks.size() && !batch.failed(); ++i) tasks[i].task(batch);
  if (i < tasks.size()) {
    std::lock_guard<std::mutex> lock(state.mutex);
    for (size_t j = tasks.size(); j-- > i;) state.writes.push_front(std::move(tasks[j]));
  }
  std::vector<std::function<void()>> completions = batch.Finish();
  if (completions.empty()) return;
  state.poster->PostToLoop([completions = std::move(completions)] {
    for (const auto& fn : completions) fn();
  });
}

}  // namespace netstack
