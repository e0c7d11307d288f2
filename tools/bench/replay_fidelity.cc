// replay_fidelity: how close `netstack replay` comes to what real browsers recorded. For each
// HAR file in a folder (default ../shared/traces/har beside the repository) it reads the HAR,
// estimates the network from the HAR's own timings (har_estimate.h), turns the replay's HTTP
// cache off (the recording says which entries the browser's cache served), replays it twice
// (dependency placement, then recorded-offset placement) and compares with the recording:
//
//   - per page: load time (recorded end of the last entry vs simulated) absolute percentage
//     error (APE);
//   - per request: end time (ms after the page's start) APE; entries the browser served from
//     its own cache when recording are excluded (they used no network, so their recorded
//     times say nothing about the network model), and so are failed replays;
//   - aggregates: mean APE (MAPE) and median APE of both, Spearman's rank correlation of
//     request end times within each page (averaged over pages) and of page load times across
//     all pages.
//
// Prints a table per HAR and an overall line, with Lighthouse Lantern's published accuracy
// beside ours; --json FILE writes the same figures. A measurement, not a test: it never fails
// on a figure (exit 1 only when a HAR could not be read or replayed, 2 on bad usage).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/replay/replay_config.h"
#include "tools/replay/replay_engine.h"
#include "tools/replay/report/report_stats.h"
#include "tools/replay/report/report_text.h"
#include "tools/replay/trace/har_estimate.h"
#include "tools/replay/trace/har_reader.h"
#include "tools/replay/trace/host_protocol.h"
#include "tools/replay/trace/session_reader.h"

namespace netstack {
namespace {

// Lighthouse's Lantern ("Lantern: project accuracy", the Lighthouse docs): Spearman 0.81 to
// 0.87 and MAPE 23 to 45 % across its metrics, against real page loads.
constexpr double kLanternSpearmanLow = 0.81, kLanternSpearmanHigh = 0.87;
constexpr double kLanternMapeLow = 23, kLanternMapeHigh = 45;

// What one replay produced, kept for comparison with the recording (a HAR's worth: bounded
// by the reader's 100,000 entries).
class Collector : public ReplayObserver {
 public:
  struct Request {
    uint64_t page;
    double simulated_end, recorded_end;
    bool recorded_from_cache, failed;
  };
  void OnRequest(const RequestRecord& r) override {
    requests.push_back({r.entry->page, r.end_ms(), r.model->recorded_end_ms, r.recorded_hit,
                        r.status == 0 || r.error != OK});
  }
  void OnPage(const PageResult& p) override { pages.push_back(p); }

  std::vector<Request> requests;
  std::vector<PageResult> pages;
};

// One placement's comparison for one HAR (or, merged, for all of them).
struct Fidelity {
  std::vector<double> load_ape, request_ape, request_spearman;  // request_spearman: per page
  std::vector<double> recorded_load, simulated_load;
  uint64_t requests_compared = 0, excluded_cache = 0, excluded_failed = 0;

  void Merge(const Fidelity& o) {
    auto append = [](std::vector<double>& a, const std::vector<double>& b) {
      a.insert(a.end(), b.begin(), b.end());
    };
    append(load_ape, o.load_ape);
    append(request_ape, o.request_ape);
    append(request_spearman, o.request_spearman);
    append(recorded_load, o.recorded_load);
    append(simulated_load, o.simulated_load);
    requests_compared += o.requests_compared;
    excluded_cache += o.excluded_cache;
    excluded_failed += o.excluded_failed;
  }

  nlohmann::json ToJson() const {
    auto number = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
    return {{"pages_compared", load_ape.size()},
            {"page_load_mape_percent", number(MeanOf(load_ape))},
            {"page_load_median_ape_percent", number(MedianOf(load_ape))},
            {"page_load_spearman", number(SpearmanCorrelation(recorded_load, simulated_load))},
            {"requests_compared", requests_compared},
            {"requests_excluded_recorded_from_cache", excluded_cache},
            {"requests_excluded_failed", excluded_failed},
            {"request_end_mape_percent", number(MeanOf(request_ape))},
            {"request_end_median_ape_percent", number(MedianOf(request_ape))},
            {"request_end_spearman_mean_over_pages", number(MeanOf(request_spearman))},
            {"pages_with_request_spearman", request_spearman.size()}};
  }
};

Fidelity Compare(const Collector& c) {
  Fidelity f;
  for (const PageResult& p : c.pages) {
    if (p.recorded_load_ms <= 0) continue;
    f.load_ape.push_back(AbsolutePercentageError(p.recorded_load_ms, p.load_ms));
    f.recorded_load.push_back(p.recorded_load_ms);
    f.simulated_load.push_back(p.load_ms);
  }
  std::map<uint64_t, std::pair<std::vector<double>, std::vector<double>>> ends;  // by page
  for (const Collector::Request& r : c.requests) {
    if (r.recorded_from_cache) {
      ++f.excluded_cache;
      continue;
    }
    if (r.failed) {
      ++f.excluded_failed;
      continue;
    }
    if (r.recorded_end < 0) continue;
    ++f.requests_compared;
    f.request_ape.push_back(AbsolutePercentageError(r.recorded_end, r.simulated_end));
    ends[r.page].first.push_back(r.recorded_end);
    ends[r.page].second.push_back(r.simulated_end);
  }
  for (const auto& [page, pair] : ends) {
    double rho = SpearmanCorrelation(pair.first, pair.second);
    if (std::isfinite(rho)) f.request_spearman.push_back(rho);
  }
  return f;
}

struct HarOutcome {
  std::string file, creator, error;
  size_t pages = 0, entries = 0;
  Fidelity dependency, offset;
};

// Replays `har` (a copy: the source consumes it) under `config`.
bool Replay(const HarFile& har, const std::string& name, const ReplayConfig& config, Fidelity* out,
            std::string* error) {
  ReplayEngine engine(config);
  Collector collector;
  engine.AddObserver(&collector);
  auto source = MakeHarSource(har, name);
  if (!engine.Run(source.get(), error)) return false;
  *out = Compare(collector);
  return true;
}

HarOutcome Measure(const std::string& path, const std::vector<std::string>& sets) {
  HarOutcome o;
  o.file = std::filesystem::path(path).filename().string();
  HarFile har;
  if (!ReadHarFile(path, &har, &o.error)) return o;
  o.creator = har.creator;
  o.pages = har.pages.size();
  for (const TracePage& p : har.pages) o.entries += p.entries.size();
  ReplayConfig config;
  config.network = EstimateNetwork(&har.pages, config.network).params;
  // The recording already says which entries the browser's cache served (recorded hits, timed
  // as recorded); every other entry went to the network. The replay's own HTTP cache would
  // serve a later page's repeats that the recording fetched (browsertime's iterations each
  // start with an empty cache), so it is off here; --set cache=on puts it back.
  config.cache = false;
  for (const std::string& set : sets) {
    if (!config.Set(set, &o.error)) return o;
  }
  // Each host speaks what the recording says (h2 where its entries went over h2), as replay does.
  ApplyHostProtocols(RecordedHostProtocols(har.pages), &config.network);
  config.placement = Placement::kDependency;
  if (!Replay(har, path, config, &o.dependency, &o.error)) return o;
  config.placement = Placement::kOffset;
  Replay(har, path, config, &o.offset, &o.error);
  return o;
}

std::string Pct(double v) { return std::isfinite(v) ? FormatFixed(v, 1) + " %" : "n/a"; }
std::string Rho(double v) { return std::isfinite(v) ? FormatFixed(v, 2) : "n/a"; }

void PrintRow(const std::string& name, const std::string& pages, const std::string& requests,
              const Fidelity& d, const Fidelity& o) {
  std::printf("%-40s %5s %6s | %9s %9s | %9s %9s | %9s %9s | %6s %6s\n", name.c_str(),
              pages.c_str(), requests.c_str(), Pct(MeanOf(d.load_ape)).c_str(),
              Pct(MeanOf(o.load_ape)).c_str(), Pct(MeanOf(d.request_ape)).c_str(),
              Pct(MeanOf(o.request_ape)).c_str(), Pct(MedianOf(d.request_ape)).c_str(),
              Pct(MedianOf(o.request_ape)).c_str(), Rho(MeanOf(d.request_spearman)).c_str(),
              Rho(MeanOf(o.request_spearman)).c_str());
}

int Main(int argc, char** argv) {
  std::string dir =
      std::filesystem::path(std::string(NETSTACK_SOURCE_DIR) + "/../shared/traces/har")
          .lexically_normal()
          .string();
  std::string json_path;
  std::vector<std::string> sets;
  CLI::App app{"replay_fidelity: netstack replay against recorded HAR timings"};
  app.add_option("--har-dir", dir, "folder of .har files (default ../shared/traces/har)");
  app.add_option("--json", json_path, "also write the figures as JSON to FILE");
  app.add_option("--set", sets, "KEY=VALUE applied after the estimate (repeatable)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& item : std::filesystem::directory_iterator(dir, ec)) {
    if (item.path().extension() == ".har") files.push_back(item.path().string());
  }
  if (ec || files.empty()) {
    std::printf("replay_fidelity: skipped: no .har files in %s%s%s\n", dir.c_str(), ec ? ": " : "",
                ec ? ec.message().c_str() : "");
    return 0;
  }
  std::sort(files.begin(), files.end());

  std::printf("replay_fidelity: %zu HAR files in %s; network estimated from each HAR\n",
              files.size(), dir.c_str());
  std::printf("%-40s %5s %6s | %19s | %19s | %19s | %13s\n", "", "", "", "page load MAPE",
              "request end MAPE", "request end MdAPE", "Spearman req");
  std::printf("%-40s %5s %6s | %9s %9s | %9s %9s | %9s %9s | %6s %6s\n", "HAR", "pages", "reqs",
              "depend.", "offset", "depend.", "offset", "depend.", "offset", "dep.", "off.");
  Fidelity all_d, all_o;
  nlohmann::json hars = nlohmann::json::array();
  int failures = 0;
  for (const std::string& path : files) {
    HarOutcome o = Measure(path, sets);
    nlohmann::json j = {
        {"file", o.file}, {"creator", o.creator}, {"pages", o.pages}, {"entries", o.entries}};
    if (!o.error.empty()) {
      ++failures;
      std::printf("%-40s error: %s\n", o.file.c_str(), o.error.c_str());
      j["error"] = o.error;
      hars.push_back(j);
      continue;
    }
    PrintRow(TruncateText(o.file, 40), std::to_string(o.pages),
             std::to_string(o.dependency.requests_compared), o.dependency, o.offset);
    all_d.Merge(o.dependency);
    all_o.Merge(o.offset);
    j["dependency"] = o.dependency.ToJson();
    j["offset"] = o.offset.ToJson();
    hars.push_back(j);
  }
  PrintRow("overall", std::to_string(all_d.load_ape.size()),
           std::to_string(all_d.requests_compared), all_d, all_o);
  std::printf("\noverall, dependency placement (offset placement):\n");
  std::printf(
      "  page load:   MAPE %s (%s), median APE %s (%s), Spearman across %zu pages %s (%s)\n",
      Pct(MeanOf(all_d.load_ape)).c_str(), Pct(MeanOf(all_o.load_ape)).c_str(),
      Pct(MedianOf(all_d.load_ape)).c_str(), Pct(MedianOf(all_o.load_ape)).c_str(),
      all_d.load_ape.size(),
      Rho(SpearmanCorrelation(all_d.recorded_load, all_d.simulated_load)).c_str(),
      Rho(SpearmanCorrelation(all_o.recorded_load, all_o.simulated_load)).c_str());
  std::printf(
      "  request end: MAPE %s (%s), median APE %s (%s), Spearman within a page, mean "
      "over %zu pages %s (%s)\n",
      Pct(MeanOf(all_d.request_ape)).c_str(), Pct(MeanOf(all_o.request_ape)).c_str(),
      Pct(MedianOf(all_d.request_ape)).c_str(), Pct(MedianOf(all_o.request_ape)).c_str(),
      all_d.request_spearman.size(), Rho(MeanOf(all_d.request_spearman)).c_str(),
      Rho(MeanOf(all_o.request_spearman)).c_str());
  std::printf(
      "  Lantern (Lighthouse, published): Spearman %.2f-%.2f, MAPE %.0f-%.0f %% against "
      "real loads (its metrics: FCP, FMP, TTI, ...)\n",
      kLanternSpearmanLow, kLanternSpearmanHigh, kLanternMapeLow, kLanternMapeHigh);
  std::printf(
      "  request-level error excludes %llu entries the browser served from its cache "
      "when recording, and %llu that failed in the replay\n",
      static_cast<unsigned long long>(all_d.excluded_cache),
      static_cast<unsigned long long>(all_d.excluded_failed));

  if (!json_path.empty()) {
    nlohmann::json out = {{"har_dir", dir},
                          {"hars", hars},
                          {"overall", {{"dependency", all_d.ToJson()}, {"offset", all_o.ToJson()}}},
                          {"lantern_published",
                           {{"spearman", {kLanternSpearmanLow, kLanternSpearmanHigh}},
                            {"mape_percent", {kLanternMapeLow, kLanternMapeHigh}}}}};
    std::ofstream file(json_path);
    file << out.dump(2) << "\n";
    if (!file) {
      std::fprintf(stderr, "replay_fidelity: cannot write %s\n", json_path.c_str());
      return 1;
    }
  }
  return failures ? 1 : 0;
}

}  // namespace
}  // namespace netstack

int main(int argc, char** argv) { return netstack::Main(argc, argv); }
