// ReplayEngine: replays a trace on virtual time through the live stack's code. It builds a
// VirtualScheduler and, with SimStack (net/http/sim_stack.h), a SimNetwork (net/sim) and a
// UrlRequestContext over it (resolver, pools, HTTP transactions, and an HttpCache on a
// MemoryBackend when the cache is on), serves each
// request from the trace's recorded responses, places requests in time (recorded offsets, or
// dependencies: a request starts gap_ms after the entry that revealed it ended), and reports
// each request and page to observers as they finish.
//
// Session events are processed in order at t plus the shift accumulated by wait events (a wait
// holds later events until every page navigated so far has loaded). Events other than navigate
// and wait are counted and, with a predictor policy, given to the predictor
// (replay_predictor.h), which also hears every navigation, request and page end; with
// predictor=off they change nothing. The run ends when every event was
// processed and every page finished; idle sockets and their timers are not waited for.
//
// Starting as the recording started (docs/replay.md, "Warm start and cold runs"): with
// warm_start, before a page starts the connections its recording shows open are opened
// (ReplayWarmStart) and virtual time runs until they are; the page starts then and later events
// shift by that time. With cold_runs, a page marked new_run that is not the run's first gets a
// fresh stack (pages in flight finish on the old one first): empty cache, pools, host cache, TLS
// sessions and predictor; the NetLog (and its file) is one for the whole run.
//
// The wall clock the HTTP cache sees starts at the first navigated page's recorded start
// (2024-01-01T00:00:00Z when unknown), so recorded Date/Expires headers keep their meaning.
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
#include "tools/replay/trace/session_reader.h"

namespace netstack {

class Clock;
class NetLog;
class Predictor;
class UrlRequestContext;

class ReplayEngine {
 public:
  // What `replay --internals` watches and steers (tools/netstack/replay_internals.h). Every
  // call is on the replay's thread between session events (never inside a stack callback), so
  // the stack it shows is consistent and it may change it (close idle sockets, flush). A call
  // may block (a paused replay serving its page); virtual time does not move meanwhile.
  class Monitor {
   public:
    virtual ~Monitor() = default;
    // The pass's stack exists (built at its first navigation or predictor event, or at the
    // end, and again for each cold run after OnStackDestroyed). The pointers stay valid until
    // OnStackDestroyed; `predictor` is null with policy off.
    virtual void OnStackCreated(UrlRequestContext* context, Predictor* predictor, NetLog* net_log,
                                const Clock& clock) = 0;
    // Before the session event `event` (0-based `index` in this run) is processed.
    virtual void BeforeEvent(const SessionEvent& event, uint64_t index,
                             const ReplayTotals& totals) = 0;
    // Every event processed and every page finished; the stack still exists.
    virtual void OnRunEnd(const ReplayTotals& totals) = 0;
    // The stack is about to go (a cold run's fresh stack replaces it, or the engine's
    // destruction).
    virtual void OnStackDestroyed() = 0;
  };
  explicit ReplayEngine(const ReplayConfig& config);
  ~ReplayEngine();
  ReplayEngine(const ReplayEngine&) = delete;
  ReplayEngine& operator=(const ReplayEngine&) = delete;

  // Observers (not owned, must outlive Run) hear every result; add before Run.
  void AddObserver(ReplayObserver* observer);
  // Captures the stack's NetLog into `path` (Chrome's format; `command_line` goes into its
  // constants). Call before Run. Returns false with `error` ("cannot write netlog FILE: why")
  // if the file cannot be created. The file is complete when Run returns.
  bool SetNetLogFile(const std::string& path, const std::string& command_line, std::string* error);
  // Called every `every` (> 0) completed requests with the totals so far (the progress line),
  // on the replay's thread, inside Run.
  void SetProgressCallback(uint64_t every, std::function<void(const ReplayTotals&)> callback);
  // Gives the run a monitor (not owned; must outlive the engine). Call before Run.
  void SetMonitor(Monitor* monitor);
  // Numbers the pages of this run from `first` (several traces in one output). Before Run.
  void SetFirstPageIndex(uint64_t first);

  // Replays every event of `source` to its end. Returns false with a one-line `error` when the
  // source reports one (pages navigated before it still finish and are reported; then
  // input_error() is true), or when the replay stalled (requests that could never complete
  // are reported failed). Call once.
  bool Run(TraceSource* source, std::string* error);
  // After Run returned false: true if the trace was at fault (malformed input), false if the
  // replay was.
  bool input_error() const;

  const ReplayTotals& totals() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPLAY_ENGINE_H_
