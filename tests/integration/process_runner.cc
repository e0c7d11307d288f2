#include "tests/integration/process_runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <thread>

extern char** environ;

namespace netstack::test {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<char*> MakeArgv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (const std::string& a : argv) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

// The child's environment: ours with `overrides` applied ("NAME=value" sets, "NAME" unsets).
std::vector<std::string> MakeEnv(const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  for (const std::string& o : overrides) {
    const std::string name = o.substr(0, o.find('='));
    std::erase_if(env, [&](const std::string& e) {
      return e.size() > name.size() && e.compare(0, name.size(), name) == 0 &&
             e[name.size()] == '=';
    });
    if (o.find('=') != std::string::npos) env.push_back(o);
  }
  return env;
}

bool IsExecutable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

// Reaps `pid`, blocking. Fills exit_code/term_signal.
void Reap(pid_t pid, int* exit_code, int* term_signal) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) *exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) *term_signal = WTERMSIG(status);
}

// Spawns `path` with argv in its own process group; fds 1 and 2 are dup'ed from out_fd/err_fd.
int Spawn(const std::string& path, const std::vector<std::string>& argv, int out_fd, int err_fd,
          const std::vector<std::string>& env_overrides, pid_t* pid) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // A fresh process group, so a timeout can kill the child's own children too.
  posix_spawnattr_setpgroup(&attr, 0);
  // Children start with default signal dispositions and an empty mask whatever the test set.
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  std::vector<char*> args = MakeArgv(argv);
  // Built before the spawn: nothing is allocated in the child.
  const std::vector<std::string> env_strings = MakeEnv(env_overrides);
  std::vector<char*> env = MakeArgv(env_strings);
  int rv = ::posix_spawn(pid, path.c_str(), &actions, &attr, args.data(),
                         env_overrides.empty() ? environ : env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return rv;
}

void AppendBounded(std::string* s, const char* data, size_t n, size_t max) {
  if (s->size() >= max) return;
  s->append(data, std::min(n, max - s->size()));
}

}  // namespace

std::string FindExecutable(const std::string& name) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return IsExecutable(name) ? name : "";
  std::string dirs = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
  dirs += ":/usr/sbin:/sbin:/usr/local/sbin";
  std::stringstream ss(dirs);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) continue;
    std::string candidate = dir + "/" + name;
    if (IsExecutable(candidate)) return candidate;
  }
  return "";
}

bool ProcessResult::HasSanitizerReport() const {
  return err.find("ERROR: AddressSanitizer") != std::string::npos ||
         err.find("ERROR: LeakSanitizer") != std::string::npos ||
         err.find("runtime error:") != std::string::npos;
}

std::string ProcessResult::Describe() const {
  std::ostringstream os;
  if (!started) return "not started: " + spawn_error;
  if (timed_out) os << "TIMED OUT (killed) ";
  if (term_signal) os << "killed by signal " << term_signal << " ";
  os << "exit " << exit_code << " after " << static_cast<long>(elapsed_ms) << " ms";
  std::string tail = err.size() > 2000 ? "..." + err.substr(err.size() - 2000) : err;
  os << "\n--- stderr ---\n" << tail;
  std::string out_tail = out.size() > 2000 ? out.substr(0, 2000) + "..." : out;
  os << "\n--- stdout ---\n" << out_tail;
  return os.str();
}

ProcessResult RunProcess(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                         size_t max_output, const std::vector<std::string>& env) {
  ProcessResult result;
  if (argv.empty()) {
    result.spawn_error = "empty argv";
    return result;
  }
  std::string path = FindExecutable(argv[0]);
  if (path.empty()) {
    result.spawn_error = argv[0] + ": not found";
    return result;
  }
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    result.spawn_error = std::string("pipe: ") + strerror(errno);
    return result;
  }
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    result.spawn_error = std::string("pipe: ") + strerror(errno);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return result;
  }
  const Clock::time_point start = Clock::now();
  pid_t pid = -1;
  int rv = Spawn(path, argv, out_pipe[1], err_pipe[1], env, &pid);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (rv != 0) {
    result.spawn_error = path + ": " + strerror(rv);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    return result;
  }
  result.started = true;

  const Clock::time_point deadline = start + timeout;
  // After a kill, keep draining only briefly: a grandchild may still hold the pipes.
  Clock::time_point drain_deadline = Clock::time_point::max();
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    Clock::time_point now = Clock::now();
    if (!result.timed_out && now >= deadline) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      drain_deadline = now + std::chrono::seconds(2);
    }
    if (now >= drain_deadline) break;
    Clock::time_point until = result.timed_out ? drain_deadline : deadline;
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count() + 1;
    int n = ::poll(fds, 2, static_cast<int>(std::min<long long>(wait, 1000)));
    if (n < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = ::read(fds[i].fd, buf, sizeof(buf));
      if (got > 0) {
        AppendBounded(sinks[i], buf, static_cast<size_t>(got), max_output);
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (pollfd& p : fds) {
    if (p.fd >= 0) ::close(p.fd);
  }
  // The pipes closed; the child may still be exiting. Enforce the deadline on the exit too.
  while (true) {
    int status = 0;
    pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
      if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
      break;
    }
    if (w < 0 && errno != EINTR) break;
    if (!result.timed_out && Clock::now() >= deadline) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  result.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return result;
}

ChildProcess::~ChildProcess() { Stop(SIGTERM); }

bool ChildProcess::Start(const std::vector<std::string>& argv, const std::string& stdout_path,
                         const std::string& stderr_path, std::string* error) {
  if (pid_ > 0) {
    *error = "already started";
    return false;
  }
  std::string path = argv.empty() ? "" : FindExecutable(argv[0]);
  if (path.empty()) {
    *error = (argv.empty() ? std::string("(empty)") : argv[0]) + ": not found";
    return false;
  }
  auto open_sink = [](const std::string& p) {
    return ::open(p.empty() ? "/dev/null" : p.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
                  0644);
  };
  int out_fd = open_sink(stdout_path);
  int err_fd = open_sink(stderr_path);
  if (out_fd < 0 || err_fd < 0) {
    *error = std::string("open log: ") + strerror(errno);
    if (out_fd >= 0) ::close(out_fd);
    if (err_fd >= 0) ::close(err_fd);
    return false;
  }
  int rv = Spawn(path, argv, out_fd, err_fd, {}, &pid_);
  ::close(out_fd);
  ::close(err_fd);
  if (rv != 0) {
    pid_ = -1;
    *error = path + ": " + strerror(rv);
    return false;
  }
  return true;
}

bool ChildProcess::IsRunning() {
  if (pid_ <= 0) return false;
  int status = 0;
  pid_t w = ::waitpid(pid_, &status, WNOHANG);
  if (w == pid_ || (w < 0 && errno == ECHILD)) {
    pid_ = -1;
    return false;
  }
  return true;
}

void ChildProcess::Stop(int sig, std::chrono::milliseconds grace) {
  if (pid_ <= 0) return;
  ::kill(pid_, sig);
  const Clock::time_point deadline = Clock::now() + grace;
  while (Clock::now() < deadline) {
    int status = 0;
    pid_t w = ::waitpid(pid_, &status, WNOHANG);
    if (w == pid_ || (w < 0 && errno == ECHILD)) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int exit_code = 0, term_signal = 0;
  Reap(pid_, &exit_code, &term_signal);
  pid_ = -1;
}

}  // namespace netstack::test
