#include "tools/replay/replay_oracle.h"

#include <algorithm>
#include <cmath>

#include "net/base/load_timing_phases.h"

namespace netstack {
namespace {

bool Usable(const OracleInterval& i) {
  return std::isfinite(i.start_ms) && std::isfinite(i.end_ms) && i.end_ms > i.start_ms;
}

}  // namespace

OracleInterval SetupInterval(SocketSource source, const LoadTimingInfo& timing, TimeTicks start,
                             TimeTicks page_start) {
  OracleInterval i;
  if (!IsConnectJobSocket(source) && source != SocketSource::kHttp2Session) return i;
  TimeTicks ready =
      timing.send_start != TimeTicks{} ? timing.send_start : timing.connect_timing.connect_end;
  if (ready == TimeTicks{} || start == TimeTicks{} || ready <= start) return i;
  i.start_ms = MillisecondsBetween(page_start, start);
  i.end_ms = MillisecondsBetween(page_start, ready);
  return i;
}

OracleResult CriticalPathSetup(const std::vector<OracleEntry>& entries, int last) {
  OracleResult result;
  if (last < 0 || last >= static_cast<int>(entries.size())) return result;
  std::vector<OracleInterval> intervals;
  for (int i = last; i >= 0;) {
    const OracleEntry& e = entries[i];
    ++result.critical_requests;
    if (Usable(e.setup)) intervals.push_back(e.setup);
    // Parents are earlier entries (trace.h); anything else ends the chain.
    i = e.parent < i ? e.parent : -1;
  }
  std::sort(
      intervals.begin(), intervals.end(),
      [](const OracleInterval& a, const OracleInterval& b) { return a.start_ms < b.start_ms; });
  double covered_to = 0;
  bool any = false;
  for (const OracleInterval& i : intervals) {
    double from = any ? std::max(i.start_ms, covered_to) : i.start_ms;
    if (i.end_ms > from) result.setup_ms += i.end_ms - from;
    covered_to = any ? std::max(covered_to, i.end_ms) : i.end_ms;
    any = true;
  }
  return result;
}

}  // namespace netstack
