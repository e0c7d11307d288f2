#include "tools/replay/replay_result.h"

#include "net/base/json_member_reader.h"
#include "net/base/time.h"
#include "net/http/request_record_json.h"

namespace netstack {
namespace {

// Every JSON output rounds the same way (net/http/request_record_json.h); exact lines keep the
// double as it is.
double Ms(double ms, JsonNumbers numbers) {
  return numbers == JsonNumbers::kExact ? ms : RoundMsForJson(ms);
}

// Negative: unknown, null. Exact: only -1 is null, so every other value reads back.
nlohmann::json MsOrNull(double ms, JsonNumbers numbers) {
  bool unknown = numbers == JsonNumbers::kExact ? ms == -1 : ms < 0;
  return unknown ? nlohmann::json(nullptr) : nlohmann::json(Ms(ms, numbers));
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

// The skipped counts back from SkippedReasons' object at `path`.
template <typename Count>
void ReadSkipped(JsonMemberReader* in, Count* skipped, Count* not_http, Count* invalid_url,
                 Count* unfinished, std::string* first_invalid_url) {
  auto read = [in](std::string_view path, Count* out) {
    if constexpr (sizeof(Count) == sizeof(int)) {
      in->Int(path, out);
    } else {
      in->Uint64(path, out);
    }
  };
  read("skipped", skipped);
  read("skipped_reasons.not_http", not_http);
  read("skipped_reasons.invalid_url", invalid_url);
  read("skipped_reasons.unfinished", unfinished);
  in->StringOrNull("skipped_reasons.first_invalid_url", first_invalid_url);
}

bool Finish(const JsonMemberReader& in, std::string* error) {
  if (in.ok()) return true;
  *error = in.error();
  return false;
}

}  // namespace

nlohmann::json PageResult::ToJson(JsonNumbers numbers) const {
  auto Ms = [numbers](double ms) { return netstack::Ms(ms, numbers); };
  auto MsOrNull = [numbers](double ms) { return netstack::MsOrNull(ms, numbers); };
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
  j["preconnect"] = {{"ready", preconnected},
                     {"late", preconnect_late},
                     {"needed", connections_needed},
                     {"ready_background", preconnected_background},
                     {"late_background", preconnect_late_background},
                     {"needed_background", connections_needed_background}};
  j["pushed"] = pushed;
  j["oracle"] = {{"setup_ms", Ms(oracle_setup_ms)},
                 {"critical_requests", oracle_critical_requests}};
  // What `replay --har` dates the page from; read back from shard files only.
  if (numbers == JsonNumbers::kExact) j["started_epoch_ms"] = started_epoch_ms;
  return j;
}

void AddPredictorStats(PredictorStats* a, const PredictorStats& b) { a->Add(b); }

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

nlohmann::json ReplayTotals::ToJson(JsonNumbers numbers) const {
  auto Ms = [numbers](double ms) { return netstack::Ms(ms, numbers); };
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
  if (numbers == JsonNumbers::kExact)
    j["predictor"]["stats"]["connections"]["connect_wait_ms"] = predictor.connect_wait_ms;
  return j;
}

bool PageResultFromJson(const nlohmann::json& j, PageResult* page, std::string* error) {
  JsonMemberReader in(j);
  PageResult& p = *page;
  p = PageResult();
  in.Uint64("page", &p.page_index);
  in.String("id", &p.id);
  in.String("url", &p.url);
  in.String("source", &p.source);
  in.Double("start_ms", &p.start_ms);
  in.Double("load_ms", &p.load_ms);
  in.DoubleOrNull("recorded_load_ms", -1, &p.recorded_load_ms);
  in.DoubleOrNull("onload_ms", -1, &p.onload_ms);
  in.DoubleOrNull("recorded_onload_ms", -1, &p.recorded_onload_ms);
  in.DoubleOrNull("content_load_ms", -1, &p.content_load_ms);
  in.DoubleOrNull("recorded_content_load_ms", -1, &p.recorded_content_load_ms);
  if (in.Member("started_epoch_ms", true)) in.Double("started_epoch_ms", &p.started_epoch_ms);
  in.Int("requests", &p.requests);
  in.Int("failed", &p.failed);
  in.Int("recorded_failures", &p.recorded_failures);
  ReadSkipped(&in, &p.skipped, &p.skipped_not_http, &p.skipped_invalid_url, &p.skipped_unfinished,
              &p.first_invalid_url);
  in.Int("sockets.opened", &p.sockets_opened);
  in.Int("sockets.reused", &p.sockets_reused);
  in.Int("warm_connections", &p.warm_connections);
  in.Int("cache.hits", &p.cache_hits);
  in.Int("cache.revalidated", &p.revalidated);
  in.Int("cache.recorded_hits", &p.recorded_hits);
  in.Double("timing.dns_ms", &p.dns_ms);
  in.Double("timing.connect_ms", &p.connect_ms);
  in.Double("timing.tls_ms", &p.tls_ms);
  in.Double("timing.queued_ms", &p.queued_ms);
  in.Double("timing.ttfb_ms", &p.ttfb_ms);
  in.Double("timing.receive_ms", &p.receive_ms);
  in.Int64("bytes", &p.bytes);
  in.Double("connect_wait_ms", &p.connect_wait_ms);
  in.Int("preconnect.ready", &p.preconnected);
  in.Int("preconnect.late", &p.preconnect_late);
  in.Int("preconnect.needed", &p.connections_needed);
  in.Int("preconnect.ready_background", &p.preconnected_background);
  in.Int("preconnect.late_background", &p.preconnect_late_background);
  in.Int("preconnect.needed_background", &p.connections_needed_background);
  in.Int("pushed", &p.pushed);
  in.Double("oracle.setup_ms", &p.oracle_setup_ms);
  in.Int("oracle.critical_requests", &p.oracle_critical_requests);
  return Finish(in, error);
}

bool ReplayTotalsFromJson(const nlohmann::json& j, ReplayTotals* totals, std::string* error) {
  JsonMemberReader in(j);
  ReplayTotals& t = *totals;
  t = ReplayTotals();
  in.Uint64("pages", &t.pages);
  in.Uint64("requests", &t.requests);
  in.Uint64("failed", &t.failed);
  in.Uint64("recorded_failures", &t.recorded_failures);
  ReadSkipped(&in, &t.skipped, &t.skipped_not_http, &t.skipped_invalid_url, &t.skipped_unfinished,
              &t.first_invalid_url);
  in.Uint64("pages_with_onload", &t.pages_with_onload);
  in.Uint64("warm_connections", &t.warm_connections);
  in.Uint64("cold_runs", &t.cold_runs);
  in.Uint64("unmatched", &t.unmatched);
  in.Uint64("pushed", &t.pushed);
  in.Uint64("other_events", &t.other_events);
  in.Uint64("sockets.opened", &t.sockets_opened);
  in.Uint64("sockets.reused", &t.sockets_reused);
  in.Uint64("cache.hits", &t.cache_hits);
  in.Uint64("cache.revalidated", &t.revalidated);
  in.Uint64("cache.recorded_hits", &t.recorded_hits);
  in.Uint64("network.dns_lookups", &t.dns_lookups);
  in.Uint64("network.tls_handshakes", &t.tls_handshakes);
  in.Uint64("network.tls_resumed", &t.tls_resumed);
  in.Int64("bytes", &t.bytes);
  in.Double("timing.dns_ms", &t.dns_ms);
  in.Double("timing.connect_ms", &t.connect_ms);
  in.Double("timing.tls_ms", &t.tls_ms);
  in.Double("timing.queued_ms", &t.queued_ms);
  in.Double("timing.send_ms", &t.send_ms);
  in.Double("timing.ttfb_ms", &t.ttfb_ms);
  in.Double("timing.receive_ms", &t.receive_ms);
  in.Double("virtual_ms", &t.virtual_ms);
  in.Uint64("scheduler_tasks", &t.scheduler_tasks);
  in.Double("connect_wait_ms", &t.connect_wait_ms);
  in.String("predictor.policy", &t.predictor_policy);
  if (const nlohmann::json* tables = in.Member("predictor.tables")) t.predictor_tables = *tables;
  PredictorStats& s = t.predictor;
  in.Uint64("predictor.stats.hints.produced", &s.hints);
  in.Uint64("predictor.stats.hints.started", &s.hints_started);
  in.Uint64("predictor.stats.hints.expired", &s.hints_expired);
  in.Uint64("predictor.stats.hints.low_value", &s.hints_low_value);
  in.Uint64("predictor.stats.hints.redundant", &s.hints_redundant);
  in.Uint64("predictor.stats.hints.invalid", &s.hints_invalid);
  in.Uint64("predictor.stats.hints.queue_full", &s.hints_queue_full);
  const char* kActions[kNumSpeculativeActions] = {"preresolve", "preconnect", "fetch_ahead"};
  for (int i = 0; i < kNumSpeculativeActions; ++i) {
    const std::string at = std::string("predictor.stats.") + kActions[i] + ".";
    in.Uint64(at + "taken", &s.actions[i].taken);
    in.Uint64(at + "used", &s.actions[i].used);
    in.Uint64(at + "late", &s.actions[i].late);
    in.Uint64(at + "used_background", &s.actions[i].used_background);
    in.Uint64(at + "late_background", &s.actions[i].late_background);
    in.Uint64(at + "wasted", &s.actions[i].wasted);
    in.Uint64(at + "pending", &s.actions[i].pending);
  }
  in.Uint64("predictor.stats.connections.needed", &s.connections_needed);
  in.Uint64("predictor.stats.connections.ready", &s.connections_ready);
  in.Uint64("predictor.stats.connections.late", &s.connections_late);
  in.Uint64("predictor.stats.fetch_ahead.warmed", &s.of(SpeculativeAction::kFetchAhead).warmed);
  in.Uint64("predictor.stats.connections.needed_background", &s.connections_needed_background);
  in.Uint64("predictor.stats.connections.ready_background", &s.connections_ready_background);
  in.Uint64("predictor.stats.connections.late_background", &s.connections_late_background);
  in.Double("predictor.stats.connections.connect_wait_ms", &s.connect_wait_ms);
  return Finish(in, error);
}

}  // namespace netstack
