#include "tools/lab/lab_servers.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "tools/lab/default_site.h"
#include "tools/lab/dnsmasq_config.h"
#include "tools/lab/lab_ca.h"
#include "tools/lab/lab_site.h"
#include "tools/lab/nginx_config.h"

namespace netstack {
namespace {

namespace fs = std::filesystem;

// A think time above this is a mistake (seconds, not milliseconds), not a server.
constexpr TimeDelta kMaxThinkTime = std::chrono::seconds(60);
// Addresses in a /16 after the network address, without the broadcast one: the DNS server's
// and the hosts'. The site's bound on hosts keeps well inside it.
constexpr size_t kAddressesIn16 = 65534;
static_assert(kLabSiteMaxHosts + 1 <= kAddressesIn16);

// What the plan writes in the work folder: removed again if planning fails half-way.
const char* const kPlanEntries[] = {"site",        "certs",   "ca.pem",     "ca.key",
                                    "server.key",  "ca.spki", "nginx.conf", "dnsmasq.conf",
                                    "resolv.conf", "logs",    "tmp"};

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

bool IsFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string FindIn(const std::string& search_path, const std::string& name) {
  size_t start = 0;
  while (start <= search_path.size()) {
    size_t end = search_path.find(':', start);
    if (end == std::string::npos) end = search_path.size();
    const std::string dir = search_path.substr(start, end - start);
    if (!dir.empty() && IsExecutableFile(dir + "/" + name)) return dir + "/" + name;
    start = end + 1;
  }
  return "";
}

// nginx reads paths in double quotes, dnsmasq to the end of the line: a path with a quote, a
// backslash, a '$' (an nginx variable) or a control character cannot be written into either.
bool IsWritablePath(const std::string& path) {
  for (unsigned char c : path) {
    if (c < 0x20 || c == 0x7f || c == '"' || c == '\\' || c == '$') return false;
  }
  return true;
}

// "a.b" with a and b in 0..255, the first two bytes of the /16. The caller checks a is unicast.
bool ParsePrefix(const std::string& text, int* a, int* b) {
  const size_t dot = text.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 >= text.size() || dot > 3 ||
      text.size() - dot - 1 > 3) {
    return false;
  }
  auto byte = [](const std::string& s, int* out) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
    *out = std::atoi(s.c_str());
    return *out <= 255;
  };
  return byte(text.substr(0, dot), a) && byte(text.substr(dot + 1), b);
}

// The n-th address of the /16 (n from 1).
std::string AddressAt(int a, int b, size_t n) {
  return std::to_string(a) + "." + std::to_string(b) + "." + std::to_string(n >> 8) + "." +
         std::to_string(n & 0xff);
}

// Milliseconds for a message: "25", "0.5".
std::string FormatMs(TimeDelta d) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", ToMilliseconds(d));
  return buf;
}

// Everything after the options are checked: writes the plan's files into `work` (an absolute
// folder that exists).
bool WritePlan(const LabServerOptions& options, const LabServerPrograms& programs,
               const std::string& work, int a, int b, LabServerPlan* plan, std::string* error) {
  std::string site = options.site_dir;
  std::vector<std::string> hosts;
  if (site.empty()) {
    site = work + "/site";
    if (!WriteDefaultSite(site, error)) return false;
  } else {
    std::error_code ec;
    site = fs::absolute(site, ec).lexically_normal().string();
    if (site.size() > 1 && site.back() == '/') site.pop_back();
    if (ec || !IsWritablePath(site)) {
      *error = "site folder " + options.site_dir +
               ": the path has a character nginx cannot read (quote, backslash, '$', control)";
      return false;
    }
  }
  if (!ReadLabSite(site, &hosts, error)) return false;
  const std::set<std::string> host_set(hosts.begin(), hosts.end());
  for (const auto& [host, time] : options.server_time_by_host) {
    if (!host_set.count(host)) {
      *error = "server time for " + host + ": not a host of the site " + site;
      return false;
    }
  }

  plan->site_dir = site;
  plan->dns_address = AddressAt(a, b, 1);
  plan->addresses = {plan->dns_address};
  std::vector<NginxHost> nginx_hosts;
  bool think = false;
  for (size_t i = 0; i < hosts.size(); ++i) {
    const std::string address = AddressAt(a, b, i + 2);
    plan->hosts.emplace_back(hosts[i], address);
    plan->addresses.push_back(address);
    NginxHost h;
    h.name = hosts[i];
    h.address = address;
    h.root = site + "/" + hosts[i];
    auto it = options.server_time_by_host.find(hosts[i]);
    h.think_time = it != options.server_time_by_host.end() ? it->second : options.server_time;
    think = think || NginxSleepSeconds(h.think_time) != "0.000";
    nginx_hosts.push_back(std::move(h));
  }
  if (think && programs.echo_module.empty()) {
    *error = std::string(
                 "server think time needs nginx's echo module (Debian package "
                 "libnginx-mod-http-echo): ") +
             kNginxEchoModulePath + " is missing";
    return false;
  }

  // nginx's master opens every listening socket itself, before its worker raises its own limit
  // (up to the hard limit): a large site starts nginx with room for them, and for the worker's
  // clients as far as the hard limit allows (prlimit can raise it only with CAP_SYS_RESOURCE).
  std::vector<std::string> nginx_prefix;
  const long long master_files = NginxMasterFileLimit(hosts.size());
  struct rlimit limit;
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      static_cast<long long>(limit.rlim_cur) < master_files) {
    if (programs.prlimit.empty()) {
      *error = "a site of " + std::to_string(hosts.size()) + " hosts needs " +
               std::to_string(master_files) + " open files for nginx, above the limit of " +
               std::to_string(limit.rlim_cur) + ", and prlimit (util-linux) is not found";
      return false;
    }
    long long files = NginxWorkerFileLimit(hosts.size());
    if (limit.rlim_max != RLIM_INFINITY) {
      files = std::max(master_files, std::min(files, static_cast<long long>(limit.rlim_max)));
    }
    nginx_prefix = {programs.prlimit, "--nofile=" + std::to_string(files), "--"};
  }

  LabCaFiles ca;
  if (!CreateLabCa(work, hosts, &ca, error)) return false;
  for (NginxHost& h : nginx_hosts) h.cert = LabHostCertPath(ca, h.name);
  for (const char* dir : {"/logs", "/tmp"}) {
    if (::mkdir((work + dir).c_str(), 0755) != 0 && errno != EEXIST) {
      *error = "cannot create " + work + dir;
      return false;
    }
  }

  const bool root = ::geteuid() == 0;
  NginxConfigParams nginx;
  nginx.work_dir = work;
  nginx.server_key = ca.server_key;
  nginx.echo_module = programs.echo_module;
  nginx.mime_types = programs.mime_types;
  nginx.hosts = std::move(nginx_hosts);
  nginx.http2 = options.http2;
  nginx.run_as_root = root;
  DnsmasqConfigParams dns;
  dns.work_dir = work;
  dns.listen_address = plan->dns_address;
  dns.hosts = plan->hosts;
  dns.run_as_root = root;
  const std::string nginx_conf = work + "/nginx.conf";
  const std::string dnsmasq_conf = work + "/dnsmasq.conf";
  const std::string resolv_conf = work + "/resolv.conf";
  if (!WriteLabFile(nginx_conf, NginxConfigText(nginx), error) ||
      !WriteLabFile(dnsmasq_conf, DnsmasqConfigText(dns), error) ||
      !WriteLabFile(
          resolv_conf,
          "# the netstack lab's DNS server (dnsmasq)\nnameserver " + plan->dns_address + "\n",
          error)) {
    return false;
  }

  std::vector<std::string> nginx_argv = nginx_prefix;
  for (const std::string& arg : {programs.nginx, std::string("-p"), work + "/", std::string("-c"),
                                 nginx_conf, std::string("-e"), work + "/logs/nginx-error.log"}) {
    nginx_argv.push_back(arg);
  }
  plan->processes = {nginx_argv, {programs.dnsmasq, "-k", "--conf-file=" + dnsmasq_conf}};
  for (const auto& [host, address] : plan->hosts) {
    plan->ready_ports.emplace_back(address, 443);
    plan->ready_ports.emplace_back(address, 80);
  }
  plan->ready_ports.emplace_back(plan->dns_address, 53);
  plan->ca_file = ca.ca_cert;
  plan->resolv_conf = resolv_conf;
  return true;
}

}  // namespace

LabServerPrograms FindLabServerPrograms(const std::string& search_path) {
  std::string path = search_path;
  if (path.empty()) {
    const char* env = std::getenv("PATH");
    path = std::string(env ? env : "") + ":/usr/local/sbin:/usr/sbin:/sbin";
  }
  LabServerPrograms programs;
  programs.nginx = FindIn(path, "nginx");
  programs.dnsmasq = FindIn(path, "dnsmasq");
  programs.prlimit = FindIn(path, "prlimit");
  if (IsFile(kNginxEchoModulePath)) programs.echo_module = kNginxEchoModulePath;
  if (IsFile(kNginxMimeTypesPath)) programs.mime_types = kNginxMimeTypesPath;
  return programs;
}

bool PlanLabServers(const LabServerOptions& options, LabServerPlan* plan, std::string* error) {
  return PlanLabServersWith(options, FindLabServerPrograms(""), plan, error);
}

bool PlanLabServersWith(const LabServerOptions& options, const LabServerPrograms& programs,
                        LabServerPlan* plan, std::string* error) {
  *plan = LabServerPlan();
  // Checks that need nothing written.
  if (options.work_dir.empty()) {
    *error = "lab servers: no work folder given";
    return false;
  }
  int a = 0, b = 0;
  if (!ParsePrefix(options.address_prefix, &a, &b)) {
    *error = "address prefix \"" + options.address_prefix +
             "\": not the first two bytes of an IPv4 /16 (e.g. 198.19)";
    return false;
  }
  if (a == 0 || a >= 224) {
    *error = "address prefix \"" + options.address_prefix +
             "\": not a unicast range (the first byte must be 1 to 223)";
    return false;
  }
  if (options.server_time < TimeDelta(0) || options.server_time > kMaxThinkTime) {
    *error = "server time " + FormatMs(options.server_time) + " ms: must be between 0 and 60000 ms";
    return false;
  }
  for (const auto& [host, time] : options.server_time_by_host) {
    if (time < TimeDelta(0) || time > kMaxThinkTime) {
      *error =
          "server time for " + host + " " + FormatMs(time) + " ms: must be between 0 and 60000 ms";
      return false;
    }
  }
  if (programs.nginx.empty()) {
    *error = "nginx not found (install Debian's nginx-light; tools/scripts/install-deps does)";
    return false;
  }
  if (programs.dnsmasq.empty()) {
    *error = "dnsmasq not found (install Debian's dnsmasq-base; tools/scripts/install-deps does)";
    return false;
  }
  if (programs.mime_types.empty()) {
    *error = std::string("nginx's ") + kNginxMimeTypesPath +
             " is missing (Debian's nginx-common installs it)";
    return false;
  }

  std::error_code ec;
  const std::string work = fs::absolute(options.work_dir, ec).lexically_normal().string();
  if (ec || !IsWritablePath(work)) {
    *error = "work folder " + options.work_dir +
             ": the path has a character nginx cannot read (quote, backslash, '$', control)";
    return false;
  }
  std::string work_clean = work;
  if (work_clean.size() > 1 && work_clean.back() == '/') work_clean.pop_back();
  // The outermost folder this call creates (the work folder or a parent of it): removed again
  // if planning fails. Empty if the work folder exists.
  std::string created;
  for (fs::path p = work_clean; !p.empty() && p != p.root_path() && !fs::exists(p, ec);
       p = p.parent_path()) {
    created = p.string();
  }
  fs::create_directories(work_clean, ec);
  std::error_code dir_ec;
  if (ec || !fs::is_directory(work_clean, dir_ec) || ::access(work_clean.c_str(), W_OK) != 0) {
    *error = "work folder " + work_clean + ": cannot create or write it" +
             (ec ? ": " + ec.message() : "");
    if (!created.empty()) fs::remove_all(created, ec);
    return false;
  }
  if (WritePlan(options, programs, work_clean, a, b, plan, error)) return true;
  // Nothing half-written stays behind.
  *plan = LabServerPlan();
  if (!created.empty()) {
    fs::remove_all(created, ec);
  } else {
    for (const char* entry : kPlanEntries) fs::remove_all(work_clean + "/" + entry, ec);
  }
  return false;
}

}  // namespace netstack
