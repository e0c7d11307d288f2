#include "tools/netstack/replay_command.h"

#include <malloc.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <vector>

#include "tools/netstack/replay_har_output.h"
#include "tools/netstack/replay_internals.h"
#include "tools/netstack/replay_sweep_run.h"
#include "tools/netstack/terminal_text.h"
#include "tools/replay/replay_engine.h"
#include "tools/replay/report/replay_compare.h"
#include "tools/replay/report/replay_json_writer.h"
#include "tools/replay/report/replay_progress.h"
#include "tools/replay/report/replay_summary.h"
#include "tools/replay/report/report_html.h"
#include "tools/replay/trace/har_estimate.h"
#include "tools/replay/trace/har_reader.h"
#include "tools/replay/trace/host_protocol.h"
#include "tools/replay/trace/recording_reader.h"
#include "tools/replay/trace/session_reader.h"

namespace netstack {
namespace {

// Pages compared in memory (two load times each, and their results for --report).
constexpr size_t kMaxComparedPages = 1'000'000;
// Pages of a compared run whose URL and id are kept for the report; later ones keep figures.
constexpr size_t kComparedPagesWithText = 1000;

double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// A trace opened for one replay, with the configuration to replay it under.
struct OpenedTrace {
  std::unique_ptr<TraceSource> source;
  ReplayConfig config;
};

// Opens `path` and builds its configuration: the options' (preset, configs, --set), with
// --estimate the HAR's estimated network as the trace's values, then `spec` (compare's A or B)
// on top, then the protocols the trace records, as the trace's values too (host_protocol.h).
// The trace's values yield to every key the user gave, global or per host, whenever it was
// applied (NetworkParams::ForHost). False with a one-line `error` naming the file.
bool OpenTraceFor(const ReplayOptions& o, const std::string& path, const std::string* spec,
                  OpenedTrace* out, std::string* error) {
  out->config = o.config;
  if (o.estimate) {
    if (path == "-") {
      *error = "--estimate needs a HAR file or a DevTools log, not stdin";
      return false;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      *error = path + ": cannot open: " + std::strerror(errno);
      return false;
    }
    char start[4096];
    in.read(start, sizeof(start));
    if (SniffRecording(std::string_view(start, static_cast<size_t>(in.gcount()))) ==
        RecordingKind::kNone) {
      *error = path + ": --estimate needs a HAR file or a DevTools log (this looks like a session)";
      return false;
    }
    HarFile har;
    if (!ReadRecordingFile(path, &har, error)) return false;
    // The estimate goes to the network's trace layer, under every key the user gave (however
    // the options were ordered: network_params.h, "Where a value comes from").
    HarEstimate estimate = EstimateNetwork(&har.pages, out->config.network);
    out->config.network = estimate.params;
    out->source = MakeHarSource(std::move(har), path);
  } else {
    out->source = OpenTrace(path, error);
    if (!out->source) return false;
  }
  if (spec && !out->config.Apply(*spec, error)) return false;
  // Last: the trace's per-host protocols fill in the hosts the configuration leaves open (an
  // explicit HOST:http2 wins; http2=on|off without a host forces every host in ForHost).
  HostProtocols protocols;
  if (!out->source->ReadHostProtocols(&protocols, error)) return false;
  ApplyHostProtocols(protocols, &out->config.network);
  return true;
}

// One pass over every trace under one configuration (the replay, or compare's A or B).
struct Pass {
  const std::string* spec = nullptr;  // compare's A or B
  std::string label;                  // progress line label
  std::vector<ReplayObserver*> observers;
  ReplayEngine::Monitor* monitor = nullptr;  // --internals
  ReplayTotals totals;
  nlohmann::json traces = nlohmann::json::array();  // [{"path", "config"}]
  std::string error;
  int exit_code = 0;
};

bool RunPass(const ReplayOptions& o, const std::string& command_line, ReplayProgress* progress,
             Pass* pass) {
  for (const std::string& path : o.traces) {
    OpenedTrace trace;
    if (!OpenTraceFor(o, path, pass->spec, &trace, &pass->error)) {
      pass->exit_code = 2;
      return false;
    }
    pass->traces.push_back({{"path", path}, {"config", trace.config.ToJson()}});
    ReplayEngine engine(trace.config);
    for (ReplayObserver* observer : pass->observers) engine.AddObserver(observer);
    if (pass->monitor) engine.SetMonitor(pass->monitor);
    engine.SetFirstPageIndex(pass->totals.pages);
    if (!o.netlog_path.empty() &&
        !engine.SetNetLogFile(o.netlog_path, command_line, &pass->error)) {
      pass->exit_code = 2;
      return false;
    }
    const ReplayTotals done = pass->totals;
    const std::string label = pass->label.empty() ? path : pass->label;
    engine.SetProgressCallback(ReplayProgress::kEvery,
                               [&](const ReplayTotals& t) { progress->Update(t, done, label); });
    bool ok = engine.Run(trace.source.get(), &pass->error);
    pass->totals.Add(engine.totals());
    if (!ok) {
      pass->exit_code = engine.input_error() ? 2 : 1;
      return false;
    }
    progress->Update(engine.totals(), done, label);
  }
  return true;
}

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

std::string TraceTitle(const ReplayOptions& o) {
  std::string title;
  for (const std::string& t : o.traces) title += (title.empty() ? "" : ", ") + t;
  return title;
}

// Checks an output path can be created before a long replay runs.
bool CheckWritable(const std::string& path, std::string* error) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  std::fclose(f);
  return true;
}

int RunReplay(const ReplayOptions& o, const std::string& command_line, FILE* out, FILE* err,
              ReplayEngine::Monitor* monitor) {
  // A replay allocates and frees the same few megabytes per page, millions of times. glibc's
  // default trims the heap back to the kernel whenever 128 KiB at its top are free, so each page
  // faulted its memory in again: 40% of a 1M-request replay's CPU was page faults (system time).
  // Keeping 64 MiB before trimming and growing by 16 MiB removes that; memory stays bounded.
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  mallopt(M_TOP_PAD, 16 << 20);
  const auto wall_start = std::chrono::steady_clock::now();
  const double cpu_start = CpuSeconds();
  // Messages may quote a trace or a path: escaped for the terminal (terminal_text.h).
  auto fail = [err](const std::string& message, int code) {
    std::fprintf(err, "netstack: %s\n", TerminalSafe(message).c_str());
    return code;
  };
  FILE* summary_out = o.json_path == "-" ? err : out;
  std::string error;

  ReplayJsonWriter json;
  if (!o.json_path.empty() && !json.Open(o.json_path, &error)) return fail(error, 2);
  // --har: opened before the replay runs (exit 2 when it cannot be written).
  ReplayHarOutput har;
  if (!o.har_path.empty() && !har.Open(o.har_path, &error)) return fail(error, 2);
  std::unique_ptr<ReplayReport> report;
  if (!o.report_path.empty()) {
    if (!CheckWritable(o.report_path, &error)) return fail(error, 2);
    report = std::make_unique<ReplayReport>(TraceTitle(o));
    report->SetConfig(o.config.ToJson());
  }
  ReplayProgress progress(err, !o.quiet && (o.progress || ::isatty(::fileno(err))));
  auto finish_outputs = [&](int code) {
    progress.Finish();
    if (!json.Close(&error) && code == 0) return fail(error, 1);
    if (!har.Commit(&error) && code == 0) return fail(error, 1);
    return code;
  };

  if (o.compare.empty()) {
    ReplaySummary summary(static_cast<size_t>(o.summary_pages));
    Pass pass;
    pass.monitor = monitor;
    pass.observers.push_back(&summary);
    if (!o.json_path.empty()) pass.observers.push_back(&json);
    if (report) pass.observers.push_back(report.get());
    if (har.observer()) pass.observers.push_back(har.observer());
    if (!RunPass(o, command_line, &progress, &pass)) {
      progress.Finish();
      int code = fail(pass.error, pass.exit_code);
      json.Close(&error);
      return code;
    }
    if (!o.json_path.empty()) {
      json.WriteLine({{"kind", "summary"},
                      {"traces", pass.traces},
                      {"config", o.config.ToJson()},
                      {"totals", pass.totals.ToJson()},
                      {"page_load", summary.PageLoadJson()}});
    }
    int code = finish_outputs(0);
    if (report && !report->Write(o.report_path, pass.totals, &error)) code = fail(error, 1);
    if (!o.quiet) {
      double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
      std::string text = summary.Format(pass.totals, o.config, wall, CpuSeconds() - cpu_start);
      std::fputs(text.c_str(), summary_out);
    }
    return code;
  }

  // --compare A B: the same traces under A, then under B.
  PageLoadCollector loads_a(kMaxComparedPages), loads_b(kMaxComparedPages);
  ReplaySummary summary_a(0), summary_b(0);
  PageKeeper keep_a, keep_b;
  Pass a, b;
  a.monitor = monitor;
  b.monitor = monitor;
  a.spec = &o.compare[0];
  b.spec = &o.compare[1];
  a.label = "A";
  b.label = "B";
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
  bool ok = RunPass(o, command_line, &progress, &a);
  json.SetRunLabel("b");
  if (har.observer()) har.observer()->SetRunLabel("b");
  if (ok) ok = RunPass(o, command_line, &progress, &b);
  json.SetRunLabel("");
  if (!ok) {
    const Pass& failed = a.exit_code ? a : b;
    progress.Finish();
    int code = fail(failed.error, failed.exit_code);
    json.Close(&error);
    return code;
  }
  if (loads_a.overflowed() || loads_b.overflowed()) {
    progress.Finish();
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
  if (!o.json_path.empty()) {
    auto run_json = [](const std::string& spec, Pass& pass, ReplaySummary& summary) {
      return nlohmann::json{{"spec", spec},
                            {"traces", pass.traces},
                            {"totals", pass.totals.ToJson()},
                            {"page_load", summary.PageLoadJson()}};
    };
    json.WriteLine({{"kind", "summary"},
                    {"config", o.config.ToJson()},
                    {"compare", s.ToJson()},
                    {"a", run_json(o.compare[0], a, summary_a)},
                    {"b", run_json(o.compare[1], b, summary_b)}});
  }
  int code = finish_outputs(0);
  if (report) {
    size_t pairs = std::min(keep_a.pages().size(), keep_b.pages().size());
    for (size_t i = 0; i < pairs; ++i)
      report->AddComparedPage(keep_a.pages()[i], keep_b.pages()[i]);
    if (!report->Write(o.report_path, b.totals, &error)) code = fail(error, 1);
  }
  if (!o.quiet) {
    std::string text = FormatComparison(paired_a, paired_b, loads_a.labels(), s, o.compare[0],
                                        o.compare[1], static_cast<size_t>(o.summary_pages));
    text += FormatPredictorComparison(a.totals, b.totals, s);
    double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    char buf[256];
    std::snprintf(buf, sizeof(buf), "  time        virtual A %s, B %s, wall %.2f s, cpu %.2f s\n",
                  FormatDuration(a.totals.virtual_ms).c_str(),
                  FormatDuration(b.totals.virtual_ms).c_str(), wall, CpuSeconds() - cpu_start);
    text += buf;
    std::fputs(text.c_str(), summary_out);
  }
  return code;
}

}  // namespace

int RunReplayCommand(const ReplayOptions& o, const std::string& command_line, FILE* out,
                     FILE* err) {
  if (!o.sweeps.empty()) return RunReplaySweep(o, command_line, out, err);
  if (o.internals_port < 0) return RunReplay(o, command_line, out, err, nullptr);
  ReplayInternals internals(o.internals_port, command_line, o.config.predictor.policy);
  std::string error;
  if (!internals.Start(&error)) {
    std::fprintf(err, "netstack: %s\n", TerminalSafe(error).c_str());
    return 2;
  }
  int code = RunReplay(o, command_line, out, err, &internals);
  if (internals.stack_changes() > 0) {
    std::fprintf(err,
                 "netstack: note: the internals page changed the replay's stack %llu times "
                 "(closed idle sockets, flushed pools or cleared the host cache): its figures "
                 "are not those of an untouched replay\n",
                 static_cast<unsigned long long>(internals.stack_changes()));
  }
  std::fflush(out);
  internals.ServeUntilQuit();
  return code;
}

}  // namespace netstack
