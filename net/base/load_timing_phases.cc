#include "net/base/load_timing_phases.h"

#include <algorithm>

namespace netstack {
namespace {

// A connect point before the request existed counts from the request's start.
TimeTicks Clamp(TimeTicks t, TimeTicks floor) {
  if (t == TimeTicks{}) return t;
  return std::max(t, floor);
}

// The connect phases of a request that started at `rs`, and where its first one began (unset
// when the socket had no connect timing).
struct ConnectPhases {
  double dns_ms = 0, connect_ms = 0, tls_ms = 0;
  TimeTicks first{};
};

ConnectPhases SplitConnect(const ConnectTiming& c, TimeTicks rs) {
  const TimeTicks dns_start = Clamp(c.dns_start, rs), dns_end = Clamp(c.dns_end, rs);
  const TimeTicks connect_start = Clamp(c.connect_start, rs);
  const TimeTicks connect_end = Clamp(c.connect_end, rs);
  const TimeTicks ssl_start = Clamp(c.ssl_start, rs), ssl_end = Clamp(c.ssl_end, rs);
  ConnectPhases p;
  p.dns_ms = MillisecondsBetween(dns_start, dns_end);
  p.connect_ms =
      MillisecondsBetween(connect_start, ssl_start != TimeTicks{} ? ssl_start : connect_end);
  p.tls_ms = MillisecondsBetween(ssl_start, ssl_end);
  p.first = dns_start != TimeTicks{} ? dns_start : connect_start;
  return p;
}

}  // namespace

double MillisecondsBetween(TimeTicks from, TimeTicks to) {
  if (from == TimeTicks{} || to == TimeTicks{} || to < from) return 0;
  return ToMilliseconds(to - from);
}

LoadTimingPhases ComputeLoadTimingPhases(const LoadTimingInfo& t, TimeTicks rs) {
  const ConnectPhases c = SplitConnect(t.connect_timing, rs);
  LoadTimingPhases p;
  p.dns_ms = c.dns_ms;
  p.connect_ms = c.connect_ms;
  p.tls_ms = c.tls_ms;
  p.send_ms = MillisecondsBetween(t.send_start, t.send_end);
  p.ttfb_ms = MillisecondsBetween(t.send_end, t.receive_headers_start);
  p.receive_ms = MillisecondsBetween(t.receive_headers_start, t.receive_end);
  p.queued_ms = MillisecondsBetween(rs, c.first != TimeTicks{} ? c.first : t.send_start);
  return p;
}

double ConnectWaitMs(const ConnectTiming& timing, TimeTicks request_start) {
  // The same split and the same sum as LoadTimingPhases::connect_wait_ms(), so both are equal.
  const ConnectPhases c = SplitConnect(timing, request_start);
  LoadTimingPhases p;
  p.dns_ms = c.dns_ms;
  p.connect_ms = c.connect_ms;
  p.tls_ms = c.tls_ms;
  return p.connect_wait_ms();
}

}  // namespace netstack
