// LabServers: the server side of `netstack lab` as a plan, before anything runs. Given a site
// (a folder with one sub-folder of static files per host name) and the server think time, it
// writes everything the servers need into a work folder (a lab CA and a certificate for every
// host, nginx's and dnsmasq's configurations, the client's resolv.conf) and says which addresses
// the server side needs and which processes to start there. It starts nothing itself: the lab
// (lab_command) creates the namespaces, assigns the addresses and runs the processes inside the
// server namespace, so this part is testable on loopback without root.
#ifndef TOOLS_LAB_LAB_SERVERS_H_
#define TOOLS_LAB_LAB_SERVERS_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "net/base/time.h"

namespace netstack {

struct LabServerOptions {
  // The site: SITE/<host name>/<path> is served as https://<host name>/<path> (and http://),
  // index.html for a folder. Empty: the built-in default site (site0.lab and its asset hosts).
  std::string site_dir;
  // Written here (created if missing; the caller removes it). Must be writable.
  std::string work_dir;
  // Think time: how long a server waits before answering each request (the simulator's
  // server_ms), for every host, and per host where it differs.
  TimeDelta server_time{0};
  std::map<std::string, TimeDelta> server_time_by_host;
  // Where the server side's addresses come from: hosts get consecutive addresses in this /16
  // (198.19.0.0/16: inside the benchmarking range 198.18.0.0/15, apart from the client's
  // 198.18.0.0/16), the DNS server the first.
  std::string address_prefix = "198.19";
  bool http2 = true;  // nginx offers h2 over TLS (as real sites do)
};

struct LabServerPlan {
  // Every host name the site serves and its IPv4 address (dotted), in the site's order.
  std::vector<std::pair<std::string, std::string>> hosts;
  std::string dns_address;  // where dnsmasq answers (port 53, UDP and TCP)
  // Every address the server side must own: the hosts' and the DNS server's.
  std::vector<std::string> addresses;
  // The servers: argv of each process to run in the server namespace, in the foreground (no
  // daemonizing); the lab stops them with SIGTERM, then SIGKILL, at the end.
  std::vector<std::vector<std::string>> processes;
  // (address, TCP port) pairs that accept connections once the servers are ready.
  std::vector<std::pair<std::string, int>> ready_ports;
  std::string ca_file;      // the lab CA's certificate (PEM), for the client to trust
  std::string resolv_conf;  // a resolv.conf naming dns_address, to bind over /etc/resolv.conf
  std::string site_dir;     // the site actually served (the default site's folder if none given)
};

// Writes the plan's files under `options.work_dir`. Returns false with a one-line `error` naming
// what was wrong and where (a missing or unreadable site folder, a folder name that is not a valid
// host name, more hosts than the site bound (4,000; the address range would hold more), a think
// time outside 0..60 s or for a host the site lacks, a program that is missing: nginx, dnsmasq,
// nginx's echo module when a host has think time; the CA is made with OpenSSL's library, no
// `openssl` program) and leaves no half-written plan behind it that could be used: what it
// wrote is removed, and the work folder too if it made it. Plans for the same site get the same
// hosts, addresses and configurations (a new CA each time). Takes about 1 ms per host (a
// certificate each).
bool PlanLabServers(const LabServerOptions& options, LabServerPlan* plan, std::string* error);

// The programs and files a plan needs from the machine. PlanLabServers finds them itself with
// FindLabServerPrograms(""); PlanLabServersWith takes them, so tests can name what is missing.
struct LabServerPrograms {
  std::string nginx;        // absolute path, "" if not found
  std::string dnsmasq;      // absolute path, "" if not found
  std::string echo_module;  // nginx's echo module (needed for think time), "" if absent
  std::string mime_types;   // nginx's mime.types, "" if absent
  // util-linux's prlimit: starts nginx with room for a large site's listening sockets when
  // the caller's RLIMIT_NOFILE is too low for them (needed only then). "" if not found.
  std::string prlimit;
};

// Looks for nginx, dnsmasq and prlimit in the folders of `search_path` (':'-separated; "" means
// $PATH then /usr/local/sbin, /usr/sbin and /sbin), and for Debian's echo module and mime.types.
LabServerPrograms FindLabServerPrograms(const std::string& search_path);

// PlanLabServers with the given programs instead of the machine's.
bool PlanLabServersWith(const LabServerOptions& options, const LabServerPrograms& programs,
                        LabServerPlan* plan, std::string* error);

}  // namespace netstack

#endif  // TOOLS_LAB_LAB_SERVERS_H_
