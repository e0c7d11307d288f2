#include "tools/netstack/replay_jobs.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "tools/netstack/merge_command.h"
#include "tools/netstack/replay_command.h"
#include "tools/netstack/replay_outputs.h"
#include "tools/netstack/terminal_text.h"

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

  const size_t workers = std::min<size_t>(static_cast<size_t>(o.jobs), o.traces.size());
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
  for (size_t w = 0; w < workers; ++w) {
    shards.push_back(cleanup.dir + "/" + std::to_string(w) + ".jsonl");
    errors.push_back(cleanup.dir + "/" + std::to_string(w) + ".err");
    cleanup.files.push_back(shards.back());
    cleanup.files.push_back(errors.back());
  }
  cleanup.workers.assign(workers, 0);
  // Request lines only when an output needs them (they are most of a shard's bytes).
  const bool request_lines =
      !o.report_path.empty() || !o.har_path.empty() || (!o.json_path.empty() && !o.json_pages);
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
      return fail(std::string("cannot start a worker: ") + std::strerror(errno), 1);
    }
    if (pid == 0) {
      ::signal(SIGINT, SIG_DFL);
      ::signal(SIGTERM, SIG_DFL);
      ReplayOptions share = o;
      share.jobs = 1;
      share.shard = true;
      share.shard_index = w;
      share.shard_count = workers;
      share.json_path = shards[w];
      share.json_pages = !request_lines;
      share.report_path.clear();
      share.har_path.clear();
      share.quiet = true;
      share.progress = false;
      FILE* worker_err = std::fopen(errors[w].c_str(), "wb");
      int code = replay(share, out, worker_err ? worker_err : err);
      if (worker_err) std::fclose(worker_err);
      std::fflush(out);
      ::_exit(code);
    }
    cleanup.workers[w] = pid;
  }

  // The lowest failing trace decides, as --jobs 1 stops at the first.
  uint64_t failed_trace = UINT64_MAX;
  std::string failure;
  int failure_code = 0;
  for (size_t w = 0; w < workers; ++w) {
    int status = 0;
    while (::waitpid(cleanup.workers[w], &status, 0) < 0 && errno == EINTR) {
    }
    cleanup.workers[w] = 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
    const uint64_t trace = w + FinishedTraces(shards[w]) * workers;
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
