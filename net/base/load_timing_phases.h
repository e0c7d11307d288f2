// The phases of one request in milliseconds, split from its LoadTimingInfo the one way both
// worlds report them (`fetch --json` timing, replay's per-request results, page waterfalls, the
// internals histograms).
//
// Connect points that fall before the request started (its socket was preconnected, or it was
// bound late to a connect job another request or a preconnect began) are clamped to the
// request's start: the request only waited for what was left, and that is what the phases
// show. A phase that did not happen (reused socket, no TLS) is 0.
//
// "Connect wait" is the one definition of how long a request waited for a new connection: the
// clamped dns + connect + tls (LoadTimingPhases::connect_wait_ms()). The socket pool computes the
// same number for its observers with ConnectWaitMs (the job's ConnectTiming and the request's
// start as its record counts it), so the predictor's accounting, replay's totals and the
// histograms add up the same values. Time queued behind pool limits is not in it (queued_ms).
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

  // The connection setup this request waited for: dns + connect + tls (see the top).
  double connect_wait_ms() const { return dns_ms + connect_ms + tls_ms; }
};

// Splits `timing` for a request that started at `request_start`.
LoadTimingPhases ComputeLoadTimingPhases(const LoadTimingInfo& timing, TimeTicks request_start);

// The connect wait of a request that started at `request_start` and got a socket whose connect
// job reported `timing` (all unset for an idle socket: 0). Equal, to the bit, to
// ComputeLoadTimingPhases(info, request_start).connect_wait_ms() for an `info` with this
// connect timing.
double ConnectWaitMs(const ConnectTiming& timing, TimeTicks request_start);

// Milliseconds from `from` to `to`; 0 when either is unset or `to` is before `from`.
double MillisecondsBetween(TimeTicks from, TimeTicks to);

}  // namespace netstack

#endif  // NET_BASE_LOAD_TIMING_PHASES_H_
