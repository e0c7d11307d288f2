#include "tests/integration/local_dns.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "tests/integration/loopback_port.h"
#include "tests/integration/package_installer.h"

namespace netstack::test {
namespace {

// True once some process has bound UDP 127.0.0.1:port (our own bind then fails). Works for a
// server that never answers, where a query could not prove readiness.
bool UdpPortBound(int port) {
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool bound =
      ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 && errno == EADDRINUSE;
  ::close(fd);
  return bound;
}

bool WaitForUdpPort(ChildProcess* child, int port) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    if (UdpPortBound(port)) return true;
    if (!child->IsRunning()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

}  // namespace

LocalDns::LocalDns() : dir_("dnsmasq") {}

LocalDns::~LocalDns() { dnsmasq_.Stop(SIGTERM); }

bool LocalDns::Start(const std::vector<DnsRecord>& records) {
  std::string why;
  std::string dnsmasq = EnsureProgram("dnsmasq", "dnsmasq-base", &why);
  if (dnsmasq.empty()) {
    skipped_ = true;
    message_ = why;
    return false;
  }
  if (dir_.path().empty()) {
    message_ = "cannot create a temp dir";
    return false;
  }
  for (int attempt = 0; attempt < 3; ++attempt) {
    port_ = PickFreePort();
    std::vector<std::string> argv = {
        dnsmasq, "--keep-in-foreground", "--no-resolv", "--no-hosts", "--no-poll",
        "--bind-interfaces", "--listen-address=127.0.0.1", "--port=" + std::to_string(port_),
        // Unknown names under .test are NXDOMAIN; nothing is ever forwarded.
        "--local=/test/", "--cache-size=0", "--log-queries",
        "--log-facility=" + dir_.Join("dnsmasq.log"), "--pid-file=" + dir_.Join("dnsmasq.pid"),
        "--conf-file=/dev/null"};
    // As root, dnsmasq would switch to `nobody`, which could not write the log in our dir.
    if (::geteuid() == 0) argv.push_back("--user=root");
    for (const DnsRecord& r : records) {
      std::string rec = "--host-record=" + r.name;
      if (!r.ipv4.empty()) rec += "," + r.ipv4;
      if (!r.ipv6.empty()) rec += "," + r.ipv6;
      rec += "," + std::to_string(r.ttl_seconds);
      argv.push_back(rec);
    }
    std::string error;
    if (!dnsmasq_.Start(argv, "", dir_.Join("stderr.log"), &error)) {
      message_ = error;
      return false;
    }
    if (WaitForUdpPort(&dnsmasq_, port_)) return true;
    dnsmasq_.Stop(SIGKILL);
    std::string err;
    ReadFileToString(dir_.Join("stderr.log"), &err);
    message_ = "dnsmasq did not start: " + err + ReadLog();
    if (err.find("in use") == std::string::npos) break;
  }
  return false;
}

int LocalDns::CountQueries(const std::string& name, const std::string& type) const {
  const std::string needle = "query[" + type + "] " + name + " from ";
  std::istringstream in(ReadLog());
  std::string line;
  int n = 0;
  while (std::getline(in, line)) n += line.find(needle) != std::string::npos ? 1 : 0;
  return n;
}

std::string LocalDns::ReadLog() const {
  std::string text;
  ReadFileToString(dir_.Join("dnsmasq.log"), &text);
  return text;
}

std::string FaultDns::ProgramPath() {
  const char* env = std::getenv("NETSTACK_FAULT_DNS_BIN");
  if (env && *env) return env;
#ifdef FAULT_DNS_SERVER_BIN
  return FAULT_DNS_SERVER_BIN;
#else
  return "";
#endif
}

FaultDns::~FaultDns() { process_.Stop(SIGTERM); }

bool FaultDns::Start(const std::string& mode) {
  const std::string program = ProgramPath();
  if (program.empty()) {
    skipped_ = true;
    message_ = "fault_dns_server_main is not built (tests/dns has not defined the target)";
    return false;
  }
  for (int attempt = 0; attempt < 3; ++attempt) {
    port_ = PickFreePort();
    std::string error;
    if (!process_.Start({program, "--port", std::to_string(port_), "--mode", mode}, "", "",
                        &error)) {
      message_ = error;
      return false;
    }
    if (WaitForUdpPort(&process_, port_)) return true;
    process_.Stop(SIGKILL);
  }
  message_ = "fault_dns_server_main did not bind its port";
  return false;
}

}  // namespace netstack::test
