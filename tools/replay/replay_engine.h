// ReplayEngine: replays a trace on virtual time through the live stack's code. It builds a
// VirtualScheduler, a SimNetwork (net/sim) and a UrlRequestContext over it (resolver, pools,
// HTTP transactions, and an HttpCache on a MemoryBackend when the cache is on), serves each
// request from the trace's recorded responses, places requests in time (recorded offsets, or
// dependencies: a request starts gap_ms after the entry that revealed it ended), and reports
// each request and page to observers as they finish.
//
// Deterministic: the same trace, config and seed give the same results and the same bytes in
// every output. Memory is bounded by the pages in flight, not the trace's length.
#ifndef TOOLS_REPLAY_REPLAY_ENGINE_H_
#define TOOLS_REPLAY_REPLAY_ENGINE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/replay/replay_config.h"
#include "tools/replay/replay_result.h"
#include "tools/replay/session_reader.h"

namespace netstack {

class NetLog;

struct ReplayTotals {
  uint64_t pages = 0, requests = 0, failed = 0, skipped = 0;
  uint64_t sockets_opened = 0, sockets_reused = 0, cache_hits = 0;
  uint64_t dns_lookups = 0, tls_handshakes = 0, tls_resumed = 0;
  double virtual_ms = 0;  // virtual time from the first event to the last completion
  uint64_t scheduler_tasks = 0;
  nlohmann::json ToJson() const;
};

class ReplayEngine {
 public:
  explicit ReplayEngine(const ReplayConfig& config);
  ~ReplayEngine();
  ReplayEngine(const ReplayEngine&) = delete;
  ReplayEngine& operator=(const ReplayEngine&) = delete;

  // Observers (not owned) hear every result; add before Run.
  void AddObserver(ReplayObserver* observer);
  // Captures the stack's NetLog into `path` (Chrome's format; time zero = the session's
  // start). Call before Run. False with `error` if the file cannot be written.
  bool SetNetLogFile(const std::string& path, std::string* error);
  // Called about every `every` requests with the totals so far (the progress line).
  void SetProgressCallback(uint64_t every, std::function<void(const ReplayTotals&)> callback);

  // Replays every event of `source` to its end. Returns false with a one-line `error` when the
  // source reports one (what was replayed before it was reported to observers). Call once.
  bool Run(TraceSource* source, std::string* error);

  const ReplayTotals& totals() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPLAY_ENGINE_H_
