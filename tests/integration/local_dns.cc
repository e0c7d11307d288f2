#include "tests/integration/local_dns.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <thread>

#include "tests/integration/loopback_port.h"

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

bool LocalDns::Start(const std::vector<DnsRecord>& records, int ttl_seconds) {
  if (dns_.Start(records, ttl_seconds)) return true;
  skipped_ = true;
  return false;
}

int LocalDns::WaitForQueries(const std::string& name, const std::string& type, int at_least,
                             std::chrono::milliseconds timeout) const {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int n = CountQueries(name, type);
  while (n < at_least && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    n = CountQueries(name, type);
  }
  return n;
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
