#include "tools/bench/fidelity_measure.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "tools/replay/replay_config.h"
#include "tools/replay/replay_engine.h"
#include "tools/replay/report/report_stats.h"
#include "tools/replay/trace/har_estimate.h"
#include "tools/replay/trace/har_reader.h"
#include "tools/replay/trace/host_protocol.h"
#include "tools/replay/trace/recording_reader.h"
#include "tools/replay/trace/session_reader.h"

namespace netstack {
namespace {

nlohmann::json Number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

void Append(std::vector<double>& a, const std::vector<double>& b) {
  a.insert(a.end(), b.begin(), b.end());
}

// What one replay produced, kept for comparison with the recording (bounded by the readers'
// 100,000 entries per file).
class Collector : public ReplayObserver {
 public:
  struct Request {
    uint64_t page = 0;
    int entry = 0;
    double start = 0, end = 0;  // replayed, ms after the page's start
    LoadTimingPhases phases;
    bool recorded_hit = false, failed = false;
  };
  void OnRequest(const RequestRecord& r) override {
    requests.push_back({r.entry->page, r.entry->entry, r.start_ms(), r.end_ms(), r.phases,
                        r.recorded_hit, r.status == 0 || r.error != OK});
  }
  void OnPage(const PageResult& p) override { pages.push_back(p); }

  std::vector<Request> requests;
  std::vector<PageResult> pages;
};

// A recorded phase in ms, 0 when the recording says it did not apply (-1).
double Phase(double v) { return v > 0 ? v : 0; }

// Splits one request's end-time error into causes; they add up to the whole error.
void AddCauses(const TraceEntry& e, const Collector::Request& r, ErrorCauses* causes) {
  const RecordedTimings& t = e.timings;
  double rec_tls = Phase(t.ssl);
  double rec_connect = std::max(0.0, Phase(t.connect) - rec_tls);  // HAR's connect holds TLS
  double rec_phases = Phase(t.blocked) + Phase(t.dns) + rec_connect + rec_tls + Phase(t.send) +
                      Phase(t.wait) + Phase(t.receive);
  const LoadTimingPhases& p = r.phases;
  double sim_phases =
      p.queued_ms + p.dns_ms + p.connect_ms + p.tls_ms + p.send_ms + p.ttfb_ms + p.receive_ms;
  causes->Add(ErrorCause::kStart, r.start - e.start_ms);
  causes->Add(ErrorCause::kQueued, p.queued_ms - Phase(t.blocked));
  causes->Add(ErrorCause::kDns, p.dns_ms - Phase(t.dns));
  causes->Add(ErrorCause::kConnect, p.connect_ms - rec_connect);
  causes->Add(ErrorCause::kTls, p.tls_ms - rec_tls);
  causes->Add(ErrorCause::kSend, p.send_ms - Phase(t.send));
  causes->Add(ErrorCause::kWait, p.ttfb_ms - Phase(t.wait));
  causes->Add(ErrorCause::kReceive, p.receive_ms - Phase(t.receive));
  // Time neither side's phases account for (a recording whose phases fall short of its "time",
  // a replay's gap between phases): the rest of the end-time error.
  double explained = (r.start - e.start_ms) + (sim_phases - rec_phases);
  double whole = r.end - e.RecordedEndMs();
  causes->Add(ErrorCause::kOther, whole - explained);
  ++causes->requests;
}

Fidelity Compare(const Collector& c, const std::vector<TracePage>& pages) {
  Fidelity f;
  for (const PageResult& p : c.pages) {
    if (p.recorded_load_ms > 0) {
      f.last_end_ape.push_back(AbsolutePercentageError(p.recorded_load_ms, p.load_ms));
      f.recorded_last_end.push_back(p.recorded_load_ms);
      f.replayed_last_end.push_back(p.load_ms);
    }
    bool onload = p.recorded_onload_ms > 0 && p.onload_ms >= 0;
    if (onload) {
      f.onload_ape.push_back(AbsolutePercentageError(p.recorded_onload_ms, p.onload_ms));
      f.recorded_onload.push_back(p.recorded_onload_ms);
      f.replayed_onload.push_back(p.onload_ms);
    }
    if (onload || p.recorded_load_ms > 0) {
      f.recorded_page_load.push_back(onload ? p.recorded_onload_ms : p.recorded_load_ms);
      f.replayed_page_load.push_back(onload ? p.onload_ms : p.load_ms);
    }
  }
  std::map<uint64_t, std::pair<std::vector<double>, std::vector<double>>> ends;  // by page
  for (const Collector::Request& r : c.requests) {
    if (r.recorded_hit) {
      ++f.excluded_cache;
      continue;
    }
    if (r.failed) {
      ++f.excluded_failed;
      continue;
    }
    if (r.page >= pages.size() || r.entry < 0 ||
        static_cast<size_t>(r.entry) >= pages[r.page].entries.size())
      continue;
    const TraceEntry& e = pages[r.page].entries[r.entry];
    double recorded_end = e.RecordedEndMs();
    if (recorded_end <= 0) continue;
    ++f.requests_compared;
    f.request_ape.push_back(AbsolutePercentageError(recorded_end, r.end));
    ends[r.page].first.push_back(recorded_end);
    ends[r.page].second.push_back(r.end);
    AddCauses(e, r, &f.causes);
  }
  for (const auto& [page, pair] : ends) {
    double rho = SpearmanCorrelation(pair.first, pair.second);
    if (std::isfinite(rho)) f.request_spearman.push_back(rho);
  }
  return f;
}

// Each run of a page the file holds several runs of (pages with the same URL), against the
// median of the other runs.
NoiseFloor MeasureNoise(const std::vector<TracePage>& pages) {
  std::map<std::string, std::vector<const TracePage*>> runs;  // ordered: deterministic
  for (const TracePage& p : pages) {
    if (!p.entries.empty()) runs[p.entries.front().url].push_back(&p);
  }
  NoiseFloor n;
  for (const auto& [url, group] : runs) {
    if (group.size() < 2) continue;
    for (size_t i = 0; i < group.size(); ++i) {
      std::vector<double> other_onload, other_end;
      for (size_t j = 0; j < group.size(); ++j) {
        if (j == i) continue;
        if (group[j]->recorded_onload_ms > 0) other_onload.push_back(group[j]->recorded_onload_ms);
        other_end.push_back(group[j]->RecordedLastEndMs());
      }
      if (group[i]->recorded_onload_ms > 0 && !other_onload.empty())
        n.onload_ape.push_back(
            AbsolutePercentageError(group[i]->recorded_onload_ms, MedianOf(other_onload)));
      n.last_end_ape.push_back(
          AbsolutePercentageError(group[i]->RecordedLastEndMs(), MedianOf(other_end)));
    }
  }
  return n;
}

bool Replay(const HarFile& recording, const std::string& name, const ReplayConfig& config,
            Fidelity* out, std::string* error) {
  ReplayEngine engine(config);
  Collector collector;
  engine.AddObserver(&collector);
  auto source = MakeHarSource(recording, name);
  if (!engine.Run(source.get(), error)) return false;
  *out = Compare(collector, recording.pages);
  return true;
}

// "devtools" for a DevTools protocol log, else "har" (what the readers' sniffing says).
std::string KindOf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string start(4096, '\0');
  in.read(start.data(), static_cast<std::streamsize>(start.size()));
  start.resize(static_cast<size_t>(in.gcount()));
  return SniffRecording(start) == RecordingKind::kDevtoolsLog ? "devtools" : "har";
}

}  // namespace

const char* ErrorCauseName(ErrorCause cause) {
  switch (cause) {
    case ErrorCause::kStart:
      return "start (placement: parents and gaps)";
    case ErrorCause::kQueued:
      return "queued (blocked)";
    case ErrorCause::kDns:
      return "dns";
    case ErrorCause::kConnect:
      return "connect (tcp)";
    case ErrorCause::kTls:
      return "tls";
    case ErrorCause::kSend:
      return "send";
    case ErrorCause::kWait:
      return "wait (server and transit)";
    case ErrorCause::kReceive:
      return "receive (bandwidth)";
    case ErrorCause::kOther:
      return "other (time outside the phases)";
    case ErrorCause::kCount:
      break;
  }
  return "?";
}

void ErrorCauses::Add(ErrorCause cause, double replayed_minus_recorded) {
  absolute_ms[static_cast<size_t>(cause)] += std::fabs(replayed_minus_recorded);
  signed_ms[static_cast<size_t>(cause)] += replayed_minus_recorded;
}

void ErrorCauses::Merge(const ErrorCauses& other) {
  for (size_t i = 0; i < absolute_ms.size(); ++i) {
    absolute_ms[i] += other.absolute_ms[i];
    signed_ms[i] += other.signed_ms[i];
  }
  requests += other.requests;
}

double ErrorCauses::TotalAbsoluteMs() const {
  double sum = 0;
  for (double v : absolute_ms) sum += v;
  return sum;
}

void Fidelity::Merge(const Fidelity& o) {
  Append(onload_ape, o.onload_ape);
  Append(last_end_ape, o.last_end_ape);
  Append(recorded_onload, o.recorded_onload);
  Append(replayed_onload, o.replayed_onload);
  Append(recorded_last_end, o.recorded_last_end);
  Append(replayed_last_end, o.replayed_last_end);
  Append(recorded_page_load, o.recorded_page_load);
  Append(replayed_page_load, o.replayed_page_load);
  Append(request_ape, o.request_ape);
  Append(request_spearman, o.request_spearman);
  requests_compared += o.requests_compared;
  excluded_cache += o.excluded_cache;
  excluded_failed += o.excluded_failed;
  causes.Merge(o.causes);
}

nlohmann::json Fidelity::ToJson() const {
  nlohmann::json causes_json = nlohmann::json::object();
  for (size_t i = 0; i < causes.absolute_ms.size(); ++i) {
    causes_json[ErrorCauseName(static_cast<ErrorCause>(i))] = {
        {"absolute_ms", causes.absolute_ms[i]}, {"signed_ms", causes.signed_ms[i]}};
  }
  return {
      {"pages_with_onload", onload_ape.size()},
      {"onload_mape_percent", Number(MeanOf(onload_ape))},
      {"onload_median_ape_percent", Number(MedianOf(onload_ape))},
      {"onload_spearman", Number(SpearmanCorrelation(recorded_onload, replayed_onload))},
      {"pages_with_last_end", last_end_ape.size()},
      {"last_end_mape_percent", Number(MeanOf(last_end_ape))},
      {"last_end_median_ape_percent", Number(MedianOf(last_end_ape))},
      {"last_end_spearman", Number(SpearmanCorrelation(recorded_last_end, replayed_last_end))},
      {"page_load_spearman", Number(SpearmanCorrelation(recorded_page_load, replayed_page_load))},
      {"requests_compared", requests_compared},
      {"requests_excluded_recorded_from_cache", excluded_cache},
      {"requests_excluded_failed", excluded_failed},
      {"request_end_mape_percent", Number(MeanOf(request_ape))},
      {"request_end_median_ape_percent", Number(MedianOf(request_ape))},
      {"request_end_spearman_mean_over_pages", Number(MeanOf(request_spearman))},
      {"pages_with_request_spearman", request_spearman.size()},
      {"error_causes", causes_json}};
}

void NoiseFloor::Merge(const NoiseFloor& o) {
  Append(onload_ape, o.onload_ape);
  Append(last_end_ape, o.last_end_ape);
}

nlohmann::json NoiseFloor::ToJson() const {
  return {{"runs", last_end_ape.size()},
          {"onload_mape_percent", Number(MeanOf(onload_ape))},
          {"last_end_mape_percent", Number(MeanOf(last_end_ape))}};
}

nlohmann::json FileOutcome::ToJson() const {
  nlohmann::json j = {
      {"file", file},       {"kind", kind},       {"creator", creator},           {"pages", pages},
      {"entries", entries}, {"skipped", skipped}, {"noise_floor", noise.ToJson()}};
  if (!error.empty()) {
    j["error"] = error;
    return j;
  }
  j["dependency"] = dependency.ToJson();
  j["offset"] = offset.ToJson();
  return j;
}

FileOutcome Measure(const std::string& path, const std::vector<std::string>& sets) {
  FileOutcome o;
  o.path = path;
  o.file = std::filesystem::path(path).filename().string();
  o.kind = KindOf(path);
  HarFile recording;
  if (!ReadRecordingFile(path, &recording, &o.error)) return o;
  o.creator = recording.creator;
  o.pages = recording.pages.size();
  for (const TracePage& p : recording.pages) {
    o.entries += p.entries.size();
    o.skipped += p.skipped_entries;
  }
  o.noise = MeasureNoise(recording.pages);
  ReplayConfig config;
  config.network = EstimateNetwork(&recording.pages, config.network).params;
  // The recording already says which entries the browser's cache served (recorded hits, timed
  // as recorded); every other entry went to the network. The replay's own HTTP cache would
  // serve a later run's repeats that the recording fetched, so it is off here; --set cache=on
  // puts it back.
  config.cache = false;
  for (const std::string& set : sets) {
    if (!config.Set(set, &o.error)) return o;
  }
  // Each host speaks what the recording says (h2 where its entries went over h2), as replay does.
  ApplyHostProtocols(RecordedHostProtocols(recording.pages), &config.network);
  config.placement = Placement::kDependency;
  if (!Replay(recording, path, config, &o.dependency, &o.error)) return o;
  config.placement = Placement::kOffset;
  Replay(recording, path, config, &o.offset, &o.error);
  return o;
}

}  // namespace netstack
