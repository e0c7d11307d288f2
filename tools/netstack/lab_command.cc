#include "tools/netstack/lab_command.h"

#include <arpa/inet.h>
#include <sys/stat.h>

#include <cstdio>

#include "tools/lab/lab_runner.h"
#include "tools/lab/shell_runner.h"
#include "tools/netstack/number_flags.h"
#include "tools/netstack/terminal_text.h"
#include "tools/replay/replay_config.h"

namespace netstack {
namespace {

void AddLinkFlags(CLI::App* cmd, LabCommandOptions* o) {
  cmd->add_option("--preset", o->preset, "a network preset (desktop, slow-4g, 3g, ...)");
  cmd->add_option("--set", o->sets,
                  "one network key: KEY=VALUE or HOST:KEY=VALUE, as replay's (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--loss", o->loss, "random loss per packet, each direction (0..1; default 0)")
      ->transform(NumberFlag(0, 1));
  cmd->add_option("--queue-packets", o->queue_packets,
                  "drop-tail bound of each direction's queue, in packets (default 1000)")
      ->transform(CountFlag(1, LabCommandOptions::kMaxQueuePackets));
  cmd->add_option("--queue-bytes", o->queue_bytes,
                  "drop-tail bound of each direction's queue, in bytes (default 4194304)")
      ->transform(CountFlag(1, LabCommandOptions::kMaxQueueBytes));
  cmd->add_option("--uplink-trace", o->uplink_trace,
                  "a mahimahi packet-delivery trace driving the uplink instead of up_kbps");
  cmd->add_option("--downlink-trace", o->downlink_trace,
                  "a mahimahi packet-delivery trace driving the downlink instead of down_kbps");
  cmd->add_option("--seed", o->seed, "the random loss's seed (default 1)")
      ->transform(CountFlag(0, UINT64_MAX));
  cmd->add_option("--stats-json", o->stats_json,
                  "write the link's counters per direction to FILE at the end");
  cmd->add_option("command", o->command, "the command to run (after --)");
}

}  // namespace

CLI::App* AddLabCommand(CLI::App* app, LabCommandOptions* o) {
  CLI::App* cmd = app->add_subcommand(
      "lab", "run a command against the lab's servers over an emulated link (needs root)");
  AddLinkFlags(cmd, o);
  cmd->add_option("--site", o->site_dir,
                  "the site to serve: DIR/<host>/<path> (default: the built-in site)");
  cmd->add_option("--ready-timeout", o->ready_timeout_s,
                  "seconds the servers have to accept connections (default 10)")
      ->transform(CountFlag(1, LabCommandOptions::kMaxReadyTimeoutS));
  return cmd;
}

CLI::App* AddShellCommand(CLI::App* app, LabCommandOptions* o) {
  CLI::App* cmd = app->add_subcommand(
      "shell", "run a command (default: $SHELL) whose traffic goes out over an emulated link");
  AddLinkFlags(cmd, o);
  cmd->add_option("--dns", o->dns,
                  "the shell's nameserver (default: the host's, if reachable from it)");
  return cmd;
}

bool ValidateLabOptions(LabCommandOptions* o, bool shell, std::string* message) {
  ReplayConfig config;
  std::string error;
  if (!o->preset.empty() && !config.SetKey("preset", o->preset, &error)) {
    *message = "--preset: " + error;
    return false;
  }
  for (const std::string& set : o->sets) {
    size_t eq = set.find('=');
    std::string key = set.substr(0, eq);
    size_t colon = key.rfind(':');
    std::string bare = colon == std::string::npos ? key : key.substr(colon + 1);
    if (eq != std::string::npos && !NetworkParams::IsKey(bare)) {
      *message = "--set '" + EchoInput(set) +
                 "': the lab takes only network keys (rtt_ms, dns_ms, server_ms, down_kbps, "
                 "up_kbps, ...: docs/replay.md)";
      return false;
    }
    if (!config.Set(set, &error)) {
      *message = "--set '" + EchoInput(set) + "': " + error;
      return false;
    }
  }
  if (!shell && o->command.empty()) {
    *message = "lab: give the command to run after --: netstack lab [FLAGS] -- COMMAND [ARG...]";
    return false;
  }
  if (!o->command.empty() && o->command[0].empty()) {
    *message = "an empty command name";
    return false;
  }
  if (!o->dns.empty()) {
    in_addr a{};
    if (inet_pton(AF_INET, o->dns.c_str(), &a) != 1) {
      *message = "--dns: '" + EchoInput(o->dns) + "' is not an IPv4 address";
      return false;
    }
  }
  struct stat st {};
  if (!o->site_dir.empty() && (stat(o->site_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))) {
    *message = "--site: '" + EchoInput(o->site_dir) + "' is not a folder";
    return false;
  }
  for (const std::string* trace : {&o->uplink_trace, &o->downlink_trace}) {
    if (!trace->empty() && (stat(trace->c_str(), &st) != 0 || !S_ISREG(st.st_mode))) {
      *message = std::string(trace == &o->uplink_trace ? "--uplink-trace" : "--downlink-trace") +
                 ": '" + EchoInput(*trace) + "' is not a file";
      return false;
    }
  }
  if (o->stats_json == "-") {
    *message = "--stats-json needs a file name, not - (stdout is the command's)";
    return false;
  }
  o->network = config.network.Resolved();
  o->link_flags.loss = o->loss;
  if (o->queue_packets) o->link_flags.queue_packets = static_cast<size_t>(*o->queue_packets);
  if (o->queue_bytes) o->link_flags.queue_bytes = static_cast<size_t>(*o->queue_bytes);
  o->link_flags.uplink_trace = o->uplink_trace;
  o->link_flags.downlink_trace = o->downlink_trace;
  o->link_flags.seed = o->seed;
  return true;
}

int RunLabCommand(const LabCommandOptions& o) {
  LabConfig config;
  config.plan_servers = PlanLabServers;
  config.network = o.network;
  config.link_flags = o.link_flags;
  config.site_dir = o.site_dir;
  config.stats_json = o.stats_json;
  config.command = o.command;
  config.ready_timeout_ms = o.ready_timeout_s * 1000;
  return RunLab(config, stderr);
}

int RunShellCommand(const LabCommandOptions& o) {
  ShellConfig config;
  config.network = o.network;
  config.link_flags = o.link_flags;
  config.dns = o.dns;
  config.stats_json = o.stats_json;
  config.command = o.command;
  return RunShell(config, stderr);
}

}  // namespace netstack
