// The protocol each host of a trace speaks, as the trace recorded it, and how it reaches the
// modelled network (NetworkParams' per-host `http2`, net/sim/network_params.h):
//   - HAR files: each entry's protocol (TraceEntry::protocol, from WebPageTest's `_protocol`, else
//     `response.httpVersion`, else the request's) and, per host, the majority of its entries
//     that went over the network (not the browser's cache; unknown versions not counted). A tie
//     goes to h2: the server did speak it.
//   - Sessions: "host" lines ({"type": "host", "host": "cdn.example", "protocol": "h2"}) before
//     the first event or page line; a host no line names speaks http/1.1.
// A host that speaks h2 or h3 replays as an h2 server (there is no QUIC model: h3 is replayed
// as h2, the closest protocol the simulator has); http/1.1 hosts keep the default (off).
#ifndef TOOLS_REPLAY_TRACE_HOST_PROTOCOL_H_
#define TOOLS_REPLAY_TRACE_HOST_PROTOCOL_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "net/sim/network_params.h"
#include "tools/replay/trace/trace.h"

namespace netstack {

// Host lines a session may hold (each is a per-host override in the replay's network).
inline constexpr size_t kMaxSessionHosts = 100'000;

// By lowercase host name. Only hosts whose protocol is known are present.
using HostProtocols = std::map<std::string, TraceProtocol>;

// "unknown" | "http/1.1" | "h2" | "h3".
const char* TraceProtocolName(TraceProtocol protocol);

// What a recorder wrote, normalized (case and surrounding spaces ignored): "http/1.1",
// "HTTP/1.0", "http/0.9" -> kHttp11; "h2", "h2c", "h2-14", "HTTP/2", "http/2.0", "spdy/3.1" ->
// kHttp2; "h3", "h3-29", "HTTP/3", "QUIC", "http/2+quic/46" -> kHttp3; anything else ("",
// "unknown")
// -> kUnknown.
TraceProtocol NormalizeRecordedProtocol(std::string_view recorded);

// Counts recorded entries per host and decides each host's protocol by majority.
class HostProtocolTally {
 public:
  // Counts `entry` under its URL's host when its protocol is known and it used the network
  // (not recorded_from_cache). Entries whose URL does not parse are ignored.
  void Add(const TraceEntry& entry);
  void AddPages(const std::vector<TracePage>& pages);
  // Per host: h2-class (h2 or h3) when its h2 and h3 entries are at least its http/1.1 ones
  // (then h3 if h3 entries outnumber h2 ones, else h2); else http/1.1.
  HostProtocols Result() const;

 private:
  std::map<std::string, std::array<uint64_t, 3>> counts_;  // http/1.1, h2, h3
};

// HostProtocolTally over `pages`.
HostProtocols RecordedHostProtocols(const std::vector<TracePage>& pages);

// Gives every h2 or h3 host of `protocols` `http2` on in `params`' trace layer (`trace_hosts`:
// what the trace gave, network_params.h), unless `params` already sets
// that host's `http2` (a --set HOST:http2=..., a --config or a --compare spec: the user's
// choice wins over the recording). `http2=on|off` without a host still forces every host
// (NetworkParams::ForHost). Returns how many hosts it set.
size_t ApplyHostProtocols(const HostProtocols& protocols, NetworkParams* params);

// Reads a session's host line (`line` is its JSON object, "type" already "host"): "host"
// (required: a host name, stored lowercase) and "protocol" ("http/1.1", "h2" or "h3"; absent:
// "http/1.1"); members starting with '_' are ignored. False with a one-line `error` ("protocol:
// expected a string, got a number", "protocol: 'h4' is not http/1.1, h2 or h3", "host 'a.test'
// is declared twice"); the caller adds "file:line: ".
bool ParseSessionHostLine(const nlohmann::json& line, HostProtocols* hosts, std::string* error);

}  // namespace netstack

#endif  // TOOLS_REPLAY_TRACE_HOST_PROTOCOL_H_
