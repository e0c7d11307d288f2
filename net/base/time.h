// Time types for the whole stack. Both worlds measure time in microseconds from an arbitrary
// origin (the scheduler's start), so virtual and real time have the same type.
#ifndef NET_BASE_TIME_H_
#define NET_BASE_TIME_H_

#include <chrono>
#include <cmath>
#include <cstdint>

namespace netstack {

// A span of time. std::chrono literals (250ms, 10s) convert to it implicitly.
using TimeDelta = std::chrono::microseconds;

// The clock behind TimeTicks. It has no now(): time is read from a Scheduler, never from a
// global, so that tests and the simulator control it.
struct TickClock {
  using rep = int64_t;
  using period = std::micro;
  using duration = TimeDelta;
  using time_point = std::chrono::time_point<TickClock>;
  static constexpr bool is_steady = true;
};

// A point in time on a Scheduler's clock. TimeTicks{} (zero) is the null time, meaning "not
// set" (as in Chrome: LoadTimingInfo leaves unset points at zero). A scheduler that stamps real
// events must therefore never return it: UvScheduler starts at 1 s, and the simulator starts its
// VirtualScheduler at a non-zero epoch. VirtualScheduler's default start of zero is for unit
// tests, which read times relative to it.
using TimeTicks = TickClock::time_point;

// Milliseconds as a double, for output (JSON timings, NetLog).
inline double ToMilliseconds(TimeDelta d) { return static_cast<double>(d.count()) / 1000.0; }
inline double ToMilliseconds(TimeTicks t) { return ToMilliseconds(t.time_since_epoch()); }

// Milliseconds as every JSON output writes them: rounded to the microsecond. Times come from
// microsecond ticks; the rounding removes the noise of double arithmetic, so the same run always
// prints the same digits. The one place outputs round (request records, replay's pages, totals
// and summary, page summaries, the predictor's stats).
inline double RoundMsForJson(double ms) { return std::round(ms * 1000.0) / 1000.0; }

inline TimeDelta Milliseconds(int64_t ms) { return std::chrono::milliseconds(ms); }
inline TimeDelta Seconds(int64_t s) { return std::chrono::seconds(s); }

}  // namespace netstack

#endif  // NET_BASE_TIME_H_
