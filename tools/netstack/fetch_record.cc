#include "tools/netstack/fetch_record.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
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
  f.socket_reused = r.connection.reused();
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

// Appends v as "%.1f" would print it: the exact binary value rounded to one decimal, a tie to
// even. printf was 10% of a keep-alive fetch's instructions, std::to_chars with a precision still
// ~400 instructions a number. A timing (not negative, below 1e14, so every k + 0.5 near v * 10 is
// a double) takes an integer path: t = v * 10 rounded; fma gives the product's exact rounding
// error, which decides the one case where t sits on a tie (k + 0.5) the exact product may miss.
// Everything else goes to std::to_chars (the same digits).
void AppendFixed1(double v, std::string* out) {
  if (!std::signbit(v) && v < 1e14) {
    const double t = v * 10;
    const double err = std::fma(v, 10, -t);  // exact: v * 10 == t + err
    double whole = std::floor(t);
    const double frac = t - whole;  // exact
    if (frac > 0.5 || (frac == 0.5 && (err > 0 || (err == 0 && std::fmod(whole, 2) != 0))))
      whole += 1;
    const uint64_t tenths = static_cast<uint64_t>(whole);
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), tenths / 10);
    out->append(buf, end);
    out->push_back('.');
    out->push_back(static_cast<char>('0' + tenths % 10));
    return;
  }
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed, 1);
  if (ec != std::errc()) {
    out->push_back('?');
    return;
  }
  out->append(buf, end);
}

template <typename Int>
void AppendInt(Int v, std::string* out) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, ec == std::errc() ? end : buf);
}

void AppendSize(uint64_t bytes, std::string* out) {
  if (bytes < 10 * 1024) {
    AppendInt(bytes, out);
    out->append(" B");
  } else if (bytes < 10 * 1024 * 1024) {
    AppendFixed1(bytes / 1024.0, out);
    out->append(" KiB");
  } else {
    AppendFixed1(bytes / (1024.0 * 1024.0), out);
    out->append(" MiB");
  }
}

// Appends `text` escaped for a terminal (TerminalSafe, without its temporary string). Printable
// ASCII passes through AppendTerminalText unchanged, so the run of it a URL usually is all of
// is copied at once; the rest (from a byte that is a unit boundary) is escaped as before.
void AppendSafe(std::string_view text, std::string* out) {
  size_t plain = 0;
  while (plain < text.size() && text[plain] >= 0x20 && text[plain] < 0x7f) ++plain;
  out->append(text.data(), plain);
  if (plain < text.size())
    AppendTerminalText(text.substr(plain), TerminalTextMode::kOneLine, /*at_end=*/true, out);
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
  // One string, appended in place: the concatenation of temporaries it replaces was 7k
  // instructions per line, a tenth of a keep-alive fetch's.
  std::string line;
  if (r.error) {
    line.reserve(32 + r.url.size() + r.error_message.size());
    line.append("error  ");
    AppendSafe(r.url, &line);
    line.append("  ");
    AppendSafe(r.error_message, &line);
    line.append(" (").append(ErrorToString(r.error)).push_back(')');
    return line;
  }
  // The URL and status text plus the fixed part (timings, socket, cache) fit without regrowth.
  line.reserve(160 + r.final_url.size() + r.status_text.size() + r.tls_version.size());
  AppendInt(r.status, &line);
  line.push_back(' ');
  AppendSafe(r.status_text, &line);
  line.append("  ");
  AppendSafe(r.final_url, &line);
  line.append("  ");
  AppendSize(r.bytes, &line);
  line.append("  ");
  AppendFixed1(r.total_ms, &line);
  line.append(" ms  [dns ");
  AppendFixed1(r.dns_ms, &line);
  line.append(" connect ");
  AppendFixed1(r.connect_ms, &line);
  line.append(" tls ");
  AppendFixed1(r.tls_ms, &line);
  line.append(" send ");
  AppendFixed1(r.send_ms, &line);
  line.append(" wait ");
  AppendFixed1(r.ttfb_ms, &line);
  line.append(" receive ");
  AppendFixed1(r.receive_ms, &line);
  line.push_back(']');
  // A response served from the cache alone used no socket.
  if (r.socket_id != 0) {
    line.append("  socket ");
    AppendInt(r.socket_id, &line);
    line.append(r.socket_reused ? " reused" : " new");
  }
  if (!r.tls_version.empty()) {
    line.append("  ").append(r.tls_version);
    if (r.tls_resumed) line.append(" resumed");
  }
  if (!r.redirects.empty()) {
    line.append("  (");
    AppendInt(r.redirects.size(), &line);
    line.append(" redirects)");
  }
  if (r.cache != "bypass") line.append("  cache ").append(r.cache);
  return line;
}

}  // namespace netstack
