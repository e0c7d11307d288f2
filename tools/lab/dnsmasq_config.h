// DnsmasqConfig: the text of the lab's dnsmasq.conf. dnsmasq answers A queries for every host
// of the site (host-record: the exact name only, not its subdomains) on the DNS address, port 53,
// UDP and TCP, and nothing else: no upstream servers (no-resolv), no /etc/hosts, no DHCP. Names
// outside the site get NXDOMAIN; AAAA queries for a site host get an empty answer (NOERROR).
#ifndef TOOLS_LAB_DNSMASQ_CONFIG_H_
#define TOOLS_LAB_DNSMASQ_CONFIG_H_

#include <string>
#include <utility>
#include <vector>

namespace netstack {

// The TTL of the lab's answers, as the simulator's dns_ttl_s default: a client caches a name
// for the whole of a page load and resolves it once, as it would a real site's.
inline constexpr int kLabDnsTtlSeconds = 300;

struct DnsmasqConfigParams {
  std::string work_dir;  // pid file and logs/dnsmasq.log go here
  std::string listen_address;
  int port = 53;
  int ttl_s = kLabDnsTtlSeconds;
  std::vector<std::pair<std::string, std::string>> hosts;  // (name, IPv4 address)
  // Running as root, dnsmasq would switch to user "nobody", who may not write its log.
  bool run_as_root = false;
};

// The dnsmasq.conf text for `params`. Run it in the foreground with
//   dnsmasq -k --conf-file=WORK/dnsmasq.conf
std::string DnsmasqConfigText(const DnsmasqConfigParams& params);

}  // namespace netstack

#endif  // TOOLS_LAB_DNSMASQ_CONFIG_H_
