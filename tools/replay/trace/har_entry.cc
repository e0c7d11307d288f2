#include "tools/replay/trace/har_entry.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <string_view>

#include "net/base/net_error.h"
#include "net/base/string_util.h"
#include "net/base/url.h"
#include "tools/replay/trace/har_date.h"
#include "tools/replay/trace/har_url.h"
#include "tools/replay/trace/host_protocol.h"
#include "tools/replay/trace/recorded_error.h"
#include "tools/replay/trace/trace_json.h"

namespace netstack {

namespace {

// Reads a HAR header list ([{"name": ..., "value": ...}]) without pseudo-headers.
bool ReadHeaders(const nlohmann::json* list, const std::string& path, HeaderList* out,
                 bool* saw_pseudo, std::string* error) {
  if (!list) return true;
  if (list->size() > kMaxHarHeaders) {
    *error = path + ": " + std::to_string(list->size()) + " headers, more than the limit of " +
             std::to_string(kMaxHarHeaders);
    return false;
  }
  out->reserve(list->size());
  for (size_t i = 0; i < list->size(); ++i) {
    JsonFields header((*list)[i], path, i);
    std::string name, value;
    header.String("name", &name, /*required=*/true);
    header.String("value", &value);
    if (!header.ok()) {
      *error = header.error();
      return false;
    }
    if (!name.empty() && name[0] == ':') {
      *saw_pseudo = true;
      continue;
    }
    out->emplace_back(std::move(name), std::move(value));
  }
  return true;
}

const std::string* FindHeader(const HeaderList& headers, const char* lowercase_name) {
  for (const auto& [name, value] : headers) {
    if (ToLowerAscii(name) == lowercase_name) return &value;
  }
  return nullptr;
}

}  // namespace

std::string InitiatorObjectUrl(const nlohmann::json& initiator) {
  if (!initiator.is_object()) return "";
  auto url = initiator.find("url");
  if (url != initiator.end() && url->is_string() && !url->get_ref<const std::string&>().empty()) {
    return url->get<std::string>();
  }
  auto stack_it = initiator.find("stack");
  const nlohmann::json* stack = stack_it == initiator.end() ? nullptr : &*stack_it;
  for (int depth = 0; depth < 64 && stack && stack->is_object(); ++depth) {
    auto frames = stack->find("callFrames");
    if (frames != stack->end() && frames->is_array()) {
      for (const nlohmann::json& frame : *frames) {
        if (!frame.is_object()) continue;
        auto frame_url = frame.find("url");
        if (frame_url != frame.end() && frame_url->is_string() &&
            !frame_url->get_ref<const std::string&>().empty()) {
          return frame_url->get<std::string>();
        }
      }
    }
    auto parent = stack->find("parent");
    stack = parent == stack->end() ? nullptr : &*parent;
  }
  return "";
}

namespace {

// Chrome's `_initiator` (an object), Browsertime's and WebPageTest's (a URL string), or
// WebPageTest's `_initiator_detail` (an object, or JSON text of one).
std::string RecordedInitiator(const nlohmann::json& entry) {
  auto initiator = entry.find("_initiator");
  if (initiator != entry.end()) {
    if (initiator->is_string() && !initiator->get_ref<const std::string&>().empty()) {
      return initiator->get<std::string>();
    }
    std::string url = InitiatorObjectUrl(*initiator);
    if (!url.empty()) return url;
  }
  auto detail = entry.find("_initiator_detail");
  if (detail != entry.end()) {
    if (detail->is_object()) return InitiatorObjectUrl(*detail);
    if (detail->is_string()) {
      nlohmann::json parsed;
      JsonSyntaxError ignored;
      if (ParseJsonText(detail->get_ref<const std::string&>(), &parsed, &ignored)) {
        return InitiatorObjectUrl(parsed);
      }
    }
  }
  return "";
}

}  // namespace

std::string NormalizedRecordedUrl(const Url& base, const std::string& reference) {
  if (reference.empty()) return "";
  Url resolved;
  std::string ignored;
  // Escaped as the entries' own URLs are, so that a raw '|' compares equal to its "%7C".
  if (base.Resolve(EscapeRecordedUrl(reference), &resolved, &ignored) != 0) return "";
  return resolved.spec();
}

namespace {

// A phase in ms, -1 when absent or negative (HAR's "does not apply"); more than kMaxTraceMs is
// an error kept in `timings`.
double PhaseOrAbsent(JsonFields& timings, const char* key) {
  double value = -1;
  timings.Number(key, &value);
  if (value > kMaxTraceMs) {
    timings.Fail(
        key, FormatNumber(value) + " ms is more than the limit of " + FormatNumber(kMaxTraceMs));
    return -1;
  }
  return value < 0 ? -1 : value;
}

// The longest recorded failure text or connection id kept (longer ones are cut).
constexpr size_t kMaxRecordedTextBytes = 256;

// The failure a writer's "_error" member records (Chrome's HAR export puts it in the response:
// "net::ERR_ABORTED"): a non-empty string as written, a non-zero number as "error <n>", true as
// "error"; anything else (absent, "", 0, false, another type) says no failure. `code` is the
// net error it names (recorded_error.h).
std::string ErrorMember(const nlohmann::json& object, int* code) {
  auto error = object.find("_error");
  if (error == object.end()) return "";
  std::string text;
  if (error->is_string()) {
    text = error->get<std::string>().substr(0, kMaxRecordedTextBytes);
    *code = NetErrorFromText(text);
  } else if (error->is_number() && error->get<double>() != 0) {
    std::string number = FormatNumber(error->get<double>());
    text = "error " + number;
    *code = NetErrorFromText(number);
  } else if (error->is_boolean() && error->get<bool>()) {
    text = "error";
    *code = ERR_FAILED;
  }
  return text;
}

// The connection id an entry names: HAR's "connection" (a string, or a number as Chrome's
// socket ids sometimes are), else WebPageTest's "_socket" (a number; -1 when unknown). Empty
// when none; other types mean "not said".
std::string ConnectionId(const nlohmann::json& entry, bool* from_connection) {
  *from_connection = false;
  for (const char* key : {"connection", "_socket"}) {
    auto field = entry.find(key);
    if (field == entry.end()) continue;
    std::string id;
    if (field->is_string()) {
      id = field->get<std::string>().substr(0, kMaxRecordedTextBytes);
    } else if (field->is_number() && field->get<double>() >= 0) {
      id = FormatNumber(field->get<double>());
    }
    if (id.empty()) continue;
    *from_connection = std::string_view(key) == "connection";
    return id;
  }
  return "";
}

// "<path>: N bytes, more than the limit of 1 GiB per body" for a body over kMaxTraceBodyBytes.
std::string BodyTooLarge(const std::string& path, double bytes) {
  static_assert(kMaxTraceBodyBytes == int64_t{1} << 30, "the message says 1 GiB");
  return path + ": " + FormatNumber(bytes) + " bytes, more than the limit of 1 GiB per body";
}

}  // namespace

std::string ResourceTypeForMimeType(const std::string& mime_type) {
  std::string mime = ToLowerAscii(mime_type.substr(0, mime_type.find(';')));
  if (mime.find("html") != std::string::npos) return "document";
  if (mime.find("css") != std::string::npos) return "stylesheet";
  if (mime.find("javascript") != std::string::npos || mime.find("ecmascript") != std::string::npos)
    return "script";
  if (mime.starts_with("image/")) return "image";
  if (mime.starts_with("font/") || mime.find("font") != std::string::npos ||
      mime.find("woff") != std::string::npos)
    return "font";
  if (mime.starts_with("video/") || mime.starts_with("audio/")) return "media";
  if (mime.find("json") != std::string::npos || mime.find("xml") != std::string::npos) return "xhr";
  return "other";
}

HarEntryStatus ReadHarEntry(const nlohmann::json& entry, const std::string& path, TraceEntry* out,
                            HarEntryExtras* extras, std::string* error) {
  JsonFields fields(entry, path);
  std::string started;
  fields.String("startedDateTime", &started, /*required=*/true);
  fields.String("pageref", &extras->pageref);
  const nlohmann::json* request = fields.Object("request", /*required=*/true);
  const nlohmann::json* response = fields.Object("response", /*required=*/true);
  if (!fields.ok()) {
    *error = fields.error();
    return HarEntryStatus::kError;
  }
  if (!ParseIso8601(started, &extras->start_epoch_ms)) {
    *error = fields.PathOf("startedDateTime") + ": '" + started.substr(0, 64) +
             "' is not an ISO 8601 date";
    return HarEntryStatus::kError;
  }

  JsonFields req(*request, fields.PathOf("request"));
  req.String("url", &out->url, /*required=*/true);
  req.String("method", &out->method);
  double request_body = -1;
  req.Number("bodySize", &request_body);
  const nlohmann::json* request_headers = req.Array("headers");
  std::string request_version;
  req.String("httpVersion", &request_version);
  const nlohmann::json* post_data = req.Object("postData");
  if (!req.ok()) {
    *error = req.error();
    return HarEntryStatus::kError;
  }

  JsonFields resp(*response, fields.PathOf("response"));
  // Any integer: WebPageTest writes aborted requests as -1, -2...; absent or null reads as 0
  // (no response).
  int64_t status = 0;
  resp.Integer("status", INT_MIN, INT_MAX, &status);
  resp.String("statusText", &out->status_text);
  resp.String("httpVersion", &out->http_version);
  const nlohmann::json* response_headers = resp.Array("headers");
  std::string redirect_url;
  resp.String("redirectURL", &redirect_url);
  double body_size = -1, headers_size = -1, transfer_size = -1;
  resp.Number("bodySize", &body_size);
  resp.Number("headersSize", &headers_size);
  // Writers' extensions ("_" members) of another type than expected mean "not said".
  const nlohmann::json* transfer_field = resp.Get("_transferSize");
  bool has_transfer_size = transfer_field && transfer_field->is_number();
  if (has_transfer_size) transfer_size = transfer_field->get<double>();
  const nlohmann::json* content = resp.Object("content");
  if (!resp.ok()) {
    *error = resp.error();
    return HarEntryStatus::kError;
  }
  double content_size = -1, compression = 0;
  std::string mime_type;
  if (content) {
    JsonFields body(*content, resp.PathOf("content"));
    body.Number("size", &content_size);
    body.Number("compression", &compression);
    body.String("mimeType", &mime_type);
    if (!body.ok()) {
      *error = body.error();
      return HarEntryStatus::kError;
    }
  }

  // Timings: every phase optional; negative means "does not apply".
  double time = -1;
  bool has_time = fields.Number("time", &time);
  if (time > kMaxTraceMs) {
    fields.Fail("time",
                FormatNumber(time) + " ms is more than the limit of " + FormatNumber(kMaxTraceMs));
  }
  if (const nlohmann::json* timings = fields.Object("timings")) {
    JsonFields phases(*timings, fields.PathOf("timings"));
    RecordedTimings& t = out->timings;
    t.blocked = PhaseOrAbsent(phases, "blocked");
    t.dns = PhaseOrAbsent(phases, "dns");
    t.connect = PhaseOrAbsent(phases, "connect");
    t.ssl = PhaseOrAbsent(phases, "ssl");
    t.send = PhaseOrAbsent(phases, "send");
    t.wait = PhaseOrAbsent(phases, "wait");
    t.receive = PhaseOrAbsent(phases, "receive");
    if (!phases.ok()) {
      *error = phases.error();
      return HarEntryStatus::kError;
    }
  }
  std::string resource_type;
  const nlohmann::json* resource_type_field = fields.Get("_resourceType");
  if (resource_type_field && resource_type_field->is_string())
    resource_type = resource_type_field->get<std::string>();
  const nlohmann::json* from_cache_field = fields.Get("_fromCache");
  // Writers' extensions, read leniently (another type means "not said"): WebPageTest's
  // "_protocol" ("HTTP/2", "QUIC"), Chrome's "_was_pushed" (1 or true).
  const nlohmann::json* protocol_field = fields.Get("_protocol");
  const nlohmann::json* pushed_field = fields.Get("_was_pushed");
  if (!fields.ok()) {
    *error = fields.error();
    return HarEntryStatus::kError;
  }

  // Only http(s) requests are replayed; others are counted, by reason.
  out->url = EscapeRecordedUrl(out->url);
  std::string scheme = ToLowerAscii(out->url.substr(0, std::min(out->url.find(':'), size_t{16})));
  if (scheme != "http" && scheme != "https") {
    extras->skip_reason = HarSkipReason::kNotHttp;
    return HarEntryStatus::kSkipped;
  }
  Url url;
  std::string url_problem;
  if (Url::Parse(out->url, &url, &url_problem) != 0) {
    extras->skip_reason = HarSkipReason::kInvalidUrl;
    extras->skip_detail = req.PathOf("url") + ": " + url_problem;
    return HarEntryStatus::kSkipped;
  }
  // Keys are compared after Resolve's normalization, which redirect targets also get.
  extras->hints.url = NormalizedRecordedUrl(url, url.spec());
  bool from_connection = false;
  out->connection_id = ConnectionId(entry, &from_connection);
  extras->connection_named = from_connection;
  extras->connection_is_port = from_connection && out->connection_id == std::to_string(url.port());
  if (const nlohmann::json* reused = fields.Get("_connectionReused");
      reused && reused->is_boolean())
    extras->connection_reused = reused->get<bool>() ? 1 : 0;

  bool saw_pseudo = false;
  if (!ReadHeaders(request_headers, req.PathOf("headers"), &out->request_headers, &saw_pseudo,
                   error) ||
      !ReadHeaders(response_headers, resp.PathOf("headers"), &out->response_headers, &saw_pseudo,
                   error)) {
    return HarEntryStatus::kError;
  }
  if (out->method.empty()) out->method = "GET";
  if (out->http_version.empty() || out->http_version == "unknown") {
    out->http_version = saw_pseudo ? "h2" : request_version;
  }
  if (protocol_field && protocol_field->is_string())
    out->protocol = NormalizeRecordedProtocol(protocol_field->get_ref<const std::string&>());
  if (out->protocol == TraceProtocol::kUnknown)
    out->protocol = NormalizeRecordedProtocol(out->http_version);
  if (pushed_field) {
    out->pushed = pushed_field->is_boolean()
                      ? pushed_field->get<bool>()
                      : pushed_field->is_number() && pushed_field->get<double>() != 0;
  }

  // Served by the browser's own cache, as the writer says: Chrome's _fromCache ("memory" |
  // "disk"), or nothing transferred (_transferSize 0).
  bool said_from_cache = has_transfer_size && transfer_size == 0;
  if (from_cache_field) {
    said_from_cache = from_cache_field->is_boolean()
                          ? from_cache_field->get<bool>()
                          : from_cache_field->is_string() &&
                                !from_cache_field->get_ref<const std::string&>().empty();
  }
  // The writer timed it (a time or a phase >= 0), or said it could not (a negative time or
  // phase, and none >= 0). An entry without any time or phase says neither (a hand-written
  // HAR): it is read with a duration of 0.
  const RecordedTimings& t = out->timings;
  bool timed = time >= 0, said_untimed = has_time && time < 0;
  for (double phase : {t.blocked, t.dns, t.connect, t.ssl, t.send, t.wait, t.receive}) {
    timed = timed || phase >= 0;
  }
  if (const nlohmann::json* timings = fields.Get("timings"); timings && timings->is_object()) {
    for (const char* phase : {"blocked", "dns", "connect", "ssl", "send", "wait", "receive"}) {
      auto value = timings->find(phase);
      said_untimed |= value != timings->end() && value->is_number();
    }
  }
  // A recorded failure: a negative status (WebPageTest) or an "_error" (Chrome's response
  // member, or the entry's), whatever the status. Replayed as that failure at its recorded
  // time; the status is kept when the response had begun.
  int failure_code = ERR_FAILED;
  std::string failure = ErrorMember(*response, &failure_code);
  if (failure.empty()) failure = ErrorMember(entry, &failure_code);
  if (status < 0 || !failure.empty()) {
    out->recorded_error = failure.empty() ? "status " + std::to_string(status) : failure;
    out->recorded_error_code = failure_code;
    if (status < 0) status = 0;
  } else if (status == 0) {
    // Firefox records pushed streams without a status; a request that was blocked or aborted
    // without a failure recorded has no response at all and cannot be replayed.
    if (content_size > 0 || body_size > 0) {
      status = 200;
      out->pushed = true;
    } else {
      extras->skip_reason = HarSkipReason::kNoResponse;
      return HarEntryStatus::kSkipped;
    }
  } else if (!timed && said_untimed && !out->pushed && !said_from_cache) {
    // Answered, but the writer had neither a time nor a phase for it: the recording ended
    // before it finished (a HAR saved while the page was loading). Its end is unknown, so it
    // cannot be placed.
    extras->skip_reason = HarSkipReason::kUnfinished;
    return HarEntryStatus::kSkipped;
  }
  out->status = static_cast<int>(status);

  if (time < 0) {
    time = 0;
    for (double phase : {t.blocked, t.dns, t.connect, t.send, t.wait, t.receive}) {
      if (phase > 0) time += phase;
    }
  }
  out->recorded_total_ms = time;

  // Served by the browser's own cache: the writer says so, or (other writers) a body appeared
  // in no time. A recorded failure never was (nothing transferred because it failed).
  bool from_cache = said_from_cache;
  if (!from_cache_field && !has_transfer_size) {
    from_cache = time <= 0 && body_size <= 0 && content_size > 0;
  }
  if (!out->recorded_error.empty()) from_cache = false;
  out->recorded_from_cache = from_cache;

  // Body bytes on the wire. A cached entry's transfer size is 0: keep the resource's own size,
  // which a replay with a cold cache must fetch.
  double encoded_content = content_size >= 0 ? std::max(0.0, content_size - compression) : -1;
  double body = 0;
  if (from_cache) {
    body = std::max(0.0, encoded_content);
  } else if (body_size >= 0) {
    body = body_size;
  } else if (has_transfer_size && transfer_size >= 0) {
    double header_bytes = headers_size;
    if (header_bytes < 0) {
      // Estimate the header block as HTTP/1.1 would write it.
      header_bytes = 17 + out->status_text.size();
      for (const auto& [name, value] : out->response_headers) {
        header_bytes += name.size() + value.size() + 4;
      }
    }
    body = std::max(0.0, transfer_size - header_bytes);
    if (body == 0 && encoded_content > 0) body = std::min(encoded_content, transfer_size);
  } else {
    body = std::max(0.0, encoded_content);
  }
  if (body > static_cast<double>(kMaxTraceBodyBytes)) {
    *error = BodyTooLarge(resp.path(), body);
    return HarEntryStatus::kError;
  }
  out->response_body_bytes = static_cast<int64_t>(std::llround(body));

  if (request_body > static_cast<double>(kMaxTraceBodyBytes)) {
    *error = BodyTooLarge(req.PathOf("bodySize"), request_body);
    return HarEntryStatus::kError;
  }
  if (request_body >= 0) {
    out->request_body_bytes = static_cast<int64_t>(std::llround(request_body));
  } else if (post_data) {
    auto text = post_data->find("text");
    if (text != post_data->end() && text->is_string()) {
      out->request_body_bytes = static_cast<int64_t>(text->get_ref<const std::string&>().size());
    }
  }

  if (resource_type.empty()) {
    if (mime_type.empty()) {
      if (const std::string* content_type = FindHeader(out->response_headers, "content-type")) {
        mime_type = *content_type;
      }
    }
    resource_type = ResourceTypeForMimeType(mime_type);
  }
  out->resource_type = ToLowerAscii(resource_type);

  if (out->status >= 300 && out->status < 400) {
    if (redirect_url.empty()) {
      if (const std::string* location = FindHeader(out->response_headers, "location")) {
        redirect_url = *location;
      }
    }
    extras->hints.redirect_to = NormalizedRecordedUrl(url, redirect_url);
  }
  out->initiator_url = RecordedInitiator(entry);
  extras->hints.initiator = NormalizedRecordedUrl(url, out->initiator_url);
  return HarEntryStatus::kRead;
}

}  // namespace netstack
