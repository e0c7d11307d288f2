// DnsmasqFixture: runs Debian's dnsmasq as a real authoritative-for-the-test DNS server on
// 127.0.0.1 at a free high port, serving only the records a test gives it, with a TTL the test
// chooses, and logging every query so tests can count what reached the network. Reusable by
// any integration test (library target `dnsmasq_fixture`); it does not depend on Catch2.
//
//   DnsmasqFixture dns;
//   if (!dns.Start({{"a.test", "10.1.2.3"}, {"a.test", "fd00::3"}}, /*ttl_seconds=*/30)) {
//     WARN("skipped: " << dns.error());  // dnsmasq missing and not installable
//     return;
//   }
//   ... point a resolver at dns.endpoint() ...
//   CHECK(dns.QueryCount("a.test") == 2);  // one A and one AAAA query
//
// Names in the "test" domain that have no record get NXDOMAIN (dnsmasq --local=/test/); names
// elsewhere get REFUSED (no upstream servers). The fixture stops dnsmasq in its destructor.
#ifndef TESTS_DNS_DNSMASQ_FIXTURE_H_
#define TESTS_DNS_DNSMASQ_FIXTURE_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "net/base/ip_address.h"

namespace netstack {

class DnsmasqFixture {
 public:
  // One address record: `address` is IPv4 (an A record) or IPv6 (AAAA). Several records may
  // share a name.
  struct Record {
    std::string name;
    std::string address;
  };

  struct Options {
    std::vector<Record> records;
    // TTL of every answer (dnsmasq --local-ttl, which also applies to --host-record answers;
    // without it dnsmasq answers local records with TTL 0).
    int ttl_seconds = 60;
    // Domains dnsmasq is authoritative for: unknown names under them get NXDOMAIN.
    std::vector<std::string> local_domains = {"test"};
  };

  // The dnsmasq binary (Debian package dnsmasq-base).
  static constexpr const char* kDnsmasqPath = "/usr/sbin/dnsmasq";

  DnsmasqFixture() = default;
  // Stops dnsmasq (SIGTERM, SIGKILL after 2 s) and removes its temporary directory.
  ~DnsmasqFixture();
  DnsmasqFixture(const DnsmasqFixture&) = delete;
  DnsmasqFixture& operator=(const DnsmasqFixture&) = delete;

  // Starts dnsmasq and waits until it serves. If dnsmasq is missing, tries
  // `apt-get install -y dnsmasq-base` once (as root). Returns false with error() set when it
  // cannot run; callers skip with that message.
  bool Start(const std::vector<Record>& records, int ttl_seconds);
  bool Start(const Options& options);
  void Stop();

  bool running() const { return pid_ > 0; }
  uint16_t port() const { return port_; }
  // 127.0.0.1:port(), for AresDnsTransport::Options::servers or --dns-server.
  IPEndPoint endpoint() const;
  const std::string& error() const { return error_; }
  const std::string& log_path() const { return log_path_; }

  // Queries dnsmasq logged for `name` (every type), or of one type ("A", "AAAA").
  size_t QueryCount(const std::string& name) const;
  size_t QueryCount(const std::string& name, const std::string& type) const;
  // The whole query log, for failure messages.
  std::string ReadLog() const;

 private:
  bool EnsureInstalled();
  // One attempt on one port; sets *port_in_use when dnsmasq could not bind it.
  bool Launch(const Options& options, uint16_t port, bool* port_in_use);

  pid_t pid_ = -1;
  uint16_t port_ = 0;
  std::string dir_;
  std::string log_path_;
  std::string output_path_;
  std::string error_;
};

}  // namespace netstack

#endif  // TESTS_DNS_DNSMASQ_FIXTURE_H_
