// What a replay produces: one RequestResult per request and one PageResult per page, handed to
// ReplayObservers as they complete (so a replay of any length keeps bounded memory: sinks
// aggregate or stream, they do not keep everything).
#ifndef TOOLS_REPLAY_REPLAY_RESULT_H_
#define TOOLS_REPLAY_REPLAY_RESULT_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace netstack {

struct RequestResult {
  uint64_t page_index = 0;  // which navigation (0-based, in session order)
  int entry_index = 0;      // index in the page's entries
  std::string url;
  std::string host;
  std::string method;
  std::string resource_type;
  int status = 0;                    // 0 when it failed
  std::string error;                 // empty, or the net error's message
  std::string cache = "bypass";      // miss | hit | revalidated | stale | bypass | recorded-hit
  int64_t body_bytes = 0;            // encoded bytes received (or read from the cache)

  // Milliseconds after the page's start.
  double start_ms = 0;  // when the request was issued
  double end_ms = 0;    // when its last byte arrived (or it failed)
  // Phases (ms), as `fetch --json` splits them; 0 when not applicable.
  double queued_ms = 0;  // waiting for a socket (pool limits)
  double dns_ms = 0, connect_ms = 0, tls_ms = 0, send_ms = 0, ttfb_ms = 0, receive_ms = 0;
  // The model's view of ttfb: request transit, server think time, response first byte transit.
  double request_ms = 0, server_ms = 0, response_ms = 0;
  uint32_t socket_id = 0;
  bool socket_reused = false;

  // The recording, for comparison (-1 when unknown).
  double recorded_start_ms = -1, recorded_end_ms = -1;

  nlohmann::json ToJson() const;  // {"kind": "request", ...}
};

struct PageResult {
  uint64_t page_index = 0;
  std::string id, url, source;
  double start_ms = 0;      // virtual ms since the session's start
  double load_ms = 0;       // last request's end - page start
  double recorded_load_ms = -1;  // recorded last end, -1 when unknown
  int requests = 0, failed = 0, skipped = 0;
  int sockets_opened = 0, sockets_reused = 0, cache_hits = 0;
  double dns_ms = 0, connect_ms = 0, tls_ms = 0, queued_ms = 0, ttfb_ms = 0, receive_ms = 0;
  int64_t bytes = 0;

  nlohmann::json ToJson() const;  // {"kind": "page", ...}
};

class ReplayObserver {
 public:
  virtual ~ReplayObserver() = default;
  virtual void OnRequest(const RequestResult& request) {}
  // After every request of the page was reported.
  virtual void OnPage(const PageResult& page) {}
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPLAY_RESULT_H_
