// DNS servers on 127.0.0.1 for integration tests.
//
// LocalDns: a real dnsmasq (from Debian's dnsmasq-base) serving chosen names with chosen TTLs,
// answering NXDOMAIN for any other name under .test, never forwarding anywhere (no network),
// and logging every query so tests can count resolutions.
//
// FaultDns: the DNS room's fault server program (fault_dns_server_main --port N --mode M) run as
// a child process: SERVFAIL, silence, garbage or REFUSED for every query.
#ifndef TESTS_INTEGRATION_LOCAL_DNS_H_
#define TESTS_INTEGRATION_LOCAL_DNS_H_

#include <string>
#include <vector>

#include "tests/integration/process_runner.h"
#include "tests/integration/temp_dir.h"

namespace netstack::test {

struct DnsRecord {
  std::string name;
  std::string ipv4;  // "" for none
  std::string ipv6;  // "" for none
  int ttl_seconds = 60;
};

class LocalDns {
 public:
  LocalDns();
  // Stops dnsmasq.
  ~LocalDns();
  LocalDns(const LocalDns&) = delete;
  LocalDns& operator=(const LocalDns&) = delete;

  // Starts dnsmasq on a free port serving `records`. Returns true when it answers. Otherwise
  // skipped() says whether to skip (dnsmasq missing and not installable) and message() why.
  bool Start(const std::vector<DnsRecord>& records);
  bool skipped() const { return skipped_; }
  const std::string& message() const { return message_; }

  int port() const { return port_; }
  // "127.0.0.1:<port>", the value for --dns-server.
  std::string server() const { return "127.0.0.1:" + std::to_string(port_); }

  // How many queries of `type` ("A", "AAAA") for `name` dnsmasq has logged so far.
  int CountQueries(const std::string& name, const std::string& type = "A") const;
  std::string ReadLog() const;

 private:
  // Sends one A query for a name that does not exist and waits for the answer: proves the
  // server is up (dnsmasq has no TCP readiness to poll).
  bool Probe() const;

  TempDir dir_;
  ChildProcess dnsmasq_;
  int port_ = 0;
  bool skipped_ = false;
  std::string message_;
};

class FaultDns {
 public:
  // The fault server program's path ("" when the DNS room has not built it).
  static std::string ProgramPath();

  // Stops the server.
  ~FaultDns();

  // Starts it on a free port in `mode` (servfail | silent | garbage | refused). Returns false
  // with skipped()/message() as LocalDns.
  bool Start(const std::string& mode);
  bool skipped() const { return skipped_; }
  const std::string& message() const { return message_; }
  std::string server() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  ChildProcess process_;
  int port_ = 0;
  bool skipped_ = false;
  std::string message_;
};

}  // namespace netstack::test

#endif  // TESTS_INTEGRATION_LOCAL_DNS_H_
