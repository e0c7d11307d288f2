// `netstack lab` and `netstack shell`: their flags (parsed and validated here, so bad input is
// found before anything is built) and the calls into tools/lab, which builds the namespaces, the
// emulated link and the servers. docs/lab.md documents both commands.
#ifndef TOOLS_NETSTACK_LAB_COMMAND_H_
#define TOOLS_NETSTACK_LAB_COMMAND_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "net/sim/network_params.h"
#include "tools/lab/lab_link_params.h"

namespace netstack {

struct LabCommandOptions {
  std::string preset;                     // --preset NAME (net/sim's presets)
  std::vector<std::string> sets;          // --set KEY=VALUE, network keys only, in order
  double loss = 0;                        // --loss P (0..1)
  std::optional<uint64_t> queue_packets;  // --queue-packets N
  std::optional<uint64_t> queue_bytes;    // --queue-bytes N
  std::string uplink_trace;               // --uplink-trace FILE
  std::string downlink_trace;             // --downlink-trace FILE
  uint64_t seed = 1;                      // --seed N
  std::string stats_json;                 // --stats-json FILE
  std::string site_dir;                   // --site DIR (lab only)
  int ready_timeout_s = 10;               // --ready-timeout S (lab only)
  std::string dns;                        // --dns ADDR (shell only)
  std::vector<std::string> command;       // after --

  // Bounds of the numeric flags.
  static constexpr uint64_t kMaxQueuePackets = 1'000'000;
  static constexpr uint64_t kMaxQueueBytes = uint64_t{1} << 30;
  static constexpr int kMaxReadyTimeoutS = 600;

  // Built by ValidateLabOptions: the preset, then each --set, resolved.
  NetworkParams network;
  LabLinkFlags link_flags;
};

// Adds the subcommands and their flags, bound to `options`.
CLI::App* AddLabCommand(CLI::App* app, LabCommandOptions* options);
CLI::App* AddShellCommand(CLI::App* app, LabCommandOptions* options);

// Builds `options->network` and `options->link_flags` and checks what CLI11 cannot: the preset,
// each --set (a network key of docs/replay.md, its value in range), the command (required for
// lab), --dns (an IPv4 address), --site (a folder). False with a one-line message naming the bad
// flag or value.
bool ValidateLabOptions(LabCommandOptions* options, bool shell, std::string* message);

// Run the validated commands: the command's exit status, or 1 when the lab could not be built
// (needs root or CAP_NET_ADMIN, no /dev/net/tun), 2 for bad input found late.
int RunLabCommand(const LabCommandOptions& options);
int RunShellCommand(const LabCommandOptions& options);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_LAB_COMMAND_H_
