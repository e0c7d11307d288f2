// DNS servers on 127.0.0.1 for the CLI integration tests.
//
// LocalDns: the DNS room's DnsmasqFixture (tests/dns/dnsmasq_fixture.h: a real dnsmasq serving
// chosen names with one chosen TTL, NXDOMAIN for other .test names, never forwarding, logging
// every query), with the Start/skipped/message shape the other fixtures here have.
//
// FaultDns: the DNS room's fault server program (fault_dns_server_main --port N --mode M) run as
// a child process: SERVFAIL, silence, garbage or REFUSED for every query.
#ifndef TESTS_INTEGRATION_LOCAL_DNS_H_
#define TESTS_INTEGRATION_LOCAL_DNS_H_

#include <chrono>
#include <string>
#include <vector>

#include "tests/dns/dnsmasq_fixture.h"
#include "tests/integration/process_runner.h"

namespace netstack::test {

// One address record: `address` is IPv4 (A) or IPv6 (AAAA).
using DnsRecord = DnsmasqFixture::Record;

class LocalDns {
 public:
  // Starts dnsmasq on a free port serving `records`, every answer with TTL `ttl_seconds`.
  // Returns true when it serves. On false, message() says why; the DNS fixture's contract is
  // that callers skip then (dnsmasq missing and not installable), so skipped() is true.
  bool Start(const std::vector<DnsRecord>& records, int ttl_seconds = 60);
  bool skipped() const { return skipped_; }
  const std::string& message() const { return dns_.error(); }

  int port() const { return dns_.port(); }
  // "127.0.0.1:<port>", the value for --dns-server.
  std::string server() const { return "127.0.0.1:" + std::to_string(dns_.port()); }

  // How many queries of `type` ("A", "AAAA") for `name` dnsmasq has logged so far.
  int CountQueries(const std::string& name, const std::string& type = "A") const {
    return static_cast<int>(dns_.QueryCount(name, type));
  }
  // CountQueries once it reaches `at_least`, or after `timeout`: a client that exits right
  // after sending a query can be faster than dnsmasq's logging of it.
  int WaitForQueries(const std::string& name, const std::string& type, int at_least,
                     std::chrono::milliseconds timeout = std::chrono::seconds(2)) const;
  std::string ReadLog() const { return dns_.ReadLog(); }

 private:
  DnsmasqFixture dns_;
  bool skipped_ = false;
};

class FaultDns {
 public:
  // The fault server program's path: $NETSTACK_FAULT_DNS_BIN, else the one CMake built.
  static std::string ProgramPath();

  // Stops the server.
  ~FaultDns();

  // Starts it on a free port in `mode` (servfail | silent | garbage | refused) and waits until
  // it has bound the port. Returns false with skipped()/message() set.
  bool Start(const std::string& mode);
  bool skipped() const { return skipped_; }
  const std::string& message() const { return message_; }
  int port() const { return port_; }
  std::string server() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  ChildProcess process_;
  int port_ = 0;
  bool skipped_ = false;
  std::string message_;
};

}  // namespace netstack::test

#endif  // TESTS_INTEGRATION_LOCAL_DNS_H_
