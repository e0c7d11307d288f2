#include "tools/lab/lab_namespace.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace netstack {
namespace {

// The last non-empty line of `text`, at most 200 bytes.
std::string LastLine(const std::string& text) {
  size_t end = text.find_last_not_of("\n\r ");
  if (end == std::string::npos) return "";
  size_t start = text.rfind('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  std::string line = text.substr(start, end + 1 - start);
  if (line.size() > 200) line = line.substr(0, 200) + "...";
  return line;
}

std::string Joined(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

}  // namespace

LabNamespace::~LabNamespace() {
  if (fd_ >= 0) close(fd_);
}

bool LabNamespace::Create(std::string* error) {
  int original = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  if (original < 0) {
    *error = std::string("cannot open /proc/thread-self/ns/net: ") + std::strerror(errno);
    return false;
  }
  if (unshare(CLONE_NEWNET) != 0) {
    *error = std::string("cannot create a network namespace: ") + std::strerror(errno);
    close(original);
    return false;
  }
  fd_ = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  int saved = errno;
  // The lab is IPv4 only: no IPv6 link-local addresses, router solicitations or MLD reports on
  // the link (they would count in its statistics).
  for (const char* path : {"/proc/sys/net/ipv6/conf/all/disable_ipv6",
                           "/proc/sys/net/ipv6/conf/default/disable_ipv6"}) {
    int sysctl = open(path, O_WRONLY | O_CLOEXEC);
    if (sysctl < 0) continue;  // a kernel without IPv6
    ssize_t ignored = write(sysctl, "1\n", 2);
    (void)ignored;
    close(sysctl);
  }
  if (setns(original, CLONE_NEWNET) != 0) {
    // The thread is stranded in the new namespace: nothing sane can follow.
    std::abort();
  }
  close(original);
  if (fd_ < 0) {
    *error = std::string("cannot hold the new network namespace: ") + std::strerror(saved);
    return false;
  }
  return RunIn({"ip", "link", "set", "lo", "up"}, error);
}

bool LabNamespace::RunIn(const std::vector<std::string>& argv, std::string* error, int timeout_ms) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    close(err_pipe[0]);
    close(err_pipe[1]);
    return false;
  }
  if (pid == 0) {
    // The child: only async-signal-safe calls until exec.
    dup2(err_pipe[1], 2);
    int null_fd = open("/dev/null", O_RDWR);
    if (null_fd >= 0) {
      dup2(null_fd, 0);
      dup2(null_fd, 1);
    }
    if (fd_ >= 0 && setns(fd_, CLONE_NEWNET) != 0) _exit(126);
    execvp(args[0], args.data());
    const char msg[] = "cannot run the program (is iproute2 installed?)\n";
    ssize_t ignored = write(2, msg, sizeof(msg) - 1);
    (void)ignored;
    _exit(127);
  }
  close(err_pipe[1]);
  std::string stderr_text;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  bool timed_out = false;
  for (;;) {
    int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                    deadline - std::chrono::steady_clock::now())
                                    .count());
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{err_pipe[0], POLLIN, 0};
    int n = poll(&p, 1, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    char buf[512];
    ssize_t got = read(err_pipe[0], buf, sizeof(buf));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    if (stderr_text.size() < 16384) stderr_text.append(buf, got);
  }
  close(err_pipe[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    *error = "'" + Joined(argv) + "' did not finish within " + std::to_string(timeout_ms) + " ms";
    return false;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  std::string why = LastLine(stderr_text);
  *error = "'" + Joined(argv) + "' failed" + (why.empty() ? "" : ": " + why);
  return false;
}

NetnsScope::NetnsScope(int netns_fd) {
  original_ = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  if (original_ < 0) {
    error_ = errno;
    return;
  }
  if (setns(netns_fd, CLONE_NEWNET) != 0) {
    error_ = errno;
    close(original_);
    original_ = -1;
    return;
  }
  ok_ = true;
}

NetnsScope::~NetnsScope() {
  if (original_ < 0) return;
  if (setns(original_, CLONE_NEWNET) != 0) std::abort();  // stranded: nothing sane can follow
  close(original_);
}

}  // namespace netstack
