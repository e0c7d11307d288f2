// RunLab: `netstack lab` without its command line. Builds the lab (two anonymous network
// namespaces, a TUN device in each, the server side's addresses and routes), plans and starts the
// servers (PlanLabServers) in the server namespace, waits until they accept connections, runs the
// user's command in the client namespace over the emulated link (RunLabSession), and tears it all
// down: on a normal exit, on an error at any step, and on SIGINT, SIGTERM or SIGHUP.
#ifndef TOOLS_LAB_LAB_RUNNER_H_
#define TOOLS_LAB_LAB_RUNNER_H_

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "net/sim/network_params.h"
#include "tools/lab/lab_link_params.h"
#include "tools/lab/lab_servers.h"

namespace netstack {

// Plans the servers (PlanLabServers, or a test's own plan).
using LabServerPlanner =
    std::function<bool(const LabServerOptions& options, LabServerPlan* plan, std::string* error)>;

struct LabConfig {
  LabServerPlanner plan_servers;  // required: the CLI passes PlanLabServers
  NetworkParams network;          // resolved (NetworkParams::Resolved)
  LabLinkFlags link_flags;
  std::string site_dir;    // --site; empty: the built-in site
  std::string stats_json;  // --stats-json FILE; empty: none
  std::vector<std::string> command;
  int ready_timeout_ms = 10000;  // how long the servers have to accept connections
  int signal_grace_ms = 5000;    // how long the command has to end after a forwarded signal
};

// The lab's fixed addresses (198.18.0.0/15, the benchmarking range of RFC 2544).
inline constexpr char kLabClientAddress[] = "198.18.0.1";
inline constexpr char kLabTunName[] = "lab0";

// Runs the lab. Returns the command's exit status (128 + signal if it was killed), or 1 when the
// lab could not be built (one line on `err`: "netstack lab: <what>"), 2 for bad input found late
// (a site PlanLabServers refuses, an unreadable trace).
int RunLab(const LabConfig& config, FILE* err);

// Waits until every (address, port) of `ports` accepts a TCP connection from inside `netns_fd`,
// at most `timeout_ms`. `servers` (may be null) is watched: a server that exits ends the wait.
// False with a one-line `error` naming the address that did not answer or the server that
// exited, followed by the tail of that server's log ("nginx: <last lines>").
class LabProcesses;
bool WaitForServers(int netns_fd, const std::vector<std::pair<std::string, int>>& ports,
                    LabProcesses* servers, const std::vector<std::string>& names,
                    const std::vector<std::string>& logs, int timeout_ms, std::string* error);

}  // namespace netstack

#endif  // TOOLS_LAB_LAB_RUNNER_H_
