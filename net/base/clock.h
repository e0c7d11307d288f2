// Wall-clock time, for what must be compared with dates from the network or survive a restart:
// HTTP Date/Expires/Last-Modified, a cache entry's last use, a learned table's age. Everything
// else uses the Scheduler's monotonic TimeTicks. Like the Scheduler, the clock is passed in, so
// tests and the simulator decide what "now" is.
#ifndef NET_BASE_CLOCK_H_
#define NET_BASE_CLOCK_H_

#include <chrono>
#include <cstdint>

#include "net/base/scheduler.h"
#include "net/base/time.h"

namespace netstack {

// Microseconds since the Unix epoch (UTC). Time{} is the epoch itself, used as "unknown".
struct WallClockTag {
  using rep = int64_t;
  using period = std::micro;
  using duration = TimeDelta;
  using time_point = std::chrono::time_point<WallClockTag>;
  static constexpr bool is_steady = false;
};
using Time = WallClockTag::time_point;

inline Time TimeFromUnixSeconds(int64_t seconds) { return Time(Seconds(seconds)); }
inline int64_t ToUnixSeconds(Time t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}
inline int64_t ToUnixMicros(Time t) { return t.time_since_epoch().count(); }
inline Time TimeFromUnixMicros(int64_t us) { return Time(TimeDelta(us)); }

// Single-threaded like the Scheduler unless an implementation says otherwise.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual Time Now() const = 0;
};

// The system's real-time clock (std::chrono::system_clock). Safe on any thread.
class SystemClock : public Clock {
 public:
  Time Now() const override {
    return Time(
        std::chrono::duration_cast<TimeDelta>(std::chrono::system_clock::now().time_since_epoch()));
  }
};

// Wall time that advances with a Scheduler's clock from an origin: the simulator's clock
// (virtual TimeTicks, a chosen date) and a deterministic clock for tests.
class SchedulerClock : public Clock {
 public:
  // `scheduler` must outlive the clock. Now() is `origin` when scheduler.Now() is `ticks_origin`.
  SchedulerClock(const Scheduler& scheduler, Time origin, TimeTicks ticks_origin = TimeTicks{})
      : scheduler_(scheduler), origin_(origin), ticks_origin_(ticks_origin) {}
  Time Now() const override { return origin_ + (scheduler_.Now() - ticks_origin_); }
  // From now on Now() is `origin` when scheduler.Now() is `ticks_origin` (a replay starts the
  // wall clock at its first page's recorded date, after the stack was built).
  void SetOrigin(Time origin, TimeTicks ticks_origin) {
    origin_ = origin;
    ticks_origin_ = ticks_origin;
  }

 private:
  const Scheduler& scheduler_;
  Time origin_;
  TimeTicks ticks_origin_;
};

// A clock a test sets by hand.
class ManualClock : public Clock {
 public:
  explicit ManualClock(Time now = TimeFromUnixSeconds(1'700'000'000)) : now_(now) {}
  Time Now() const override { return now_; }
  void SetNow(Time now) { now_ = now; }
  void Advance(TimeDelta d) { now_ += d; }

 private:
  Time now_;
};

}  // namespace netstack

#endif  // NET_BASE_CLOCK_H_
