#include "net/http/request_record_json.h"

#include <charconv>
#include <cmath>
#include <string_view>

#include "net/base/json_member_reader.h"
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

// Milliseconds unrounded: the shortest text that reads back as the same double, as nlohmann
// prints it (JsonNumbers::kExact).
void AppendExactMs(double ms, std::string* out) { AppendDumped(nlohmann::json(ms), out); }

// Writes one JSON object's members, in the order given (the callers give them sorted, as
// nlohmann's std::map-backed objects dump them), with the commas between them.
class ObjectWriter {
 public:
  ObjectWriter(std::string* out, JsonNumbers numbers) : out_(out), numbers_(numbers) {
    out_->push_back('{');
  }
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
  void Ms(const char* key, double ms) {
    if (numbers_ == JsonNumbers::kExact) {
      AppendExactMs(ms, Key(key));
    } else {
      AppendMs(ms, Key(key));
    }
  }
  // Negative: unknown, null. Exact: only -1 (the writers' "unknown") is null, so every other
  // value reads back as it was.
  void MsOrNull(const char* key, double ms) {
    if (numbers_ == JsonNumbers::kExact ? ms == -1 : ms < 0) {
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

  JsonNumbers numbers() const { return numbers_; }

 private:
  std::string* const out_;
  const JsonNumbers numbers_;
  bool first_ = true;
};

}  // namespace

void AppendRequestRecordJson(const RequestRecord& r, std::string* out, JsonNumbers numbers) {
  const LoadTimingPhases& p = r.phases;
  const ConnectionInfo& c = r.connection;
  const RequestPlacement* placement = r.placement ? &*r.placement : nullptr;
  const ReplayEntryRef* entry = r.entry ? &*r.entry : nullptr;
  ObjectWriter o(out, numbers);
  o.Int("body_bytes", r.body_bytes);
  o.Int("bytes", r.body_bytes);
  o.String("cache", r.cache_name());
  {
    ObjectWriter dns(o.Key("dns"), numbers);
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
    ObjectWriter model(o.Key("model"), numbers);
    {
      ObjectWriter recorded(model.Key("recorded"), numbers);
      recorded.MsOrNull("end_ms", m.recorded_end_ms);
      recorded.MsOrNull("start_ms", m.recorded_start_ms);
    }
    model.Ms("request_ms", m.request_ms);
    model.Ms("response_ms", m.response_ms);
    model.Ms("server_ms", m.server_ms);
  }
  if (entry) o.Uint("page", entry->page);
  // Exact lines are read back (RequestRecordFromJson): they carry what `replay --har` needs.
  if (entry && numbers == JsonNumbers::kExact) o.Int("parent", entry->parent);
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
    ObjectWriter socket(o.Key("socket"), numbers);
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
    ObjectWriter timing(o.Key("timing"), numbers);
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

namespace netstack {
namespace {

bool ErrorFromName(const std::string& name, int* error) {
#define NET_ERROR(label, value, message) \
  if (name == "ERR_" #label) {           \
    *error = value;                      \
    return true;                         \
  }
#include "net/base/net_error_list.h"
#undef NET_ERROR
  // ErrorToString's "ERR_<n>" for a code the list does not name.
  if (name.size() > 5 && name.compare(0, 4, "ERR_") == 0) {
    int value = 0;
    auto [end, ec] = std::from_chars(name.data() + 4, name.data() + name.size(), value);
    if (ec == std::errc() && end == name.data() + name.size() && value < 0) {
      *error = value;
      return true;
    }
  }
  return false;
}

bool SocketSourceFromName(const std::string& name, SocketSource* source) {
  for (SocketSource s :
       {SocketSource::kNone, SocketSource::kNew, SocketSource::kReused, SocketSource::kPreconnected,
        SocketSource::kPreconnectedLate, SocketSource::kUnusedIdle, SocketSource::kHttp2Session}) {
    if (name == SocketSourceName(s)) {
      *source = s;
      return true;
    }
  }
  return false;
}

// "recorded-hit", "recorded-failure" or a CacheDispositionName.
bool CacheFromName(const std::string& name, RequestRecord* r) {
  r->cache = CacheDisposition::kBypass;
  r->recorded_hit = name == "recorded-hit";
  r->recorded_failure = name == "recorded-failure";
  if (r->recorded_hit || r->recorded_failure) return true;
  for (CacheDisposition d :
       {CacheDisposition::kBypass, CacheDisposition::kMiss, CacheDisposition::kHit,
        CacheDisposition::kRevalidated, CacheDisposition::kStale}) {
    if (name == CacheDispositionName(d)) {
      r->cache = d;
      return true;
    }
  }
  return false;
}

// Whole microseconds of `ms` (times come from microsecond ticks); false when `ms` is not.
bool ToMicroseconds(double ms, int64_t* us) {
  if (!std::isfinite(ms) || std::fabs(ms) > 9e12) return false;
  *us = std::llround(ms * 1000);
  return ToMilliseconds(TimeDelta(*us)) == ms;
}

// Sets start, end (and the placement's page_start) so that start_ms(), end_ms() and total_ms()
// give the three figures written. MillisecondsBetween gives 0 for unset times and for times out
// of order, so where a figure is 0 the unset time is a candidate too.
bool RebuildTimes(double start_ms, double end_ms, double total_ms, RequestRecord* r) {
  // Far from zero (TimeTicks{} is "unset") and from overflow.
  const TimeTicks origin = TimeTicks(TimeDelta(int64_t{1} << 50));
  int64_t start_us = 0, end_us = 0, total_us = 0;
  if (!ToMicroseconds(start_ms, &start_us) || !ToMicroseconds(end_ms, &end_us) ||
      !ToMicroseconds(total_ms, &total_us))
    return false;
  auto matches = [&] {
    return r->start_ms() == start_ms && r->end_ms() == end_ms && r->total_ms() == total_ms;
  };
  if (!r->placement) {
    r->start = origin;
    r->end = origin + TimeDelta(total_us);
    return r->total_ms() == total_ms || (r->end = TimeTicks{}, matches());
  }
  const TimeTicks unset{};
  for (TimeTicks page_start : {origin, unset}) {
    r->placement->page_start = page_start;
    // With the page's start unset, start_ms() and end_ms() are 0 whatever the times are.
    TimeTicks start = page_start == unset ? origin : origin + TimeDelta(start_us);
    TimeTicks end = page_start == unset ? origin + TimeDelta(total_us) : origin + TimeDelta(end_us);
    for (TimeTicks s : {start, unset}) {
      for (TimeTicks e : {end, unset}) {
        r->start = s;
        r->end = e;
        if (matches()) return true;
      }
    }
  }
  return false;
}

}  // namespace

bool RequestRecordFromJson(const nlohmann::json& j, RequestRecord* r, std::string* error) {
  JsonMemberReader in(j);
  if (!j.is_object()) {
    *error = "not a JSON object";
    return false;
  }
  ClearRequestRecord(r);
  in.String("url", &r->url);
  in.String("final_url", &r->final_url);
  in.String("method", &r->method);
  if (const nlohmann::json* redirects = in.Member("redirects")) {
    if (!redirects->is_array()) in.Fail("redirects", "not an array");
    for (const nlohmann::json& url : *redirects) {
      if (!url.is_string()) {
        in.Fail("redirects", "not an array of strings");
        break;
      }
      r->redirects.push_back(url.get<std::string>());
    }
  }
  std::string error_code;
  in.StringOrNull("error_code", &error_code);
  r->error = OK;
  if (in.ok() && !error_code.empty()) {
    if (!ErrorFromName(error_code, &r->error) || r->error == OK)
      in.Fail("error_code", "not a net error's name");
    in.String("error", &r->error_message);
  }
  in.Int("status", &r->status);
  in.String("status_text", &r->status_text);
  if (const nlohmann::json* headers = in.Member("headers", true)) r->headers = *headers;
  in.Int64("body_bytes", &r->body_bytes);
  in.Int64("transfer_bytes", &r->transfer_bytes);
  std::string cache;
  in.String("cache", &cache);
  if (in.ok() && !CacheFromName(cache, r)) in.Fail("cache", "not a cache outcome");

  ConnectionInfo& c = r->connection;
  in.Bool("dns.from_cache", &c.dns_from_cache);
  in.Bool("dns.stale", &c.dns_stale);
  if (const nlohmann::json* h2 = in.Member("h2_session_id"); h2 && !h2->is_null()) {
    in.Uint32("h2_session_id", &c.h2_session_id);
    in.Int("h2_stream_id", &c.h2_stream_id);
  }
  in.StringOrNull("protocol", &c.protocol);
  in.StringOrNull("socket.address", &c.peer_address);
  in.Uint32("socket.id", &c.socket_id);
  in.Bool("socket.tls_resumed", &c.tls_resumed);
  in.StringOrNull("socket.tls_version", &c.tls_version);
  std::string source;
  in.StringOrNull("socket.source", &source);
  c.socket_source = SocketSource::kNone;
  if (in.ok() && !source.empty() &&
      (!SocketSourceFromName(source, &c.socket_source) || c.socket_source == SocketSource::kNone))
    in.Fail("socket.source", "not a socket source");

  LoadTimingPhases& p = r->phases;
  in.Double("timing.connect_ms", &p.connect_ms);
  in.Double("timing.dns_ms", &p.dns_ms);
  in.Double("timing.queued_ms", &p.queued_ms);
  in.Double("timing.receive_ms", &p.receive_ms);
  in.Double("timing.send_ms", &p.send_ms);
  in.Double("timing.tls_ms", &p.tls_ms);
  in.Double("timing.ttfb_ms", &p.ttfb_ms);
  double total_ms = 0, start_ms = 0, end_ms = 0;
  in.Double("timing.total_ms", &total_ms);

  r->placement.reset();
  if (in.Member("kind", true)) {
    RequestPlacement& placement = r->placement.emplace();
    std::string priority;
    in.String("type", &placement.type);
    in.String("priority", &priority);
    if (in.ok()) {
      std::optional<RequestPriority> parsed = RequestPriorityFromString(priority);
      if (!parsed) in.Fail("priority", "not a request priority");
      placement.priority = parsed.value_or(MEDIUM);
    }
    in.Double("start_ms", &start_ms);
    in.Double("end_ms", &end_ms);
  }
  r->entry.reset();
  if (in.Member("page", true)) {
    ReplayEntryRef& entry = r->entry.emplace();
    in.Uint64("page", &entry.page);
    in.Int("entry", &entry.entry);
    in.String("host", &entry.host);
    if (in.Member("parent", true)) in.Int("parent", &entry.parent);
  }
  r->model.reset();
  if (in.Member("model", true)) {
    RequestModel& m = r->model.emplace();
    in.DoubleOrNull("model.recorded.end_ms", -1, &m.recorded_end_ms);
    in.DoubleOrNull("model.recorded.start_ms", -1, &m.recorded_start_ms);
    in.Double("model.request_ms", &m.request_ms);
    in.Double("model.response_ms", &m.response_ms);
    in.Double("model.server_ms", &m.server_ms);
  }
  r->speculative.reset();
  if (const nlohmann::json* speculative = in.Member("speculative", true))
    r->speculative = *speculative;
  if (in.ok() && !RebuildTimes(start_ms, end_ms, total_ms, r))
    in.Fail("timing.total_ms", "does not agree with start_ms and end_ms");
  if (!in.ok()) {
    *error = in.error();
    return false;
  }
  return true;
}

}  // namespace netstack
