// Test scaffolding shared by the cache tests: a harness that owns one backend and knows how to
// run its callbacks (virtual time for the memory backend, a pumped cross-thread poster for the
// disk backend), and synchronous helpers over the asynchronous CacheBackend API.
#ifndef TESTS_CACHE_BACKEND_TEST_UTIL_H_
#define TESTS_CACHE_BACKEND_TEST_UTIL_H_

#include <functional>
#include <memory>
#include <string>

#include "cache/backend.h"
#include "net/base/clock.h"

namespace netstack {

class BackendHarness {
 public:
  virtual ~BackendHarness() = default;
  virtual CacheBackend& backend() = 0;
  // Runs callbacks until `done()` holds; false if it never did (nothing left to run, or a
  // generous real-time timeout for the disk backend's thread).
  virtual bool RunUntil(const std::function<bool()>& done) = 0;
  // Destroys the backend and opens a new one on the same storage (disk only; false for memory).
  virtual bool Reopen() { return false; }
  virtual bool is_disk() const = 0;

  ManualClock& clock() { return clock_; }

 protected:
  ManualClock clock_;
};

std::unique_ptr<BackendHarness> MakeMemoryHarness(const CacheConfig& config);

// Tags for TEMPLATE_TEST_CASE: the same cases run against each backend.
struct MemoryBackendKind {
  static std::unique_ptr<BackendHarness> Make(const CacheConfig& config) {
    return MakeMemoryHarness(config);
  }
};

// OpenEntry, waiting for a pending result.
int OpenSync(BackendHarness& h, const std::string& key, std::unique_ptr<CacheEntry>* entry);
// PeekEntry, waited for like OpenSync.
int PeekSync(BackendHarness& h, const std::string& key, std::unique_ptr<CacheEntry>* entry);
// Commit, waiting for its callback.
int CommitSync(BackendHarness& h, CacheEntry& entry);
// Reads the whole body in `chunk`-byte reads into *out; returns OK or the first error.
int ReadAll(BackendHarness& h, CacheEntry& entry, std::string* out, int chunk = 7000);
// CreateEntry + WriteHeaders + AppendBody in `chunk`-byte pieces + CommitSync.
int Store(BackendHarness& h, const std::string& key, const std::string& headers,
          const std::string& body, int chunk = 5000);
// Flush, waiting for its callback.
int FlushSync(BackendHarness& h);
// Doom{All,Between} with a waited callback.
int DoomAllSync(BackendHarness& h);
int DoomBetweenSync(BackendHarness& h, Time begin, Time end);
// A body of `size` deterministic bytes, different per `seed`.
std::string MakeBody(size_t size, int seed);

}  // namespace netstack

#endif  // TESTS_CACHE_BACKEND_TEST_UTIL_H_
