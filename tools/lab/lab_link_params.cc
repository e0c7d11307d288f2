#include "tools/lab/lab_link_params.h"

#include <arpa/inet.h>

#include "net/link/delivery_trace.h"

namespace netstack {

bool AddAddressDelay(const std::string& address, TimeDelta round_trip, LinkParams* link) {
  in_addr parsed{};
  if (inet_pton(AF_INET, address.c_str(), &parsed) != 1) return false;
  uint32_t host_order = ntohl(parsed.s_addr);
  link->up.delay_by_address[host_order] = round_trip / 2;
  link->down.delay_by_address[host_order] = round_trip - round_trip / 2;
  return true;
}

bool BuildLabLinkParams(const NetworkParams& params, const LabLinkFlags& flags,
                        const std::vector<std::pair<std::string, std::string>>& hosts,
                        const std::string& dns_address, LinkParams* link, std::string* error) {
  LinkParams out;
  TimeDelta rtt = params.defaults.rtt;
  out.up.delay = rtt / 2;
  out.down.delay = rtt - rtt / 2;
  out.up.rate_bps = params.uplink_bps;
  out.down.rate_bps = params.downlink_bps;
  for (LinkDirectionParams* d : {&out.up, &out.down}) {
    d->loss = flags.loss;
    if (flags.queue_packets) d->queue_packets = *flags.queue_packets;
    if (flags.queue_bytes) d->queue_bytes = *flags.queue_bytes;
  }
  out.seed = flags.seed;
  for (const auto& [host, address] : hosts) {
    TimeDelta host_rtt = params.ForHost(host).rtt;
    if (host_rtt == rtt) continue;
    if (!AddAddressDelay(address, host_rtt, &out)) {
      *error = "host '" + host + "': '" + address + "' is not an IPv4 address";
      return false;
    }
  }
  if (!dns_address.empty() && !AddAddressDelay(dns_address, params.defaults.dns, &out)) {
    *error = "the DNS server's address '" + dns_address + "' is not an IPv4 address";
    return false;
  }
  if (!flags.uplink_trace.empty()) {
    out.up.trace = DeliveryTrace::ReadFile(flags.uplink_trace, error);
    if (!out.up.trace) {
      *error = "--uplink-trace: " + *error;
      return false;
    }
  }
  if (!flags.downlink_trace.empty()) {
    out.down.trace = DeliveryTrace::ReadFile(flags.downlink_trace, error);
    if (!out.down.trace) {
      *error = "--downlink-trace: " + *error;
      return false;
    }
  }
  if (!ValidateLinkParams(out, error)) return false;
  *link = std::move(out);
  return true;
}

std::string LabIgnoredKeysNote(const NetworkParams& params) {
  const NetworkParams defaults;
  std::string keys;
  auto add = [&keys](bool differs, const char* key) {
    if (differs) keys += (keys.empty() ? "" : ", ") + std::string(key);
  };
  add(params.radio.enabled, "radio");
  add(params.initial_cwnd_segments != defaults.initial_cwnd_segments, "init_cwnd");
  add(params.mss != defaults.mss, "mss");
  add(params.idle_restart != defaults.idle_restart, "idle_restart_ms");
  if (keys.empty()) return "";
  return "the lab does not emulate " + keys +
         " (the radio model is the simulator's; TCP is the kernel's): ignored";
}

}  // namespace netstack
