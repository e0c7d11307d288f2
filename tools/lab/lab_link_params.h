// The emulated link's parameters from the simulator's vocabulary: NetworkParams (`--preset`,
// `--set`, as `netstack replay` reads them) plus the lab-only flags (loss, queue bounds, delivery
// traces, seed). A pure function, so what the lab runs is unit-tested without a namespace.
#ifndef TOOLS_LAB_LAB_LINK_PARAMS_H_
#define TOOLS_LAB_LAB_LINK_PARAMS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "net/link/link_params.h"
#include "net/sim/network_params.h"

namespace netstack {

// The flags only the lab has (docs/lab.md).
struct LabLinkFlags {
  double loss = 0;                      // --loss P: random loss per packet, each direction
  std::optional<size_t> queue_packets;  // --queue-packets N (default LinkDirectionParams')
  std::optional<size_t> queue_bytes;    // --queue-bytes N
  std::string uplink_trace;             // --uplink-trace FILE (mahimahi delivery trace)
  std::string downlink_trace;           // --downlink-trace FILE
  uint64_t seed = 1;                    // --seed N
};

// Builds the link from the resolved network `params` (NetworkParams::Resolved()): each direction
// delays by half the default rtt (up rtt/2, down the rest, so a round trip adds rtt), up at
// uplink_bps and down at downlink_bps (0: unlimited), and for every (host, address) of `hosts`
// whose rtt differs, that host's half rtt for its address; `dns_address` (empty: none) is
// delayed by half the default dns time each way, so a lookup costs dns_ms as in the simulator.
// Reads the traces. False with a one-line `error` naming the flag or file.
bool BuildLabLinkParams(const NetworkParams& params, const LabLinkFlags& flags,
                        const std::vector<std::pair<std::string, std::string>>& hosts,
                        const std::string& dns_address, LinkParams* link, std::string* error);

// Adds `address` (dotted IPv4) with one-way delay `delay` to both directions' delay_by_address.
// False if the address is not dotted IPv4.
bool AddAddressDelay(const std::string& address, TimeDelta round_trip, LinkParams* link);

// The keys of `params` the lab cannot emulate and ignores, where they differ from the defaults
// (the radio, and TCP's init_cwnd, mss and idle_restart_ms, which the kernel's stack decides):
// one line for the user, empty when none differs.
std::string LabIgnoredKeysNote(const NetworkParams& params);

}  // namespace netstack

#endif  // TOOLS_LAB_LAB_LINK_PARAMS_H_
