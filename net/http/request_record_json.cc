#include "net/http/request_record_json.h"

#include <cmath>

namespace netstack {
namespace {

nlohmann::json StringOrNull(const std::string& s) {
  return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
}

// A recorded time: -1 (unknown) is null.
nlohmann::json MsOrNull(double ms) {
  return ms < 0 ? nlohmann::json(nullptr) : nlohmann::json(RoundMsForJson(ms));
}

}  // namespace

double RoundMsForJson(double ms) { return std::round(ms * 1000.0) / 1000.0; }

nlohmann::json RequestRecordToJson(const RequestRecord& r) {
  const LoadTimingPhases& p = r.phases;
  const ConnectionInfo& c = r.connection;
  nlohmann::json j;
  j["url"] = r.url;
  j["final_url"] = r.final_url;
  j["method"] = r.method;
  j["status"] = r.status;
  j["status_text"] = r.status_text;
  if (r.headers) j["headers"] = *r.headers;
  j["bytes"] = r.body_bytes;
  j["body_bytes"] = r.body_bytes;
  j["transfer_bytes"] = r.transfer_bytes;
  j["error"] = r.error != OK ? nlohmann::json(r.error_message) : nlohmann::json(nullptr);
  j["error_code"] =
      r.error != OK ? nlohmann::json(ErrorToString(r.error)) : nlohmann::json(nullptr);
  j["timing"] = {
      {"queued_ms", RoundMsForJson(p.queued_ms)},   {"dns_ms", RoundMsForJson(p.dns_ms)},
      {"connect_ms", RoundMsForJson(p.connect_ms)}, {"tls_ms", RoundMsForJson(p.tls_ms)},
      {"send_ms", RoundMsForJson(p.send_ms)},       {"ttfb_ms", RoundMsForJson(p.ttfb_ms)},
      {"receive_ms", RoundMsForJson(p.receive_ms)}, {"total_ms", RoundMsForJson(r.total_ms())}};
  j["socket"] = {{"id", c.socket_id},
                 {"reused", c.reused()},
                 {"source", c.socket_source == SocketSource::kNone
                                ? nlohmann::json(nullptr)
                                : nlohmann::json(SocketSourceName(c.socket_source))},
                 {"address", StringOrNull(c.peer_address)},
                 {"tls_version", StringOrNull(c.tls_version)},
                 {"tls_resumed", c.tls_resumed}};
  j["dns"] = {{"from_cache", c.dns_from_cache}, {"stale", c.dns_stale}};
  j["redirects"] = r.redirects;
  j["cache"] = r.cache_name();
  if (r.speculative) j["speculative"] = *r.speculative;
  if (r.placement) {
    j["kind"] = "request";
    j["type"] = r.placement->type;
    j["priority"] = RequestPriorityToString(r.placement->priority);
    j["start_ms"] = RoundMsForJson(r.start_ms());
    j["end_ms"] = RoundMsForJson(r.end_ms());
  }
  if (r.entry) {
    j["page"] = r.entry->page;
    j["entry"] = r.entry->entry;
    j["host"] = r.entry->host;
  }
  if (r.model) {
    const RequestModel& m = *r.model;
    j["model"] = {
        {"request_ms", RoundMsForJson(m.request_ms)},
        {"server_ms", RoundMsForJson(m.server_ms)},
        {"response_ms", RoundMsForJson(m.response_ms)},
        {"recorded",
         {{"start_ms", MsOrNull(m.recorded_start_ms)}, {"end_ms", MsOrNull(m.recorded_end_ms)}}}};
  }
  return j;
}

}  // namespace netstack
