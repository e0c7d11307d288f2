// The disk backend's one thread: it owns the sqlite connection and every body file, and runs
// what the loop asks of it from two mutex+condvar queues, posting completions back with the
// CrossThreadPoster.
//
// Reads (opening an entry, reading a body) go first: they wait at most for the write batch
// that is running. Writes run in batches: every write task drained from the queue at once (up
// to kMaxBatchTasks tasks or kMaxBatchBytes of body data) shares one sqlite transaction, so a
// burst of commits, deletions and use-count updates costs one WAL commit. A task's completion
// reaches the loop only after its batch committed, so "OK" means "on disk".
#ifndef CACHE_CACHE_THREAD_H_
#define CACHE_CACHE_THREAD_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "net/base/cross_thread_poster.h"

namespace netstack {

class SqliteStore;

class CacheThread {
 public:
  static constexpr size_t kMaxBatchTasks = 1024;
  static constexpr int64_t kMaxBatchBytes = 4 * 1024 * 1024;

  // What a write task sees: the store (in a transaction begun on first use) and hooks for the
  // end of the batch. Used on the cache thread only.
  class Batch {
   public:
    // The database, inside this batch's transaction (begun on first call). Null if no store
    // was set (the backend failed to open).
    SqliteStore* store();
    // Reports a failed statement (sqlite code `rc`): the batch rolls back, every task run in
    // it so far fails, and the tasks not yet run are put back for the next batch. Corruption
    // also marks the database damaged for the next open.
    void FailDatabase(int rc);
    bool failed() const { return error_ != 0; }
    // The net error the batch failed with (ERR_FILE_NO_SPACE for SQLITE_FULL), or 0.
    int error() const { return error_; }
    // Runs on the cache thread after the batch committed (not if it rolled back).
    void AfterCommit(std::function<void()> fn) { after_commit_.push_back(std::move(fn)); }
    // Runs on the cache thread if the batch rolled back.
    void OnRollback(std::function<void()> fn) { on_rollback_.push_back(std::move(fn)); }
    // Posts `done` to the loop when the batch is over, with `result` if it is an error, else
    // the batch's outcome (OK, or the database failure as a net error).
    void Complete(std::function<void(int)> done, int result);

   private:
    friend class CacheThread;
    explicit Batch(SqliteStore* store) : store_(store) {}
    // Commits or rolls back, runs the hooks, and returns the completions to post.
    std::vector<std::function<void()>> Finish();

    SqliteStore* store_;
    bool began_ = false;
    int error_ = 0;  // a net error once failed
    std::vector<std::function<void()>> after_commit_;
    std::vector<std::function<void()>> on_rollback_;
    std::vector<std::pair<std::function<void(int)>, int>> completions_;
  };

  using ReadTask = std::function<void()>;
  using WriteTask = std::function<void(Batch&)>;

  // Starts the thread. `poster` must outlive this object.
  explicit CacheThread(CrossThreadPoster* poster);
  // Shutdown(), if not done yet.
  ~CacheThread();
  CacheThread(const CacheThread&) = delete;
  CacheThread& operator=(const CacheThread&) = delete;

  // Thread-safe. Queues a read; reads run before queued writes, in posting order.
  void PostRead(ReadTask task);
  // Thread-safe. Queues a write; writes run in posting order. `bytes` is the body data the
  // task writes (for the batch size bound).
  void PostWrite(WriteTask task, int64_t bytes = 0);
  // Thread-safe. Queues a write that runs in a batch of its own (in posting order with the
  // others), so no other task's failure rolls it back: deletions, which must land even when
  // a commit next to them finds the disk full.
  void PostWriteAlone(WriteTask task);

  // Loop thread: runs every queued write, drops the queued reads, runs the exit task and joins
  // the thread. Completions posted meanwhile reach the poster as usual.
  void Shutdown();

  // Cache thread: the store batches use from now on, and what to run when the thread exits
  // (closing the store there, so the loop never touches disk).
  void SetStore(SqliteStore* store) { state_->store = store; }
  void SetExitTask(std::function<void()> task) { state_->exit_task = std::move(task); }

  CrossThreadPoster* poster() const { return state_->poster; }
  // Bytes appended to entries but not yet written to disk; the loop adds, the thread
  // subtracts once written (or dropped).
  std::atomic<int64_t>& pending_write_bytes() { return state_->pending_write_bytes; }

 private:
  struct QueuedWrite {
    WriteTask task;
    int64_t bytes;
    bool alone;
  };
  // Shared by this handle and the thread itself, so the handle may be destroyed on the thread
  // (the last owner can be a task the poster dropped there) while the thread finishes.
  struct State {
    explicit State(CrossThreadPoster* poster) : poster(poster) {}
    CrossThreadPoster* const poster;
    std::mutex mutex;
    std::condition_variable cv;
    std::deque<ReadTask> reads;
    std::deque<QueuedWrite> writes;
    bool stopping = false;
    std::atomic<int64_t> pending_write_bytes{0};
    // Cache thread only.
    SqliteStore* store = nullptr;
    std::function<void()> exit_task;
  };
  static void Run(std::shared_ptr<State> state);
  static void RunWriteBatch(State& state, std::deque<QueuedWrite> tasks);

  std::shared_ptr<State> state_;
  std::thread thread_;
};

}  // namespace netstack

#endif  // CACHE_CACHE_THREAD_H_
