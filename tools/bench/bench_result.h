// What one side of the cache benchmark (the disk backend, or the raw sqlite floor) measured in
// one run, and the plan of its large write. Times in seconds or as named.
#ifndef TOOLS_BENCH_BENCH_RESULT_H_
#define TOOLS_BENCH_BENCH_RESULT_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "tools/bench/sample_set.h"

namespace netstack {

// The large write of the loop-lag phase: `total_bytes` as entries of `entry_bytes`, each
// appended `chunk_bytes` at a time, one chunk per loop iteration (as a network read would
// deliver them).
struct StreamPlan {
  int64_t total_bytes = 1024LL * 1024 * 1024;
  int64_t entry_bytes = 1024 * 1024;
  int chunk_bytes = 64 * 1024;
  int entries() const { return static_cast<int>((total_bytes + entry_bytes - 1) / entry_bytes); }
};

struct BenchResult {
  // Populating the cache: every entry of the workload.
  struct Insert {
    int64_t entries = 0;
    int64_t bytes = 0;   // headers + bodies
    double loop_s = 0;   // until the last entry was handed over (Commit called)
    double flush_s = 0;  // until it was all on disk (Flush completed; = loop_s for raw)
    uint64_t failures = 0;
  } insert;
  // Opening the populated cache until it can answer: one fresh process each.
  std::vector<double> open_ms;
  // Hits: open + read the whole body, call to last byte, µs.
  SampleSet hit_us;
  // The same, less the time the process's threads waited for a CPU during each hit.
  SampleSet hit_no_wait_us;
  uint64_t hit_failures = 0;  // not found, wrong size or wrong bytes
  // Misses decided by the in-memory index, µs.
  SampleSet miss_us;
  // Raw only: a miss asked of the database (SELECT with no row), µs.
  SampleSet miss_db_us;
  uint64_t miss_failures = 0;  // an absent key found
  // The loop-lag phase.
  struct Stream {
    int64_t bytes = 0;
    int entries = 0;
    double loop_s = 0;
    double flush_s = 0;
    uint64_t failures = 0;
    SampleSet lag_us;  // the 1 ms timer's lateness while writing
    // The part of it the loop spent busy or blocked (LoopLagMonitor::blocked_us).
    SampleSet blocked_us;
  } stream;

  nlohmann::json ToJson(bool with_samples) const;
};

}  // namespace netstack

#endif  // TOOLS_BENCH_BENCH_RESULT_H_
