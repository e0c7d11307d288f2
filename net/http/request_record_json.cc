#include "net/http/request_record_json.h"

#include <charconv>
#include <cmath>
#include <string_view>

#include "net/base/time.h"

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

template <typename Int>
void AppendInt(Int v, std::string* out) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, end);
}

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

// Writes one JSON object's members, in the order given (the callers give them sorted, as
// nlohmann's std::map-backed objects dump them), with the commas between them.
class ObjectWriter {
 public:
  explicit ObjectWriter(std::string* out) : out_(out) { out_->push_back('{'); }
  ~ObjectWriter() { out_->push_back('}'); }

  void Int(const char* key, int64_t v) { AppendInt(v, Key(key)); }
  void Uint(const char* key, uint64_t v) { AppendInt(v, Key(key)); }
  void Bool(const char* key, bool v) { Key(key)->append(v ? "true" : "false"); }
  void String(const char* key, std::string_view v) { AppendString(v, Key(key)); }
  // Empty strings as null.
  void StringOrNull(const char* key, const std::string& v) {
    if (v.empty()) {
      Null(key);
    } else {
      String(key, v);
    }
  }
  void Null(const char* key) { Key(key)->append("null"); }
  void Ms(const char* key, double ms) { AppendMs(ms, Key(key)); }
  // Negative: unknown, null.
  void MsOrNull(const char* key, double ms) {
    if (ms < 0) {
      Null(key);
    } else {
      Ms(key, ms);
    }
  }
  void Json(const char* key, const nlohmann::json& v) { AppendDumped(v, Key(key)); }
  // Starts a member whose value the caller writes next (a nested object or an array).
  std::string* Key(const char* key) {
    if (!first_) out_->push_back(',');
    first_ = false;
    out_->push_back('"');
    out_->append(key);
    out_->append("\":");
    return out_;
  }

 private:
  std::string* const out_;
  bool first_ = true;
};

}  // namespace

void AppendRequestRecordJson(const RequestRecord& r, std::string* out) {
  const LoadTimingPhases& p = r.phases;
  const ConnectionInfo& c = r.connection;
  const RequestPlacement* placement = r.placement ? &*r.placement : nullptr;
  const ReplayEntryRef* entry = r.entry ? &*r.entry : nullptr;
  ObjectWriter o(out);
  o.Int("body_bytes", r.body_bytes);
  o.Int("bytes", r.body_bytes);
  o.String("cache", r.cache_name());
  {
    ObjectWriter dns(o.Key("dns"));
    dns.Bool("from_cache", c.dns_from_cache);
    dns.Bool("stale", c.dns_stale);
  }
  if (placement) o.Ms("end_ms", r.end_ms());
  if (entry) o.Int("entry", entry->entry);
  if (r.error != OK) {
    o.String("error", r.error_message);
    o.String("error_code", ErrorToString(r.error));
  } else {
    o.Null("error");
    o.Null("error_code");
  }
  o.String("final_url", r.final_url);
  // HTTP/2 only; null otherwise.
  if (c.h2_session_id != 0) {
    o.Uint("h2_session_id", c.h2_session_id);
    o.Int("h2_stream_id", c.h2_stream_id);
  } else {
    o.Null("h2_session_id");
    o.Null("h2_stream_id");
  }
  if (r.headers) o.Json("headers", *r.headers);
  if (entry) o.String("host", entry->host);
  if (placement) o.String("kind", "request");
  o.String("method", r.method);
  if (r.model) {
    const RequestModel& m = *r.model;
    ObjectWriter model(o.Key("model"));
    {
      ObjectWriter recorded(model.Key("recorded"));
      recorded.MsOrNull("end_ms", m.recorded_end_ms);
      recorded.MsOrNull("start_ms", m.recorded_start_ms);
    }
    model.Ms("request_ms", m.request_ms);
    model.Ms("response_ms", m.response_ms);
    model.Ms("server_ms", m.server_ms);
  }
  if (entry) o.Uint("page", entry->page);
  if (placement) o.String("priority", RequestPriorityToString(placement->priority));
  o.StringOrNull("protocol", c.protocol);
  std::string* redirects = o.Key("redirects");
  redirects->push_back('[');
  for (size_t i = 0; i < r.redirects.size(); ++i) {
    if (i) redirects->push_back(',');
    AppendString(r.redirects[i], redirects);
  }
  redirects->push_back(']');
  {
    ObjectWriter socket(o.Key("socket"));
    socket.StringOrNull("address", c.peer_address);
    socket.Uint("id", c.socket_id);
    socket.Bool("reused", c.reused());
    if (c.socket_source == SocketSource::kNone) {
      socket.Null("source");
    } else {
      socket.String("source", SocketSourceName(c.socket_source));
    }
    socket.Bool("tls_resumed", c.tls_resumed);
    socket.StringOrNull("tls_version", c.tls_version);
  }
  if (r.speculative) o.Json("speculative", *r.speculative);
  if (placement) o.Ms("start_ms", r.start_ms());
  o.Int("status", r.status);
  o.String("status_text", r.status_text);
  {
    ObjectWriter timing(o.Key("timing"));
    timing.Ms("connect_ms", p.connect_ms);
    timing.Ms("dns_ms", p.dns_ms);
    timing.Ms("queued_ms", p.queued_ms);
    timing.Ms("receive_ms", p.receive_ms);
    timing.Ms("send_ms", p.send_ms);
    timing.Ms("tls_ms", p.tls_ms);
    timing.Ms("total_ms", r.total_ms());
    timing.Ms("ttfb_ms", p.ttfb_ms);
  }
  o.Int("transfer_bytes", r.transfer_bytes);
  if (placement) o.String("type", placement->type);
  o.String("url", r.url);
}

nlohmann::json RequestRecordToJson(const RequestRecord& record) {
  std::string text;
  AppendRequestRecordJson(record, &text);
  return nlohmann::json::parse(text);
}

}  // namespace netstack
