#include "tools/netstack/replay_jobs.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <new>
#include <vector>

#include "tools/netstack/merge_command.h"
#include "tools/netstack/replay_command.h"
#include "tools/netstack/replay_outputs.h"
#include "tools/netstack/terminal_text.h"
#include "tools/replay/report/shard_set.h"

namespace netstack {
namespace {

// What the signal handler needs, set up before it is installed (it allocates nothing).
struct Cleanup {
  std::vector<std::string> files;
  std::string dir;
  std::vector<pid_t> workers;
};
Cleanup* g_cleanup = nullptr;
// The handlers before a --jobs run's (a sweep's, which removes its running point's files): run
// after ours, by re-raising the signal under them.
struct sigaction g_previous_int {};
struct sigaction g_previous_term {};

void RemoveTemporaries(const Cleanup& c) {
  for (const std::string& f : c.files) ::unlink(f.c_str());
  if (!c.dir.empty()) ::rmdir(c.dir.c_str());
}

// SIGINT or SIGTERM in the parent: stop the workers, remove the files, then pass the signal to
// the handler that was there before (the default one dies of it). The signal is blocked while
// this handler runs, so the re-raised one is delivered under the previous handler on return.
void OnSignal(int sig) {
  if (g_cleanup) {
    for (pid_t pid : g_cleanup->workers) {
      if (pid > 0) ::kill(pid, SIGKILL);
    }
    for (pid_t pid : g_cleanup->workers) {
      if (pid > 0) ::waitpid(pid, nullptr, 0);
    }
    RemoveTemporaries(*g_cleanup);
  }
  ::sigaction(sig, sig == SIGINT ? &g_previous_int : &g_previous_term, nullptr);
  ::raise(sig);
}

// Installs OnSignal for the parent's lifetime of a --jobs run; restores the old handlers.
class SignalGuard {
 public:
  explicit SignalGuard(Cleanup* cleanup) {
    g_cleanup = cleanup;
    struct sigaction action {};
    action.sa_handler = OnSignal;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &g_previous_int);
    ::sigaction(SIGTERM, &action, &g_previous_term);
  }
  ~SignalGuard() {
    ::sigaction(SIGINT, &g_previous_int, nullptr);
    ::sigaction(SIGTERM, &g_previous_term, nullptr);
    g_cleanup = nullptr;
  }
};

std::string ReadSmallFile(const std::string& path, size_t limit) {
  std::ifstream in(path, std::ios::binary);
  std::string text(limit, '\0');
  in.read(text.data(), static_cast<std::streamsize>(limit));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

// The trace lines a worker's shard file holds: the traces it finished (they are its first).
uint64_t FinishedTraces(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  uint64_t n = 0;
  while (std::getline(in, line)) n += line.find("\"kind\":\"trace\"") != std::string::npos;
  return n;
}

double ChildrenCpuSeconds() {
  rusage usage{};
  ::getrusage(RUSAGE_CHILDREN, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

bool CheckWritable(const std::string& path, std::string* error) {
  return path.empty() || path == "-" || CheckOutputWritable(path, error);
}

// The work queue the workers share (an anonymous shared mapping made before fork): the next
// unit to take, how many are done, the unit each worker is on (for a failure's trace), and the
// first failing unit (workers take no unit past it).
struct SharedQueue {
  std::atomic<uint64_t> next{0};
  std::atomic<uint64_t> done{0};
  std::atomic<uint64_t> stop_at{UINT64_MAX};
  std::atomic<uint64_t> current[ReplayOptions::kMaxJobs];
};
// Atomics shared between processes must not hide a lock in one process's memory.
static_assert(std::atomic<uint64_t>::is_always_lock_free);

SharedQueue* MapSharedQueue() {
  void* memory = ::mmap(nullptr, sizeof(SharedQueue), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return nullptr;
  auto* queue = new (memory) SharedQueue;
  for (auto& c : queue->current) c.store(UINT64_MAX);
  return queue;
}

// A worker: takes units from the queue until it is empty (or past a failed unit), replaying
// each into its own shard file; returns the first failing unit's exit status (its errors in
// `error_path`, rewritten for every unit so that they are that unit's only).
int RunWorker(SharedQueue* queue, size_t worker, uint64_t units, bool stop_on_failure,
              ReplayOptions share, const std::vector<std::string>& shards,
              const std::string& error_path, const WorkerReplay& replay, FILE* out, FILE* err) {
  for (;;) {
    const uint64_t unit = queue->next.fetch_add(1);
    if (unit >= units || unit > queue->stop_at.load()) break;
    queue->current[worker].store(unit);
    share.shard_index = unit;
    share.json_path = shards[unit];
    FILE* unit_err = std::fopen(error_path.c_str(), "wb");
    const int code = replay(share, out, unit_err ? unit_err : err);
    if (unit_err) std::fclose(unit_err);
    std::fflush(out);
    if (code != 0) {
      if (stop_on_failure) {
        uint64_t seen = queue->stop_at.load();
        while (unit < seen && !queue->stop_at.compare_exchange_weak(seen, unit)) {
        }
      }
      return code;
    }
    queue->done.fetch_add(1);
  }
  queue->current[worker].store(UINT64_MAX);
  return 0;
}

// "netstack: --jobs 2: 3 of 8 traces replayed" (or shares, past ShardSet::kMaxFiles traces),
// rewritten in place on stderr while workers run
// (when replay's progress line would show), ended with a newline. Wall time only paces it.
class JobsProgress {
 public:
  JobsProgress(FILE* err, bool enabled, size_t workers, uint64_t units, const char* unit_name)
      : err_(err), enabled_(enabled), workers_(workers), units_(units), unit_name_(unit_name) {}
  bool enabled() const { return enabled_; }
  void Update(uint64_t done) {
    if (!enabled_ || done == shown_) return;
    shown_ = done;
    std::fprintf(err_, "\rnetstack: --jobs %zu: %llu of %llu %s replayed", workers_,
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(units_),
                 unit_name_);
    std::fflush(err_);
    printed_ = true;
  }
  void Finish(uint64_t done) {
    Update(done);
    if (printed_) std::fputc('\n', err_);
  }

 private:
  FILE* const err_;
  const bool enabled_;
  const size_t workers_;
  const uint64_t units_;
  const char* const unit_name_;
  uint64_t shown_ = UINT64_MAX;
  bool printed_ = false;
};

}  // namespace

int RunReplayJobs(const ReplayOptions& o, const WorkerReplay& replay, FILE* out, FILE* err) {
  const double wall_start = MonotonicSeconds();
  const double cpu_start = ProcessCpuSeconds();
  auto fail = [err](const std::string& message, int code) {
    std::fprintf(err, "netstack: %s\n", TerminalSafe(message).c_str());
    return code;
  };
  // The outputs --jobs 1 checks before replaying (the HAR is written beside its path at the
  // end, as --jobs 1 writes it).
  std::string error;
  if (!CheckWritable(o.json_path, &error) || !CheckWritable(o.report_path, &error))
    return fail(error, 2);

  const uint64_t traces = o.traces.size();
  const size_t workers = std::min<size_t>(static_cast<size_t>(o.jobs), traces);
  // One unit of work per trace (--shard t/T) while the merge can take that many files; past
  // that, round-robin shares of the traces (each unit several traces, all units alike).
  const uint64_t units =
      std::min<uint64_t>({traces, o.jobs_max_units, uint64_t{ShardSet::kMaxFiles}});
  const char* tmp = std::getenv("TMPDIR");
  std::string dir_template = std::string(tmp && *tmp ? tmp : "/tmp") + "/netstack-jobs-XXXXXX";
  std::vector<char> dir(dir_template.begin(), dir_template.end());
  dir.push_back('\0');
  if (!::mkdtemp(dir.data()))
    return fail("cannot create a folder for the workers' files (" + dir_template +
                    "): " + std::strerror(errno),
                1);
  Cleanup cleanup;
  cleanup.dir = dir.data();
  std::vector<std::string> shards, errors;
  for (uint64_t u = 0; u < units; ++u) {
    shards.push_back(cleanup.dir + "/" + std::to_string(u) + ".jsonl");
    cleanup.files.push_back(shards.back());
  }
  for (size_t w = 0; w < workers; ++w) {
    errors.push_back(cleanup.dir + "/worker" + std::to_string(w) + ".err");
    cleanup.files.push_back(errors.back());
  }
  cleanup.workers.assign(workers, 0);
  SharedQueue* queue = MapSharedQueue();
  if (!queue) {
    RemoveTemporaries(cleanup);
    return fail(std::string("cannot map the workers' queue: ") + std::strerror(errno), 1);
  }
  // Failing units stop the queue only when a unit is one trace: then no unit after the first
  // failing one can change which trace --jobs 1 reports.
  const bool stop_on_failure = units == traces;
  // Request lines only when an output needs them (they are most of a shard's bytes).
  const bool request_lines =
      !o.report_path.empty() || !o.har_path.empty() || (!o.json_path.empty() && !o.json_pages);
  JobsProgress progress(err, !o.quiet && (o.progress || ::isatty(::fileno(err))), workers, units,
                        units == traces ? "traces" : "shares");
  SignalGuard guard(&cleanup);
  std::fflush(out);
  std::fflush(err);
  for (size_t w = 0; w < workers; ++w) {
    pid_t pid = ::fork();
    if (pid < 0) {
      for (pid_t started : cleanup.workers) {
        if (started > 0) ::kill(started, SIGKILL), ::waitpid(started, nullptr, 0);
      }
      RemoveTemporaries(cleanup);
      ::munmap(queue, sizeof(SharedQueue));
      return fail(std::string("cannot start a worker: ") + std::strerror(errno), 1);
    }
    if (pid == 0) {
      ::signal(SIGINT, SIG_DFL);
      ::signal(SIGTERM, SIG_DFL);
      ReplayOptions share = o;
      share.jobs = 1;
      share.shard = true;
      share.shard_count = units;
      share.json_pages = !request_lines;
      share.report_path.clear();
      share.har_path.clear();
      share.quiet = true;
      share.progress = false;
      ::_exit(
          RunWorker(queue, w, units, stop_on_failure, share, shards, errors[w], replay, out, err));
    }
    cleanup.workers[w] = pid;
  }

  // The lowest failing trace decides, as --jobs 1 stops at the first.
  uint64_t failed_trace = UINT64_MAX;
  std::string failure;
  int failure_code = 0;
  for (size_t running = workers; running > 0;) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, progress.enabled() ? WNOHANG : 0);
    if (pid < 0 && errno == EINTR) continue;
    if (pid <= 0) {  // WNOHANG: nobody exited yet
      progress.Update(queue->done.load());
      ::usleep(100'000);
      continue;
    }
    size_t w = 0;
    while (w < workers && cleanup.workers[w] != pid) ++w;
    if (w == workers) continue;  // not ours
    cleanup.workers[w] = 0;
    --running;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
    const uint64_t unit = queue->current[w].load();
    if (unit >= units) continue;  // it failed outside a unit: nothing of ours to report
    const uint64_t trace = unit + FinishedTraces(shards[unit]) * units;
    if (trace >= failed_trace) continue;
    failed_trace = trace;
    if (WIFEXITED(status)) {
      failure = ReadSmallFile(errors[w], 64 * 1024);
      failure_code = WEXITSTATUS(status);
    } else {
      const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
      const std::string path = trace < o.traces.size() ? o.traces[trace] : "?";
      failure =
          "netstack: " +
          TerminalSafe("the worker replaying " + path + " (trace " + std::to_string(trace) +
                       ") crashed: signal " + std::to_string(sig) + " (" + strsignal(sig) + ")") +
          "\n";
      failure_code = 1;
    }
  }
  progress.Finish(queue->done.load());
  ::munmap(queue, sizeof(SharedQueue));
  if (failure_code != 0) {
    std::fputs(failure.c_str(), err);
    RemoveTemporaries(cleanup);
    return failure_code;
  }
  ReplayOutputSpec spec = ReplayOutputSpecOf(o);
  // The time line's CPU counts the workers' too.
  int code = MergeShards(shards, spec, out, err, wall_start, cpu_start - ChildrenCpuSeconds());
  RemoveTemporaries(cleanup);
  return code;
}

}  // namespace netstack
