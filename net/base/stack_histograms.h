// StackHistograms: the internals page's Histograms view, like chrome://histograms. A NetLog
// observer that turns BEGIN/END pairs, and the phases finished requests log, into durations and
// counts them in exponential buckets (histogram.h, 1 ms .. 60 s). Only successful steps are
// counted in the buckets; an END with a net_error counts in the histogram's "errors", and a
// cancelled step (a CANCELLED event before its END) in neither:
//   dns.resolve     HOST_RESOLVER_MANAGER_JOB begin -> end, on the job's source: a DNS lookup
//                   that went out (async refreshes included), time queued behind the resolver's
//                   concurrency limit included. Cache hits make no job and are not counted.
//   dns.preresolve  HOST_RESOLVER_MANAGER_REQUEST begin -> end on a PREDICTOR source (the
//                   predictor logs every pre-resolve on its one source, several at once) whose
//                   END says it waited for a job ("source": "job"); answers from the host cache,
//                   overrides or literals are instant and not counted. Concurrent pre-resolves
//                   are told apart by the job each attached to (HOST_RESOLVER_MANAGER_JOB_ATTACH)
//                   and the job whose END comes just before theirs.
//   connect_job     CONNECT_JOB begin -> end without error: host resolution (a cache hit or a
//                   lookup), TCP, and TLS for https, as in Chrome; the job's whole time, whoever
//                   (a request, a preconnect) waited for it.
//   connect_wait    from URL_REQUEST_PHASES (logged by url_request.cc as a request ends): the
//                   connect wait (net/base/load_timing_phases.h) of each request that waited
//                   for a new connection (socket_source "new" or "preconnected-late"), the same
//                   number its record and the predictor's accounting count. "errors": requests
//                   that failed without getting a socket.
//   ttfb            from URL_REQUEST_PHASES: the request's ttfb_ms (LoadTimingPhases: request
//                   sent to the first response byte) when its headers came over the network.
//                   "errors": requests that failed after getting a socket.
// Open BEGINs are bounded (the oldest forgotten first), so a log with lost ENDs cannot grow
// memory. Works the same on live and virtual time (it only reads entry times).
#ifndef NET_BASE_STACK_HISTOGRAMS_H_
#define NET_BASE_STACK_HISTOGRAMS_H_

#include <memory>
#include <nlohmann/json.hpp>

#include "net/base/net_log.h"

namespace netstack {

class StackHistograms : public NetLog::Observer {
 public:
  // The most BEGINs waiting for their END, per kind (jobs, pre-resolves, connects).
  static constexpr size_t kMaxOpen = 4096;

  // `max_open` (at least 1) bounds each kind's open BEGINs; tests make it small.
  explicit StackHistograms(size_t max_open = kMaxOpen);
  ~StackHistograms() override;

  // As NetLogRing::Attach. Counts survive a change of NetLog; open BEGINs do not (source ids
  // restart in a new NetLog). The destructor detaches.
  void Attach(NetLog* net_log);
  // NetLog::Observer: json params of the few event types it reads them from (net_error,
  // source_dependency, a pre-resolve's source, a request's phases), none of the others: with
  // only the histograms observing, the other events' params are never built.
  int ParamsNeed(NetLogEventType type) const override;
  // Reads only the entry's type, phase, source, time and (for those types) params.
  void OnAddEntry(const NetLogEntry& entry) override;

  // /api/histograms: {"histograms": [{"name", "description", "unit": "ms", "count", "sum",
  // "min", "max", "mean", "p50", "p95", "buckets": [{"low", "high", "count"}] (non-empty
  // buckets only; "high" null for the overflow bucket), "errors"}], "forgotten_open": BEGINs
  // dropped at the bound} in the order above.
  nlohmann::json ToJson() const;
  // Forgets every count (the page's Reset button).
  void Reset();
  size_t EstimateMemoryUsage() const;
  // BEGINs waiting for their END, all kinds together (for tests and the Memory view).
  size_t open_count() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace netstack

#endif  // NET_BASE_STACK_HISTOGRAMS_H_
