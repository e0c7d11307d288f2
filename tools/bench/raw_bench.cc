#include "tools/bench/raw_bench.h"

#include <unistd.h>

#include <memory>

#include "tools/bench/loop_lag_monitor.h"
#include "tools/bench/run_delay_meter.h"
#include "tools/bench/run_loop_until.h"

namespace netstack {
namespace {

double SecondsSince(uint64_t start_ns) { return static_cast<double>(uv_hrtime() - start_ns) / 1e9; }
double MicrosSince(uint64_t start_ns) { return static_cast<double>(uv_hrtime() - start_ns) / 1e3; }

// The large write's state between idle callbacks.
struct RawStreamState {
  RawCacheStore* store = nullptr;
  const CacheWorkload* workload = nullptr;
  StreamPlan plan;
  LoopLagMonitor* monitor = nullptr;
  uv_idle_t idle;
  int entry = 0;           // the entry being written
  int64_t entry_done = 0;  // its bytes written so far
  int64_t file_id = 0;
  int fd = -1;
  int64_t written = 0;
  uint64_t start_ns = 0;
  double done_s = 0;
  bool done = false;
  std::string error;
};

void StopStream(RawStreamState* s) {
  s->done_s = SecondsSince(s->start_ns);
  s->monitor->Stop();
  uv_idle_stop(&s->idle);
  s->done = true;
}

// One chunk per loop iteration, the I/O done inline: what a naive single-threaded program does.
void OnRawStreamIdle(uv_idle_t* idle) {
  auto* s = static_cast<RawStreamState*>(idle->data);
  if (s->fd < 0) {
    s->fd = s->store->OpenBodyFile(&s->file_id, &s->error);
    if (s->fd < 0) return StopStream(s);
    s->entry_done = 0;
  }
  int64_t entry_bytes = std::min(s->plan.entry_bytes, s->plan.total_bytes - s->written);
  int64_t len = std::min<int64_t>(s->plan.chunk_bytes, entry_bytes - s->entry_done);
  std::string_view chunk = s->workload->PoolBytes(s->entry * 4099 + s->entry_done, len);
  if (!s->store->Append(s->fd, chunk, &s->error)) return StopStream(s);
  s->entry_done += len;
  s->written += len;
  if (s->entry_done < entry_bytes) return;
  // The entry is complete: file into place, then its row (its own transaction).
  if (!s->store->FinishBodyFile(s->fd, s->file_id, &s->error)) return StopStream(s);
  s->fd = -1;
  if (!s->store->InsertFileRow(CacheWorkload::StreamKey(s->entry),
                               CacheWorkload::StreamHeaders(entry_bytes), entry_bytes, s->file_id,
                               &s->error)) {
    return StopStream(s);
  }
  ++s->entry;
  if (s->written >= s->plan.total_bytes) StopStream(s);
}

}  // namespace

bool RawPopulate(RawCacheStore* store, const CacheWorkload& workload, int batch,
                 BenchResult* result, std::string* error) {
  uint64_t start = uv_hrtime();
  int64_t bytes = 0;
  for (size_t i = 0; i < workload.size(); ++i) {
    if (i % batch == 0 && !store->BeginTransaction(error)) return false;
    const CacheWorkload::Entry& e = workload.entry(i);
    if (!store->Insert(e.key, e.headers, workload.body(i), error)) return false;
    bytes += static_cast<int64_t>(e.headers.size()) + e.body_size;
    if ((i + 1) % batch == 0 || i + 1 == workload.size()) {
      if (!store->CommitTransaction(error)) return false;
    }
  }
  result->insert.entries = static_cast<int64_t>(workload.size());
  result->insert.bytes = bytes;
  result->insert.loop_s = result->insert.flush_s = SecondsSince(start);
  return true;
}

bool RawOpenOnce(const std::string& dir, size_t expect_entries, double* ms, std::string* error) {
  uint64_t start = uv_hrtime();
  RawCacheStore store;
  if (!store.Open(dir, error) || !store.LoadIndex(error)) return false;
  *ms = MicrosSince(start) / 1000.0;
  if (store.index_size() != expect_entries) {
    *error = dir + ": " + std::to_string(store.index_size()) + " keys, expected " +
             std::to_string(expect_entries);
    return false;
  }
  return true;
}

void RawHits(RawCacheStore* store, const CacheWorkload& workload,
             const std::vector<size_t>& indices, BenchResult* result) {
  std::string headers, body, error;
  RunDelayMeter run_delay(RunDelayMeter::Threads::kAllThreads);
  result->hit_us.Reserve(indices.size());
  for (size_t i : indices) {
    const CacheWorkload::Entry& e = workload.entry(i);
    uint64_t wait_ns = run_delay.WaitNs();
    uint64_t start = uv_hrtime();
    bool found = store->Read(e.key, &headers, &body, &error);
    double us = MicrosSince(start);
    result->hit_us.Add(us);
    result->hit_no_wait_us.Add(
        std::max(0.0, us - static_cast<double>(run_delay.WaitNs() - wait_ns) / 1000.0));
    if (!found || headers != e.headers || body != workload.body(i)) ++result->hit_failures;
  }
}

void RawMisses(RawCacheStore* store, int count, BenchResult* result) {
  std::string error;
  for (int i = 0; i < count; ++i) {
    std::string key = CacheWorkload::MissKey(i);
    uint64_t start = uv_hrtime();
    bool found = store->Contains(key);
    result->miss_us.Add(MicrosSince(start));
    start = uv_hrtime();
    found |= store->HasRow(key, &error);
    result->miss_db_us.Add(MicrosSince(start));
    if (found || !error.empty()) ++result->miss_failures;
  }
}

bool RawStream(uv_loop_t* loop, RawCacheStore* store, const CacheWorkload& workload,
               const StreamPlan& plan, BenchResult* result, std::string* error) {
  auto monitor = std::make_unique<LoopLagMonitor>(loop);
  RawStreamState state;
  state.store = store;
  state.workload = &workload;
  state.plan = plan;
  state.monitor = monitor.get();
  uv_idle_init(loop, &state.idle);
  state.idle.data = &state;
  monitor->Start();
  state.start_ns = uv_hrtime();
  uv_idle_start(&state.idle, &OnRawStreamIdle);
  RunLoopUntil(loop, state.done);
  result->stream.lag_us = monitor->lateness_us();
  result->stream.blocked_us = monitor->blocked_us();
  // Both handles must finish closing before `state` goes out of scope.
  uv_close(reinterpret_cast<uv_handle_t*>(&state.idle), nullptr);
  monitor.reset();
  uv_run(loop, UV_RUN_NOWAIT);
  result->stream.bytes = state.written;
  result->stream.entries = state.entry;
  result->stream.loop_s = result->stream.flush_s = state.done_s;
  if (state.fd >= 0) close(state.fd);
  if (!state.error.empty()) {
    *error = state.error;
    result->stream.failures = 1;
    return false;
  }
  return true;
}

}  // namespace netstack
