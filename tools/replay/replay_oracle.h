// The oracle ceiling of one replayed page (docs/replay.md, "The oracle ceiling"): how much of the
// page load was spent setting up connections on the page's critical path. An oracle that had
// every connection the page needs ready in time would save that much (to first order), so the
// figure under predictor=off is the most any predictor can save on the page.
//
// The critical path is the chain from the request whose end is the page-load figure's end back
// through the request each one waited on (its dependency parent in the engine's model,
// PreparedEntry::parent) to the first request that waited on none (the document, under
// dependency placement). Its setup is the length of the union, in time, of the chain's requests'
// setup intervals (OracleEntry): setups that overlap in time (two origins connecting at once) are
// counted once, because removing both saves the overlap only once.
#ifndef TOOLS_REPLAY_REPLAY_ORACLE_H_
#define TOOLS_REPLAY_REPLAY_ORACLE_H_

#include <vector>

#include "net/base/load_timing_info.h"
#include "net/base/time.h"
#include "net/socket/socket_source.h"

namespace netstack {

// An interval of a page's time line (ms after the page's start); empty when end <= start.
struct OracleInterval {
  double start_ms = 0;
  double end_ms = 0;
};

// One entry of a page as the oracle sees it: the entry it waited on (-1: none; only an earlier
// entry counts) and the connection setup its request waited for (SetupInterval).
struct OracleEntry {
  int parent = -1;
  OracleInterval setup;
};

// The connection setup a request that started at `start` waited for, ms after `page_start`. On a
// connect job's socket (kNew, kPreconnectedLate) or a stream on an HTTP/2 session
// (kHttp2Session): from its start until it could send (LoadTimingInfo::send_start; else its
// socket's connect_end): the DNS lookups before and in the connect job, TCP connect and TLS, or
// the part of another request's session setup it waited for (a session already open gives an
// empty interval). Empty for idle sockets (reused, or preconnected in time: nothing was left to
// wait for), cache hits and requests without a socket.
OracleInterval SetupInterval(SocketSource source, const LoadTimingInfo& timing, TimeTicks start,
                             TimeTicks page_start);

struct OracleResult {
  double setup_ms = 0;        // union length of the chain's setup intervals
  int critical_requests = 0;  // entries on the chain (0 when `last` is out of range)
};

// The critical path of `entries` ending at entry `last` (-1 or out of range: an empty path, as
// for a page whose page load no request ends). Visits each entry at most once: a parent that is
// not earlier than its child ends the chain, so malformed input cannot loop.
OracleResult CriticalPathSetup(const std::vector<OracleEntry>& entries, int last);

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPLAY_ORACLE_H_
