#include "tools/netstack/fetch_record.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "net/base/net_error.h"
#include "tools/netstack/terminal_text.h"

namespace netstack {

namespace {

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

std::string FetchRecordToLine(const RequestRecord& r) {
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
  const LoadTimingPhases& p = r.phases;
  const ConnectionInfo& c = r.connection;
  line.reserve(160 + r.final_url.size() + r.status_text.size() + c.tls_version.size());
  AppendInt(r.status, &line);
  line.push_back(' ');
  AppendSafe(r.status_text, &line);
  line.append("  ");
  AppendSafe(r.final_url, &line);
  line.append("  ");
  AppendSize(static_cast<uint64_t>(std::max<int64_t>(r.body_bytes, 0)), &line);
  line.append("  ");
  AppendFixed1(r.total_ms(), &line);
  line.append(" ms  [dns ");
  AppendFixed1(p.dns_ms, &line);
  line.append(" connect ");
  AppendFixed1(p.connect_ms, &line);
  line.append(" tls ");
  AppendFixed1(p.tls_ms, &line);
  line.append(" send ");
  AppendFixed1(p.send_ms, &line);
  line.append(" wait ");
  AppendFixed1(p.ttfb_ms, &line);
  line.append(" receive ");
  AppendFixed1(p.receive_ms, &line);
  line.push_back(']');
  // A response served from the cache alone used no socket.
  if (c.socket_id != 0) {
    line.append("  socket ");
    AppendInt(c.socket_id, &line);
    line.push_back(' ');
    line.append(SocketSourceName(c.socket_source));
  }
  if (c.protocol == "h2") {
    line.append("  h2 stream ");
    AppendInt(c.h2_stream_id, &line);
  }
  if (!c.tls_version.empty()) {
    line.append("  ").append(c.tls_version);
    if (c.tls_resumed) line.append(" resumed");
  }
  if (!r.redirects.empty()) {
    line.append("  (");
    AppendInt(r.redirects.size(), &line);
    line.append(" redirects)");
  }
  if (r.cache != CacheDisposition::kBypass || r.recorded_hit)
    line.append("  cache ").append(r.cache_name());
  return line;
}

}  // namespace netstack
