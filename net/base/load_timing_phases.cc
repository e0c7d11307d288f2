#include "net/base/load_timing_phases.h"

#include <algorithm>

namespace netstack {
namespace {

// A connect point before the request existed counts from the request's start.
TimeTicks Clamp(TimeTicks t, TimeTicks floor) {
  if (t == TimeTicks{}) return t;
  return std::max(t, floor);
}

}  // namespace

double MillisecondsBetween(TimeTicks from, TimeTicks to) {
  if (from == TimeTicks{} || to == TimeTicks{} || to < from) return 0;
  return ToMilliseconds(to - from);
}

LoadTimingPhases ComputeLoadTimingPhases(const LoadTimingInfo& t, TimeTicks rs) {
  const ConnectTiming& c = t.connect_timing;
  const TimeTicks dns_start = Clamp(c.dns_start, rs), dns_end = Clamp(c.dns_end, rs);
  const TimeTicks connect_start = Clamp(c.connect_start, rs);
  const TimeTicks connect_end = Clamp(c.connect_end, rs);
  const TimeTicks ssl_start = Clamp(c.ssl_start, rs), ssl_end = Clamp(c.ssl_end, rs);
  LoadTimingPhases p;
  p.dns_ms = MillisecondsBetween(dns_start, dns_end);
  p.connect_ms =
      MillisecondsBetween(connect_start, ssl_start != TimeTicks{} ? ssl_start : connect_end);
  p.tls_ms = MillisecondsBetween(ssl_start, ssl_end);
  p.send_ms = MillisecondsBetween(t.send_start, t.send_end);
  p.ttfb_ms = MillisecondsBetween(t.send_end, t.receive_headers_start);
  p.receive_ms = MillisecondsBetween(t.receive_headers_start, t.receive_end);
  const TimeTicks first = dns_start != TimeTicks{}       ? dns_start
                          : connect_start != TimeTicks{} ? connect_start
                                                         : t.send_start;
  p.queued_ms = MillisecondsBetween(rs, first);
  return p;
}

}  // namespace netstack
