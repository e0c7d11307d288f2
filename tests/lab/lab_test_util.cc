#include "tests/lab/lab_test_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "tools/lab/lab_host.h"
#include "tools/lab/tun_device.h"

namespace netstack::test {
namespace {

std::string TempRoot() {
  const char* dir = std::getenv("TMPDIR");
  return dir != nullptr && dir[0] == '/' ? dir : "/tmp";
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

}  // namespace

std::string LabUnavailableReason() {
  std::string error;
  if (!HasLabPrivileges(&error)) return "the lab " + error;
  if (!TunAvailable(&error)) return error;
  std::string out;
  if (RunCapture({"ip", "-V"}, &out) != 0) return "iproute2's ip is missing";
  return "";
}

int RunCapture(const std::vector<std::string>& argv, std::string* output) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return -1;
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(pipe_fds[1], 1);
    dup2(pipe_fds[1], 2);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    int null_fd = open("/dev/null", O_RDONLY);
    dup2(null_fd, 0);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  output->clear();
  char buf[4096];
  ssize_t n;
  while ((n = read(pipe_fds[0], buf, sizeof(buf))) > 0) {
    if (output->size() < (1 << 20)) output->append(buf, n);
  }
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

HostSnapshot TakeHostSnapshot() {
  HostSnapshot s;
  RunCapture({"ip", "netns", "list"}, &s.netns_list);
  std::string out;
  RunCapture({"ip", "-o", "link", "show"}, &out);
  for (const std::string& line : Lines(out)) {
    // "3: nslab123: <POINTOPOINT..."
    size_t a = line.find(": ");
    size_t b = line.find(':', a + 2);
    if (a != std::string::npos && b != std::string::npos)
      s.links.insert(line.substr(a + 2, b - a - 2));
  }
  RunCapture({"nft", "list", "tables"}, &out);
  for (const std::string& line : Lines(out)) s.nft_tables.insert(line);
  std::ifstream mounts("/proc/mounts");
  std::string line;
  while (std::getline(mounts, line)) {
    if (line.find("netstack-lab") != std::string::npos) s.lab_mounts.push_back(line);
  }
  if (DIR* d = opendir(TempRoot().c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name.rfind("netstack-lab-", 0) == 0) s.work_dirs.insert(name);
    }
    closedir(d);
  }
  s.ip_forward = ReadIpForward();
  return s;
}

std::string NewSince(const HostSnapshot& before, const HostSnapshot& after) {
  // Other labs may run meanwhile (ctest -j, another user): only what belongs to a lab whose
  // process is gone counts, or a named namespace, which no lab makes.
  auto dead_owner = [](const std::string& name, const std::string& prefix) {
    if (name.rfind(prefix, 0) != 0) return false;
    long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    return pid > 0 && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
  };
  std::string out;
  std::set<std::string> old_netns;
  for (const std::string& l : Lines(before.netns_list)) old_netns.insert(l);
  for (const std::string& l : Lines(after.netns_list)) {
    if (!old_netns.count(l)) out += "named netns " + l + "\n";
  }
  for (const std::string& l : after.links) {
    if (!before.links.count(l) && dead_owner(l, "nslab")) out += "link " + l + "\n";
  }
  for (const std::string& t : after.nft_tables) {
    if (!before.nft_tables.count(t) && dead_owner(t, "table ip netstack_lab_")) {
      out += "nft " + t + "\n";
    }
  }
  for (const std::string& m : after.lab_mounts) out += "mount " + m + "\n";
  for (const std::string& w : after.work_dirs) {
    if (!before.work_dirs.count(w) && dead_owner(w, "netstack-lab-")) out += "work dir " + w + "\n";
  }
  if (after.ip_forward != before.ip_forward && !OtherLiveShell()) {
    out += "ip_forward " + before.ip_forward + " -> " + after.ip_forward + "\n";
  }
  return out;
}

// The first 64 KiB of a /proc file, "" when it cannot be read. With read(2), not an ifstream: a
// process that exits while its file is read makes read fail with ESRCH, which libstdc++'s
// filebuf turns into an exception (seen in CI under load).
static std::string ReadProcFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string out;
  char buf[4096];
  while (out.size() < 65536) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

std::vector<pid_t> ProcessesWith(const std::string& marker, const std::string& comm) {
  std::vector<pid_t> out;
  DIR* d = opendir("/proc");
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == getpid()) continue;
    std::string cmdline = ReadProcFile(std::string("/proc/") + e->d_name + "/cmdline");
    for (char& c : cmdline) c = c == '\0' ? ' ' : c;
    if (cmdline.find(marker) == std::string::npos) continue;
    if (!comm.empty()) {
      std::string name = ReadProcFile(std::string("/proc/") + e->d_name + "/comm");
      if (!name.empty() && name.back() == '\n') name.pop_back();
      if (name != comm) continue;
    }
    out.push_back(static_cast<pid_t>(pid));
  }
  closedir(d);
  return out;
}

bool WaitNoProcessWith(const std::string& marker, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!ProcessesWith(marker).empty()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

}  // namespace netstack::test
