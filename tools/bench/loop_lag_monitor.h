// The event loop's lag: a repeating libuv timer (1 ms by default) that records, each time it
// fires, how late it fired. A loop blocked by a callback (a write() the kernel throttles, an
// sqlite commit) shows up as a late timer; a loop that only hands work to another thread does
// not. Node's monitorEventLoopDelay measures the same thing.
//
// Two figures per firing:
// - lateness: against the due time libuv computed (the loop's millisecond clock when the timer
//   was re-armed, plus the interval), read with uv_hrtime. A loop that sleeps in epoll fires up
//   to ~1 ms late from libuv's millisecond rounding alone, so an idle loop shows a p50 of about
//   half a millisecond; a loop that never sleeps does not.
// - blocked: the lateness beyond the later of the due time and the wake-up libuv asked epoll
//   for (recorded before each poll by a prepare handle), less the time the loop thread spent
//   waiting for a CPU since the previous firing (RunDelayMeter). What remains is the time the
//   loop was busy in callbacks or blocked in a system call: what the code under test costs,
//   with the timer's resolution and other processes' preemption taken out.
#ifndef TOOLS_BENCH_LOOP_LAG_MONITOR_H_
#define TOOLS_BENCH_LOOP_LAG_MONITOR_H_

#include <uv.h>

#include <cstdint>

#include "tools/bench/run_delay_meter.h"
#include "tools/bench/sample_set.h"

namespace netstack {

class LoopLagMonitor {
 public:
  // On the loop thread; `loop` must outlive the monitor.
  LoopLagMonitor(uv_loop_t* loop, uint64_t interval_ms = 1);
  // Stops and closes the handles; they are freed in their close callbacks, so the loop must
  // run once more before it is closed.
  ~LoopLagMonitor();
  LoopLagMonitor(const LoopLagMonitor&) = delete;
  LoopLagMonitor& operator=(const LoopLagMonitor&) = delete;

  // Starts sampling, clearing earlier samples. The timer keeps the loop alive until Stop.
  void Start();
  void Stop();

  // Per firing since Start, in microseconds (see the file comment).
  const SampleSet& lateness_us() const { return lateness_us_; }
  const SampleSet& blocked_us() const { return blocked_us_; }

 private:
  static void OnTimer(uv_timer_t* timer);
  static void OnPrepare(uv_prepare_t* prepare);

  uv_loop_t* loop_;
  uint64_t interval_ms_;
  uv_timer_t* timer_;             // freed in its close callback
  uv_prepare_t* prepare_;         // likewise
  uint64_t due_ms_ = 0;           // on the loop's clock
  uint64_t planned_wake_ns_ = 0;  // when the last poll was to end by its timeout
  SampleSet lateness_us_;
  SampleSet blocked_us_;
  RunDelayMeter run_delay_{RunDelayMeter::Threads::kThisThread};
  uint64_t wait_ns_ = 0;  // run_delay at the previous firing
};

}  // namespace netstack

#endif  // TOOLS_BENCH_LOOP_LAG_MONITOR_H_
