// The cache benchmark's data: a seeded population of entries with URL-like keys, HTTP-like
// header blobs and a realistic body size mix, the same for the disk backend and the raw sqlite
// floor. Body bytes are slices of one random pool, so the population costs no memory per body.
//
// Body sizes are log-normal (median `median_body_bytes`, shape `sigma`), clamped to
// [min_body_bytes, max_body_bytes]: most entries are a few KiB (fit inline in the database),
// about one in eight is above 16 KiB (a file of its own), a few are at the cap.
#ifndef TOOLS_BENCH_CACHE_WORKLOAD_H_
#define TOOLS_BENCH_CACHE_WORKLOAD_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace netstack {

class CacheWorkload {
 public:
  struct Options {
    int entries = 100'000;
    uint64_t seed = 1;
    double median_body_bytes = 4096;
    double sigma = 1.2;
    int64_t min_body_bytes = 64;
    int64_t max_body_bytes = 2 * 1024 * 1024;
  };
  struct Entry {
    std::string key;
    std::string headers;
    int64_t body_size = 0;
    int64_t body_offset = 0;  // into the pool
  };

  explicit CacheWorkload(const Options& options);

  const Options& options() const { return options_; }
  size_t size() const { return entries_.size(); }
  const Entry& entry(size_t i) const { return entries_[i]; }
  // Entry i's body: a view into the pool, valid as long as the workload.
  std::string_view body(size_t i) const;
  // `len` pool bytes starting at `offset` (any offset below pool_stride(); len <= the cap):
  // the content of the large writes.
  std::string_view PoolBytes(int64_t offset, int64_t len) const;
  int64_t pool_stride() const { return kPoolStride; }

  int64_t total_body_bytes() const { return total_body_bytes_; }
  int64_t total_headers_bytes() const { return total_headers_bytes_; }
  // Entries whose body is above `bytes` (the inline limit: these live in files).
  int64_t CountBodiesAbove(int64_t bytes) const;

  // `n` entry indices drawn uniformly (with replacement) with its own seed.
  std::vector<size_t> RandomIndices(int n, uint64_t seed) const;
  // A key shaped like the population's that is not in it.
  static std::string MissKey(int i);
  // The keys and headers of the large writes (the loop-lag phase); distinct from both.
  static std::string StreamKey(int i);
  static std::string StreamHeaders(int64_t body_size);

 private:
  static constexpr int64_t kPoolStride = 4 * 1024 * 1024;

  Options options_;
  std::vector<Entry> entries_;
  std::string pool_;  // kPoolStride + max_body_bytes random bytes
  int64_t total_body_bytes_ = 0;
  int64_t total_headers_bytes_ = 0;
};

}  // namespace netstack

#endif  // TOOLS_BENCH_CACHE_WORKLOAD_H_
