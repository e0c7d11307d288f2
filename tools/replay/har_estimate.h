// Estimates the network a HAR was recorded on, per host, from the HAR's own timings, so a replay
// can be compared with the recording (the fidelity program) or used as a starting point for
// "what if" (`netstack replay --estimate`).
//
// Per host: rtt = median TCP connect time (connect minus ssl), else the smallest wait; dns =
// median dns time > 0; tls = 1.3 when the median ssl time is under 1.5 rtt, else 1.2; per
// entry: server_ms = wait - rtt (at least 0). Link: downlink = the highest throughput over the
// page's busiest second of receiving (bytes / union of receive intervals), at least the largest
// single-entry throughput. Hosts without timings keep the defaults.
#ifndef TOOLS_REPLAY_HAR_ESTIMATE_H_
#define TOOLS_REPLAY_HAR_ESTIMATE_H_

#include <string>
#include <vector>

#include "net/sim/network_params.h"
#include "tools/replay/trace.h"

namespace netstack {

struct HarEstimate {
  NetworkParams params;
  // One line per host with what was estimated and from how many samples, for --verbose.
  std::vector<std::string> notes;
};

// Estimates from `pages` (typically one HAR file's), starting from `base` (whose defaults fill
// what the HAR does not tell). Also sets each entry's server_ms in `pages`.
HarEstimate EstimateNetwork(std::vector<TracePage>* pages, const NetworkParams& base);

}  // namespace netstack

#endif  // TOOLS_REPLAY_HAR_ESTIMATE_H_
