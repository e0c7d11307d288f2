// Estimates the network a HAR was recorded on, per host, from the HAR's own timings, so a replay
// can be compared with the recording (the fidelity program) or used as a starting point for
// "what if" (`netstack replay --estimate`).
//
// Per host: rtt = median TCP connect time (connect minus ssl), else the smallest wait or, when
// smaller, the median connect RTT of the trace's other hosts; dns = median dns time > 0; tls =
// 1.3 when the median ssl time is under 1.5 rtt, else 1.2; per entry: server_ms = wait - rtt
// (at least 0), and the host's server time = their median. Hosts without connect timings: the
// first entry's server time also leaves out the modelled setup (dns, TCP, TLS), and without
// dns samples dns = what the first wait leaves after the setup's and request's round trips
// (0 to the default).
// Entries the browser's cache served, and recorded failures, are not samples. Link: downlink = the
// throughput of the busiest second of receiving over all pages (its bytes / the union of receive
// intervals in it, 1 ms resolution, at least 50 ms of receiving; zero receive times ignored), at
// least the largest single-entry throughput (entries of 16 KiB or more received over 20 ms or
// more). Hosts without timings keep the defaults; uplink and everything else come from `base`.
// Where the estimate goes (the what-if precedence, network_params.h): the per-host values into
// `trace_hosts`, where they yield to the user's keys, global or for that host; the downlink
// into `downlink_bps`, marked in `trace_keys`, unless `base` has down_kbps among its user_keys
// (then it is kept). Per-entry server times yield to a user's server_ms in the replay.
#ifndef TOOLS_REPLAY_TRACE_HAR_ESTIMATE_H_
#define TOOLS_REPLAY_TRACE_HAR_ESTIMATE_H_

#include <string>
#include <vector>

#include "net/sim/network_params.h"
#include "tools/replay/trace/trace.h"

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

#endif  // TOOLS_REPLAY_TRACE_HAR_ESTIMATE_H_
