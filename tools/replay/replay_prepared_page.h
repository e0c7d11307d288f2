// What the replay engine derives once from a TracePage before issuing its requests: parsed URLs,
// request headers as the stack sends them, priorities, the modelled server's response heads,
// and the dependency tree. A page navigated many times (synthetic sessions) is prepared once:
// ReplayPageCache keeps the most recently used prepared pages.
//
// Internal to the engine (tools/replay/replay_engine.cc); exposed for its tests.
#ifndef TOOLS_REPLAY_REPLAY_PREPARED_PAGE_H_
#define TOOLS_REPLAY_REPLAY_PREPARED_PAGE_H_

#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "net/base/request_priority.h"
#include "net/base/time.h"
#include "net/http/http_transaction.h"
#include "net/http/url_request.h"
#include "tools/replay/replay_config.h"
#include "tools/replay/trace/trace.h"

namespace netstack {

struct PreparedEntry {
  enum class Kind {
    kNetwork,          // issued as a UrlRequest
    kRecordedHit,      // the browser's cache served it when recorded: a local cost, no network
    kRecordedFailure,  // it failed when recorded (TraceEntry::recorded_error): replayed as that
                       // failure, after its recorded duration, no network
    kSkipped,          // no response was recorded (status 0): not replayed, counted
    kInvalid,          // the URL does not parse, or the page's request bodies pass their bound
                       // (64 MiB per page): reported as a failed request
  };
  Kind kind = Kind::kNetwork;
  // What the UrlRequest is created with (built once: url, method, headers, body of filler
  // bytes, priority, redirects not followed).
  UrlRequest::Params params;
  const HttpRequestInfo& request() const { return params.request; }
  RequestPriority priority() const { return params.priority; }
  // kInvalid: the failure reported: ERR_INVALID_URL (the URL does not parse) or ERR_FILE_TOO_BIG
  // (the page's request bodies pass their bound), and what about it.
  int invalid_error = OK;
  std::string invalid_detail;

  // The key the modelled server matches requests on: method, scheme, Host, target.
  uint64_t match_hash = 0;
  std::string host_header;

  // The modelled response: head (status line, headers, blank line) and body length.
  std::string head;
  int64_t body_bytes = 0;
  bool bodiless = false;                 // 1xx, 204, 304, or a HEAD request
  std::optional<TimeDelta> server_time;  // the entry's recorded server time, when used

  // Start placement.
  int parent = -1;     // resolved for dependency placement (-1: placed at its offset)
  TimeDelta offset{};  // start_ms after the page's start
  TimeDelta gap{};     // after the parent's end
};

// Connections the recording shows open before the page started (warm_start): `count` of them
// to `origin`.
struct WarmGroup {
  SchemeHostPort origin;
  int count = 0;
};

struct PreparedPage {
  std::shared_ptr<const TracePage> page;
  std::vector<PreparedEntry> entries;
  // The page's warm connections by origin, in order of first use: one per distinct recorded
  // connection id (TraceEntry::connection_id; one per entry without one) of the network
  // entries marked recorded_warm_connection, at most max_sockets_per_group per origin and
  // max_sockets in all.
  std::vector<WarmGroup> warm_groups;
  // Children of each entry (dependency placement), as ranges into `children`.
  std::vector<int> child_begin;  // size entries + 1
  std::vector<int> children;
};

// The modelled server's key for a request.
uint64_t MatchHash(std::string_view method, std::string_view scheme, std::string_view host,
                   std::string_view target);

// Chrome's priority for a resource type ("document" HIGHEST, "stylesheet" HIGHEST, "script",
// "font", "xhr", "fetch" MEDIUM, "image", "media" LOWEST, "ping", "beacon", "prefetch" IDLE,
// others LOW).
RequestPriority PriorityForResourceType(std::string_view type);

// The modelled server's response head for `entry`: the recorded status line and headers minus
// the ones that describe a transfer the model does not make (Content-Encoding, Transfer-
// Encoding, Content-Length, Connection, Keep-Alive, and any header that cannot be sent), then
// Content-Length: `content_length` unless `bodiless_status` (1xx, 204, 304). Bounded to 64 KiB
// of headers (later headers dropped).
std::string BuildResponseHead(const TraceEntry& entry, bool bodiless_status,
                              int64_t content_length);

// Prepares `page` under `config`.
std::shared_ptr<const PreparedPage> PreparePage(std::shared_ptr<const TracePage> page,
                                                const ReplayConfig& config);

// Most recently used prepared pages, keyed by the TracePage's identity (the cache holds the
// page, so its address is not reused while cached). Bounded by `capacity` pages.
class ReplayPageCache {
 public:
  ReplayPageCache(const ReplayConfig& config, size_t capacity = 64)
      : config_(config), capacity_(capacity) {}
  std::shared_ptr<const PreparedPage> Get(const std::shared_ptr<const TracePage>& page);

 private:
  const ReplayConfig& config_;
  const size_t capacity_;
  std::list<std::shared_ptr<const PreparedPage>> lru_;  // most recent first
  std::unordered_map<const TracePage*, std::list<std::shared_ptr<const PreparedPage>>::iterator>
      index_;
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPLAY_PREPARED_PAGE_H_
