// PredictorStore: the learned tables' home in the profile, an sqlite database (DIR/predictor.db)
// owned by the store's own thread, so no read or write of it ever runs on the event loop (the
// disk cache's rule, cache/cache_thread.h). Rows are PredictorPolicy's (predictor_policy.h),
// kept per policy; a save replaces the policy's rows in one transaction, so a crash leaves the
// previous save or the new one, never a mix.
//
// Bounded: at most kMaxRows rows per policy are written or read (the policies' tables are
// smaller); a row's data is at most kMaxRowBytes of JSON.
#ifndef PREDICTOR_PREDICTOR_STORE_H_
#define PREDICTOR_PREDICTOR_STORE_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "net/base/cross_thread_poster.h"
#include "predictor/predictor_policy.h"

namespace netstack {

class PredictorStore {
 public:
  static constexpr size_t kMaxRows = 100000;
  static constexpr size_t kMaxRowBytes = 64 * 1024;

  // Opens (creating it if missing) the database at `path` on a new thread, and waits for that.
  // Returns null with a one-line `error` ("DIR/predictor.db: file is not a database") when it
  // cannot: the caller runs without persistence and says so; the file is left as it was.
  static std::unique_ptr<PredictorStore> Open(const std::string& path, std::string* error);

  // Waits for queued saves to finish, then closes the database and joins the thread.
  ~PredictorStore();
  PredictorStore(const PredictorStore&) = delete;
  PredictorStore& operator=(const PredictorStore&) = delete;

  // Reads `policy`'s rows on the store's thread and waits for them: call before the event
  // loop runs (start-up), never from a loop callback. False with a one-line `error` when the
  // database cannot be read; rows whose data is not valid JSON are skipped and counted in
  // `skipped`.
  bool Load(const std::string& policy, std::vector<PredictorRow>* rows, size_t* skipped,
            std::string* error);

  // Replaces `policy`'s rows with `rows` on the store's thread. `done` (may be empty) is posted
  // through `poster` with OK or ERR_FAILED (and the message in last_error()); it never runs
  // inside this call. Thread-safe.
  void Save(const std::string& policy, std::vector<PredictorRow> rows, CrossThreadPoster* poster,
            std::function<void(int)> done);

  // The last failure's one-line message, for the caller's warning.
  std::string last_error() const;

 private:
  class Impl;
  explicit PredictorStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace netstack

#endif  // PREDICTOR_PREDICTOR_STORE_H_
