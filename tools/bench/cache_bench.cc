#include "tools/bench/cache_bench.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>

#include "cache/disk_backend.h"
#include "cache/memory_backend.h"
#include "net/base/clock.h"
#include "net/base/uv_cross_thread_poster.h"
#include "net/base/uv_scheduler.h"
#include "tools/bench/loop_lag_monitor.h"
#include "tools/bench/raw_bench.h"
#include "tools/bench/raw_cache_store.h"

namespace netstack {
namespace {

// A loop and what a backend needs from it. The poster stays referenced, so the loop waits for
// the cache thread; phases run it with RunLoopUntil. Backends must be destroyed first.
class LoopEnv {
 public:
  LoopEnv() {
    uv_loop_init(&loop_);
    poster_ = std::make_unique<UvCrossThreadPoster>(&loop_);
    poster_->Ref();
    scheduler_ = std::make_unique<UvScheduler>(&loop_);
  }
  ~LoopEnv() {
    poster_.reset();
    scheduler_.reset();
    uv_run(&loop_, UV_RUN_DEFAULT);  // the handles' close callbacks
    uv_loop_close(&loop_);
  }
  uv_loop_t* loop() { return &loop_; }

  BackendFactory Factory(const std::string& kind, const std::string& dir,
                         const CacheConfig& config) {
    if (kind == "memory") {
      // Posted: callbacks never run inside the call that was given them.
      return [this, config](auto callback) {
        scheduler_->PostDelayedTask(TimeDelta(0), [this, config, callback] {
          callback(OK, std::make_unique<MemoryBackend>(*scheduler_, clock_, config), "");
        });
      };
    }
    return [this, dir, config](auto callback) {
      DiskBackend::Params params;
      params.directory = dir;
      params.config = config;
      params.clock = &clock_;
      params.poster = poster_.get();
      DiskBackend::Create(
          params, [callback](int rv, std::unique_ptr<DiskBackend> backend, std::string message) {
            callback(rv, std::move(backend), std::move(message));
          });
    };
  }

 private:
  uv_loop_t loop_;
  SystemClock clock_;
  std::unique_ptr<UvCrossThreadPoster> poster_;
  std::unique_ptr<UvScheduler> scheduler_;
};

CacheConfig MakeConfig(int64_t max_bytes) {
  CacheConfig config;
  config.max_bytes = max_bytes;
  return config;
}

// The run's data directory, removed at the end unless kept.
class TempDir {
 public:
  TempDir(const std::string& parent, bool keep) : keep_(keep) {
    std::string templ = parent + "/netstack-cache-bench.XXXXXX";
    if (mkdtemp(templ.data())) path_ = templ;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty() && !keep_) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool keep_;
};

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs this program again to open the cache at `dir`, so the open starts from a fresh process
// (no warm heap, no connection or statements left over); reads the time it reports.
bool OpenInChild(const CacheBenchOptions& options, const std::string& side, const std::string& dir,
                 int64_t expect, int64_t max_bytes, double* ms, std::string* error) {
  std::string cmd = Quote(options.self_path) + " --open-child " + side + " --data-dir " +
                    Quote(dir) + " --expect " + std::to_string(expect) + " --backend " +
                    options.backend + " --max-bytes " + std::to_string(max_bytes);
  FILE* child = popen(cmd.c_str(), "r");
  if (!child) {
    *error = "cannot run " + options.self_path;
    return false;
  }
  char line[256] = {};
  bool got = fgets(line, sizeof(line), child) && sscanf(line, "open_ms %lf", ms) == 1;
  int status = pclose(child);
  if (!got || status != 0) {
    *error = "the " + side + " open of " + dir + " failed (its message is above)";
    return false;
  }
  return true;
}

// Runs `first` then `second`, stopping at a failure.
bool Both(bool backend_first, const std::function<bool()>& raw,
          const std::function<bool()>& backend) {
  return backend_first ? backend() && raw() : raw() && backend();
}

void Progress(const char* phase, const BenchResult& raw, const BenchResult& backend,
              const std::function<double(const BenchResult&)>& value, const char* unit) {
  fprintf(stderr, "cache_bench: %-8s raw %10.1f %s, backend %10.1f %s\n", phase, value(raw), unit,
          value(backend), unit);
}

}  // namespace

nlohmann::json CacheBenchReport::ToJson(bool with_samples) const {
  return {{"config", config},
          {"baseline_lag_us", baseline_lag_us.ToJson(with_samples)},
          {"baseline_blocked_us", baseline_blocked_us.ToJson(with_samples)},
          {"raw", raw.ToJson(with_samples)},
          {"backend", backend.ToJson(with_samples)},
          {"backend_stats", backend_stats}};
}

bool RunCacheBench(const CacheBenchOptions& options, CacheBenchReport* report, std::string* error) {
  uint64_t t0 = uv_hrtime();
  CacheWorkload workload(options.workload);
  const int64_t n = static_cast<int64_t>(workload.size());
  const int64_t written =
      workload.total_body_bytes() + workload.total_headers_bytes() + options.stream.total_bytes;
  const int64_t max_bytes = options.max_bytes > 0 ? options.max_bytes : 2 * written;
  const CacheConfig config = MakeConfig(max_bytes);
  const int64_t max_outstanding = config.max_pending_write_bytes * 3 / 4;
  const bool memory = options.backend == "memory";
  // Every entry must fit the backend's per-entry limit, or inserts fail rather than evict.
  const int64_t largest =
      std::max(options.workload.max_body_bytes, options.stream.entry_bytes) + 4096;
  if (largest > config.entry_limit()) {
    *error = "--max-mib " + std::to_string(max_bytes >> 20) + " allows entries up to " +
             std::to_string(config.entry_limit() >> 10) + " KiB (max_bytes / 8); the largest is " +
             std::to_string(largest >> 10) + " KiB: raise --max-mib or lower --write-entry-kib";
    return false;
  }
  fprintf(stderr, "cache_bench: workload of %lld entries built in %.1f s\n",
          static_cast<long long>(n), static_cast<double>(uv_hrtime() - t0) / 1e9);

  TempDir tmp(options.parent_dir, options.keep);
  if (tmp.path().empty()) {
    *error = options.parent_dir + ": cannot create a temporary directory";
    return false;
  }
  const std::string raw_dir = tmp.path() + "/raw";
  const std::string backend_dir = tmp.path() + "/backend";
  report->config = {
      {"entries", n},
      {"seed", options.workload.seed},
      {"body_median_bytes", options.workload.median_body_bytes},
      {"body_sigma", options.workload.sigma},
      {"body_min_bytes", options.workload.min_body_bytes},
      {"body_max_bytes", options.workload.max_body_bytes},
      {"total_body_bytes", workload.total_body_bytes()},
      {"total_headers_bytes", workload.total_headers_bytes()},
      {"bodies_in_files", workload.CountBodiesAbove(RawCacheStore::kInlineBodyBytes)},
      {"stream_bytes", options.stream.total_bytes},
      {"stream_entry_bytes", options.stream.entry_bytes},
      {"stream_chunk_bytes", options.stream.chunk_bytes},
      {"hits", options.hits},
      {"misses", options.misses},
      {"opens", options.opens},
      {"raw_batch", options.raw_batch},
      {"max_bytes", max_bytes},
      {"eviction_expected", options.max_bytes > 0},
      {"max_pending_write_bytes", config.max_pending_write_bytes},
      {"writer_max_outstanding_bytes", max_outstanding},
      {"backend", options.backend},
      {"backend_first", options.backend_first},
      {"data_dir", tmp.path()},
      {"sqlite_version", sqlite3_libversion()},
      {"libuv_version", uv_version_string()},
  };

  LoopEnv env;
  uv_loop_t* loop = env.loop();
  BenchResult& raw = report->raw;
  BenchResult& back = report->backend;

  // The idle loop's lateness, for scale: the 1 ms timer alone for one second.
  {
    LoopLagMonitor monitor(loop);
    uv_timer_t stop;
    bool done = false;
    uv_timer_init(loop, &stop);
    stop.data = &done;
    monitor.Start();
    uv_timer_start(
        &stop, [](uv_timer_t* t) { *static_cast<bool*>(t->data) = true; }, 1000, 0);
    RunLoopUntil(loop, done);
    monitor.Stop();
    report->baseline_lag_us = monitor.lateness_us();
    report->baseline_blocked_us = monitor.blocked_us();
    uv_close(reinterpret_cast<uv_handle_t*>(&stop), nullptr);
  }
  uv_run(loop, UV_RUN_NOWAIT);

  auto raw_store = std::make_unique<RawCacheStore>();
  std::unique_ptr<CacheBackend> backend;
  double ms = 0;
  if (!raw_store->Open(raw_dir, error) ||
      !BackendOpen(loop, env.Factory(options.backend, backend_dir, config), 0, &backend, &ms,
                   error)) {
    return false;
  }

  bool ok = Both(
      options.backend_first,
      [&] {
        sync();
        return RawPopulate(raw_store.get(), workload, options.raw_batch, &raw, error);
      },
      [&] {
        sync();
        return BackendPopulate(loop, backend.get(), workload, max_outstanding, &back, error);
      });
  if (!ok) return false;
  Progress(
      "insert", raw, back, [](const BenchResult& r) { return r.insert.flush_s; }, "s");

  // With a small --max-mib, eviction ran during population: the backend keeps fewer entries.
  const int64_t kept = backend->GetEntryCount();
  report->config["backend_entries_after_insert"] = kept;
  if (!memory) {
    raw_store.reset();
    backend.reset();  // finishes its writes and stops its thread
    for (int i = 0; i < options.opens; ++i) {
      ok = Both(
          options.backend_first,
          [&] {
            raw.open_ms.push_back(0);
            return OpenInChild(options, "raw", raw_dir, n, max_bytes, &raw.open_ms.back(), error);
          },
          [&] {
            back.open_ms.push_back(0);
            return OpenInChild(options, "backend", backend_dir, kept, max_bytes,
                               &back.open_ms.back(), error);
          });
      if (!ok) return false;
    }
    Progress(
        "open", raw, back, [](const BenchResult& r) { return MedianOf(r.open_ms); }, "ms");
    raw_store = std::make_unique<RawCacheStore>();
    if (!raw_store->Open(raw_dir, error) || !raw_store->LoadIndex(error) ||
        !BackendOpen(loop, env.Factory(options.backend, backend_dir, config), kept, &backend, &ms,
                     error)) {
      return false;
    }
  }

  // The same random entries for both sides; among those the backend kept if it evicted.
  std::vector<size_t> indices;
  CacheEntryInfo info;
  for (size_t i : workload.RandomIndices(options.hits * (kept < n ? 20 : 1),
                                         options.workload.seed * 7919 + 1)) {
    if (indices.size() == static_cast<size_t>(options.hits)) break;
    if (kept == n || backend->GetEntryInfo(workload.entry(i).key, &info)) indices.push_back(i);
  }
  Both(
      options.backend_first,
      [&] {
        RawHits(raw_store.get(), workload, indices, &raw);
        RawMisses(raw_store.get(), options.misses, &raw);
        return true;
      },
      [&] {
        BackendHits(loop, backend.get(), workload, indices, &back);
        BackendMisses(loop, backend.get(), options.misses, &back);
        return true;
      });
  Progress(
      "hit p50", raw, back, [](const BenchResult& r) { return r.hit_us.Median(); }, "us");
  if (raw.hit_failures || back.hit_failures || raw.miss_failures || back.miss_failures) {
    *error = "wrong answers: hits raw " + std::to_string(raw.hit_failures) + ", backend " +
             std::to_string(back.hit_failures) + "; misses raw " +
             std::to_string(raw.miss_failures) + ", backend " + std::to_string(back.miss_failures);
    return false;
  }

  ok = Both(
      options.backend_first,
      [&] {
        sync();
        return RawStream(loop, raw_store.get(), workload, options.stream, &raw, error);
      },
      [&] {
        sync();
        return BackendStream(loop, backend.get(), workload, options.stream, max_outstanding, &back,
                             error);
      });
  if (!ok) return false;
  Progress(
      "lag p99", raw, back, [](const BenchResult& r) { return r.stream.lag_us.Percentile(99); },
      "us");
  report->backend_stats = backend->GetStats().ToJson();
  backend.reset();
  raw_store.reset();
  return true;
}

int RunOpenChild(const std::string& side, const std::string& dir, int64_t expect_entries,
                 const CacheBenchOptions& options) {
  std::string error;
  double ms = 0;
  if (side == "raw") {
    if (!RawOpenOnce(dir, static_cast<size_t>(expect_entries), &ms, &error)) {
      fprintf(stderr, "cache_bench: raw open: %s\n", error.c_str());
      return 1;
    }
  } else {
    LoopEnv env;
    std::unique_ptr<CacheBackend> backend;
    bool ok =
        BackendOpen(env.loop(), env.Factory(options.backend, dir, MakeConfig(options.max_bytes)),
                    expect_entries, &backend, &ms, &error);
    backend.reset();
    if (!ok) {
      fprintf(stderr, "cache_bench: backend open: %s\n", error.c_str());
      return 1;
    }
  }
  printf("open_ms %.3f\n", ms);
  return 0;
}

}  // namespace netstack
