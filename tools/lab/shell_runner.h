// RunShell: `netstack shell` without its command line (mahimahi's mm-delay and mm-link in one).
// Runs a command in an anonymous network namespace whose only way out is the emulated link: a TUN
// device there (the default route) and one in the root namespace, the lab process relaying
// between them through LinkRelay, and on the root side IPv4 forwarding and NAT (an nft table of
// the shell's own). Everything is undone at the end: the table deleted, net.ipv4.ip_forward
// restored, the devices and the namespace gone with the lab's descriptors.
#ifndef TOOLS_LAB_SHELL_RUNNER_H_
#define TOOLS_LAB_SHELL_RUNNER_H_

#include <cstdio>
#include <string>
#include <vector>

#include "net/sim/network_params.h"
#include "tools/lab/lab_link_params.h"

namespace netstack {

struct ShellConfig {
  NetworkParams network;  // resolved: rtt, up and down rates (per-host keys do not apply)
  LabLinkFlags link_flags;
  std::string dns;         // --dns ADDR: the namespace's only nameserver; empty: the host's
  std::string stats_json;  // --stats-json FILE; empty: none
  std::vector<std::string> command;  // empty: $SHELL, else /bin/sh
};

// The addresses of one shell's point-to-point link: a /30 in 198.18.0.0/16 chosen from the
// lab's pid (so shells can run side by side): the namespace's end and the root namespace's end.
struct ShellAddresses {
  std::string client, peer, subnet;  // "198.18.a.b", "198.18.a.b+1", "198.18.a.b-1/30"
};
ShellAddresses ShellAddressesFor(int pid);

// The nameservers of resolv.conf text `resolv` the namespace can reach: IPv4, not loopback
// (127.0.0.0/8: a local stub resolver such as systemd-resolved's 127.0.0.53 is not reachable
// from another namespace). At most 3, as the resolver reads.
std::vector<std::string> ReachableNameservers(const std::string& resolv);

// Runs the shell; returns the command's exit status (128 + signal if killed), 1 when the shell
// could not be built (one line on `err`: "netstack shell: <what>").
int RunShell(const ShellConfig& config, FILE* err);

}  // namespace netstack

#endif  // TOOLS_LAB_SHELL_RUNNER_H_
