// The cache backend's side of the cache benchmark: a CacheBackend driven from a libuv loop the
// way the HTTP layer drives it (create, append, commit; open, read to the end), each phase
// timed on the loop. The backend does its disk work on its own thread; the loop waits for its
// callbacks, so the caller keeps the cross-thread poster referenced while these run.
//
// Writers keep the bytes handed over but not yet committed under a cap below the backend's
// max_pending_write_bytes, pausing until commit callbacks free room: a producer that ignored
// the bound would see its appends fail (the backend drops what it cannot buffer), which is a
// different measurement.
#ifndef TOOLS_BENCH_BACKEND_BENCH_H_
#define TOOLS_BENCH_BACKEND_BENCH_H_

#include <uv.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cache/backend.h"
#include "tools/bench/bench_result.h"
#include "tools/bench/cache_workload.h"
#include "tools/bench/run_loop_until.h"

namespace netstack {

// Creates a backend asynchronously and calls its argument on the loop with the result.
using BackendFactory = std::function<void(
    std::function<void(int rv, std::unique_ptr<CacheBackend> backend, std::string message)>)>;

// Creates a backend with `factory`, timing the call to its callback (*ms). False with
// `*error` if creation failed or the backend holds other than `expect_entries` entries.
bool BackendOpen(uv_loop_t* loop, const BackendFactory& factory, int64_t expect_entries,
                 std::unique_ptr<CacheBackend>* backend, double* ms, std::string* error);

// Inserts every workload entry (headers, then the body in 64 KiB appends, then Commit), one
// entry per loop iteration, keeping at most `max_outstanding` bytes uncommitted; then Flush.
// Fills result->insert.
bool BackendPopulate(uv_loop_t* loop, CacheBackend* backend, const CacheWorkload& workload,
                     int64_t max_outstanding, BenchResult* result, std::string* error);

// Opens and reads (64 KiB reads, until ReadBody returns 0) the entries at `indices`, one after
// the other, checking each against the workload. Fills hit_us and hit_failures.
void BackendHits(uv_loop_t* loop, CacheBackend* backend, const CacheWorkload& workload,
                 const std::vector<size_t>& indices, BenchResult* result);

// OpenEntry on `count` absent keys; fills miss_us (and miss_failures if one is found or does
// not answer synchronously).
void BackendMisses(uv_loop_t* loop, CacheBackend* backend, int count, BenchResult* result);

// Writes `plan` through CreateEntry/AppendBody/Commit, one chunk per loop iteration, then
// Flush, while a 1 ms timer measures the loop's lag until the flush completes. Fills
// result->stream.
bool BackendStream(uv_loop_t* loop, CacheBackend* backend, const CacheWorkload& workload,
                   const StreamPlan& plan, int64_t max_outstanding, BenchResult* result,
                   std::string* error);

}  // namespace netstack

#endif  // TOOLS_BENCH_BACKEND_BENCH_H_
