// StackHistograms: the internals page's Histograms view, like chrome://histograms. A NetLog
// observer that turns BEGIN/END pairs into durations and counts them in exponential buckets
// (histogram.h):
//   dns.resolve        HOST_RESOLVER_MANAGER_JOB begin -> end (a DNS lookup that went out)
//   dns.preresolve     HOST_RESOLVER_MANAGER_REQUEST on a PREDICTOR source (a pre-resolve)
//   connect            CONNECT_JOB begin -> end without error (TCP, and TLS for https)
//   ttfb               on a URL_REQUEST: HTTP_TRANSACTION_SEND_REQUEST begin ->
//                      HTTP_TRANSACTION_READ_HEADERS end (request sent to headers read)
// Open BEGINs are bounded (the oldest forgotten first), so a log with lost ENDs cannot grow
// memory. Works the same on live and virtual time (it only reads entry times).
#ifndef TOOLS_INTERNALS_STACK_HISTOGRAMS_H_
#define TOOLS_INTERNALS_STACK_HISTOGRAMS_H_

#include <memory>
#include <nlohmann/json.hpp>

#include "net/base/net_log.h"

namespace netstack {

class StackHistograms : public NetLog::Observer {
 public:
  StackHistograms();
  ~StackHistograms() override;
  // As NetLogRing::Attach. Counts survive a change of NetLog.
  void Attach(NetLog* net_log);
  void OnAddEntry(const NetLogEntry& entry) override;

  // /api/histograms: {"histograms": [{"name", "description", "unit": "ms", "count", "sum",
  // "min", "max", "mean", "p50", "p95", "buckets": [{"low", "high", "count"}] (non-empty
  // buckets only; "high" null for the overflow bucket)}]} in the order above.
  nlohmann::json ToJson() const;
  // Forgets every count (the page's Reset button).
  void Reset();
  size_t EstimateMemoryUsage() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace netstack

#endif  // TOOLS_INTERNALS_STACK_HISTOGRAMS_H_
