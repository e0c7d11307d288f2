// What a replay produces: one RequestResult per request and one PageResult per page, handed to
// ReplayObservers as they complete (so a replay of any length keeps bounded memory: sinks
// aggregate or stream, they do not keep everything), and ReplayTotals over a whole replay.
#ifndef TOOLS_REPLAY_REPLAY_RESULT_H_
#define TOOLS_REPLAY_REPLAY_RESULT_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "net/socket/socket_source.h"
#include "predictor/predictor_stats.h"

namespace netstack {

struct RequestResult {
  uint64_t page_index = 0;  // which navigation (0-based, in session order)
  int entry_index = 0;      // index in the page's entries
  std::string url;
  std::string host;
  std::string method;
  std::string resource_type;
  std::string priority;          // "HIGHEST" ... "IDLE", as the request was issued
  int status = 0;                // 0 when it failed
  std::string error;             // empty, or the net error's name and message
  std::string cache = "bypass";  // miss | hit | revalidated | stale | bypass | recorded-hit
  int64_t body_bytes = 0;        // encoded bytes received (or read from the cache)

  // Milliseconds after the page's start.
  double start_ms = 0;  // when the request was issued
  double end_ms = 0;    // when its last byte arrived (or it failed)
  // Phases (ms), as `fetch --json` splits them; 0 when not applicable. Points of a socket's
  // connect that happened before the request was issued (late binding) are clamped to its
  // start, so the phases never overlap the time before the request existed.
  double queued_ms = 0;  // waiting for a socket (pool limits), request start -> DNS/connect/send
  double dns_ms = 0, connect_ms = 0, tls_ms = 0, send_ms = 0, ttfb_ms = 0, receive_ms = 0;
  // The model's view of ttfb: request transit, server think time, response first byte transit
  // (0 when the request did not reach a modelled server).
  double request_ms = 0, server_ms = 0, response_ms = 0;
  uint32_t socket_id = 0;
  bool socket_reused = false;
  // How the request got its connection, as the pool decided it.
  SocketSource socket_source = SocketSource::kNone;
  // Its JSON form: "new" (a connect job started for it, or another request's), "preconnected"
  // (a never-used idle socket a predictor preconnect left: ready), "late" (a predictor
  // preconnect still connecting when the request came: it waited for the rest), "idle" (a
  // never-used idle socket another request's connect job left), "reused" (a socket used
  // before); "" when no connection was used.
  std::string connection;

  // The recording, for comparison (-1 when unknown).
  double recorded_start_ms = -1, recorded_end_ms = -1;

  double total_ms() const { return end_ms - start_ms; }
  // {"kind": "request", ...}: every member above plus "timing" {..., "total_ms"}; see
  // docs/replay.md for the schema.
  nlohmann::json ToJson() const;
};

struct PageResult {
  uint64_t page_index = 0;
  std::string id, url, source;
  double start_ms = 0;           // virtual ms since the session's start
  double load_ms = 0;            // last request's end - page start
  double recorded_load_ms = -1;  // recorded last end, -1 when unknown
  int requests = 0, failed = 0, skipped = 0;
  int sockets_opened = 0, sockets_reused = 0;
  int cache_hits = 0;     // served by the replay's HTTP cache (hit or stale)
  int revalidated = 0;    // served by the cache after a 304
  int recorded_hits = 0;  // served by the browser's cache in the recording (recorded-hit)
  double dns_ms = 0, connect_ms = 0, tls_ms = 0, queued_ms = 0, ttfb_ms = 0, receive_ms = 0;
  int64_t bytes = 0;
  // Time its requests waited for new connections (DNS + connect + TLS as each request saw it,
  // summed over requests that did not reuse a socket): what the predictor tries to remove.
  double connect_wait_ms = 0;
  // Requests whose connection a preconnect made ready in time, or was still making (late).
  int preconnected = 0, preconnect_late = 0;

  nlohmann::json ToJson() const;  // {"kind": "page", ...}
};

// Sums over a replay (or several: Add). Deterministic: no wall-clock figure.
struct ReplayTotals {
  uint64_t pages = 0, requests = 0, failed = 0, skipped = 0;
  uint64_t sockets_opened = 0, sockets_reused = 0;
  uint64_t cache_hits = 0, revalidated = 0, recorded_hits = 0;
  // Requests the modelled servers could not match with the trace (answered 404).
  uint64_t unmatched = 0;
  // Session events other than navigate and wait (startup, hover, omnibox, hint): accepted and
  // counted; the predictor acts on them.
  uint64_t other_events = 0;
  uint64_t dns_lookups = 0, tls_handshakes = 0, tls_resumed = 0;
  int64_t bytes = 0;
  // Sums of the requests' phases (ms).
  double dns_ms = 0, connect_ms = 0, tls_ms = 0, queued_ms = 0, send_ms = 0, ttfb_ms = 0,
         receive_ms = 0;
  double virtual_ms = 0;  // virtual time from the session's start to the last completion
  // Scheduler tasks the replay ran (its simulated events; the divisor of "ns per event").
  uint64_t scheduler_tasks = 0;
  // Sum over pages of PageResult::connect_wait_ms.
  double connect_wait_ms = 0;
  // The predictor: its policy ("off", "chrome", "learned"), what it did (summed over traces),
  // and its policy's tables at the end of the last trace (PredictorPolicy::TablesToJson; null
  // with "off").
  std::string predictor_policy = "off";
  PredictorStats predictor;
  nlohmann::json predictor_tables;

  // Adds another replay's totals (several traces in one command); the predictor's tables are
  // the other's.
  void Add(const ReplayTotals& other);
  // Every member; the predictor as "predictor": {"policy", "stats" (PredictorStats::ToJson),
  // "tables"} and "connect_wait_ms".
  nlohmann::json ToJson() const;
};

// Adds `b`'s counts to `a` (the totals of several traces).
void AddPredictorStats(PredictorStats* a, const PredictorStats& b);

class ReplayObserver {
 public:
  virtual ~ReplayObserver() = default;
  // Each request as it completes. `request` is valid only during the call (the engine reuses
  // it).
  virtual void OnRequest(const RequestResult& request) {}
  // After every request of the page was reported. Valid only during the call.
  virtual void OnPage(const PageResult& page) {}
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPLAY_RESULT_H_
