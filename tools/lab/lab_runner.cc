#include "tools/lab/lab_runner.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "tools/lab/lab_host.h"
#include "tools/lab/lab_namespace.h"
#include "tools/lab/lab_processes.h"
#include "tools/lab/lab_session.h"
#include "tools/lab/tun_device.h"

namespace netstack {
namespace {

constexpr char kPrefix[] = "netstack lab";

// The last `lines` non-empty lines of a log file (at most 64 KiB read), joined with " | ".
std::string LogTail(const std::string& path, size_t lines = 3) {
  std::ifstream in(path);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  in.seekg(size > 65536 ? size - 65536 : 0);
  std::vector<std::string> all;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) all.push_back(line.substr(0, 300));
  }
  std::string out;
  for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) {
    out += (out.empty() ? "" : " | ") + all[i];
  }
  return out;
}

// True if a TCP connection to address:port, from inside `netns_fd`, is accepted within 200 ms.
bool Accepts(int netns_fd, const std::string& address, int port) {
  int fd;
  {
    NetnsScope scope(netns_fd);
    if (!scope.ok()) return false;
    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  }
  if (fd < 0) return false;
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = inet_pton(AF_INET, address.c_str(), &to.sin_addr) == 1;
  if (ok && connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)) != 0) {
    ok = false;
    if (errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int error = 0;
      socklen_t len = sizeof(error);
      ok = poll(&p, 1, 200) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) == 0 &&
           error == 0;
    }
  }
  close(fd);
  return ok;
}

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Everything the lab builds, torn down in reverse order by the destructor.
struct Lab {
  std::string work_dir;
  LabNamespace client, server;
  int client_tun = -1, server_tun = -1;
  LabProcesses servers;
  ~Lab() {
    servers.Stop(3000);
    if (client_tun >= 0) close(client_tun);
    if (server_tun >= 0) close(server_tun);
    RemoveLabWorkDir(work_dir);
  }
};

// Writes `commands` to a batch file in `work_dir` and runs `ip -batch` inside `ns`.
bool RunIpBatch(LabNamespace* ns, const std::string& work_dir, const std::string& name,
                const std::vector<std::string>& commands, std::string* error) {
  std::string path = work_dir + "/" + name;
  {
    std::ofstream out(path);
    for (const std::string& c : commands) out << c << "\n";
    if (!out) {
      *error = "cannot write '" + path + "'";
      return false;
    }
  }
  return ns->RunIn({"ip", "-batch", path}, error);
}

}  // namespace

bool WaitForServers(int netns_fd, const std::vector<std::pair<std::string, int>>& ports,
                    LabProcesses* servers, const std::vector<std::string>& names,
                    const std::vector<std::string>& logs, int timeout_ms, std::string* error) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  std::vector<bool> up(ports.size(), false);
  for (;;) {
    int index = 0, status = 0;
    if (servers != nullptr && servers->ReadExit(&index, &status) == LabProcesses::ExitRead::kExit) {
      std::string name = static_cast<size_t>(index) < names.size() ? names[index] : "a server";
      std::string tail = static_cast<size_t>(index) < logs.size() ? LogTail(logs[index]) : "";
      *error = name + " exited (status " + std::to_string(ExitCodeOf(status)) +
               ") before accepting connections" + (tail.empty() ? "" : ": " + tail);
      return false;
    }
    if (int signum = LabSignalCaught()) {
      *error = "interrupted by signal " + std::to_string(signum);
      return false;
    }
    bool all = true;
    for (size_t i = 0; i < ports.size(); ++i) {
      if (!up[i]) up[i] = Accepts(netns_fd, ports[i].first, ports[i].second);
      all = all && up[i];
    }
    if (all) return true;
    if (std::chrono::steady_clock::now() > deadline) {
      for (size_t i = 0; i < ports.size(); ++i) {
        if (up[i]) continue;
        *error = "nothing accepts connections on " + ports[i].first + ":" +
                 std::to_string(ports[i].second) + " after " + std::to_string(timeout_ms) + " ms";
        for (size_t j = 0; j < logs.size(); ++j) {
          std::string tail = LogTail(logs[j]);
          if (!tail.empty()) *error += "; " + names[j] + ": " + tail;
        }
        return false;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

int RunLab(const LabConfig& config, FILE* err) {
  std::string error;
  auto fail = [&](int code, const std::string& what) {
    std::fprintf(err, "%s: %s\n", kPrefix, what.c_str());
    return code;
  };
  if (!HasLabPrivileges(&error)) return fail(1, error);
  if (!TunAvailable(&error)) return fail(1, error);
  ClearLabSignal();
  CatchLabSignals();
  SweepDeadLabs();
  Lab lab;
  lab.work_dir = MakeLabWorkDir(&error);
  if (lab.work_dir.empty()) return fail(1, error);

  LabServerOptions server_options;
  server_options.site_dir = config.site_dir;
  server_options.work_dir = lab.work_dir + "/servers";
  server_options.server_time = config.network.defaults.server_time;
  // Resolved params give every named host every field: only a server time of its own counts.
  for (const auto& [host, overrides] : config.network.hosts) {
    if (overrides.server_time && *overrides.server_time != server_options.server_time) {
      server_options.server_time_by_host[host] = *overrides.server_time;
    }
  }
  LabServerPlan plan;
  if (!config.plan_servers(server_options, &plan, &error)) return fail(2, error);

  for (const auto& [host, overrides] : config.network.hosts) {
    bool served = false;
    for (const auto& entry : plan.hosts) served = served || entry.first == host;
    if (!served) return fail(2, "--set names host '" + host + "', which the site does not serve");
  }
  LinkParams link;
  if (!BuildLabLinkParams(config.network, config.link_flags, plan.hosts, plan.dns_address, &link,
                          &error)) {
    return fail(2, error);
  }
  std::string note = LabIgnoredKeysNote(config.network);
  if (!note.empty()) std::fprintf(err, "%s: %s\n", kPrefix, note.c_str());

  if (!lab.client.Create(&error) || !lab.server.Create(&error)) return fail(1, error);
  lab.client_tun = OpenTunDevice(lab.client.fd(), kLabTunName, &error);
  if (lab.client_tun < 0) return fail(1, error);
  lab.server_tun = OpenTunDevice(lab.server.fd(), kLabTunName, &error);
  if (lab.server_tun < 0) return fail(1, error);
  std::string tun = kLabTunName;
  if (!RunIpBatch(&lab.client, lab.work_dir, "client.ip",
                  {"addr add " + std::string(kLabClientAddress) + "/16 dev " + tun,
                   "link set " + tun + " up", "route add 198.19.0.0/16 dev " + tun},
                  &error)) {
    return fail(1, error);
  }
  std::vector<std::string> server_ip = {"link set " + tun + " up",
                                        "route add 198.18.0.0/16 dev " + tun};
  for (const std::string& address : plan.addresses) {
    server_ip.push_back("addr add " + address + "/32 dev lo");
  }
  if (!RunIpBatch(&lab.server, lab.work_dir, "server.ip", server_ip, &error)) {
    return fail(1, error);
  }

  LabProcessSpec server_spec;
  server_spec.netns_fd = lab.server.fd();
  server_spec.programs = plan.processes;
  std::vector<std::string> names;
  for (size_t i = 0; i < plan.processes.size(); ++i) {
    names.push_back(BaseName(plan.processes[i].empty() ? "" : plan.processes[i][0]));
    server_spec.log_files.push_back(lab.work_dir + "/server-" + std::to_string(i) + ".log");
  }
  if (!plan.processes.empty()) {
    if (!lab.servers.Start(server_spec, &error)) return fail(1, error);
    if (!WaitForServers(lab.server.fd(), plan.ready_ports, &lab.servers, names,
                        server_spec.log_files, config.ready_timeout_ms, &error)) {
      int signum = LabSignalCaught();
      return fail(signum ? 128 + signum : 1, "the servers did not come up: " + error);
    }
  }

  if (int signum = LabSignalCaught()) {
    return fail(128 + signum,
                "interrupted by signal " + std::to_string(signum) + " while building the lab");
  }
  LabSessionOptions session;
  session.client_tun = lab.client_tun;
  session.server_tun = lab.server_tun;
  session.link = link;
  session.command.programs = {config.command};
  session.command.netns_fd = lab.client.fd();
  session.command.resolv_conf = plan.resolv_conf;
  session.command.env = {"NETSTACK_LAB=1", "NETSTACK_LAB_CA=" + plan.ca_file,
                         "SSL_CERT_FILE=" + plan.ca_file, "CURL_CA_BUNDLE=" + plan.ca_file};
  if (lab.servers.running()) {
    // The server namespace, for `nsenter --net=$NETSTACK_LAB_SERVER_NETNS` (a measurement's own
    // server): the servers' init is in it, and /proc is the host's inside the lab.
    session.command.env.push_back("NETSTACK_LAB_SERVER_NETNS=/proc/" +
                                  std::to_string(lab.servers.init_pid()) + "/ns/net");
  }
  session.servers = plan.processes.empty() ? nullptr : &lab.servers;
  session.server_names = names;
  session.prefix = kPrefix;
  session.signal_grace_ms = config.signal_grace_ms;
  LabSessionResult result = RunLabSession(session, err);
  CatchLabSignals();  // the teardown is bounded: a signal now must not cut it short
  return ReportLabSession(result, config.stats_json, kPrefix, err);
}

}  // namespace netstack
