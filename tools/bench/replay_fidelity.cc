// replay_fidelity: how close `netstack replay` comes to what real browsers recorded. For each
// recording in the given folders (default ../shared/traces/har and ../shared/traces/devtools
// beside the repository: HAR files and Chrome DevTools protocol logs) it estimates the network
// from the recording's own timings, turns the replay's HTTP cache off (the recording says which
// entries the browser's cache served), replays it twice (dependency placement, then
// recorded-offset placement) and compares with the recording (fidelity_measure.h): onLoad and
// last-request-end absolute percentage error per page, request end-time error, Spearman within
// and across pages, the noise floor of files holding several runs of one page, and the error
// causes per request.
//
// Prints a table per file, the overall figures per folder and per split, and the causes table,
// with Lighthouse Lantern's published accuracy beside ours; --json FILE writes the same figures.
// --split tuning|held-out|all picks the files: in each folder's sorted list, every second file
// (the 2nd, 4th, ...) is held out of tuning. A measurement, not a test: it never fails on a
// figure (exit 1 only when a file could not be read or replayed, 2 on bad usage).
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

#include "tools/bench/fidelity_measure.h"
#include "tools/replay/report/report_stats.h"
#include "tools/replay/report/report_text.h"

namespace netstack {
namespace {

// Lighthouse's Lantern ("Lantern: project accuracy", the Lighthouse docs): Spearman 0.81 to
// 0.87 and MAPE 23 to 45 % across its metrics, against real page loads.
constexpr double kLanternSpearmanLow = 0.81, kLanternSpearmanHigh = 0.87;
constexpr double kLanternMapeLow = 23, kLanternMapeHigh = 45;

std::string Pct(double v) { return std::isfinite(v) ? FormatFixed(v, 1) + " %" : "n/a"; }
std::string Rho(double v) { return std::isfinite(v) ? FormatFixed(v, 2) : "n/a"; }

// Files and their figures merged: a folder, a split, or everything.
struct Group {
  explicit Group(std::string group_name = "") : name(std::move(group_name)) {}
  std::string name;
  size_t files = 0;
  Fidelity dependency, offset;
  NoiseFloor noise;
  void Add(const FileOutcome& o) {
    ++files;
    dependency.Merge(o.dependency);
    offset.Merge(o.offset);
    noise.Merge(o.noise);
  }
  nlohmann::json ToJson() const {
    return {{"files", files},
            {"dependency", dependency.ToJson()},
            {"offset", offset.ToJson()},
            {"noise_floor", noise.ToJson()}};
  }
};

void PrintHeader() {
  std::printf("%-38s %-4s %5s %5s | %17s | %17s | %17s | %11s | %7s\n", "", "", "", "",
              "onLoad MAPE", "last end MAPE", "request end MdAPE", "Spearman req", "noise");
  std::printf("%-38s %-4s %5s %5s | %8s %8s | %8s %8s | %8s %8s | %5s %5s | %7s\n", "file", "kind",
              "pages", "reqs", "depend.", "offset", "depend.", "offset", "depend.", "offset",
              "dep.", "off.", "onLoad");
}

void PrintRow(const std::string& name, const std::string& kind, size_t pages, const Fidelity& d,
              const Fidelity& o, const NoiseFloor& n) {
  std::printf("%-38s %-4s %5zu %5llu | %8s %8s | %8s %8s | %8s %8s | %5s %5s | %7s\n",
              TruncateText(name, 38).c_str(), kind.c_str(), pages,
              static_cast<unsigned long long>(d.requests_compared),
              Pct(MeanOf(d.onload_ape)).c_str(), Pct(MeanOf(o.onload_ape)).c_str(),
              Pct(MeanOf(d.last_end_ape)).c_str(), Pct(MeanOf(o.last_end_ape)).c_str(),
              Pct(MedianOf(d.request_ape)).c_str(), Pct(MedianOf(o.request_ape)).c_str(),
              Rho(MeanOf(d.request_spearman)).c_str(), Rho(MeanOf(o.request_spearman)).c_str(),
              Pct(MeanOf(n.onload_ape)).c_str());
}

void PrintGroup(const Group& g) {
  const Fidelity& d = g.dependency;
  const Fidelity& o = g.offset;
  std::printf("%s (%zu files), dependency placement (offset placement):\n", g.name.c_str(),
              g.files);
  std::printf("  onLoad:      MAPE %s (%s), median APE %s (%s) over %zu pages with one\n",
              Pct(MeanOf(d.onload_ape)).c_str(), Pct(MeanOf(o.onload_ape)).c_str(),
              Pct(MedianOf(d.onload_ape)).c_str(), Pct(MedianOf(o.onload_ape)).c_str(),
              d.onload_ape.size());
  std::printf("  last end:    MAPE %s (%s), median APE %s (%s) over %zu pages\n",
              Pct(MeanOf(d.last_end_ape)).c_str(), Pct(MeanOf(o.last_end_ape)).c_str(),
              Pct(MedianOf(d.last_end_ape)).c_str(), Pct(MedianOf(o.last_end_ape)).c_str(),
              d.last_end_ape.size());
  std::printf(
      "  across pages: Spearman %s (%s) of the page load (onLoad where recorded, else last end) "
      "over %zu pages\n",
      Rho(SpearmanCorrelation(d.recorded_page_load, d.replayed_page_load)).c_str(),
      Rho(SpearmanCorrelation(o.recorded_page_load, o.replayed_page_load)).c_str(),
      d.recorded_page_load.size());
  std::printf(
      "  request end: median APE %s (%s), MAPE %s (%s); Spearman within a page, mean over %zu "
      "pages %s (%s)\n",
      Pct(MedianOf(d.request_ape)).c_str(), Pct(MedianOf(o.request_ape)).c_str(),
      Pct(MeanOf(d.request_ape)).c_str(), Pct(MeanOf(o.request_ape)).c_str(),
      d.request_spearman.size(), Rho(MeanOf(d.request_spearman)).c_str(),
      Rho(MeanOf(o.request_spearman)).c_str());
  if (!g.noise.last_end_ape.empty()) {
    std::printf(
        "  noise floor: %zu runs of pages recorded several times, each against the median of "
        "the others: onLoad MAPE %s, last end MAPE %s\n",
        g.noise.last_end_ape.size(), Pct(MeanOf(g.noise.onload_ape)).c_str(),
        Pct(MeanOf(g.noise.last_end_ape)).c_str());
  }
}

// The causes of the request end-time error, largest first.
void PrintCauses(const Fidelity& f) {
  const ErrorCauses& c = f.causes;
  double total = c.TotalAbsoluteMs();
  std::printf(
      "\nrequest end-time error by cause, dependency placement (%llu requests; replayed minus "
      "recorded):\n",
      static_cast<unsigned long long>(c.requests));
  std::printf("  %-36s %12s %7s %16s\n", "cause", "sum |error|", "share", "mean per request");
  std::vector<size_t> order(c.absolute_ms.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return c.absolute_ms[a] > c.absolute_ms[b]; });
  for (size_t i : order) {
    double mean = c.requests ? c.signed_ms[i] / c.requests : 0;
    std::printf("  %-36s %9s ms %7s %13s ms\n", ErrorCauseName(static_cast<ErrorCause>(i)),
                FormatCount(static_cast<uint64_t>(std::llround(c.absolute_ms[i]))).c_str(),
                Pct(total > 0 ? 100 * c.absolute_ms[i] / total : NAN).c_str(),
                (mean >= 0 ? "+" + FormatFixed(mean, 1) : FormatFixed(mean, 1)).c_str());
  }
}

// The recordings in `dir` (.har and .json but not NOTICE files), sorted; every second one is
// held out of tuning.
std::vector<std::pair<std::string, bool>> ListRecordings(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& item : std::filesystem::directory_iterator(dir, ec)) {
    std::string ext = item.path().extension().string();
    if (item.is_regular_file() && (ext == ".har" || ext == ".json"))
      files.push_back(item.path().string());
  }
  std::sort(files.begin(), files.end());
  std::vector<std::pair<std::string, bool>> out;
  for (size_t i = 0; i < files.size(); ++i) out.push_back({files[i], i % 2 == 1});
  return out;
}

int Main(int argc, char** argv) {
  std::string shared = std::filesystem::path(std::string(NETSTACK_SOURCE_DIR) + "/../shared/traces")
                           .lexically_normal()
                           .string();
  std::vector<std::string> dirs;
  std::string json_path, split = "all";
  std::vector<std::string> sets;
  CLI::App app{"replay_fidelity: netstack replay against recorded timings (HAR, DevTools logs)"};
  app.add_option("--dir,--har-dir", dirs,
                 "folder of recordings (repeatable; default ../shared/traces/har and "
                 "../shared/traces/devtools)");
  app.add_option("--split", split, "tuning, held-out or all (default): which files to measure")
      ->check(CLI::IsMember({"tuning", "held-out", "all"}));
  app.add_option("--json", json_path, "also write the figures as JSON to FILE");
  app.add_option("--set", sets, "KEY=VALUE applied after the estimate (repeatable)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (dirs.empty()) dirs = {shared + "/har", shared + "/devtools"};

  std::vector<FileOutcome> outcomes;
  std::vector<bool> held_out;
  int failures = 0;
  for (const std::string& dir : dirs) {
    auto files = ListRecordings(dir);
    if (files.empty()) {
      std::printf("replay_fidelity: skipped %s: no recordings there\n", dir.c_str());
      continue;
    }
    for (const auto& [path, out_of_tuning] : files) {
      if ((split == "tuning" && out_of_tuning) || (split == "held-out" && !out_of_tuning)) continue;
      outcomes.push_back(Measure(path, sets));
      held_out.push_back(out_of_tuning);
    }
  }
  if (outcomes.empty()) return 0;

  std::printf("replay_fidelity: %zu recordings; network estimated from each; split: %s\n",
              outcomes.size(), split.c_str());
  PrintHeader();
  Group all("overall"), tuning("tuning split"), held("held-out split");
  std::map<std::string, Group> by_kind;
  nlohmann::json files = nlohmann::json::array();
  for (size_t i = 0; i < outcomes.size(); ++i) {
    const FileOutcome& o = outcomes[i];
    nlohmann::json j = o.ToJson();
    j["held_out"] = held_out[i];
    files.push_back(j);
    if (!o.error.empty()) {
      ++failures;
      std::printf("%-38s error: %s\n", TruncateText(o.file, 38).c_str(), o.error.c_str());
      continue;
    }
    PrintRow(o.file + (held_out[i] ? " *" : ""), o.kind, o.pages, o.dependency, o.offset, o.noise);
    all.Add(o);
    (held_out[i] ? held : tuning).Add(o);
    Group& k = by_kind[o.kind];
    k.name = o.kind == "har" ? "HAR files" : "DevTools logs";
    k.Add(o);
  }
  std::printf("(* held out of tuning)\n\n");
  nlohmann::json groups = nlohmann::json::object();
  for (const Group* g : {&all, &tuning, &held}) {
    if (g->files == 0) continue;
    PrintGroup(*g);
    groups[g->name] = g->ToJson();
  }
  for (const auto& [kind, g] : by_kind) {
    PrintGroup(g);
    groups[g.name] = g.ToJson();
  }
  std::printf(
      "Lantern (Lighthouse, published): Spearman %.2f-%.2f, MAPE %.0f-%.0f %% against real "
      "loads (its metrics: FCP, FMP, TTI, ...)\n",
      kLanternSpearmanLow, kLanternSpearmanHigh, kLanternMapeLow, kLanternMapeHigh);
  std::printf(
      "request-level error excludes %llu entries the browser served from its cache when "
      "recording, and %llu that failed in the replay\n",
      static_cast<unsigned long long>(all.dependency.excluded_cache),
      static_cast<unsigned long long>(all.dependency.excluded_failed));
  PrintCauses(all.dependency);

  if (!json_path.empty()) {
    nlohmann::json out = {{"dirs", dirs},
                          {"split", split},
                          {"files", files},
                          {"groups", groups},
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
