// The phases of one request in milliseconds, split from its LoadTimingInfo the one way both
// worlds report them (`fetch --json` timing, replay's per-request results, page waterfalls).
//
// Connect points that fall before the request started (its socket was preconnected, or it was
// bound late to a connect job another request or a preconnect began) are clamped to the
// request's start: the request only waited for what was left, and that is what the phases
// show. A phase that did not happen (reused socket, no TLS) is 0.
#ifndef NET_BASE_LOAD_TIMING_PHASES_H_
#define NET_BASE_LOAD_TIMING_PHASES_H_

#include "net/base/load_timing_info.h"
#include "net/base/time.h"

namespace netstack {

struct LoadTimingPhases {
  double queued_ms = 0;  // request start -> DNS, connect or send start (waiting for a socket)
  double dns_ms = 0;
  double connect_ms = 0;  // TCP only (TLS is tls_ms)
  double tls_ms = 0;
  double send_ms = 0;
  double ttfb_ms = 0;  // request sent -> first response byte
  double receive_ms = 0;

  // The connection's setup as this request waited for it: dns + connect + tls.
  double setup_ms() const { return dns_ms + connect_ms + tls_ms; }
};

// Splits `timing` for a request that started at `request_start`.
LoadTimingPhases ComputeLoadTimingPhases(const LoadTimingInfo& timing, TimeTicks request_start);

// Milliseconds from `from` to `to`; 0 when either is unset or `to` is before `from`.
double MillisecondsBetween(TimeTicks from, TimeTicks to);

}  // namespace netstack

#endif  // NET_BASE_LOAD_TIMING_PHASES_H_
