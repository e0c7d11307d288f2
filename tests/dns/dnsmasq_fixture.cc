#include "tests/dns/dnsmasq_fixture.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace netstack {

namespace {

// dnsmasq logs this once its listening sockets are bound.
constexpr char kStartedMarker[] = "started, version";
constexpr auto kStartTimeout = std::chrono::seconds(5);
constexpr auto kStopTimeout = std::chrono::seconds(2);
constexpr auto kPollInterval = std::chrono::milliseconds(10);
constexpr int kPortAttempts = 5;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string LastLine(const std::string& text) {
  size_t end = text.find_last_not_of("\r\n");
  if (end == std::string::npos) return "";
  size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1, end - start);
}

// A port on 127.0.0.1 that is free for both UDP and TCP right now (dnsmasq binds both); 0 if
// none was found. Another process may take it before dnsmasq does: Start() retries.
uint16_t PickFreePort() {
  for (int attempt = 0; attempt < 20; ++attempt) {
    sockaddr_in address = {};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (udp < 0) return 0;
    socklen_t length = sizeof(address);
    uint16_t port = 0;
    if (bind(udp, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
        getsockname(udp, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      port = ntohs(address.sin_port);
    }
    int tcp = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool tcp_free = tcp >= 0 && port != 0 &&
                    bind(tcp, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
    if (tcp >= 0) close(tcp);
    close(udp);
    if (tcp_free && port >= 1024) return port;
  }
  return 0;
}

}  // namespace

DnsmasqFixture::~DnsmasqFixture() {
  Stop();
  if (!dir_.empty()) {
    unlink(log_path_.c_str());
    unlink(output_path_.c_str());
    rmdir(dir_.c_str());
  }
}

bool DnsmasqFixture::Start(const std::vector<Record>& records, int ttl_seconds) {
  Options options;
  options.records = records;
  options.ttl_seconds = ttl_seconds;
  return Start(options);
}

bool DnsmasqFixture::Start(const Options& options) {
  Stop();
  error_.clear();
  if (!EnsureInstalled()) return false;
  if (dir_.empty()) {
    char pattern[] = "/tmp/netstack-dnsmasq-XXXXXX";
    if (!mkdtemp(pattern)) {
      error_ = "cannot create a temporary directory for dnsmasq's log";
      return false;
    }
    dir_ = pattern;
    log_path_ = dir_ + "/queries.log";
    output_path_ = dir_ + "/output.log";
  }
  for (int attempt = 0; attempt < kPortAttempts; ++attempt) {
    uint16_t port = PickFreePort();
    if (port == 0) {
      error_ = "no free port on 127.0.0.1";
      return false;
    }
    bool port_in_use = false;
    if (Launch(options, port, &port_in_use)) return true;
    if (!port_in_use) return false;  // A real failure; error_ says what.
  }
  return false;
}

bool DnsmasqFixture::EnsureInstalled() {
  if (access(kDnsmasqPath, X_OK) == 0) return true;
  if (geteuid() == 0) {
    // The brief of the test suite: install Debian's package if it is missing.
    int rv = std::system("apt-get install -y dnsmasq-base >/dev/null 2>&1");
    (void)rv;
    if (access(kDnsmasqPath, X_OK) == 0) return true;
  }
  error_ = std::string("dnsmasq not found at ") + kDnsmasqPath +
           " and `apt-get install -y dnsmasq-base` did not provide it";
  return false;
}

bool DnsmasqFixture::Launch(const Options& options, uint16_t port, bool* port_in_use) {
  unlink(log_path_.c_str());
  std::vector<std::string> args = {
      kDnsmasqPath,
      "--no-daemon",
      "--conf-file=/dev/null",  // Ignore /etc/dnsmasq.conf.
      "--no-resolv",            // No upstream servers...
      "--no-hosts",             // ...and not /etc/hosts: only our records.
      "--bind-interfaces",
      "--listen-address=127.0.0.1",
      "--port=" + std::to_string(port),
      "--log-queries",
      "--log-facility=" + log_path_,
      "--pid-file=",  // None.
      "--local-ttl=" + std::to_string(options.ttl_seconds),
  };
  // As root dnsmasq would switch to user "nobody", who cannot write our log.
  if (geteuid() == 0) args.push_back("--user=root");
  for (const std::string& domain : options.local_domains)
    args.push_back("--local=/" + domain + "/");
  for (const Record& record : options.records) {
    args.push_back("--host-record=" + record.name + "," + record.address);
  }
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  int output = open(output_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (output < 0) {
    error_ = "cannot open " + output_path_;
    return false;
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(output);
    error_ = "fork failed";
    return false;
  }
  if (pid == 0) {
    // The child: only async-signal-safe calls until exec. Die with the test process.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    dup2(output, STDOUT_FILENO);
    dup2(output, STDERR_FILENO);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(output);
  pid_ = pid;

  const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      std::string text = ReadFile(output_path_);
      *port_in_use = text.find("Address already in use") != std::string::npos;
      error_ = "dnsmasq exited at start: " + LastLine(text);
      return false;
    }
    if (ReadFile(log_path_).find(kStartedMarker) != std::string::npos) {
      port_ = port;
      return true;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  Stop();
  error_ = "dnsmasq did not start within 5 s: " + LastLine(ReadFile(output_path_));
  return false;
}

void DnsmasqFixture::Stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + kStopTimeout;
  int status = 0;
  while (waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  pid_ = -1;
}

IPEndPoint DnsmasqFixture::endpoint() const {
  return IPEndPoint(IPAddress::IPv4(127, 0, 0, 1), port_);
}

size_t DnsmasqFixture::QueryCount(const std::string& name) const { return QueryCount(name, ""); }

size_t DnsmasqFixture::QueryCount(const std::string& name, const std::string& type) const {
  // Lines look like: "Nov 21 13:21:31 dnsmasq[6872]: query[AAAA] a.test from 127.0.0.1".
  std::istringstream log(ReadLog());
  std::string line;
  size_t count = 0;
  while (std::getline(log, line)) {
    size_t open = line.find("query[");
    if (open == std::string::npos) continue;
    size_t close = line.find("] ", open);
    size_t from = line.find(" from ", close == std::string::npos ? open : close);
    if (close == std::string::npos || from == std::string::npos) continue;
    std::string line_type = line.substr(open + 6, close - open - 6);
    std::string line_name = line.substr(close + 2, from - close - 2);
    if (line_name == name && (type.empty() || line_type == type)) ++count;
  }
  return count;
}

std::string DnsmasqFixture::ReadLog() const { return ReadFile(log_path_); }

}  // namespace netstack
