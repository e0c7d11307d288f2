#include "tools/lab/lab_processes.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

extern char** environ;

namespace netstack {
namespace {

// Bound on the programs of one group (the servers of a plan are a handful).
constexpr int kMaxPrograms = 64;
// The signals the init forwards to its programs.
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

// The init's own state (a forked copy of the lab: only it touches these).
pid_t g_children[kMaxPrograms];
int g_child_count = 0;

void ForwardSignal(int signum, siginfo_t* info, void*) {
  // A terminal's Ctrl-C (SI_KERNEL) already reached every program of the foreground group.
  if (info != nullptr && info->si_code == SI_KERNEL) return;
  for (int i = 0; i < g_child_count; ++i) {
    if (g_children[i] > 0) kill(g_children[i], signum);
  }
}

void WriteAll(int fd, const char* text) {
  size_t n = std::strlen(text);
  while (n > 0) {
    ssize_t w = write(fd, text, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    text += w;
    n -= static_cast<size_t>(w);
  }
}

// Closes every descriptor from 3 up except those in `keep` (sorted).
void CloseAllBut(std::vector<int> keep) {
  std::sort(keep.begin(), keep.end());
  unsigned next = 3;
  for (int fd : keep) {
    if (fd < static_cast<int>(next)) continue;
    if (static_cast<unsigned>(fd) > next) syscall(SYS_close_range, next, fd - 1, 0);
    next = fd + 1;
  }
  syscall(SYS_close_range, next, ~0U, 0);
}

// Everything the init needs, prepared before the clone (the init allocates nothing).
struct InitPlan {
  std::vector<std::vector<char*>> argvs;
  std::vector<char*> envp;
  std::vector<int> log_fds;  // -1: inherit stdio
  int netns_fd = -1;
  const char* resolv_conf = nullptr;
  int exit_write = -1;
  int lifeline_read = -1;
  int null_fd = -1;
};

[[noreturn]] void RunInit(const InitPlan& plan) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  pollfd lifeline{plan.lifeline_read, POLLIN, 0};
  if (poll(&lifeline, 1, 0) != 0) _exit(1);  // the lab died before the death signal was armed
  std::vector<int> keep = {plan.netns_fd, plan.exit_write, plan.lifeline_read, plan.null_fd};
  for (int fd : plan.log_fds) keep.push_back(fd);
  CloseAllBut(keep);
  if (setns(plan.netns_fd, CLONE_NEWNET) != 0) {
    WriteAll(2, "netstack lab: cannot enter the lab's network namespace\n");
    _exit(1);
  }
  if (plan.resolv_conf != nullptr) {
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        mount(plan.resolv_conf, "/etc/resolv.conf", nullptr, MS_BIND, nullptr) != 0) {
      WriteAll(2, "netstack lab: cannot bind the lab's resolv.conf over /etc/resolv.conf\n");
      _exit(1);
    }
  }
  sigset_t forwarded, old;
  sigemptyset(&forwarded);
  for (int s : kForwarded) sigaddset(&forwarded, s);
  sigprocmask(SIG_BLOCK, &forwarded, &old);
  struct sigaction action {};
  action.sa_sigaction = ForwardSignal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (int s : kForwarded) sigaction(s, &action, nullptr);

  int running = 0;
  for (size_t i = 0; i < plan.argvs.size(); ++i) {
    pid_t pid = fork();
    if (pid == 0) {
      for (int s = 1; s < NSIG; ++s) signal(s, SIG_DFL);
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (plan.log_fds[i] >= 0) {
        dup2(plan.null_fd, 0);
        dup2(plan.log_fds[i], 1);
        dup2(plan.log_fds[i], 2);
      }
      CloseAllBut({});
      execvpe(plan.argvs[i][0], plan.argvs[i].data(), const_cast<char**>(plan.envp.data()));
      WriteAll(2, "netstack lab: cannot run '");
      WriteAll(2, plan.argvs[i][0]);
      WriteAll(2, "': ");
      WriteAll(2, strerror(errno));
      WriteAll(2, "\n");
      _exit(127);
    }
    g_children[g_child_count++] = pid;
    if (pid > 0) ++running;
  }
  sigprocmask(SIG_SETMASK, &old, nullptr);
  for (int i = 0; i < g_child_count; ++i) {
    if (g_children[i] < 0) {
      int event[2] = {i, 127 << 8};
      ssize_t ignored = write(plan.exit_write, event, sizeof(event));
      (void)ignored;
    }
  }
  while (running > 0) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < g_child_count; ++i) {
      if (g_children[i] != pid) continue;
      g_children[i] = 0;
      --running;
      int event[2] = {i, status};
      ssize_t ignored = write(plan.exit_write, event, sizeof(event));
      (void)ignored;
    }
  }
  _exit(0);  // the kernel kills whatever is left in the PID namespace
}

}  // namespace

int ExitCodeOf(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

LabProcesses::~LabProcesses() {
  if (init_pid_ > 0) Stop(0);
  if (exit_read_ >= 0) close(exit_read_);
  if (lifeline_write_ >= 0) close(lifeline_write_);
}

bool LabProcesses::Start(const LabProcessSpec& spec, std::string* error) {
  if (spec.programs.empty() || spec.programs.size() > kMaxPrograms) {
    *error = "a process group needs 1 to " + std::to_string(kMaxPrograms) + " programs";
    return false;
  }
  InitPlan plan;
  std::vector<std::string> env_storage;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    std::string key = entry.substr(0, entry.find('='));
    bool replaced = std::any_of(spec.env.begin(), spec.env.end(), [&](const std::string& x) {
      return x.compare(0, key.size() + 1, key + "=") == 0;
    });
    if (!replaced) env_storage.push_back(entry);
  }
  for (const std::string& e : spec.env) env_storage.push_back(e);
  for (std::string& e : env_storage) plan.envp.push_back(e.data());
  plan.envp.push_back(nullptr);
  for (const auto& argv : spec.programs) {
    if (argv.empty() || argv[0].empty()) {
      *error = "an empty command";
      return false;
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    plan.argvs.push_back(std::move(args));
  }
  std::vector<int> opened;
  auto close_opened = [&opened] {
    for (int fd : opened) close(fd);
  };
  for (size_t i = 0; i < spec.programs.size(); ++i) {
    int fd = -1;
    if (i < spec.log_files.size() && !spec.log_files[i].empty()) {
      fd = open(spec.log_files[i].c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0) {
        *error = "cannot create '" + spec.log_files[i] + "': " + std::strerror(errno);
        close_opened();
        return false;
      }
      opened.push_back(fd);
    }
    plan.log_fds.push_back(fd);
  }
  plan.null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (plan.null_fd >= 0) opened.push_back(plan.null_fd);
  plan.netns_fd = spec.netns_fd;
  if (!spec.resolv_conf.empty()) plan.resolv_conf = spec.resolv_conf.c_str();
  int exit_pipe[2], lifeline[2];
  if (pipe2(exit_pipe, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    close_opened();
    return false;
  }
  if (pipe2(lifeline, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    close(exit_pipe[0]);
    close(exit_pipe[1]);
    close_opened();
    return false;
  }
  plan.exit_write = exit_pipe[1];
  plan.lifeline_read = lifeline[0];
  // A fork into new PID and mount namespaces: the child is PID 1 of its namespace.
  long pid =
      syscall(SYS_clone, CLONE_NEWPID | CLONE_NEWNS | SIGCHLD, nullptr, nullptr, nullptr, nullptr);
  if (pid == 0) RunInit(plan);
  int saved = errno;
  close(exit_pipe[1]);
  close(lifeline[0]);
  close_opened();
  if (pid < 0) {
    close(exit_pipe[0]);
    close(lifeline[1]);
    *error = std::string("cannot start a process namespace: ") + std::strerror(saved);
    return false;
  }
  init_pid_ = static_cast<pid_t>(pid);
  exit_read_ = exit_pipe[0];
  fcntl(exit_read_, F_SETFL, fcntl(exit_read_, F_GETFL) | O_NONBLOCK);
  lifeline_write_ = lifeline[1];
  return true;
}

LabProcesses::ExitRead LabProcesses::ReadExit(int* index, int* wait_status) {
  if (exit_read_ < 0) return ExitRead::kClosed;
  int event[2];
  ssize_t n;
  do {
    n = read(exit_read_, event, sizeof(event));
  } while (n < 0 && errno == EINTR);
  if (n == 0) return ExitRead::kClosed;
  if (n != static_cast<ssize_t>(sizeof(event))) return ExitRead::kNone;  // writes of 8: atomic
  *index = event[0];
  *wait_status = event[1];
  return ExitRead::kExit;
}

void LabProcesses::Signal(int signum) {
  if (init_pid_ > 0) kill(init_pid_, signum);
}

void LabProcesses::Stop(int grace_ms) {
  if (init_pid_ <= 0) return;
  int status = 0;
  if (grace_ms > 0) {
    kill(init_pid_, SIGTERM);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
    while (std::chrono::steady_clock::now() < deadline) {
      pid_t done = waitpid(init_pid_, &status, WNOHANG);
      if (done == init_pid_ || (done < 0 && errno == ECHILD)) {
        init_pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  kill(init_pid_, SIGKILL);
  while (waitpid(init_pid_, &status, 0) < 0 && errno == EINTR) {
  }
  init_pid_ = -1;
}

}  // namespace netstack
