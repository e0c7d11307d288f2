#include "tools/netstack/replay_outputs.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <memory>

#include "tools/netstack/replay_har_output.h"
#include "tools/netstack/terminal_text.h"
#include "tools/replay/report/replay_compare.h"
#include "tools/replay/report/replay_json_writer.h"
#include "tools/replay/report/replay_summary.h"
#include "tools/replay/report/report_html.h"

namespace netstack {
namespace {

// Pages compared in memory (two load times each, and their results for --report).
constexpr size_t kMaxComparedPages = 1'000'000;
// Pages of a compared run whose URL and id are kept for the report; later ones keep figures.
constexpr size_t kComparedPagesWithText = 1000;

// Keeps a compared run's page results for the report's pairs (bounded).
class PageKeeper : public ReplayObserver {
 public:
  void OnPage(const PageResult& page) override {
    if (page.page_index >= kMaxComparedPages) return;
    size_t i = static_cast<size_t>(page.page_index);
    if (pages_.size() <= i) pages_.resize(i + 1);
    pages_[i] = page;
    if (i >= kComparedPagesWithText) {
      pages_[i].url.clear();
      pages_[i].id.clear();
      pages_[i].source.clear();
    }
  }
  const std::vector<PageResult>& pages() const { return pages_; }

 private:
  std::vector<PageResult> pages_;
};

}  // namespace

bool CheckOutputWritable(const std::string& path, std::string* error) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  std::fclose(f);
  return true;
}

double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

double MonotonicSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

int WriteReplayOutputs(const ReplayOutputSpec& o, ReplayPassSource* source, FILE* out, FILE* err,
                       double wall_start, double cpu_start) {
  // Messages may quote a trace or a path: escaped for the terminal (terminal_text.h).
  auto fail = [err](const std::string& message, int code) {
    std::fprintf(err, "netstack: %s\n", TerminalSafe(message).c_str());
    return code;
  };
  FILE* summary_out = o.json_path == "-" ? err : out;
  const JsonNumbers numbers = o.shard ? JsonNumbers::kExact : JsonNumbers::kRounded;
  std::string error;

  ReplayJsonWriter json;
  if (!o.json_path.empty() && !json.Open(o.json_path, &error)) return fail(error, 2);
  json.SetNumbers(numbers);
  json.SetRequestLines(!o.json_pages);
  ReplayJsonWriter* trace_lines = o.shard && !o.json_path.empty() ? &json : nullptr;
  // --har: opened before the replay runs (exit 2 when it cannot be written).
  ReplayHarOutput har;
  if (!o.har_path.empty() && !har.Open(o.har_path, o.har_max_pages, &error)) return fail(error, 2);
  std::unique_ptr<ReplayReport> report;
  if (!o.report_path.empty()) {
    if (!CheckOutputWritable(o.report_path, &error)) return fail(error, 2);
    report = std::make_unique<ReplayReport>(o.title);
    report->SetConfig(o.config);
  }
  auto finish_outputs = [&](int code) {
    source->FinishProgress();
    if (!json.Close(&error) && code == 0) return fail(error, 1);
    if (!har.Commit(&error) && code == 0) return fail(error, 1);
    return code;
  };
  auto with_shard = [&](nlohmann::json line) {
    if (o.shard) line["shard"] = *o.shard;
    return line;
  };

  if (o.compare.empty()) {
    ReplaySummary summary(static_cast<size_t>(o.summary_pages));
    ReplayPass pass;
    pass.trace_lines = trace_lines;
    pass.observers.push_back(&summary);
    if (!o.json_path.empty()) pass.observers.push_back(&json);
    if (report) pass.observers.push_back(report.get());
    if (har.observer()) pass.observers.push_back(har.observer());
    if (!source->RunPass(&pass)) {
      source->FinishProgress();
      int code = fail(pass.error, pass.exit_code);
      json.Close(&error);
      return code;
    }
    if (!o.json_path.empty()) {
      json.WriteLine(with_shard({{"kind", "summary"},
                                 {"traces", pass.traces},
                                 {"config", o.config},
                                 {"totals", pass.totals.ToJson(numbers)},
                                 {"page_load", summary.PageLoadJson()}}));
    }
    int code = finish_outputs(0);
    if (report && !report->Write(o.report_path, pass.totals, &error)) code = fail(error, 1);
    if (!o.quiet) {
      std::string text = summary.Format(pass.totals, o.network, MonotonicSeconds() - wall_start,
                                        ProcessCpuSeconds() - cpu_start);
      std::fputs(text.c_str(), summary_out);
    }
    return code;
  }

  // --compare A B: the same traces under A, then under B.
  PageLoadCollector loads_a(kMaxComparedPages), loads_b(kMaxComparedPages);
  ReplaySummary summary_a(0), summary_b(0);
  PageKeeper keep_a, keep_b;
  ReplayPass a, b;
  a.run = 1;
  b.run = 2;
  a.trace_lines = b.trace_lines = trace_lines;
  a.observers = {&loads_a, &summary_a};
  b.observers = {&loads_b, &summary_b};
  if (!o.json_path.empty()) {
    a.observers.push_back(&json);
    b.observers.push_back(&json);
  }
  // --har: both runs, their pages' ids suffixed -a and -b.
  if (har.observer()) {
    a.observers.push_back(har.observer());
    b.observers.push_back(har.observer());
  }
  if (report) {
    report->SetComparison(o.compare[0], o.compare[1]);
    a.observers.push_back(&keep_a);
    b.observers.push_back(&keep_b);
    // The waterfalls show B, the "what if".
    b.observers.push_back(report.get());
  }
  json.SetRunLabel("a");
  if (har.observer()) har.observer()->SetRunLabel("a");
  bool ok = source->RunPass(&a);
  json.SetRunLabel("b");
  if (har.observer()) har.observer()->SetRunLabel("b");
  if (ok) ok = source->RunPass(&b);
  json.SetRunLabel("");
  if (!ok) {
    const ReplayPass& failed = a.exit_code ? a : b;
    source->FinishProgress();
    int code = fail(failed.error, failed.exit_code);
    json.Close(&error);
    return code;
  }
  if (loads_a.overflowed() || loads_b.overflowed()) {
    source->FinishProgress();
    json.Close(&error);
    return fail("--compare keeps at most " + FormatThousands(kMaxComparedPages) +
                    " pages: replay fewer traces",
                1);
  }
  // Onloads where the trace has them, the same figure on both sides.
  std::vector<double> paired_a, paired_b;
  size_t onload_pairs = PairPageLoads(loads_a, loads_b, &paired_a, &paired_b);
  CompareSummary s = ComparePageLoads(paired_a, paired_b);
  s.onload_pages = onload_pairs;
  s.SetCeiling(loads_a, a.totals.predictor_policy);
  if (!o.json_path.empty()) {
    auto run_json = [numbers](const std::string& spec, ReplayPass& pass, ReplaySummary& summary) {
      return nlohmann::json{{"spec", spec},
                            {"traces", pass.traces},
                            {"totals", pass.totals.ToJson(numbers)},
                            {"page_load", summary.PageLoadJson()}};
    };
    json.WriteLine(with_shard({{"kind", "summary"},
                               {"config", o.config},
                               {"compare", s.ToJson()},
                               {"a", run_json(o.compare[0], a, summary_a)},
                               {"b", run_json(o.compare[1], b, summary_b)}}));
  }
  int code = finish_outputs(0);
  if (report) {
    report->SetCompareSummary(s, a.totals.predictor_policy);
    size_t pairs = std::min(keep_a.pages().size(), keep_b.pages().size());
    for (size_t i = 0; i < pairs; ++i)
      report->AddComparedPage(keep_a.pages()[i], keep_b.pages()[i]);
    if (!report->Write(o.report_path, b.totals, &error)) code = fail(error, 1);
  }
  if (!o.quiet) {
    std::string text = FormatComparison(paired_a, paired_b, loads_a.labels(), s, o.compare[0],
                                        o.compare[1], static_cast<size_t>(o.summary_pages));
    text += FormatPredictorComparison(a.totals, b.totals, s);
    char buf[256];
    std::snprintf(buf, sizeof(buf), "  time        virtual A %s, B %s, wall %.2f s, cpu %.2f s\n",
                  FormatDuration(a.totals.virtual_ms).c_str(),
                  FormatDuration(b.totals.virtual_ms).c_str(), MonotonicSeconds() - wall_start,
                  ProcessCpuSeconds() - cpu_start);
    text += buf;
    std::fputs(text.c_str(), summary_out);
  }
  return code;
}

}  // namespace netstack
