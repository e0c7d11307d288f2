#include "net/http/request_record_json.h"

#include <charconv>
#include <cmath>
#include <string_view>

namespace netstack {
namespace {

// What nlohmann's dump writes for `j` (the fallback for values the fast paths below leave).
void AppendDumped(const nlohmann::json& j, std::string* out) {
  out->append(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// A JSON string. Printable ASCII without '"' or '\' (URLs, names, reasons) is copied as is;
// anything else goes through nlohmann's escaping (control characters, UTF-8 checked).
void AppendString(std::string_view s, std::string* out) {
  for (char c : s) {
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
      AppendDumped(nlohmann::json(std::string(s)), out);
      return;
    }
  }
  out->push_back('"');
  out->append(s);
  out->push_back('"');
}

void AppendStringOrNull(const std::string& s, std::string* out) {
  if (s.empty()) {
    out->append("null");
  } else {
    AppendString(s, out);
  }
}

template <typename Int>
void AppendInt(Int v, std::string* out) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, end);
}

void AppendBool(bool v, std::string* out) { out->append(v ? "true" : "false"); }

// Milliseconds, rounded to the microsecond, as nlohmann prints that double: the shortest
// decimal that reads back as the same double, in fixed notation with at least one fractional
// digit ("40.0", "0.001", "1234.5"). A value rounded to the microsecond below 1e9 ms has that
// shortest form k / 1000 with its trailing zeros cut (no shorter decimal is within half a ulp);
// larger or non-finite values go to nlohmann (the same bytes, the slow way).
void AppendMs(double ms, std::string* out) {
  const double v = RoundMsForJson(ms);
  if (!std::isfinite(v) || std::fabs(v) >= 1e9) {
    AppendDumped(nlohmann::json(v), out);
    return;
  }
  int64_t k = std::llround(v * 1000);
  if (k < 0 || (k == 0 && std::signbit(v))) {
    out->push_back('-');
    k = -k;
  }
  AppendInt(k / 1000, out);
  out->push_back('.');
  int64_t frac = k % 1000;
  if (frac == 0) {
    out->push_back('0');
    return;
  }
  char digits[3] = {static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                    static_cast<char>('0' + frac % 10)};
  int n = 3;
  while (digits[n - 1] == '0') --n;
  out->append(digits, static_cast<size_t>(n));
}

// "key": (keys are written in sorted order, as nlohmann's std::map-backed objects dump them).
void Key(const char* key, std::string* out) {
  out->push_back('"');
  out->append(key);
  out->append("\":");
}

}  // namespace

double RoundMsForJson(double ms) { return std::round(ms * 1000.0) / 1000.0; }

void AppendRequestRecordJson(const RequestRecord& r, std::string* out) {
  const LoadTimingPhases& p = r.phases;
  const ConnectionInfo& c = r.connection;
  const RequestPlacement* placement = r.placement ? &*r.placement : nullptr;
  out->push_back('{');
  Key("body_bytes", out);
  AppendInt(r.body_bytes, out);
  out->push_back(',');
  Key("bytes", out);
  AppendInt(r.body_bytes, out);
  out->push_back(',');
  Key("cache", out);
  AppendString(r.cache_name(), out);
  out->push_back(',');
  Key("dns", out);
  out->append("{\"from_cache\":");
  AppendBool(c.dns_from_cache, out);
  out->append(",\"stale\":");
  AppendBool(c.dns_stale, out);
  out->append("},");
  if (placement) {
    Key("end_ms", out);
    AppendMs(r.end_ms(), out);
    out->push_back(',');
  }
  if (r.entry) {
    Key("entry", out);
    AppendInt(r.entry->entry, out);
    out->push_back(',');
  }
  Key("error", out);
  if (r.error != OK) {
    AppendString(r.error_message, out);
  } else {
    out->append("null");
  }
  out->push_back(',');
  Key("error_code", out);
  if (r.error != OK) {
    AppendString(ErrorToString(r.error), out);
  } else {
    out->append("null");
  }
  out->push_back(',');
  Key("final_url", out);
  AppendString(r.final_url, out);
  out->push_back(',');
  if (r.headers) {
    Key("headers", out);
    AppendDumped(*r.headers, out);
    out->push_back(',');
  }
  if (r.entry) {
    Key("host", out);
    AppendString(r.entry->host, out);
    out->push_back(',');
  }
  if (placement) {
    Key("kind", out);
    out->append("\"request\",");
  }
  Key("method", out);
  AppendString(r.method, out);
  out->push_back(',');
  if (r.model) {
    const RequestModel& m = *r.model;
    Key("model", out);
    out->append("{\"recorded\":{\"end_ms\":");
    if (m.recorded_end_ms < 0) {
      out->append("null");
    } else {
      AppendMs(m.recorded_end_ms, out);
    }
    out->append(",\"start_ms\":");
    if (m.recorded_start_ms < 0) {
      out->append("null");
    } else {
      AppendMs(m.recorded_start_ms, out);
    }
    out->append("},\"request_ms\":");
    AppendMs(m.request_ms, out);
    out->append(",\"response_ms\":");
    AppendMs(m.response_ms, out);
    out->append(",\"server_ms\":");
    AppendMs(m.server_ms, out);
    out->append("},");
  }
  if (r.entry) {
    Key("page", out);
    AppendInt(r.entry->page, out);
    out->push_back(',');
  }
  if (placement) {
    Key("priority", out);
    AppendString(RequestPriorityToString(placement->priority), out);
    out->push_back(',');
  }
  Key("redirects", out);
  out->push_back('[');
  for (size_t i = 0; i < r.redirects.size(); ++i) {
    if (i) out->push_back(',');
    AppendString(r.redirects[i], out);
  }
  out->append("],");
  Key("socket", out);
  out->append("{\"address\":");
  AppendStringOrNull(c.peer_address, out);
  out->append(",\"id\":");
  AppendInt(c.socket_id, out);
  out->append(",\"reused\":");
  AppendBool(c.reused(), out);
  out->append(",\"source\":");
  if (c.socket_source == SocketSource::kNone) {
    out->append("null");
  } else {
    AppendString(SocketSourceName(c.socket_source), out);
  }
  out->append(",\"tls_resumed\":");
  AppendBool(c.tls_resumed, out);
  out->append(",\"tls_version\":");
  AppendStringOrNull(c.tls_version, out);
  out->append("},");
  if (r.speculative) {
    Key("speculative", out);
    AppendDumped(*r.speculative, out);
    out->push_back(',');
  }
  if (placement) {
    Key("start_ms", out);
    AppendMs(r.start_ms(), out);
    out->push_back(',');
  }
  Key("status", out);
  AppendInt(r.status, out);
  out->push_back(',');
  Key("status_text", out);
  AppendString(r.status_text, out);
  out->push_back(',');
  Key("timing", out);
  out->append("{\"connect_ms\":");
  AppendMs(p.connect_ms, out);
  out->append(",\"dns_ms\":");
  AppendMs(p.dns_ms, out);
  out->append(",\"queued_ms\":");
  AppendMs(p.queued_ms, out);
  out->append(",\"receive_ms\":");
  AppendMs(p.receive_ms, out);
  out->append(",\"send_ms\":");
  AppendMs(p.send_ms, out);
  out->append(",\"tls_ms\":");
  AppendMs(p.tls_ms, out);
  out->append(",\"total_ms\":");
  AppendMs(r.total_ms(), out);
  out->append(",\"ttfb_ms\":");
  AppendMs(p.ttfb_ms, out);
  out->append("},");
  Key("transfer_bytes", out);
  AppendInt(r.transfer_bytes, out);
  out->push_back(',');
  if (placement) {
    Key("type", out);
    AppendString(placement->type, out);
    out->push_back(',');
  }
  Key("url", out);
  AppendString(r.url, out);
  out->push_back('}');
}

nlohmann::json RequestRecordToJson(const RequestRecord& record) {
  std::string text;
  AppendRequestRecordJson(record, &text);
  return nlohmann::json::parse(text);
}

}  // namespace netstack
