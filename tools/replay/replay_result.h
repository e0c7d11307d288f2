// What a replay produces: one RequestRecord per request (net/http/request_record.h: the record
// every world reports, here with its placement, replay entry and model parts) and one
// PageResult per page, handed to ReplayObservers as they complete (so a replay of any length
// keeps bounded memory: sinks aggregate or stream, they do not keep everything), and
// ReplayTotals over a whole replay.
#ifndef TOOLS_REPLAY_REPLAY_RESULT_H_
#define TOOLS_REPLAY_REPLAY_RESULT_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "net/http/request_record.h"
#include "net/http/request_record_json.h"
#include "predictor/predictor_stats.h"

namespace netstack {

struct PageResult {
  uint64_t page_index = 0;
  std::string id, url, source;
  double start_ms = 0;           // virtual ms since the session's start
  double load_ms = 0;            // last request's end - page start
  double recorded_load_ms = -1;  // recorded last end, -1 when unknown
  // The page's onLoad, replayed and recorded (ms after the page's start); both -1 when the
  // trace has none. The load set is the entries the recording shows ending before its onLoad;
  // the replayed onLoad is the last replayed end of that set plus the recorded tail (recorded
  // onLoad minus the set's last recorded end). docs/replay.md, "Page metrics".
  double onload_ms = -1, recorded_onload_ms = -1;
  // The same for DOMContentLoaded (TracePage::recorded_content_load_ms), with the same load-set
  // rule; both -1 when the trace has none.
  double content_load_ms = -1, recorded_content_load_ms = -1;
  // The page's start on the replay's wall clock (the simulated clock the HTTP cache sees: it
  // starts at the recording's first page's date), ms since the Unix epoch; set by the engine
  // when the page is navigated. `replay --har` dates the page and its entries from it.
  double started_epoch_ms = 0;
  // Failed requests include recorded_failures: entries the recording shows failed
  // (TraceEntry::recorded_error), replayed as that failure without the network.
  int requests = 0, failed = 0, recorded_failures = 0;
  // Entries not replayed: no response recorded (status 0), and those the trace reader skipped
  // (TracePage::skipped_entries), of which these many for a URL that is not http(s) or that no
  // browser could request, and these many that never finished (TracePage::skipped_unfinished);
  // the first invalid URL's reason ("a.har: log.entries[3].request.url: URL longer than 2 MiB").
  // The rest (skipped minus the three) had no response recorded.
  int skipped = 0, skipped_not_http = 0, skipped_invalid_url = 0, skipped_unfinished = 0;
  std::string first_invalid_url;
  int sockets_opened = 0, sockets_reused = 0;
  // Connections opened before the page started because the recording shows them already open
  // (TraceEntry::recorded_warm_connection, warm_start=on): the warm-up's time is not the page's.
  int warm_connections = 0;
  int cache_hits = 0;     // served by the replay's HTTP cache (hit or stale)
  int revalidated = 0;    // served by the cache after a 304
  int recorded_hits = 0;  // served by the browser's cache in the recording (recorded-hit)
  double dns_ms = 0, connect_ms = 0, tls_ms = 0, queued_ms = 0, ttfb_ms = 0, receive_ms = 0;
  int64_t bytes = 0;  // the requests' transfer_bytes (as carried), summed
  // Time its requests waited for new connections: their connect waits
  // (LoadTimingPhases::connect_wait_ms(), DNS + connect + TLS as each request saw it), summed:
  // what the predictor tries to remove.
  double connect_wait_ms = 0;
  // Critical requests (any priority but IDLE) whose socket source was kPreconnected (ready in
  // time) or kPreconnectedLate; and critical requests that needed a new connection (a connect
  // job's socket or a preconnected one: kNew, kPreconnected, kPreconnectedLate), so
  // preconnected / connections_needed is the page's recall, as the predictor's stats count it.
  int preconnected = 0, preconnect_late = 0, connections_needed = 0;
  // The same for the page's background requests (IDLE priority: pings, beacons, prefetches),
  // off its critical path and counted apart, like PredictorStats' *_background.
  int preconnected_background = 0, preconnect_late_background = 0,
      connections_needed_background = 0;
  // Requests of entries the recording marks pushed (TraceEntry::pushed), replayed as ordinary
  // requests issued at their recorded start.
  int pushed = 0;
  // The oracle ceiling (tools/replay/replay_oracle.h): the union length of the DNS, connect and
  // TLS intervals of the requests on the page's critical path in this run, and how many requests
  // that path has. Under predictor=off, what an oracle with every connection ready would save.
  double oracle_setup_ms = 0;
  int oracle_critical_requests = 0;

  // The page-load figure the summary, report and comparison use: the replayed onLoad when the
  // trace has one (recorded_onload_ms >= 0), else load_ms; and its name, "onload" or
  // "last_end". The recorded counterpart: recorded_onload_ms, else recorded_load_ms.
  bool has_onload() const { return recorded_onload_ms >= 0; }
  double page_load_ms() const { return has_onload() ? onload_ms : load_ms; }
  double recorded_page_load_ms() const {
    return has_onload() ? recorded_onload_ms : recorded_load_ms;
  }
  const char* page_load_metric() const { return has_onload() ? "onload" : "last_end"; }

  // {"kind": "page", ...} with "preconnect": {"ready", "late", "needed" (critical requests),
  // "ready_background", "late_background", "needed_background"}, "oracle": {"setup_ms",
  // "critical_requests"}; with kExact also
  // "started_epoch_ms" (net/http/request_record_json.h).
  nlohmann::json ToJson(JsonNumbers numbers = JsonNumbers::kRounded) const;
};

// Sums over a replay (or several: Add). Deterministic: no wall-clock figure.
struct ReplayTotals {
  uint64_t pages = 0, requests = 0, failed = 0, recorded_failures = 0;
  // Sums of PageResult's; first_invalid_url is the first page's that has one.
  uint64_t skipped = 0, skipped_not_http = 0, skipped_invalid_url = 0, skipped_unfinished = 0;
  // Pages whose page load is their onLoad (PageResult::has_onload); sum of warm_connections;
  // fresh stacks built for recorded runs after a trace's first (cold_runs=on).
  uint64_t pages_with_onload = 0, warm_connections = 0, cold_runs = 0;
  std::string first_invalid_url;
  // Sum over pages of PageResult::pushed.
  uint64_t pushed = 0;
  uint64_t sockets_opened = 0, sockets_reused = 0;
  uint64_t cache_hits = 0, revalidated = 0, recorded_hits = 0;
  // Requests the modelled servers could not match with the trace (answered 404).
  uint64_t unmatched = 0;
  // Session events other than navigate and wait (startup, hover, omnibox, hint): accepted and
  // counted; the predictor acts on them.
  uint64_t other_events = 0;
  uint64_t dns_lookups = 0, tls_handshakes = 0, tls_resumed = 0;
  int64_t bytes = 0;  // the requests' transfer_bytes, summed
  // Sums of the requests' phases (ms).
  double dns_ms = 0, connect_ms = 0, tls_ms = 0, queued_ms = 0, send_ms = 0, ttfb_ms = 0,
         receive_ms = 0;
  double virtual_ms = 0;  // virtual time from the session's start to the last completion
  // Scheduler tasks the replay ran (its simulated events; the divisor of "ns per event").
  uint64_t scheduler_tasks = 0;
  // Sum over pages of PageResult::connect_wait_ms.
  double connect_wait_ms = 0;
  // The predictor: its policy ("off", "chrome", "loading", "learned"), what it did (summed over
  // traces), and its policy's tables at the end of the last trace (PredictorPolicy::TablesToJson;
  // null with "off").
  std::string predictor_policy = "off";
  PredictorStats predictor;
  nlohmann::json predictor_tables;

  // Adds another replay's totals (several traces in one command); the predictor's tables are
  // the other's.
  void Add(const ReplayTotals& other);
  // Every member; the predictor as "predictor": {"policy", "stats" (PredictorStats::ToJson),
  // "tables"} and "connect_wait_ms". kExact: every double unrounded (the predictor's
  // connect_wait_ms too).
  nlohmann::json ToJson(JsonNumbers numbers = JsonNumbers::kRounded) const;
};

// Rebuild a page or totals from what ToJson wrote (exact: the same values bit for bit; the
// derived members, page_load_ms, precision, recall, are not read). Never throw: false with
// `error` naming the first bad member ("timing.dns_ms: not a number").
bool PageResultFromJson(const nlohmann::json& object, PageResult* page, std::string* error);
bool ReplayTotalsFromJson(const nlohmann::json& object, ReplayTotals* totals, std::string* error);

// Adds one request to `sums` (a PageResult or ReplayTotals): requests, failed, sockets opened or
// reused, cache hits (hit or stale), revalidated, recorded hits, transfer bytes and the phases
// `Sums` has. The one place pages and totals count a request, from its typed values.
template <typename Sums>
void AddRequestCounts(const RequestRecord& r, Sums* s) {
  const LoadTimingPhases& p = r.phases;
  ++s->requests;
  if (r.error != OK) ++s->failed;
  if (r.connection.socket_id != 0)
    ++(r.connection.reused() ? s->sockets_reused : s->sockets_opened);
  if (r.cache == CacheDisposition::kHit || r.cache == CacheDisposition::kStale) ++s->cache_hits;
  if (r.cache == CacheDisposition::kRevalidated) ++s->revalidated;
  if (r.recorded_hit) ++s->recorded_hits;
  if (r.recorded_failure) ++s->recorded_failures;
  s->bytes += r.transfer_bytes;
  s->dns_ms += p.dns_ms;
  s->connect_ms += p.connect_ms;
  s->tls_ms += p.tls_ms;
  s->queued_ms += p.queued_ms;
  if constexpr (requires { s->send_ms; }) s->send_ms += p.send_ms;
  s->ttfb_ms += p.ttfb_ms;
  s->receive_ms += p.receive_ms;
}

// Adds `b`'s counts to `a` (the totals of several traces).
void AddPredictorStats(PredictorStats* a, const PredictorStats& b);

class ReplayObserver {
 public:
  virtual ~ReplayObserver() = default;
  // Each request as it completes. `request` is valid only during the call (the engine reuses
  // it). It has a placement (type, priority, the page's start), an entry (page, entry, host)
  // and a model.
  virtual void OnRequest(const RequestRecord& request) {}
  // After every request of the page was reported. Valid only during the call.
  virtual void OnPage(const PageResult& page) {}
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPLAY_RESULT_H_
