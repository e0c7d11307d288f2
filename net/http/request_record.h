// RequestRecord: what one finished request was, the one record both worlds report. A plain fetch
// (`fetch --json` and its human line), a page load (`fetch --page`, the internals fetch box) and
// a replay (`replay --json`, its reports and totals) all hold a RequestRecord; FillRequestRecord
// is the only copy from a UrlRequest into it, and AppendRequestRecordJson (request_record_json.h)
// the only JSON writer. Every field, its unit and which world fills it: docs/request-record.md.
//
// A record has a request part (what the request did: filled from the UrlRequest) and optional
// context parts its issuer sets: where it sits in a page load (placement), which replay entry it
// was (entry), the network model's view (model, simulated world only) and what the predictor had
// done for its origin (speculative).
#ifndef NET_HTTP_REQUEST_RECORD_H_
#define NET_HTTP_REQUEST_RECORD_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "net/base/load_timing_phases.h"
#include "net/base/net_error.h"
#include "net/base/request_priority.h"
#include "net/base/time.h"
#include "net/http/http_transaction.h"

namespace netstack {

class UrlRequest;

// Where a request sits in a page load (page loads and replay).
struct RequestPlacement {
  std::string type;  // "document", "stylesheet", "script", "image", ... as the issuer names it
  RequestPriority priority = MEDIUM;  // as the request was issued
  TimeTicks page_start{};             // the navigation's start: what start_ms/end_ms count from
};

// Which replay entry a request was.
struct ReplayEntryRef {
  uint64_t page = 0;  // the navigation's index in the replay (0-based, in session order)
  int entry = 0;      // the entry's index in its page
  std::string host;   // the URL's host ("" when the URL did not parse)
  // The entry that revealed this one (TraceEntry::parent: recorded initiator, redirect, or
  // inferred), its index in the same page; -1 when none. Read by `replay --har` for _initiator;
  // not in the record's JSON.
  int parent = -1;
};

// The simulated world's view of a request (replay only).
struct RequestModel {
  // ttfb split by the model: the request's transit, the server's think time, the first response
  // byte's transit; all 0 when the request did not reach a modelled server.
  double request_ms = 0, server_ms = 0, response_ms = 0;
  // The recording's start and end, ms after its page's start (-1 when unknown).
  double recorded_start_ms = -1, recorded_end_ms = -1;
};

struct RequestRecord {
  // --- The request part (FillRequestRecord) ---
  std::string url;        // as requested (replay: the trace's text)
  std::string final_url;  // after redirects (the URL of the last hop)
  std::string method = "GET";
  std::vector<std::string> redirects;  // URLs redirected to, in order
  int error = OK;                      // a net error; OK when the request succeeded
  std::string error_message;           // one line naming what went wrong; empty when OK
  int status = 0;                      // 0: no response
  std::string status_text;
  // The final response's headers (HttpResponseHeaders::ToJson), captured only when the filler
  // was asked to (converting them is a fifth of a keep-alive fetch's instructions).
  std::optional<nlohmann::json> headers;
  int64_t body_bytes = 0;      // the body as delivered, decoded of Content-Encoding
  int64_t transfer_bytes = 0;  // the body as carried: encoded, as received or read from a cache
  CacheDisposition cache = CacheDisposition::kBypass;
  // Replay: served by the browser's own cache in the recording (not by the stack); `cache` is
  // then kBypass and the JSON says "recorded-hit".
  bool recorded_hit = false;
  // Replay: the recording shows this request failed (TraceEntry::recorded_error); it was
  // replayed as that failure at its recorded time, without the network. `error` is the
  // recorded net error, `cache` kBypass, and the JSON's cache says "recorded-failure".
  bool recorded_failure = false;
  TimeTicks start{}, end{};  // the request's start (its first hop) and its end
  LoadTimingPhases phases;   // the last hop's timing, counted from `start`
  // The last hop's connection: socket id and SocketSource, peer address, TLS, DNS cache flags.
  ConnectionInfo connection;

  // --- Context parts (the issuer's) ---
  std::optional<RequestPlacement> placement;
  std::optional<ReplayEntryRef> entry;
  std::optional<RequestModel> model;
  // Predictor::SpeculativeFor(origin) (null when no predictor ran); absent in replay.
  std::optional<nlohmann::json> speculative;

  // The request's whole time, start to end, in ms.
  double total_ms() const { return MillisecondsBetween(start, end); }
  // Start and end in ms after placement->page_start (0 without a placement).
  double start_ms() const;
  double end_ms() const;
  // "recorded-hit", "recorded-failure" or CacheDispositionName(cache).
  const char* cache_name() const;
};

// Fills the request part of `record` from `request`, which has finished (its delegate's
// OnComplete ran). Every request-part field is assigned (strings and vectors reuse the record's
// buffers, so a record reused for many requests does not allocate per request); the context
// parts are left as they are. `with_headers` false leaves `headers` empty.
void FillRequestRecord(const UrlRequest& request, bool with_headers, RequestRecord* record);

// Resets the request part of `record` to a request that used no network and has no response
// yet (keeping buffers), for issuers that complete a request without a UrlRequest (replay's
// recorded hits and invalid entries). The context parts are left as they are.
void ClearRequestRecord(RequestRecord* record);

}  // namespace netstack

#endif  // NET_HTTP_REQUEST_RECORD_H_
