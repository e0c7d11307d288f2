#include "tools/replay/replay_result.h"

#include "net/base/time.h"
#include "net/http/request_record_json.h"

namespace netstack {
namespace {

// Every JSON output rounds the same way (net/http/request_record_json.h).
double Ms(double ms) { return RoundMsForJson(ms); }

nlohmann::json MsOrNull(double ms) {
  return ms < 0 ? nlohmann::json(nullptr) : nlohmann::json(Ms(ms));
}

// {"no_response", "not_http", "invalid_url", "unfinished", "first_invalid_url" (null when
// none)}.
template <typename Count>
nlohmann::json SkippedReasons(Count skipped, Count not_http, Count invalid_url, Count unfinished,
                              const std::string& first_invalid_url) {
  return {{"no_response", skipped - not_http - invalid_url - unfinished},
          {"not_http", not_http},
          {"invalid_url", invalid_url},
          {"unfinished", unfinished},
          {"first_invalid_url", first_invalid_url.empty() ? nlohmann::json(nullptr)
                                                          : nlohmann::json(first_invalid_url)}};
}

}  // namespace

nlohmann::json PageResult::ToJson() const {
  nlohmann::json j;
  j["kind"] = "page";
  j["page"] = page_index;
  j["id"] = id;
  j["url"] = url;
  j["source"] = source;
  j["start_ms"] = Ms(start_ms);
  j["load_ms"] = Ms(load_ms);
  j["recorded_load_ms"] = MsOrNull(recorded_load_ms);
  j["onload_ms"] = MsOrNull(onload_ms);
  j["recorded_onload_ms"] = MsOrNull(recorded_onload_ms);
  j["content_load_ms"] = MsOrNull(content_load_ms);
  j["recorded_content_load_ms"] = MsOrNull(recorded_content_load_ms);
  j["page_load_ms"] = Ms(page_load_ms());
  j["page_load_metric"] = page_load_metric();
  j["requests"] = requests;
  j["failed"] = failed;
  j["recorded_failures"] = recorded_failures;
  j["skipped"] = skipped;
  j["skipped_reasons"] = SkippedReasons(skipped, skipped_not_http, skipped_invalid_url,
                                        skipped_unfinished, first_invalid_url);
  j["sockets"] = {{"opened", sockets_opened}, {"reused", sockets_reused}};
  j["warm_connections"] = warm_connections;
  j["cache"] = {
      {"hits", cache_hits}, {"revalidated", revalidated}, {"recorded_hits", recorded_hits}};
  j["timing"] = {{"dns_ms", Ms(dns_ms)},   {"connect_ms", Ms(connect_ms)},
                 {"tls_ms", Ms(tls_ms)},   {"queued_ms", Ms(queued_ms)},
                 {"ttfb_ms", Ms(ttfb_ms)}, {"receive_ms", Ms(receive_ms)}};
  j["bytes"] = bytes;
  j["connect_wait_ms"] = Ms(connect_wait_ms);
  j["preconnect"] = {{"ready", preconnected}, {"late", preconnect_late}};
  j["pushed"] = pushed;
  return j;
}

void AddPredictorStats(PredictorStats* a, const PredictorStats& b) {
  for (int i = 0; i < kNumSpeculativeActions; ++i) {
    SpeculationCounts& x = a->actions[i];
    const SpeculationCounts& y = b.actions[i];
    x.taken += y.taken;
    x.used += y.used;
    x.late += y.late;
    x.wasted += y.wasted;
    x.pending += y.pending;
  }
  a->hints += b.hints;
  a->hints_started += b.hints_started;
  a->hints_expired += b.hints_expired;
  a->hints_low_value += b.hints_low_value;
  a->hints_redundant += b.hints_redundant;
  a->hints_invalid += b.hints_invalid;
  a->hints_queue_full += b.hints_queue_full;
  a->connections_needed += b.connections_needed;
  a->connections_ready += b.connections_ready;
  a->connections_late += b.connections_late;
  a->connect_wait_ms += b.connect_wait_ms;
}

void ReplayTotals::Add(const ReplayTotals& o) {
  pages += o.pages;
  requests += o.requests;
  failed += o.failed;
  recorded_failures += o.recorded_failures;
  skipped += o.skipped;
  skipped_not_http += o.skipped_not_http;
  skipped_invalid_url += o.skipped_invalid_url;
  skipped_unfinished += o.skipped_unfinished;
  pages_with_onload += o.pages_with_onload;
  warm_connections += o.warm_connections;
  cold_runs += o.cold_runs;
  if (first_invalid_url.empty()) first_invalid_url = o.first_invalid_url;
  pushed += o.pushed;
  sockets_opened += o.sockets_opened;
  sockets_reused += o.sockets_reused;
  cache_hits += o.cache_hits;
  revalidated += o.revalidated;
  recorded_hits += o.recorded_hits;
  unmatched += o.unmatched;
  other_events += o.other_events;
  dns_lookups += o.dns_lookups;
  tls_handshakes += o.tls_handshakes;
  tls_resumed += o.tls_resumed;
  bytes += o.bytes;
  dns_ms += o.dns_ms;
  connect_ms += o.connect_ms;
  tls_ms += o.tls_ms;
  queued_ms += o.queued_ms;
  send_ms += o.send_ms;
  ttfb_ms += o.ttfb_ms;
  receive_ms += o.receive_ms;
  virtual_ms += o.virtual_ms;
  scheduler_tasks += o.scheduler_tasks;
  connect_wait_ms += o.connect_wait_ms;
  predictor_policy = o.predictor_policy;
  AddPredictorStats(&predictor, o.predictor);
  predictor_tables = o.predictor_tables;
}

nlohmann::json ReplayTotals::ToJson() const {
  nlohmann::json j;
  j["pages"] = pages;
  j["requests"] = requests;
  j["failed"] = failed;
  j["recorded_failures"] = recorded_failures;
  j["skipped"] = skipped;
  j["skipped_reasons"] = SkippedReasons(skipped, skipped_not_http, skipped_invalid_url,
                                        skipped_unfinished, first_invalid_url);
  j["pages_with_onload"] = pages_with_onload;
  j["warm_connections"] = warm_connections;
  j["cold_runs"] = cold_runs;
  j["unmatched"] = unmatched;
  j["pushed"] = pushed;
  j["other_events"] = other_events;
  j["sockets"] = {{"opened", sockets_opened}, {"reused", sockets_reused}};
  j["cache"] = {
      {"hits", cache_hits}, {"revalidated", revalidated}, {"recorded_hits", recorded_hits}};
  j["network"] = {{"dns_lookups", dns_lookups},
                  {"tls_handshakes", tls_handshakes},
                  {"tls_resumed", tls_resumed}};
  j["bytes"] = bytes;
  j["timing"] = {{"dns_ms", Ms(dns_ms)},        {"connect_ms", Ms(connect_ms)},
                 {"tls_ms", Ms(tls_ms)},        {"queued_ms", Ms(queued_ms)},
                 {"send_ms", Ms(send_ms)},      {"ttfb_ms", Ms(ttfb_ms)},
                 {"receive_ms", Ms(receive_ms)}};
  j["virtual_ms"] = Ms(virtual_ms);
  j["scheduler_tasks"] = scheduler_tasks;
  j["connect_wait_ms"] = Ms(connect_wait_ms);
  j["predictor"] = {
      {"policy", predictor_policy}, {"stats", predictor.ToJson()}, {"tables", predictor_tables}};
  return j;
}

}  // namespace netstack
