#include "tools/lab/dnsmasq_config.h"

#include <sstream>

namespace netstack {

std::string DnsmasqConfigText(const DnsmasqConfigParams& p) {
  std::ostringstream c;
  c << "# dnsmasq for `netstack lab`: written by tools/lab/dnsmasq_config.cc; remade for every "
       "lab.\n"
    << "port=" << p.port << "\n"
    << "listen-address=" << p.listen_address << "\n"
    << "bind-interfaces\n"
    << "no-resolv\n"
    << "no-poll\n"
    << "no-hosts\n"
    << "pid-file=" << p.work_dir << "/dnsmasq.pid\n"
    << "log-facility=" << p.work_dir << "/logs/dnsmasq.log\n"
    << "local-ttl=" << p.ttl_s
    << "\n"
    // Every other name is NXDOMAIN, as a real resolver answers a name that does not exist (the
    // site's hosts still answer: host-record comes first; their AAAA is an empty NOERROR).
    << "address=/#/\n";
  if (p.run_as_root) c << "user=root\n";
  for (const auto& [name, address] : p.hosts) {
    c << "host-record=" << name << "," << address << "," << p.ttl_s << "\n";
  }
  return c.str();
}

}  // namespace netstack
