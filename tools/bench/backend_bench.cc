#include "tools/bench/backend_bench.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "net/base/net_error.h"
#include "tools/bench/loop_lag_monitor.h"
#include "tools/bench/run_delay_meter.h"

namespace netstack {
namespace {

double NowSeconds() { return static_cast<double>(uv_hrtime()) / 1e9; }

// What LoopWriter writes as entry i.
struct WriteItem {
  std::string key;
  std::string headers;
  std::string_view body;
};

// Writes `count` entries into a backend from idle callbacks: per loop iteration either one
// chunk (the large write, as a network read delivers it) or one whole entry (population).
class LoopWriter {
 public:
  struct Stats {
    int64_t entries = 0;
    int64_t bytes = 0;  // headers + bodies
    int64_t body_bytes = 0;
    double loop_s = 0;   // until the last Commit call
    double flush_s = 0;  // until Flush completed
    uint64_t failures = 0;
    int first_error = OK;
  };

  LoopWriter(uv_loop_t* loop, CacheBackend* backend, int count, std::function<WriteItem(int)> item,
             bool whole_entry, int chunk_bytes, int64_t max_outstanding)
      : loop_(loop),
        backend_(backend),
        count_(count),
        item_fn_(std::move(item)),
        whole_entry_(whole_entry),
        chunk_bytes_(chunk_bytes),
        max_outstanding_(max_outstanding) {
    uv_idle_init(loop_, &idle_);
    idle_.data = this;
  }

  // Runs the loop until every entry is committed and flushed.
  Stats Run() {
    start_s_ = NowSeconds();
    uv_idle_start(&idle_, [](uv_idle_t* h) { static_cast<LoopWriter*>(h->data)->OnIdle(); });
    RunLoopUntil(loop_, done_);
    uv_close(reinterpret_cast<uv_handle_t*>(&idle_), nullptr);
    uv_run(loop_, UV_RUN_NOWAIT);  // the close callback, before `idle_` goes away
    return stats_;
  }

 private:
  void OnIdle() {
    if (!entry_) {
      item_ = item_fn_(next_);
      size_ = static_cast<int64_t>(item_.headers.size() + item_.body.size());
      if (outstanding_ > 0 && outstanding_ + size_ > max_outstanding_) {
        // Full: resume when a commit frees room.
        uv_idle_stop(&idle_);
        waiting_ = true;
        return;
      }
      entry_ = backend_->CreateEntry(item_.key);
      entry_->WriteHeaders(item_.headers);
      appended_ = 0;
      outstanding_ += size_;
    }
    const int64_t body_size = static_cast<int64_t>(item_.body.size());
    do {
      int len = static_cast<int>(std::min<int64_t>(chunk_bytes_, body_size - appended_));
      if (len > 0) {
        int rv = entry_->AppendBody(item_.body.data() + appended_, len);
        if (rv != OK && stats_.first_error == OK) stats_.first_error = rv;
      }
      appended_ += len;
    } while (whole_entry_ && appended_ < body_size);
    if (appended_ < body_size) return;

    int64_t size = size_;
    entry_->Commit([this, size](int rv) {
      outstanding_ -= size;
      ++committed_;
      if (rv != OK) {
        ++stats_.failures;
        if (stats_.first_error == OK) stats_.first_error = rv;
      }
      if (waiting_) {
        waiting_ = false;
        uv_idle_start(&idle_, [](uv_idle_t* h) { static_cast<LoopWriter*>(h->data)->OnIdle(); });
      }
      done_ = flushed_ && committed_ == count_;
    });
    entry_.reset();  // the commit goes on without it
    stats_.entries++;
    stats_.bytes += size;
    stats_.body_bytes += body_size;
    if (++next_ < count_) return;

    uv_idle_stop(&idle_);
    stats_.loop_s = NowSeconds() - start_s_;
    backend_->Flush([this](int) {
      stats_.flush_s = NowSeconds() - start_s_;
      flushed_ = true;
      done_ = committed_ == count_;
    });
  }

  uv_loop_t* loop_;
  CacheBackend* backend_;
  const int count_;
  std::function<WriteItem(int)> item_fn_;
  const bool whole_entry_;
  const int chunk_bytes_;
  const int64_t max_outstanding_;
  uv_idle_t idle_;

  int next_ = 0;
  WriteItem item_;
  int64_t size_ = 0;
  std::unique_ptr<CacheEntry> entry_;
  int64_t appended_ = 0;
  int64_t outstanding_ = 0;  // handed over, commit callback not yet run
  int committed_ = 0;
  bool waiting_ = false;
  bool flushed_ = false;
  bool done_ = false;
  double start_s_ = 0;
  Stats stats_;
};

// Hits one after the other: OpenEntry, then ReadBody until it returns 0.
class HitReader {
 public:
  HitReader(uv_loop_t* loop, CacheBackend* backend, const CacheWorkload& workload,
            const std::vector<size_t>& indices, BenchResult* result)
      : loop_(loop), backend_(backend), workload_(workload), indices_(indices), result_(result) {}

  void Run() {
    result_->hit_us.Reserve(indices_.size());
    // One buffer for every hit, sized once outside the timing (the raw side reuses its string
    // the same way): clearing a fresh buffer per hit cost more than some hits.
    int64_t largest = 0;
    for (size_t i : indices_) largest = std::max(largest, workload_.entry(i).body_size);
    body_.resize(static_cast<size_t>(largest) + kReadChunk);
    Next();
    RunLoopUntil(loop_, done_);
  }

 private:
  // Starts hits until one has to wait (its callback continues the loop) or all are done.
  void Next() {
    while (pos_ < indices_.size()) {
      const CacheWorkload::Entry& e = workload_.entry(indices_[pos_]);
      limit_ = e.body_size + kReadChunk;  // room for one read past the end, which returns 0
      offset_ = 0;
      wait_ns_ = run_delay_.WaitNs();
      start_ns_ = uv_hrtime();
      int rv = backend_->OpenEntry(e.key, &entry_, [this](int rv, std::unique_ptr<CacheEntry> e) {
        entry_ = std::move(e);
        if (OnOpened(rv)) Next();
      });
      if (rv == ERR_IO_PENDING) return;
      if (!OnOpened(rv)) return;
    }
    done_ = true;
  }

  // False if the hit is waiting for a read.
  bool OnOpened(int rv) {
    if (rv != OK) return Finish(false);
    return ReadMore();
  }

  bool ReadMore() {
    for (;;) {
      int len = static_cast<int>(std::min<int64_t>(kReadChunk, limit_ - offset_));
      int rv = entry_->ReadBody(offset_, body_.data() + offset_, len, [this](int rv) {
        if (!OnRead(rv) || ReadMore()) Next();
      });
      if (rv == ERR_IO_PENDING) return false;
      if (!OnRead(rv)) return true;  // finished
    }
  }

  // True if more reads are needed; finishes the hit otherwise.
  bool OnRead(int rv) {
    if (rv > 0 && offset_ + rv < limit_) {
      offset_ += rv;
      return true;
    }
    // The hit ends here; checking what was read is not part of it (nor of the raw side's).
    const uint64_t end_ns = uv_hrtime();
    const CacheWorkload::Entry& e = workload_.entry(indices_[pos_]);
    bool ok = rv == 0 && offset_ == e.body_size && entry_->headers() == e.headers &&
              std::string_view(body_.data(), offset_) == workload_.body(indices_[pos_]);
    Finish(ok, end_ns);
    return false;
  }

  bool Finish(bool ok, uint64_t end_ns = 0) {
    double us = static_cast<double>((end_ns ? end_ns : uv_hrtime()) - start_ns_) / 1e3;
    result_->hit_us.Add(us);
    result_->hit_no_wait_us.Add(
        std::max(0.0, us - static_cast<double>(run_delay_.WaitNs() - wait_ns_) / 1000.0));
    if (!ok) ++result_->hit_failures;
    entry_.reset();
    ++pos_;
    return true;
  }

  static constexpr int kReadChunk = 64 * 1024;
  uv_loop_t* loop_;
  CacheBackend* backend_;
  const CacheWorkload& workload_;
  const std::vector<size_t>& indices_;
  BenchResult* result_;
  // Made after the backend, so it includes the cache thread.
  RunDelayMeter run_delay_{RunDelayMeter::Threads::kAllThreads};
  size_t pos_ = 0;
  uint64_t wait_ns_ = 0;
  uint64_t start_ns_ = 0;
  std::unique_ptr<CacheEntry> entry_;
  std::string body_;
  int64_t limit_ = 0;  // this hit's reads stay below it
  int64_t offset_ = 0;
  bool done_ = false;
};

}  // namespace

bool BackendOpen(uv_loop_t* loop, const BackendFactory& factory, int64_t expect_entries,
                 std::unique_ptr<CacheBackend>* backend, double* ms, std::string* error) {
  bool done = false;
  int result = OK;
  uint64_t start = uv_hrtime();
  factory([&](int rv, std::unique_ptr<CacheBackend> b, std::string message) {
    *ms = static_cast<double>(uv_hrtime() - start) / 1e6;
    result = rv;
    *backend = std::move(b);
    if (rv != OK) *error = "creating the backend: " + ErrorToString(rv) + ": " + message;
    done = true;
  });
  if (!RunLoopUntil(loop, done)) {
    *error = "creating the backend: the loop ran out of work before its callback";
    return false;
  }
  if (result != OK) return false;
  if ((*backend)->GetEntryCount() != expect_entries) {
    *error = "the backend opened with " + std::to_string((*backend)->GetEntryCount()) +
             " entries, expected " + std::to_string(expect_entries);
    return false;
  }
  return true;
}

bool BackendPopulate(uv_loop_t* loop, CacheBackend* backend, const CacheWorkload& workload,
                     int64_t max_outstanding, BenchResult* result, std::string* error) {
  LoopWriter writer(
      loop, backend, static_cast<int>(workload.size()),
      [&](int i) {
        const CacheWorkload::Entry& e = workload.entry(i);
        return WriteItem{e.key, e.headers, workload.body(i)};
      },
      /*whole_entry=*/true, 64 * 1024, max_outstanding);
  LoopWriter::Stats s = writer.Run();
  result->insert.entries = s.entries;
  result->insert.bytes = s.bytes;
  result->insert.loop_s = s.loop_s;
  result->insert.flush_s = s.flush_s;
  result->insert.failures = s.failures;
  if (s.failures) {
    *error = std::to_string(s.failures) + " of " + std::to_string(s.entries) +
             " inserts failed, the first with " + ErrorToString(s.first_error);
    return false;
  }
  return true;
}

void BackendHits(uv_loop_t* loop, CacheBackend* backend, const CacheWorkload& workload,
                 const std::vector<size_t>& indices, BenchResult* result) {
  HitReader reader(loop, backend, workload, indices, result);
  reader.Run();
}

void BackendMisses(uv_loop_t* loop, CacheBackend* backend, int count, BenchResult* result) {
  for (int i = 0; i < count; ++i) {
    std::string key = CacheWorkload::MissKey(i);
    std::unique_ptr<CacheEntry> entry;
    bool done = false;
    uint64_t start = uv_hrtime();
    int rv = backend->OpenEntry(key, &entry, [&](int r, std::unique_ptr<CacheEntry>) {
      result->miss_us.Add(static_cast<double>(uv_hrtime() - start) / 1e3);
      ++result->miss_failures;  // a miss must be decided synchronously
      done = true;
    });
    if (rv == ERR_IO_PENDING) {
      RunLoopUntil(loop, done);
      continue;
    }
    result->miss_us.Add(static_cast<double>(uv_hrtime() - start) / 1e3);
    if (rv != ERR_CACHE_MISS) ++result->miss_failures;
  }
}

bool BackendStream(uv_loop_t* loop, CacheBackend* backend, const CacheWorkload& workload,
                   const StreamPlan& plan, int64_t max_outstanding, BenchResult* result,
                   std::string* error) {
  LoopWriter writer(
      loop, backend, plan.entries(),
      [&](int i) {
        int64_t size = std::min(plan.entry_bytes, plan.total_bytes - i * plan.entry_bytes);
        return WriteItem{CacheWorkload::StreamKey(i), CacheWorkload::StreamHeaders(size),
                         workload.PoolBytes(i * 4099, size)};
      },
      /*whole_entry=*/false, plan.chunk_bytes, max_outstanding);
  LoopLagMonitor monitor(loop);
  monitor.Start();
  LoopWriter::Stats s = writer.Run();
  monitor.Stop();
  result->stream.lag_us = monitor.lateness_us();
  result->stream.blocked_us = monitor.blocked_us();
  result->stream.bytes = s.body_bytes;
  result->stream.entries = static_cast<int>(s.entries);
  result->stream.loop_s = s.loop_s;
  result->stream.flush_s = s.flush_s;
  result->stream.failures = s.failures;
  if (s.failures) {
    *error = std::to_string(s.failures) + " of " + std::to_string(s.entries) +
             " large writes failed, the first with " + ErrorToString(s.first_error);
    return false;
  }
  return true;
}

}  // namespace netstack
