// Waiting for the cache thread from a tool's main line: the profile's DiskBackend is created
// asynchronously (its thread opens and checks the database), and `netstack cache` reads entries
// one at a time. These helpers run the libuv loop until an answer has arrived.
#ifndef TOOLS_NETSTACK_CACHE_LOOP_H_
#define TOOLS_NETSTACK_CACHE_LOOP_H_

#include <uv.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "cache/backend.h"
#include "cache/disk_backend.h"
#include "net/base/clock.h"
#include "net/base/uv_cross_thread_poster.h"

namespace netstack {

// A flag set from a loop callback that also stops the loop, so a RunLoopUntil blocked in the
// poll phase (an idle socket keeps the loop alive) returns at once.
class LoopSignal {
 public:
  explicit LoopSignal(uv_loop_t* loop) : loop_(loop) {}
  void Set() {
    set_ = true;
    uv_stop(loop_);
  }
  bool is_set() const { return set_; }

 private:
  uv_loop_t* const loop_;
  bool set_ = false;
};

// Runs `loop` until `signal` is set. The poster is referenced meanwhile: it is what the cache
// thread's answer arrives through, and an unreferenced handle would let uv_run return while the
// thread still works. Must not be called from inside a loop callback.
void RunLoopUntil(uv_loop_t* loop, UvCrossThreadPoster* poster, const LoopSignal& signal);

// DiskBackend::Create's answer.
struct OpenedDiskCache {
  int result = ERR_FAILED;  // OK or ERR_CACHE_OPEN_FAILURE
  std::unique_ptr<DiskBackend> backend;
  // With OK: a warning (a damaged database was moved aside) or "". Otherwise why it failed.
  std::string message;
};

// Creates the disk cache in `directory` and waits for it. `clock` and `poster` must outlive
// the backend. `watch_disk_space`: DiskBackend::Params's (size against the free space, stop
// storing below the margin); off for inspection, which must not evict.
OpenedDiskCache OpenDiskCache(uv_loop_t* loop, UvCrossThreadPoster* poster, const Clock& clock,
                              const std::string& directory, const CacheConfig& config,
                              bool watch_disk_space);

// Synchronous forms of CacheBackend/CacheEntry calls, for `netstack cache` (one entry at a
// time; no other work is in flight). Each returns a net error as the call would.
int PeekEntrySync(uv_loop_t* loop, UvCrossThreadPoster* poster, CacheBackend* backend,
                  const std::string& key, std::unique_ptr<CacheEntry>* entry);
// Reads the body from its start in pieces of at most 64 KiB, passing each to `sink` (the view
// is valid during the call only). Stops early, with OK, when `sink` returns false; OK at the
// body's end; else the read's error.
int ReadBodyChunks(uv_loop_t* loop, UvCrossThreadPoster* poster, CacheEntry* entry,
                   const std::function<bool(std::string_view)>& sink);
// Runs a callback-taking call (Flush, DoomAllEntries) and waits for its result.
int WaitForCompletion(uv_loop_t* loop, UvCrossThreadPoster* poster,
                      const std::function<void(CompletionCallback)>& call);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_CACHE_LOOP_H_
