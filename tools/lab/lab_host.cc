#include "tools/lab/lab_host.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace netstack {
namespace {

constexpr char kWorkPrefix[] = "netstack-lab-";

std::string TempRoot() {
  const char* dir = std::getenv("TMPDIR");
  return dir != nullptr && dir[0] == '/' ? dir : "/tmp";
}

// The pid in "netstack-lab-<pid>-XXXXXX", or 0.
pid_t PidOfWorkDir(const std::string& name) {
  if (name.rfind(kWorkPrefix, 0) != 0) return 0;
  size_t start = sizeof(kWorkPrefix) - 1;
  size_t dash = name.find('-', start);
  if (dash == std::string::npos || dash == start || dash - start > 9) return 0;
  pid_t pid = 0;
  for (size_t i = start; i < dash; ++i) {
    if (name[i] < '0' || name[i] > '9') return 0;
    pid = pid * 10 + (name[i] - '0');
  }
  return pid;
}

volatile sig_atomic_t g_caught_signal = 0;

void RecordSignal(int signum) {
  if (g_caught_signal == 0) g_caught_signal = signum;
}

bool Alive(pid_t pid) { return kill(pid, 0) == 0 || errno == EPERM; }

// Runs argv quietly and waits; true if it exited 0.
bool RunQuietly(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    freopen("/dev/null", "w", stderr);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

bool HasLabPrivileges(std::string* error) {
  std::ifstream status("/proc/self/status");
  std::string line;
  unsigned long long effective = 0;
  bool found = false;
  while (std::getline(status, line)) {
    if (line.rfind("CapEff:", 0) == 0) {
      effective = std::strtoull(line.c_str() + 7, nullptr, 16);
      found = true;
    }
  }
  constexpr unsigned long long kNetAdmin = 1ULL << 12, kSysAdmin = 1ULL << 21;
  if (found && (effective & kNetAdmin) && (effective & kSysAdmin)) return true;
  if (found && (effective & kNetAdmin)) {
    *error = "needs root or CAP_SYS_ADMIN as well as CAP_NET_ADMIN (creating namespaces)";
  } else {
    *error = "needs root or CAP_NET_ADMIN (creating network namespaces)";
  }
  return false;
}

std::string MakeLabWorkDir(std::string* error) {
  std::string pattern = TempRoot() + "/" + kWorkPrefix + std::to_string(getpid()) + "-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr) {
    *error = "cannot create a work folder like '" + pattern + "': " + std::strerror(errno);
    return "";
  }
  chmod(buffer.data(), 0755);
  return buffer.data();
}

void RemoveLabWorkDir(const std::string& path) {
  if (path.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path, ignored);
}

std::string ReadIpForward() {
  std::ifstream in("/proc/sys/net/ipv4/ip_forward");
  std::string value;
  in >> value;
  return value == "0" || value == "1" ? value : "";
}

bool WriteIpForward(const std::string& value) {
  std::ofstream out("/proc/sys/net/ipv4/ip_forward");
  out << value << "\n";
  out.flush();
  return static_cast<bool>(out);
}

void CatchLabSignals() {
  struct sigaction action {};
  action.sa_handler = RecordSignal;
  sigemptyset(&action.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &action, nullptr);
}

int LabSignalCaught() { return g_caught_signal; }

void ClearLabSignal() { g_caught_signal = 0; }

bool OtherLiveShell() {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(TempRoot(), ec)) {
    pid_t pid = PidOfWorkDir(entry.path().filename().string());
    if (pid <= 0 || pid == getpid() || !Alive(pid)) continue;
    if (std::filesystem::exists(entry.path() / kShellStateFile, ec)) return true;
  }
  return false;
}

int SweepDeadLabs() {
  std::error_code ec;
  int swept = 0;
  bool live_shell = false;
  std::string forward_to_restore;
  std::vector<std::string> dead;
  for (const auto& entry : std::filesystem::directory_iterator(TempRoot(), ec)) {
    std::string name = entry.path().filename().string();
    pid_t pid = PidOfWorkDir(name);
    if (pid <= 0 || !entry.is_directory(ec) || entry.is_symlink(ec)) continue;
    bool has_state = std::filesystem::exists(entry.path() / kShellStateFile, ec);
    if (Alive(pid)) {
      live_shell = live_shell || has_state;
      continue;
    }
    dead.push_back(entry.path().string());
  }
  for (const std::string& dir : dead) {
    std::ifstream state(dir + "/" + kShellStateFile);
    std::string key, value;
    while (state >> key >> value) {
      if (key == "nft_table") RunQuietly({"nft", "delete", "table", "ip", value});
      if (key == "ip_forward") forward_to_restore = value;
    }
    RemoveLabWorkDir(dir);
    ++swept;
  }
  if (!forward_to_restore.empty() && !live_shell) WriteIpForward(forward_to_restore);
  return swept;
}

}  // namespace netstack
