// One run of the cache benchmark (tools/bench/cache-bench runs several and takes medians): the
// disk backend and the raw sqlite floor, phase by phase on the same workload, each phase
// raw-then-backend or the reverse, with sync(2) before each timed write phase so that one
// side's dirty pages do not slow the other's writes.
//
//   populate  insert the whole workload (raw: `raw_batch` per transaction)
//   open      open the populated cache in a fresh process until it can answer, `opens` times
//   hits      open + read the whole body of `hits` random entries, one after the other
//   misses    `misses` absent keys
//   stream    write `write_bytes` from the event loop while a 1 ms timer measures its lag
#ifndef TOOLS_BENCH_CACHE_BENCH_H_
#define TOOLS_BENCH_CACHE_BENCH_H_

#include <uv.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cache/backend.h"
#include "tools/bench/backend_bench.h"
#include "tools/bench/bench_result.h"
#include "tools/bench/cache_workload.h"

namespace netstack {

struct CacheBenchOptions {
  CacheWorkload::Options workload;
  StreamPlan stream;
  int hits = 10'000;
  int misses = 10'000;
  int opens = 3;
  int raw_batch = 1000;
  // 0: twice what the run writes (population + stream), so eviction never runs.
  int64_t max_bytes = 0;
  // "disk", or "memory" (MemoryBackend: checks the harness; it has no open phase).
  std::string backend = "disk";
  bool backend_first = false;
  std::string parent_dir = "/tmp";  // the run's data lives in a temporary directory under it
  bool keep = false;                // leave the data directory in place
  std::string self_path;            // this program, run again for the open phase
};

// Everything the run measured, and what it ran on.
struct CacheBenchReport {
  nlohmann::json config;
  // The idle loop's timer lateness and blocked time, for scale.
  SampleSet baseline_lag_us;
  SampleSet baseline_blocked_us;
  BenchResult raw;
  BenchResult backend;
  nlohmann::json backend_stats;  // CacheStats at the end (evictions, entry count, ...)
  nlohmann::json ToJson(bool with_samples) const;
};

// Runs the whole benchmark. False with a one-line `*error` if a phase failed (a failed insert,
// a wrong entry count): such figures would not mean anything.
bool RunCacheBench(const CacheBenchOptions& options, CacheBenchReport* report, std::string* error);

// The open phase's child: opens the populated cache at `dir` ("raw" or "backend" side), checks
// it holds `expect_entries`, and prints "open_ms <ms>" on stdout. Returns the exit code.
int RunOpenChild(const std::string& side, const std::string& dir, int64_t expect_entries,
                 const CacheBenchOptions& options);

}  // namespace netstack

#endif  // TOOLS_BENCH_CACHE_BENCH_H_
