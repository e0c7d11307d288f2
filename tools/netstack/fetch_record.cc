#include "tools/netstack/fetch_record.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <type_traits>
#include <utility>

#include "net/base/net_error.h"
#include "tools/netstack/terminal_text.h"

namespace netstack {

namespace {

// Both overloads: R is a const or an rvalue PageRequestRecord; Take moves from the rvalue only.
template <typename R, typename T>
decltype(auto) Take(T& member) {
  if constexpr (std::is_const_v<std::remove_reference_t<R>>) {
    return static_cast<const T&>(member);
  } else {
    return std::move(member);
  }
}

template <typename R>
FetchRecord MakeFetchRecord(R& r, const std::string& method) {
  FetchRecord f;
  f.url = r.url.spec();
  f.final_url = r.final_url.empty() ? r.url.spec() : Take<R>(r.final_url);
  f.method = method;
  f.status = r.status;
  f.status_text = Take<R>(r.status_text);
  f.headers = Take<R>(r.headers);
  f.bytes = static_cast<uint64_t>(std::max<int64_t>(r.bytes, 0));
  f.encoded_bytes = static_cast<uint64_t>(std::max<int64_t>(r.encoded_bytes, 0));
  f.error = r.result;
  f.error_message = Take<R>(r.error_message);
  // Shared with replay: connect points before the request started (a preconnected socket)
  // are clamped to its start (ComputeLoadTimingPhases).
  f.dns_ms = r.phases.dns_ms;
  f.connect_ms = r.phases.connect_ms;
  f.tls_ms = r.phases.tls_ms;
  f.send_ms = r.phases.send_ms;
  f.ttfb_ms = r.phases.ttfb_ms;
  f.receive_ms = r.phases.receive_ms;
  f.total_ms = MillisecondsBetween(r.start, r.end);
  f.socket_id = r.connection.socket_id;
  f.socket_reused = r.connection.reused;
  f.socket_address = Take<R>(r.connection.peer_address);
  f.tls_version = Take<R>(r.connection.tls_version);
  f.tls_resumed = r.connection.tls_resumed;
  f.dns_from_cache = r.connection.dns_from_cache;
  f.dns_stale = r.connection.dns_stale;
  f.redirects = Take<R>(r.redirects);
  f.cache = CacheDispositionName(r.cache);
  return f;
}

}  // namespace

FetchRecord FetchRecordFromRequest(const PageRequestRecord& r, const std::string& method) {
  return MakeFetchRecord<const PageRequestRecord>(r, method);
}

FetchRecord FetchRecordFromRequest(PageRequestRecord&& r, const std::string& method) {
  return MakeFetchRecord<PageRequestRecord>(r, method);
}
namespace {

// Timings are reported to the microsecond at most; fewer digits keep lines readable.
double Round3(double ms) { return std::round(ms * 1000.0) / 1000.0; }

// "%.1f" without printf: std::to_chars gives the same correctly rounded digits at a fraction of
// the cost (seven of these per line were 10% of a keep-alive fetch's instructions).
std::string Fixed1(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed, 1);
  if (ec != std::errc()) return "?";
  return std::string(buf, end);
}

std::string Size(uint64_t bytes) {
  if (bytes < 10 * 1024) return std::to_string(bytes) + " B";
  if (bytes < 10 * 1024 * 1024) return Fixed1(bytes / 1024.0) + " KiB";
  return Fixed1(bytes / (1024.0 * 1024.0)) + " MiB";
}

}  // namespace

nlohmann::json FetchRecordToJson(const FetchRecord& r) {
  nlohmann::json j;
  j["url"] = r.url;
  j["final_url"] = r.final_url;
  j["method"] = r.method;
  j["status"] = r.status;
  j["status_text"] = r.status_text;
  j["headers"] = r.headers;
  j["bytes"] = r.bytes;
  j["encoded_bytes"] = r.encoded_bytes;
  j["error"] = r.error ? nlohmann::json(r.error_message) : nlohmann::json(nullptr);
  j["error_code"] = r.error ? nlohmann::json(ErrorToString(r.error)) : nlohmann::json(nullptr);
  j["timing"] = {{"dns_ms", Round3(r.dns_ms)},    {"connect_ms", Round3(r.connect_ms)},
                 {"tls_ms", Round3(r.tls_ms)},    {"send_ms", Round3(r.send_ms)},
                 {"ttfb_ms", Round3(r.ttfb_ms)},  {"receive_ms", Round3(r.receive_ms)},
                 {"total_ms", Round3(r.total_ms)}};
  j["socket"] = {{"id", r.socket_id},
                 {"reused", r.socket_reused},
                 {"address", r.socket_address.empty() ? nlohmann::json(nullptr)
                                                      : nlohmann::json(r.socket_address)},
                 {"tls_version",
                  r.tls_version.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.tls_version)},
                 {"tls_resumed", r.tls_resumed}};
  j["dns"] = {{"from_cache", r.dns_from_cache}, {"stale", r.dns_stale}};
  j["redirects"] = r.redirects;
  j["cache"] = r.cache;
  j["speculative"] = r.speculative;
  return j;
}

std::string FetchRecordToLine(const FetchRecord& r) {
  if (r.error) {
    return "error  " + TerminalSafe(r.url) + "  " + TerminalSafe(r.error_message) + " (" +
           ErrorToString(r.error) + ")";
  }
  std::string line = std::to_string(r.status) + " " + TerminalSafe(r.status_text) + "  " +
                     TerminalSafe(r.final_url) + "  " + Size(r.bytes) + "  " + Fixed1(r.total_ms) +
                     " ms  [dns " + Fixed1(r.dns_ms) + " connect " + Fixed1(r.connect_ms) +
                     " tls " + Fixed1(r.tls_ms) + " send " + Fixed1(r.send_ms) + " wait " +
                     Fixed1(r.ttfb_ms) + " receive " + Fixed1(r.receive_ms) + "]";
  // A response served from the cache alone used no socket.
  if (r.socket_id != 0)
    line += "  socket " + std::to_string(r.socket_id) + (r.socket_reused ? " reused" : " new");
  if (!r.tls_version.empty()) line += "  " + r.tls_version + (r.tls_resumed ? " resumed" : "");
  if (!r.redirects.empty()) line += "  (" + std::to_string(r.redirects.size()) + " redirects)";
  if (r.cache != "bypass") line += "  cache " + r.cache;
  return line;
}

}  // namespace netstack
