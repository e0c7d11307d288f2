#include "net/http/har_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <utility>

#include "net/http/request_record_json.h"

namespace netstack {
namespace {

using Json = nlohmann::ordered_json;

// Dates are clamped to years 1970..9999 (what ISO 8601's four-digit year holds).
constexpr double kMaxEpochMs = 253'402'300'799'999.0;  // 9999-12-31T23:59:59.999Z

std::string Dump(const Json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A time in ms as every JSON output rounds it; "not applicable" is the integer -1 (HAR 1.2).
Json Ms(double ms) { return ms < 0 ? Json(-1) : Json(RoundMsForJson(ms)); }

// Chrome's DevTools names of net priorities (HIGHEST is "VeryHigh", MEDIUM "High", ...).
const char* ChromePriorityName(RequestPriority priority) {
  switch (priority) {
    case HIGHEST:
      return "VeryHigh";
    case MEDIUM:
      return "High";
    case LOW:
      return "Medium";
    case LOWEST:
      return "Low";
    case IDLE:
    case THROTTLED:
      return "VeryLow";
  }
  return "Medium";
}

// A header's value(s) from a record's headers object (HttpResponseHeaders::ToJson: lower-case
// names, a string or an array of strings per name), as HAR's [{name, value}] list.
Json HeaderList(const std::optional<nlohmann::json>& headers) {
  Json list = Json::array();
  if (!headers || !headers->is_object()) return list;
  for (const auto& [name, value] : headers->items()) {
    if (value.is_string()) {
      list.push_back({{"name", name}, {"value", value.get<std::string>()}});
    } else if (value.is_array()) {
      for (const nlohmann::json& v : value) {
        if (v.is_string()) list.push_back({{"name", name}, {"value", v.get<std::string>()}});
      }
    }
  }
  return list;
}

// The first value of header `name` (lower case), or "".
std::string FirstHeader(const std::optional<nlohmann::json>& headers, const char* name) {
  if (!headers || !headers->is_object()) return "";
  auto it = headers->find(name);
  if (it == headers->end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_array() && !it->empty() && it->front().is_string())
    return it->front().get<std::string>();
  return "";
}

// The URL's query as HAR's [{name, value}] (as written: not percent-decoded).
Json QueryString(const std::string& url) {
  Json list = Json::array();
  size_t q = url.find('?');
  if (q == std::string::npos) return list;
  size_t end = url.find('#', q);
  std::string_view query(url.data() + q + 1, (end == std::string::npos ? url.size() : end) - q - 1);
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view item = query.substr(0, amp);
    if (!item.empty()) {
      size_t eq = item.find('=');
      std::string name(item.substr(0, eq));
      std::string value(eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1));
      list.push_back({{"name", std::move(name)}, {"value", std::move(value)}});
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return list;
}

// "192.0.2.1" of "192.0.2.1:443", "::1" of "[::1]:443"; the text as it is otherwise.
std::string IpOfPeer(const std::string& peer) {
  if (!peer.empty() && peer[0] == '[') {
    size_t close = peer.find(']');
    return close == std::string::npos ? peer : peer.substr(1, close - 1);
  }
  size_t colon = peer.rfind(':');
  if (colon != std::string::npos && peer.find(':') == colon) return peer.substr(0, colon);
  return peer;
}

// HAR's timings of `r`: blocked (queued, plus time before the last hop: redirects), dns and
// connect (TCP + TLS) and ssl for a request that waited for a new connection (-1 otherwise: a
// reused or ready socket, or none), send, wait, receive.
Json Timings(const RequestRecord& r, double* time) {
  const LoadTimingPhases& p = r.phases;
  SocketSource source = r.connection.socket_source;
  bool connected = source == SocketSource::kNew || source == SocketSource::kPreconnectedLate;
  double dns = connected ? p.dns_ms : -1;
  double connect = connected ? p.connect_ms + p.tls_ms : -1;
  double ssl = connected && !r.connection.tls_version.empty() ? p.tls_ms : -1;
  double counted =
      std::max(0.0, dns) + std::max(0.0, connect) + p.send_ms + p.ttfb_ms + p.receive_ms;
  double blocked = p.queued_ms + std::max(0.0, r.total_ms() - counted - p.queued_ms);
  Json t = {{"blocked", Ms(blocked)},     {"dns", Ms(dns)},
            {"connect", Ms(connect)},     {"ssl", Ms(ssl)},
            {"send", Ms(p.send_ms)},      {"wait", Ms(p.ttfb_ms)},
            {"receive", Ms(p.receive_ms)}};
  // HAR: time is the sum of the timings that apply (ssl is inside connect).
  *time = 0;
  for (double v : {blocked, dns, connect, p.send_ms, p.ttfb_ms, p.receive_ms}) {
    if (v > 0) *time += RoundMsForJson(v);
  }
  *time = RoundMsForJson(*time);
  return t;
}

}  // namespace

std::string FormatHarDate(double epoch_ms) {
  if (!(epoch_ms >= 0)) epoch_ms = 0;
  if (epoch_ms > kMaxEpochMs) epoch_ms = kMaxEpochMs;
  int64_t ms = static_cast<int64_t>(std::llround(epoch_ms));
  std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[96];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

HarWriter::HarWriter(std::string creator_version, Sink sink, size_t max_pages)
    : sink_(std::move(sink)), max_pages_(std::min(max_pages, kMaxPages)) {
  Json creator = {{"name", "netstack"}, {"version", std::move(creator_version)}};
  sink_("{\"log\":{\"version\":\"1.2\",\"creator\":" + Dump(creator) + ",\"entries\":[");
}

void HarWriter::AddEntry(const RequestRecord& r, const HarEntryContext& context) {
  if (finished_) return;
  const std::string& protocol = r.connection.protocol;
  std::string location =
      r.status >= 300 && r.status < 400 ? FirstHeader(r.headers, "location") : std::string();
  std::string mime = FirstHeader(r.headers, "content-type");
  double time = 0;
  Json timings = Timings(r, &time);

  Json entry;
  if (!context.pageref.empty()) entry["pageref"] = context.pageref;
  entry["startedDateTime"] = FormatHarDate(context.started_epoch_ms);
  entry["time"] = time;
  entry["request"] = {{"method", r.method},       {"url", r.url},
                      {"httpVersion", protocol},  {"cookies", Json::array()},
                      {"headers", Json::array()}, {"queryString", QueryString(r.url)},
                      {"headersSize", -1},        {"bodySize", 0}};
  entry["response"] = {{"status", r.status},
                       {"statusText", r.status_text},
                       {"httpVersion", protocol},
                       {"cookies", Json::array()},
                       {"headers", HeaderList(r.headers)},
                       {"content", {{"size", r.body_bytes}, {"mimeType", mime}}},
                       {"redirectURL", location},
                       {"headersSize", -1},
                       {"bodySize", r.transfer_bytes}};
  entry["cache"] = Json::object();
  entry["timings"] = std::move(timings);
  if (!r.connection.peer_address.empty())
    entry["serverIPAddress"] = IpOfPeer(r.connection.peer_address);
  if (r.connection.socket_id != 0) entry["connection"] = std::to_string(r.connection.socket_id);
  // Extensions (Chrome's and WebPageTest's names).
  bool from_cache =
      r.recorded_hit || r.cache == CacheDisposition::kHit || r.cache == CacheDisposition::kStale;
  if (from_cache) entry["_fromCache"] = "disk";
  entry["_cache_disposition"] = r.cache_name();
  Json initiator = {{"type", context.initiator_type}};
  if (!context.initiator_url.empty()) initiator["url"] = context.initiator_url;
  entry["_initiator"] = std::move(initiator);
  if (r.placement) {
    entry["_priority"] = ChromePriorityName(r.placement->priority);
    entry["_resourceType"] = r.placement->type;
  }
  if (!protocol.empty()) entry["_protocol"] = protocol;
  // Chrome's spelling of a failure: "net::ERR_CONNECTION_REFUSED".
  if (r.error != OK) entry["_error"] = "net::" + ErrorToString(r.error);
  if (!r.redirects.empty()) entry["_redirects"] = r.redirects;

  buffer_.clear();
  if (entries_ > 0) buffer_ += ',';
  buffer_ += Dump(entry);
  ++entries_;
  sink_(buffer_);
}

bool HarWriter::AddPage(HarPage page) {
  if (finished_ || pages_.size() >= max_pages_) return false;
  pages_.push_back(std::move(page));
  return true;
}

void HarWriter::Finish() {
  if (finished_) return;
  finished_ = true;
  Json pages = Json::array();
  for (const HarPage& page : pages_) {
    pages.push_back(
        {{"startedDateTime", FormatHarDate(page.started_epoch_ms)},
         {"id", page.id},
         {"title", page.title},
         {"pageTimings",
          {{"onContentLoad", Ms(page.on_content_load_ms)}, {"onLoad", Ms(page.on_load_ms)}}}});
  }
  sink_("],\"pages\":" + Dump(pages) + "}}\n");
}

}  // namespace netstack
