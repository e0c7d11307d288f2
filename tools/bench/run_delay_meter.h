// How long threads have waited for a CPU: the second field of Linux's
// /proc/<pid>/task/<tid>/schedstat (run_delay, ns runnable but not running). On a shared
// machine a loop thread that is preempted by other processes fires its timer late and serves
// a hit late without any fault of the code under test; subtracting the wait separates that
// from time spent blocked in I/O or working. Not available (WaitNs 0) where schedstat is not.
#ifndef TOOLS_BENCH_RUN_DELAY_METER_H_
#define TOOLS_BENCH_RUN_DELAY_METER_H_

#include <cstdint>
#include <vector>

namespace netstack {

class RunDelayMeter {
 public:
  enum class Threads {
    kThisThread,
    // Every thread the process has when the meter is made (the loop and the cache thread).
    kAllThreads,
  };
  explicit RunDelayMeter(Threads threads);
  ~RunDelayMeter();
  RunDelayMeter(const RunDelayMeter&) = delete;
  RunDelayMeter& operator=(const RunDelayMeter&) = delete;

  bool available() const { return !fds_.empty(); }
  // The threads' run_delay, summed, in ns (a pread per thread: a few µs).
  uint64_t WaitNs() const;

 private:
  std::vector<int> fds_;
};

}  // namespace netstack

#endif  // TOOLS_BENCH_RUN_DELAY_METER_H_
