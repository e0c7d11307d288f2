#include "tools/netstack/replay_command.h"

#include <malloc.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <vector>

#include "tools/netstack/replay_internals.h"
#include "tools/netstack/replay_jobs.h"
#include "tools/netstack/replay_outputs.h"
#include "tools/netstack/terminal_text.h"
#include "tools/replay/replay_engine.h"
#include "tools/replay/report/replay_json_writer.h"
#include "tools/replay/report/replay_progress.h"
#include "tools/replay/trace/har_estimate.h"
#include "tools/replay/trace/har_reader.h"
#include "tools/replay/trace/host_protocol.h"
#include "tools/replay/trace/recording_reader.h"
#include "tools/replay/trace/session_reader.h"

namespace netstack {
namespace {

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

// The engine as the outputs' source: replays the traces of the options (those of --shard's
// share), each on its own stack and virtual clock, pass by pass.
class EngineSource : public ReplayPassSource {
 public:
  EngineSource(const ReplayOptions& o, const std::string& command_line, FILE* err,
               ReplayEngine::Monitor* monitor)
      : o_(o),
        command_line_(command_line),
        monitor_(monitor),
        progress_(err, !o.quiet && (o.progress || ::isatty(::fileno(err)))) {}

  bool RunPass(ReplayPass* pass) override {
    const std::string* spec = pass->run == 0 ? nullptr : &o_.compare[pass->run - 1];
    const std::string run_label = pass->run == 0 ? "" : pass->run == 1 ? "A" : "B";
    for (size_t p = 0; p < o_.traces.size(); ++p) {
      if (p % o_.shard_count != o_.shard_index) continue;
      const std::string& path = o_.traces[p];
      OpenedTrace trace;
      if (!OpenTraceFor(o_, path, spec, &trace, &pass->error)) {
        pass->exit_code = 2;
        return false;
      }
      nlohmann::json config = trace.config.ToJson();
      pass->traces.push_back({{"path", path}, {"config", config}});
      ReplayEngine engine(trace.config);
      for (ReplayObserver* observer : pass->observers) engine.AddObserver(observer);
      if (monitor_) engine.SetMonitor(monitor_);
      engine.SetFirstPageIndex(pass->totals.pages);
      if (!o_.netlog_path.empty() &&
          !engine.SetNetLogFile(o_.netlog_path, command_line_, &pass->error)) {
        pass->exit_code = 2;
        return false;
      }
      const ReplayTotals done = pass->totals;
      const std::string label = run_label.empty() ? path : run_label;
      engine.SetProgressCallback(ReplayProgress::kEvery,
                                 [&](const ReplayTotals& t) { progress_.Update(t, done, label); });
      bool ok = engine.Run(trace.source.get(), &pass->error);
      pass->totals.Add(engine.totals());
      if (!ok) {
        pass->exit_code = engine.input_error() ? 2 : 1;
        return false;
      }
      progress_.Update(engine.totals(), done, label);
      if (pass->trace_lines) {
        pass->trace_lines->WriteLine({{"kind", "trace"},
                                      {"trace", p},
                                      {"path", path},
                                      {"config", std::move(config)},
                                      {"pages", engine.totals().pages},
                                      {"totals", engine.totals().ToJson(JsonNumbers::kExact)}});
      }
    }
    return true;
  }
  void FinishProgress() override { progress_.Finish(); }

 private:
  const ReplayOptions& o_;
  const std::string& command_line_;
  ReplayEngine::Monitor* const monitor_;
  ReplayProgress progress_;
};

std::string TraceTitle(const ReplayOptions& o) {
  std::string title;
  for (const std::string& t : o.traces) title += (title.empty() ? "" : ", ") + t;
  return title;
}

int RunReplay(const ReplayOptions& o, const std::string& command_line, FILE* out, FILE* err,
              ReplayEngine::Monitor* monitor) {
  // A replay allocates and frees the same few megabytes per page, millions of times. glibc's
  // default trims the heap back to the kernel whenever 128 KiB at its top are free, so each page
  // faulted its memory in again: 40% of a 1M-request replay's CPU was page faults (system time).
  // Keeping 64 MiB before trimming and growing by 16 MiB removes that; memory stays bounded.
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  mallopt(M_TOP_PAD, 16 << 20);
  const double wall_start = MonotonicSeconds();
  const double cpu_start = ProcessCpuSeconds();
  ReplayOutputSpec spec = ReplayOutputSpecOf(o);
  EngineSource source(o, command_line, err, monitor);
  return WriteReplayOutputs(spec, &source, out, err, wall_start, cpu_start);
}

}  // namespace

ReplayOutputSpec ReplayOutputSpecOf(const ReplayOptions& o) {
  ReplayOutputSpec spec;
  spec.json_path = o.json_path;
  spec.json_pages = o.json_pages;
  spec.report_path = o.report_path;
  spec.har_path = o.har_path;
  spec.summary_pages = o.summary_pages;
  spec.quiet = o.quiet;
  spec.compare = o.compare;
  spec.title = TraceTitle(o);
  spec.config = o.config.ToJson();
  spec.network = o.config.Describe();
  if (o.shard) {
    spec.shard = nlohmann::json{{"index", o.shard_index},
                                {"count", o.shard_count},
                                {"traces", o.traces.size()},
                                {"network", spec.network},
                                {"request_lines", !o.json_pages}};
  }
  return spec;
}

int RunReplayCommand(const ReplayOptions& o, const std::string& command_line, FILE* out,
                     FILE* err) {
  if (o.jobs > 1) {
    return RunReplayJobs(
        o,
        [&command_line](const ReplayOptions& share, FILE* share_out, FILE* share_err) {
          return RunReplay(share, command_line, share_out, share_err, nullptr);
        },
        out, err);
  }
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
