#include "tools/replay/replay_prepared_page.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

#include "net/base/string_util.h"
#include "net/base/url.h"

namespace netstack {
namespace {

// A request body is filler of the recorded size, bounded like a header block would be by a
// server: larger uploads are modelled at this size.
constexpr int64_t kMaxRequestBodyBytes = 16 * 1024 * 1024;
// The filler request bodies one prepared page holds, together: prepared pages are cached (64 of
// them), so without this a HAR of many large POSTs would fill memory. Entries past it fail with
// ERR_FILE_TOO_BIG.
constexpr int64_t kMaxPageRequestBodyBytes = 64 * 1024 * 1024;
// Response header bytes kept from the recording (servers commonly refuse more than 64 KiB).
constexpr size_t kMaxResponseHeaderBytes = 64 * 1024;

bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (unsigned char c : s) {
    if (!(std::isalnum(c) ||
          std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos))
      return false;
  }
  return true;
}

bool IsSendableValue(std::string_view v) {
  return v.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

// Request headers the replay does not send: hop-by-hop ones, what the stack sets itself (Host,
// Content-Length), state the model does not have (Cookie), and what would make the replay's
// own cache behave as the recording's reload or DevTools "disable cache" did instead of by its
// policy (conditionals, Range, Cache-Control, Pragma).
bool DropRequestHeader(std::string_view name) {
  static constexpr std::array<std::string_view, 12> kDropped = {"host",
                                                                "connection",
                                                                "keep-alive",
                                                                "proxy-connection",
                                                                "transfer-encoding",
                                                                "te",
                                                                "upgrade",
                                                                "content-length",
                                                                "cookie",
                                                                "range",
                                                                "cache-control",
                                                                "pragma"};
  if (name.empty() || name[0] == ':') return true;
  if (StartsWithCaseInsensitiveAscii(name, "if-")) return true;
  for (std::string_view d : kDropped)
    if (EqualsCaseInsensitiveAscii(name, d)) return true;
  return false;
}

// Response headers describing a transfer the model does not make: the body is filler bytes
// of the recorded transferred size, sent with Content-Length on a keep-alive connection.
bool DropResponseHeader(std::string_view name) {
  static constexpr std::array<std::string_view, 6> kDropped = {
      "content-encoding", "transfer-encoding", "content-length",
      "connection",       "keep-alive",        "proxy-connection"};
  if (name.empty() || name[0] == ':') return true;
  for (std::string_view d : kDropped)
    if (EqualsCaseInsensitiveAscii(name, d)) return true;
  return false;
}

const char* DefaultReason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 204:
      return "No Content";
    case 206:
      return "Partial Content";
    case 301:
      return "Moved Permanently";
    case 302:
      return "Found";
    case 303:
      return "See Other";
    case 304:
      return "Not Modified";
    case 307:
      return "Temporary Redirect";
    case 308:
      return "Permanent Redirect";
    case 400:
      return "Bad Request";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

// PreparedPage::warm_groups of `page`.
std::vector<WarmGroup> WarmGroups(const TracePage& page, const std::vector<PreparedEntry>& entries,
                                  const ReplayConfig& config) {
  std::vector<WarmGroup> groups;
  std::vector<std::vector<std::string>> ids;  // distinct connection ids per group
  int total = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const TraceEntry& e = page.entries[i];
    if (!e.recorded_warm_connection || entries[i].kind != PreparedEntry::Kind::kNetwork) continue;
    SchemeHostPort origin = entries[i].request().url.scheme_host_port();
    size_t g = 0;
    while (g < groups.size() && !(groups[g].origin == origin)) ++g;
    if (g == groups.size()) {
      groups.push_back({origin, 0});
      ids.emplace_back();
    }
    std::string id = e.connection_id.empty() ? "#" + std::to_string(i) : e.connection_id;
    if (groups[g].count >= config.max_sockets_per_group || total >= config.max_sockets) continue;
    if (std::find(ids[g].begin(), ids[g].end(), id) != ids[g].end()) continue;
    ids[g].push_back(std::move(id));
    ++groups[g].count;
    ++total;
  }
  return groups;
}

// The recorded `blocked` time of an entry when the browser, not the network stack, held it:
// the page's first request (no pool holds a navigation: this is the browser's navigation work),
// and a request over an HTTP/2 or HTTP/3 connection that was already open (no pool queue and no
// connection setup: the renderer's scheduling, Chrome's ResourceScheduler holding low-priority
// requests while the page's head loads). Elsewhere blocked time is the pools' queueing and
// waiting for connections, which the model produces itself: 0.
double BrowserHeldMs(const TraceEntry& e, bool first) {
  if (e.timings.blocked <= 0 || e.recorded_from_cache || !e.recorded_error.empty()) return 0;
  bool multiplexed = e.protocol == TraceProtocol::kHttp2 || e.protocol == TraceProtocol::kHttp3;
  bool open_connection = e.timings.dns < 0 && e.timings.connect < 0;
  return first || (multiplexed && open_connection) ? e.timings.blocked : 0;
}

}  // namespace

uint64_t MatchHash(std::string_view method, std::string_view scheme, std::string_view host,
                   std::string_view target) {
  // FNV-1a, with a separator so ("ab", "c") and ("a", "bc") differ.
  uint64_t h = 14695981039346656037ull;
  auto mix = [&h](std::string_view s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  };
  mix(method);
  mix(scheme);
  mix(host);
  mix(target);
  return h;
}

RequestPriority PriorityForResourceType(std::string_view type) {
  if (type == "document" || type == "stylesheet" || type == "css") return HIGHEST;
  if (type == "script" || type == "font" || type == "xhr" || type == "fetch" ||
      type == "eventsource" || type == "manifest")
    return MEDIUM;
  if (type == "image" || type == "img" || type == "media" || type == "imageset") return LOWEST;
  if (type == "ping" || type == "beacon" || type == "prefetch" || type == "csp_report") return IDLE;
  return LOW;
}

std::string BuildResponseHead(const TraceEntry& entry, bool bodiless_status,
                              int64_t content_length) {
  std::string head = "HTTP/1.1 " + std::to_string(entry.status) + " ";
  bool reason_ok = !entry.status_text.empty() && IsSendableValue(entry.status_text);
  head += reason_ok ? entry.status_text : DefaultReason(entry.status);
  head += "\r\n";
  size_t header_bytes = 0;
  for (const auto& [name, value] : entry.response_headers) {
    if (DropResponseHeader(name) || !IsToken(name) || !IsSendableValue(value)) continue;
    size_t line = name.size() + 2 + value.size() + 2;
    if (header_bytes + line > kMaxResponseHeaderBytes) break;
    header_bytes += line;
    head.append(name).append(": ").append(value).append("\r\n");
  }
  if (!bodiless_status) head += "Content-Length: " + std::to_string(content_length) + "\r\n";
  head += "\r\n";
  return head;
}

std::shared_ptr<const PreparedPage> PreparePage(std::shared_ptr<const TracePage> page,
                                                const ReplayConfig& config) {
  auto out = std::make_shared<PreparedPage>();
  const size_t n = page->entries.size();
  out->entries.resize(n);
  int64_t request_body_total = 0;
  for (size_t i = 0; i < n; ++i) {
    const TraceEntry& e = page->entries[i];
    PreparedEntry& p = out->entries[i];
    // Time the browser itself held the request before the network stack saw it, which the model
    // does not produce (it models the pools' queues and connection setup, not the renderer's
    // scheduling), kept as recorded, like a gap: BrowserHeldMs.
    double held_ms = BrowserHeldMs(e, i == 0);
    p.offset = TimeDelta(static_cast<int64_t>(
        std::llround(std::clamp(e.start_ms + held_ms, 0.0, kMaxTraceMs) * 1000)));
    p.gap = TimeDelta(static_cast<int64_t>(
        std::llround(std::clamp(e.gap_ms + held_ms, 0.0, kMaxTraceMs) * 1000)));
    // A pushed entry is issued at its recorded start, as an ordinary request: its recorded
    // start is when the page claimed the pushed stream, not when a parent revealed it.
    if (config.placement == Placement::kDependency && !e.pushed && e.parent >= 0 &&
        e.parent < static_cast<int>(i))
      p.parent = e.parent;
    p.params.priority = PriorityForResourceType(e.resource_type);
    p.params.follow_redirects = false;  // each recorded hop is an entry of its own
    HttpRequestInfo& request = p.params.request;
    std::string message;
    if (Url::Parse(e.url, &request.url, &message) != 0) {
      p.kind = PreparedEntry::Kind::kInvalid;
      p.invalid_error = ERR_INVALID_URL;
      p.invalid_detail = message;
      continue;
    }
    if (!e.recorded_error.empty()) {
      p.kind = PreparedEntry::Kind::kRecordedFailure;
      continue;
    }
    if (e.recorded_from_cache) {
      p.kind = PreparedEntry::Kind::kRecordedHit;
      continue;
    }
    if (e.status < 100 || e.status > 999) {
      p.kind = PreparedEntry::Kind::kSkipped;
      continue;
    }
    request.method = e.method.empty() ? "GET" : e.method;
    for (const auto& [name, value] : e.request_headers) {
      if (DropRequestHeader(name)) continue;
      // Refused (bad name or value, over the bounds): not sent.
      request.extra_headers.SetHeader(name, value);
    }
    if (e.request_body_bytes > 0) {
      int64_t body = std::min(e.request_body_bytes, kMaxRequestBodyBytes);
      if (request_body_total + body > kMaxPageRequestBodyBytes) {
        p.kind = PreparedEntry::Kind::kInvalid;
        p.invalid_error = ERR_FILE_TOO_BIG;
        p.invalid_detail = "entry " + std::to_string(i) + "'s request body of " +
                           std::to_string(body) +
                           " bytes passes the limit of 64 MiB of request bodies per page";
        continue;
      }
      request_body_total += body;
      request.body.assign(static_cast<size_t>(body), 'x');
    }
    const Url& url = request.url;
    p.host_header = url.HostHeader();
    p.match_hash = MatchHash(request.method, url.scheme(), p.host_header, url.path_and_query());
    bool bodiless_status =
        (e.status >= 100 && e.status < 200) || e.status == 204 || e.status == 304;
    p.bodiless = bodiless_status || request.method == "HEAD";
    p.body_bytes = p.bodiless ? 0 : std::max<int64_t>(0, e.response_body_bytes);
    p.head = BuildResponseHead(e, bodiless_status, p.body_bytes);
    // The trace's per-entry server time, unless the user set server_ms for this host (globally
    // or for it): a what-if on server_ms must move estimated traces too. server_scale applies
    // to it as to the host's.
    if (config.server_ms_from_trace && e.server_ms >= 0 &&
        !config.network.UserSetServerTime(url.host())) {
      p.server_time = TimeDelta(static_cast<int64_t>(
          std::llround(std::min(e.server_ms, kMaxTraceMs) * 1000 * config.network.server_scale)));
    }
  }
  out->warm_groups = WarmGroups(*page, out->entries, config);
  // Children lists (counting sort by parent).
  out->child_begin.assign(n + 1, 0);
  for (size_t i = 0; i < n; ++i)
    if (out->entries[i].parent >= 0) ++out->child_begin[out->entries[i].parent + 1];
  for (size_t i = 0; i < n; ++i) out->child_begin[i + 1] += out->child_begin[i];
  out->children.resize(out->child_begin[n]);
  std::vector<int> fill(out->child_begin.begin(), out->child_begin.end() - 1);
  for (size_t i = 0; i < n; ++i) {
    int parent = out->entries[i].parent;
    if (parent >= 0) out->children[fill[parent]++] = static_cast<int>(i);
  }
  out->page = std::move(page);
  return out;
}

std::shared_ptr<const PreparedPage> ReplayPageCache::Get(
    const std::shared_ptr<const TracePage>& page) {
  auto it = index_.find(page.get());
  if (it != index_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);
    return *it->second;
  }
  auto prepared = PreparePage(page, config_);
  lru_.push_front(prepared);
  index_[page.get()] = lru_.begin();
  if (lru_.size() > capacity_) {
    index_.erase(lru_.back()->page.get());
    lru_.pop_back();
  }
  return prepared;
}

}  // namespace netstack
