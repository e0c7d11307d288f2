// The floor's side of the cache benchmark: RawCacheStore driven the way a single-threaded
// program would drive it. Population, hits and misses run synchronously on the calling thread;
// the large write runs on a libuv loop, a chunk per loop iteration, with the I/O done right
// there in the callbacks, while a LoopLagMonitor watches the loop.
#ifndef TOOLS_BENCH_RAW_BENCH_H_
#define TOOLS_BENCH_RAW_BENCH_H_

#include <uv.h>

#include <string>
#include <vector>

#include "tools/bench/bench_result.h"
#include "tools/bench/cache_workload.h"
#include "tools/bench/raw_cache_store.h"

namespace netstack {

// Inserts every workload entry, `batch` per transaction (BEGIN ... COMMIT); fills
// result->insert. False with `*error` if the store failed.
bool RawPopulate(RawCacheStore* store, const CacheWorkload& workload, int batch,
                 BenchResult* result, std::string* error);

// Opens the store at `dir` and loads its index, timing both (*ms). False if it failed or the
// index does not hold `expect_entries` keys.
bool RawOpenOnce(const std::string& dir, size_t expect_entries, double* ms, std::string* error);

// Reads the entries at `indices` one after the other (SELECT + body), checking each against
// the workload; fills hit_us and hit_failures.
void RawHits(RawCacheStore* store, const CacheWorkload& workload,
             const std::vector<size_t>& indices, BenchResult* result);

// `count` absent keys: the in-memory index (miss_us) and the database (miss_db_us).
void RawMisses(RawCacheStore* store, int count, BenchResult* result);

// Writes `plan` into the store from callbacks on `loop` (it runs the loop until done) while a
// 1 ms timer measures the loop's lag; fills result->stream.
bool RawStream(uv_loop_t* loop, RawCacheStore* store, const CacheWorkload& workload,
               const StreamPlan& plan, BenchResult* result, std::string* error);

}  // namespace netstack

#endif  // TOOLS_BENCH_RAW_BENCH_H_
