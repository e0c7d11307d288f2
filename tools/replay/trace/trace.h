// The replay's input model: pages (from HAR files or defined inline in a session) made of
// entries (one recorded request each), and session events that navigate to pages. Readers
// (har_reader.h, session_reader.h) produce it; the replay engine consumes it. Plain values.
#ifndef TOOLS_REPLAY_TRACE_TRACE_H_
#define TOOLS_REPLAY_TRACE_TRACE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace netstack {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// The largest body (a response, or a request) a trace may describe: 1 GiB. Both readers refuse
// more with an error naming the entry: a replay pushes every response byte through the real
// stack as filler, so a recorded 1e15 bytes would take CPU hours.
constexpr int64_t kMaxTraceBodyBytes = int64_t{1} << 30;
// The largest time in ms a trace may carry (a HAR entry's "time" and phases, a session's "t"):
// about 115 days. Larger values are errors, never rounded into overflowing integers.
constexpr double kMaxTraceMs = 1e10;

// HAR timings in ms; -1 where the recording has none (HAR's "does not apply").
struct RecordedTimings {
  double blocked = -1, dns = -1, connect = -1, ssl = -1, send = -1, wait = -1, receive = -1;
};

// The protocol an entry went over, normalized from what the recording says (host_protocol.h):
// HTTP/1.0 and 1.1 are kHttp11; h2, SPDY are kHttp2; h3 and QUIC kHttp3. kUnknown when the
// recording does not say (a session's inline entries: their hosts' protocol comes from the
// session's "host" lines instead).
enum class TraceProtocol { kUnknown, kHttp11, kHttp2, kHttp3 };

// How an entry was discovered, for dependency-driven placement.
enum class InitiatorKind {
  kNone,      // the page's first request (the navigation), or nothing known
  kRecorded,  // the HAR named it (Chrome's _initiator, WebPageTest's _initiator)
  kRedirect,  // the target of an earlier entry's redirect (Location)
  kInferred,  // guessed: the latest document/script/stylesheet to finish before it started
  kExplicit,  // a session page's "after"
};

struct TraceEntry {
  // Absolute http(s) URL that Url::Parse accepts (characters browsers send percent-encoded but
  // recorders write raw, like '|', are encoded by the HAR reader).
  std::string url;
  std::string method = "GET";
  HeaderList request_headers;  // as recorded, HTTP/2 pseudo-headers removed
  int64_t request_body_bytes = 0;

  int status = 200;
  std::string status_text;      // may be empty
  HeaderList response_headers;  // as recorded, pseudo-headers removed
  // Body bytes as transferred (after content coding); what the modelled server sends.
  int64_t response_body_bytes = 0;
  std::string resource_type;  // "document", "script", "stylesheet", "image", "font", "xhr", ...
  std::string http_version;   // "HTTP/1.1", "h2", ... as recorded
  TraceProtocol protocol = TraceProtocol::kUnknown;  // http_version (or _protocol) normalized
  // The server pushed it (HTTP/2 push: Chrome's _was_pushed, Firefox's status-0 entries with a
  // body). Replayed as an ordinary request issued at its recorded start (start_ms), whatever
  // the placement, and counted (PageResult::pushed).
  bool pushed = false;

  // The browser served it from its own cache when recorded (no network use).
  bool recorded_from_cache = false;
  // The recorded failure, when the request failed instead of being answered: WebPageTest's
  // negative statuses (-1, -2), DevTools' Network.loadingFailed ("net::ERR_ABORTED"), a HAR
  // entry with "_error". Empty when it did not fail. recorded_error_code is the net error it
  // names (net/base/net_error_list.h; ERR_FAILED when the recording names none we know). Such
  // an entry replays as that failure at its recorded time (start_ms + recorded_total_ms),
  // without touching the network.
  std::string recorded_error;
  int recorded_error_code = 0;

  // The connection it went over, as the recording names it (a HAR's "connection", DevTools'
  // connectionId); empty when unknown. Entries with one id shared one connection.
  std::string connection_id;
  // The recording shows the connection was already open when this entry started, before the
  // page's own requests could have opened it: DevTools' connectionReused on the first entry of
  // its connection id in the page, a connection id an earlier page of the file used, or a
  // network entry whose recorded DNS and connect are both absent or zero on its host's first
  // entry. With warm_start on, the replay opens such connections before the page starts.
  bool recorded_warm_connection = false;
  // When the request started, in ms after the page's start (the first entry's start).
  double start_ms = 0;
  // Recorded duration (HAR "time"), and its parts.
  double recorded_total_ms = 0;
  RecordedTimings timings;
  // The server's think time, when known (a session page's server_ms, or estimated from a HAR:
  // wait minus one round trip); < 0 means "use the host's server_ms".
  double server_ms = -1;

  // Dependency: the index (in the page) of the entry whose completion revealed this one, or
  // -1; gap_ms is the recorded time from that entry's end to this one's start (parse and
  // script time in the browser), kept in dependency-driven placement. When this entry started
  // while its parent was still arriving (the HTML preload scanner, a streamed parse), gap_ms
  // counts from the parent's first response byte instead (gap_from), never negative.
  // Always parent < own index.
  int parent = -1;
  double gap_ms = 0;
  enum class GapFrom { kParentEnd, kParentFirstByte };
  GapFrom gap_from = GapFrom::kParentEnd;
  InitiatorKind initiator = InitiatorKind::kNone;
  std::string initiator_url;  // as recorded, for diagnostics

  // Recorded end (start_ms + recorded_total_ms), and recorded first response byte (start_ms
  // plus blocked, dns, connect, send and wait, those >= 0; at most the end).
  double RecordedEndMs() const;
  double RecordedFirstByteMs() const;
};

struct TracePage {
  std::string id;      // HAR page id, or the session's name for it
  std::string title;   // HAR title, or the URL
  std::string source;  // where it came from: "trace.har#page_1", "session.jsonl:12"
  // Wall-clock start (ms since the Unix epoch); 0 when unknown. The simulated clock starts at
  // the first page's, so recorded Date/Expires headers keep their meaning.
  int64_t started_epoch_ms = 0;
  // Recorded onContentLoad / onLoad in ms after the start; -1 when absent.
  double recorded_content_load_ms = -1;
  double recorded_onload_ms = -1;
  // This page began a new run of a recording that holds several runs of one page
  // (WebPageTest's runs, browsertime's iterations, a DevTools log per run): a fresh browser.
  // With cold_runs on, the replay gives it a new stack (empty cache, pools and host cache).
  // The first page of a file is a new run too (each trace is replayed on a fresh stack).
  bool new_run = false;
  // Entries in recorded start order; entries[0] is the navigation's document when present.
  std::vector<TraceEntry> entries;
  // Entries the reader skipped, counted so the summary can say so: not http/https (data:,
  // blob:, ws:, chrome-extension:), not a URL a browser could request (over 2 MiB, a control
  // character in the host), or never answered (status 0 and no response: blocked by the
  // client, aborted), or never finished (a DevTools request with neither a finish nor a failure
  // before the log ends; a HAR entry without timings). skipped_entries is the sum of the four.
  int skipped_entries = 0;
  int skipped_not_http = 0, skipped_invalid_url = 0, skipped_no_response = 0;
  int skipped_unfinished = 0;
  // The first entry skipped for its URL: "a.har: log.entries[3].request.url: URL longer than
  // 2 MiB" (bounded; empty when none).
  std::string first_invalid_url;

  // Recorded end of the page's last entry (ms after start): what replay's page load time is
  // compared with.
  double RecordedLastEndMs() const;
};

// One line of a session (docs/trace-format.md). HAR files given to replay become sessions of
// navigate events, one per page, each starting when the previous page has loaded.
struct SessionEvent {
  enum class Type { kStartup, kNavigate, kHover, kOmnibox, kHint, kWait };
  Type type = Type::kNavigate;
  double t_ms = 0;   // ms since the session's start (non-decreasing)
  std::string url;   // navigate/hover/hint target; omnibox: the URL the text leads to
  std::string text;  // omnibox: the text typed so far
  std::string hint;  // hint: its motivation ("mouse-over", "preconnect", ...)
  // wait: hold later events until every page navigated so far has loaded (then later events
  // keep their spacing, shifted by the wait).
  // navigate: the page to load (shared: a page may be navigated to many times).
  std::shared_ptr<const TracePage> page;
  // navigate: the page replays a recording as it was recorded (a HAR or DevTools log given to
  // replay itself, MakeHarSource), so the recording's browser state applies: its new_run
  // (cold_runs) and warm connections (warm_start). A session's navigations never set it: there
  // the session's own browsing decides what is open and cached, even for pages taken from HARs.
  bool as_recorded = false;
  std::string where;  // "session.jsonl:12" for messages
};

// "startup" | "navigate" | "hover" | "omnibox" | "hint" | "wait".
const char* SessionEventTypeName(SessionEvent::Type type);

}  // namespace netstack

#endif  // TOOLS_REPLAY_TRACE_TRACE_H_
