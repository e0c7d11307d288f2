#include "predictor/predictor_store.h"

#include <sqlite3.h>

#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <thread>

#include "net/base/net_error.h"

namespace netstack {
namespace {

constexpr int kSchemaVersion = 1;
constexpr char kSchema[] =
    "CREATE TABLE IF NOT EXISTS rows("
    " policy TEXT NOT NULL, tbl TEXT NOT NULL, key TEXT NOT NULL, subkey TEXT NOT NULL,"
    " data TEXT NOT NULL, PRIMARY KEY(policy, tbl, key, subkey));"
    "PRAGMA user_version=1;";

// Finalizes a statement on every return path.
struct Statement {
  sqlite3_stmt* stmt = nullptr;
  ~Statement() {
    if (stmt) sqlite3_finalize(stmt);
  }
};

std::string Column(sqlite3_stmt* stmt, int i) {
  const unsigned char* text = sqlite3_column_text(stmt, i);
  return text ? std::string(reinterpret_cast<const char*>(text),
                            static_cast<size_t>(sqlite3_column_bytes(stmt, i)))
              : std::string();
}

}  // namespace

// Everything touching the database runs on `thread_`, one task at a time, in posting order.
class PredictorStore::Impl {
 public:
  explicit Impl(std::string path) : path_(std::move(path)) {
    thread_ = std::thread([this] { Run(); });
  }

  ~Impl() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    cv_.notify_one();
    thread_.join();  // Run() drains the queue (queued saves included) before it returns
    if (db_) sqlite3_close_v2(db_);  // the thread is gone: this thread owns the handle now
  }

  // Runs `task` on the store's thread.
  void Post(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    cv_.notify_one();
  }

  // Runs `task` on the store's thread and waits for its result.
  template <typename T>
  T Call(std::function<T()> task) {
    std::packaged_task<T()> packaged(std::move(task));
    std::future<T> result = packaged.get_future();
    Post([&packaged] { packaged(); });
    return result.get();
  }

  // On the store's thread from here on.
  bool OpenDb(std::string* error) {
    int rc =
        sqlite3_open_v2(path_.c_str(), &db_,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) return Fail(error);
    // Another process on the same profile may hold the lock briefly; waiting blocks only this
    // thread.
    sqlite3_busy_timeout(db_, 2000);
    // Read before writing anything: a file that is not ours must stay as it was.
    int version = -1;
    {
      Statement s;
      if (sqlite3_prepare_v2(db_, "PRAGMA user_version", -1, &s.stmt, nullptr) != SQLITE_OK ||
          sqlite3_step(s.stmt) != SQLITE_ROW) {
        return Fail(error);
      }
      version = sqlite3_column_int(s.stmt, 0);
    }
    if (version != 0 && version != kSchemaVersion) {
      *error = path_ + ": schema version " + std::to_string(version) + ", expected " +
               std::to_string(kSchemaVersion);
      Close();
      return false;
    }
    if (version == 0) {
      // A fresh file, or a database someone else made: ours only if it has no other tables.
      Statement s;
      if (sqlite3_prepare_v2(db_, "SELECT count(*) FROM sqlite_master WHERE name != 'rows'", -1,
                             &s.stmt, nullptr) != SQLITE_OK ||
          sqlite3_step(s.stmt) != SQLITE_ROW) {
        return Fail(error);
      }
      if (sqlite3_column_int(s.stmt, 0) != 0) {
        *error = path_ + ": not a predictor database (it has other tables)";
        Close();
        return false;
      }
    }
    if (sqlite3_exec(db_, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL", nullptr, nullptr,
                     nullptr) != SQLITE_OK ||
        sqlite3_exec(db_, kSchema, nullptr, nullptr, nullptr) != SQLITE_OK) {
      return Fail(error);
    }
    return true;
  }

  bool LoadRows(const std::string& policy, std::vector<PredictorRow>* rows, size_t* skipped,
                std::string* error) {
    Statement s;
    if (sqlite3_prepare_v2(db_,
                           "SELECT tbl, key, subkey, data FROM rows WHERE policy = ?"
                           " ORDER BY tbl, key, subkey LIMIT ?",
                           -1, &s.stmt, nullptr) != SQLITE_OK) {
      return Fail(error, /*close=*/false);
    }
    sqlite3_bind_text(s.stmt, 1, policy.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s.stmt, 2, static_cast<sqlite3_int64>(kMaxRows));
    size_t bad = 0;
    int rc;
    while ((rc = sqlite3_step(s.stmt)) == SQLITE_ROW) {
      PredictorRow row{Column(s.stmt, 0), Column(s.stmt, 1), Column(s.stmt, 2), {}};
      std::string data = Column(s.stmt, 3);
      if (data.size() > kMaxRowBytes) {
        ++bad;
        continue;
      }
      row.data = nlohmann::json::parse(data, nullptr, /*allow_exceptions=*/false);
      if (row.data.is_discarded()) {
        ++bad;
        continue;
      }
      rows->push_back(std::move(row));
    }
    if (skipped) *skipped = bad;
    if (rc != SQLITE_DONE) return Fail(error, /*close=*/false);
    return true;
  }

  int SaveRows(const std::string& policy, const std::vector<PredictorRow>& rows) {
    std::string error;
    if (sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) {
      Fail(&error, /*close=*/false);
      SetLastError(error);
      return ERR_FAILED;
    }
    bool ok = true;
    {
      Statement del, ins;
      ok = sqlite3_prepare_v2(db_, "DELETE FROM rows WHERE policy = ?", -1, &del.stmt, nullptr) ==
               SQLITE_OK &&
           sqlite3_prepare_v2(db_,
                              "INSERT OR REPLACE INTO rows(policy, tbl, key, subkey, data)"
                              " VALUES(?, ?, ?, ?, ?)",
                              -1, &ins.stmt, nullptr) == SQLITE_OK;
      if (ok) {
        sqlite3_bind_text(del.stmt, 1, policy.c_str(), -1, SQLITE_TRANSIENT);
        ok = sqlite3_step(del.stmt) == SQLITE_DONE;
      }
      size_t written = 0;
      for (size_t i = 0; ok && i < rows.size() && written < kMaxRows; ++i) {
        const PredictorRow& row = rows[i];
        std::string data = row.data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        // Over the bound: left out (the policies' rows are far smaller).
        if (data.size() + row.key.size() + row.subkey.size() > kMaxRowBytes) continue;
        sqlite3_reset(ins.stmt);
        sqlite3_bind_text(ins.stmt, 1, policy.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins.stmt, 2, row.table.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins.stmt, 3, row.key.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins.stmt, 4, row.subkey.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins.stmt, 5, data.c_str(), static_cast<int>(data.size()),
                          SQLITE_TRANSIENT);
        ok = sqlite3_step(ins.stmt) == SQLITE_DONE;
        ++written;
      }
    }
    if (ok) ok = sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK;
    if (!ok) {
      Fail(&error, /*close=*/false);
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      SetLastError(error);
      return ERR_FAILED;
    }
    return OK;
  }

  void SetLastError(const std::string& error) {
    std::lock_guard<std::mutex> lock(mutex_);
    last_error_ = error;
  }
  std::string last_error() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_error_;
  }

 private:
  void Run() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
        if (tasks_.empty()) return;  // stopping, and every queued task ran
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  // "PATH: <sqlite's message>" into `error`; closes the database on open failures.
  bool Fail(std::string* error, bool close = true) {
    *error = path_ + ": " + (db_ ? sqlite3_errmsg(db_) : "out of memory");
    if (close) Close();
    return false;
  }
  void Close() {
    if (db_) sqlite3_close_v2(db_);
    db_ = nullptr;
  }

  const std::string path_;
  sqlite3* db_ = nullptr;  // used only on thread_ (and by the destructor after the join)
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::string last_error_;
  std::thread thread_;
};

PredictorStore::PredictorStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

PredictorStore::~PredictorStore() = default;

std::unique_ptr<PredictorStore> PredictorStore::Open(const std::string& path, std::string* error) {
  auto impl = std::make_unique<Impl>(path);
  Impl* raw = impl.get();
  std::string message;
  bool ok = raw->Call<bool>([raw, &message] { return raw->OpenDb(&message); });
  if (!ok) {
    if (error) *error = message;
    return nullptr;
  }
  return std::unique_ptr<PredictorStore>(new PredictorStore(std::move(impl)));
}

bool PredictorStore::Load(const std::string& policy, std::vector<PredictorRow>* rows,
                          size_t* skipped, std::string* error) {
  Impl* impl = impl_.get();
  std::string message;
  bool ok = impl->Call<bool>([impl, &policy, rows, skipped, &message] {
    return impl->LoadRows(policy, rows, skipped, &message);
  });
  if (!ok) {
    impl->SetLastError(message);
    if (error) *error = message;
  }
  return ok;
}

void PredictorStore::Save(const std::string& policy, std::vector<PredictorRow> rows,
                          CrossThreadPoster* poster, std::function<void(int)> done) {
  Impl* impl = impl_.get();
  impl->Post([impl, policy, rows = std::move(rows), poster, done = std::move(done)] {
    int result = impl->SaveRows(policy, rows);
    if (done && poster) poster->PostToLoop([done, result] { done(result); });
  });
}

std::string PredictorStore::last_error() const { return impl_->last_error(); }

}  // namespace netstack
