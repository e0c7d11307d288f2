#include "tools/lab/shell_runner.h"

#include <arpa/inet.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tools/lab/lab_host.h"
#include "tools/lab/lab_namespace.h"
#include "tools/lab/lab_session.h"
#include "tools/lab/tun_device.h"

namespace netstack {
namespace {

constexpr char kPrefix[] = "netstack shell";
constexpr char kClientTun[] = "lab0";

std::string Dotted(uint32_t host_order) {
  in_addr a{htonl(host_order)};
  char text[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &a, text, sizeof(text));
  return text;
}

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

// What the shell builds and changes on the host, undone by the destructor (and after a SIGKILL
// of the lab by the next lab's SweepDeadLabs, from the work folder's shell-state file).
struct Shell {
  std::string work_dir;
  LabNamespace client;
  LabNamespace here;  // never created: RunIn runs in the lab's own (root) namespace
  int client_tun = -1, root_tun = -1;
  std::string nft_table;
  std::string old_forward;
  ~Shell() {
    std::string ignored;
    if (!nft_table.empty()) here.RunIn({"nft", "delete", "table", "ip", nft_table}, &ignored);
    if (root_tun >= 0) close(root_tun);
    if (client_tun >= 0) close(client_tun);
    if (!old_forward.empty() && !OtherLiveShell()) WriteIpForward(old_forward);
    RemoveLabWorkDir(work_dir);
  }
};

}  // namespace

ShellAddresses ShellAddressesFor(int pid) {
  // 16384 /30 subnets in 198.18.0.0/16; 198.18.0.0/30 is left to `netstack lab`'s client.
  uint32_t slot = 1 + static_cast<uint32_t>(pid) % 16383;
  uint32_t base = (198u << 24) | (18u << 16) | (slot * 4);
  return {Dotted(base + 1), Dotted(base + 2), Dotted(base) + "/30"};
}

std::vector<std::string> ReachableNameservers(const std::string& resolv) {
  std::vector<std::string> out;
  std::istringstream lines(resolv);
  std::string line;
  while (std::getline(lines, line) && out.size() < 3) {
    std::istringstream words(line);
    std::string key, value;
    if (!(words >> key >> value) || key != "nameserver") continue;
    in_addr a{};
    if (inet_pton(AF_INET, value.c_str(), &a) != 1) continue;
    if ((ntohl(a.s_addr) >> 24) == 127) continue;
    out.push_back(value);
  }
  return out;
}

int RunShell(const ShellConfig& config, FILE* err) {
  std::string error;
  auto fail = [&](const std::string& what) {
    std::fprintf(err, "%s: %s\n", kPrefix, what.c_str());
    return 1;
  };
  if (!HasLabPrivileges(&error)) return fail(error);
  if (!TunAvailable(&error)) return fail(error);
  ClearLabSignal();
  CatchLabSignals();
  SweepDeadLabs();
  LinkParams link;
  if (!BuildLabLinkParams(config.network, config.link_flags, {}, "", &link, &error)) {
    std::fprintf(err, "%s: %s\n", kPrefix, error.c_str());
    return 2;
  }
  std::string note = LabIgnoredKeysNote(config.network);
  if (!note.empty()) std::fprintf(err, "%s: %s\n", kPrefix, note.c_str());

  Shell shell;
  shell.work_dir = MakeLabWorkDir(&error);
  if (shell.work_dir.empty()) return fail(error);
  int pid = getpid();
  ShellAddresses addresses = ShellAddressesFor(pid);
  std::string root_tun_name = "nslab" + std::to_string(pid);
  std::string table = "netstack_lab_" + std::to_string(pid);

  // Nameservers: --dns, else the host's that the namespace can reach.
  std::vector<std::string> nameservers;
  if (!config.dns.empty()) {
    nameservers.push_back(config.dns);
  } else {
    std::ifstream in("/etc/resolv.conf");
    std::stringstream text;
    text << in.rdbuf();
    nameservers = ReachableNameservers(text.str());
    if (nameservers.empty()) {
      std::fprintf(err,
                   "%s: the host's resolv.conf names no nameserver reachable from the shell's "
                   "namespace (a loopback resolver such as 127.0.0.53 is not): names will not "
                   "resolve; pass --dns ADDR\n",
                   kPrefix);
    }
  }
  std::string resolv = "# netstack shell\n";
  for (const std::string& ns : nameservers) resolv += "nameserver " + ns + "\n";
  std::string resolv_path = shell.work_dir + "/resolv.conf";
  if (!WriteFile(resolv_path, resolv)) return fail("cannot write '" + resolv_path + "'");

  // Record what will change before changing it, for the sweep after a SIGKILL.
  std::string forward = ReadIpForward();
  if (forward.empty()) return fail("cannot read /proc/sys/net/ipv4/ip_forward");
  if (!WriteFile(shell.work_dir + "/" + kShellStateFile,
                 "nft_table " + table + "\nip_forward " + forward + "\n")) {
    return fail("cannot write the shell's state file in '" + shell.work_dir + "'");
  }

  if (!shell.client.Create(&error)) return fail(error);
  shell.client_tun = OpenTunDevice(shell.client.fd(), kClientTun, &error);
  if (shell.client_tun < 0) return fail(error);
  shell.root_tun = OpenTunDevice(-1, root_tun_name, &error);
  if (shell.root_tun < 0) return fail(error);
  std::string tun = kClientTun;
  for (const std::vector<std::string>& argv : std::vector<std::vector<std::string>>{
           {"ip", "addr", "add", addresses.client, "peer", addresses.peer, "dev", tun},
           {"ip", "link", "set", tun, "up"},
           {"ip", "route", "add", "default", "dev", tun}}) {
    if (!shell.client.RunIn(argv, &error)) return fail(error);
  }
  for (const std::vector<std::string>& argv : std::vector<std::vector<std::string>>{
           {"ip", "addr", "add", addresses.peer, "peer", addresses.client, "dev", root_tun_name},
           {"ip", "link", "set", root_tun_name, "up"}}) {
    if (!shell.here.RunIn(argv, &error)) return fail(error);
  }
  std::string rules = "table ip " + table +
                      " {\n"
                      "  chain postrouting {\n"
                      "    type nat hook postrouting priority srcnat; policy accept;\n"
                      "    ip saddr " +
                      addresses.client + " oifname != \"" + root_tun_name +
                      "\" masquerade\n"
                      "  }\n"
                      "}\n";
  std::string rules_path = shell.work_dir + "/nat.nft";
  if (!WriteFile(rules_path, rules)) return fail("cannot write '" + rules_path + "'");
  if (!shell.here.RunIn({"nft", "-f", rules_path}, &error)) return fail(error);
  shell.nft_table = table;
  shell.old_forward = forward;
  if (forward != "1" && !WriteIpForward("1")) {
    return fail("cannot enable net.ipv4.ip_forward");
  }

  std::vector<std::string> command = config.command;
  if (command.empty()) {
    const char* sh = std::getenv("SHELL");
    command = {sh != nullptr && sh[0] != '\0' ? sh : "/bin/sh"};
  }
  if (int signum = LabSignalCaught()) {
    std::fprintf(err, "%s: interrupted by signal %d while building the shell\n", kPrefix, signum);
    return 128 + signum;
  }
  LabSessionOptions session;
  session.client_tun = shell.client_tun;
  session.server_tun = shell.root_tun;
  session.link = link;
  session.command.programs = {command};
  session.command.netns_fd = shell.client.fd();
  session.command.resolv_conf = resolv_path;
  session.command.env = {"NETSTACK_LAB=1", "NETSTACK_SHELL=1"};
  session.prefix = kPrefix;
  LabSessionResult result = RunLabSession(session, err);
  CatchLabSignals();  // the teardown is bounded: a signal now must not cut it short
  return ReportLabSession(result, config.stats_json, kPrefix, err);
}

}  // namespace netstack
