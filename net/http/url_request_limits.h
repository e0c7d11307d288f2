// The limits a user expects from curl, for every fetch of a context: a total time (curl's
// --max-time), a minimum transfer rate (--speed-limit / --speed-time), and a bound on how long a
// response's headers may take once the request is sent. UrlRequest enforces the first two over
// the whole fetch (redirects and retries included); HttpNetworkTransaction the third, per hop.
// The idle timeout (HttpBasicStream::Params::idle_timeout) only bounds silence: a server that
// sends one byte a second is stopped by these, not by it.
#ifndef NET_HTTP_URL_REQUEST_LIMITS_H_
#define NET_HTTP_URL_REQUEST_LIMITS_H_

#include <cstdint>
#include <string>

#include "net/base/time.h"

namespace netstack {

struct TransferLimits {
  // The whole fetch, from UrlRequest::Start to its completion: DNS, connects, every redirect hop
  // and retry, the body. Zero: no limit (curl's default). ERR_TIMED_OUT past it.
  TimeDelta max_time{};
  // A fetch whose body arrives slower than this many bytes a second (averaged over
  // TransferRateMonitor::kWindowSamples checks) for `low_speed_time` fails with
  // ERR_TRANSFER_TOO_SLOW. Zero: off (curl's default).
  int64_t min_bytes_per_second = 0;
  TimeDelta low_speed_time = Seconds(30);  // curl's default --speed-time
  // From the request written to the end of the response headers, per hop. On by default (zero
  // turns it off; fetch's flags cannot): a server that drips its headers a byte at a time cannot
  // hold a request forever. ERR_TIMED_OUT.
  TimeDelta headers_timeout = Seconds(300);
};

// "5", "0.25": a duration in seconds as a user wrote it, for error messages.
std::string FormatSeconds(TimeDelta delta);

// curl's low-speed check (lib/speedcheck.c), on samples the caller takes every
// kCheckInterval: the rate is the bytes moved over the last kWindowSamples intervals (fewer at
// the start), and a transfer whose rate has stayed below the limit for `low_speed_time` is too
// slow. Pure arithmetic on the times and counts it is given: no clock of its own.
class TransferRateMonitor {
 public:
  static constexpr TimeDelta kCheckInterval = std::chrono::seconds(1);
  static constexpr int kWindowSamples = 5;  // curl averages over its last 5 seconds

  // `min_bytes_per_second` > 0; `low_speed_time` > 0. `start` and `start_bytes` are the first
  // sample (the transfer's start).
  TransferRateMonitor(int64_t min_bytes_per_second, TimeDelta low_speed_time, TimeTicks start,
                      int64_t start_bytes);

  // Takes a sample: `total_bytes` moved by `now` (never decreasing, `now` after the previous
  // sample). Returns true once the rate has been below the limit since a sample at least
  // low_speed_time old, i.e. the transfer is too slow; false while it keeps up.
  bool Sample(TimeTicks now, int64_t total_bytes);

  // The rate over the window at the last Sample, in bytes a second.
  double last_rate() const { return last_rate_; }

 private:
  struct Point {
    TimeTicks time;
    int64_t bytes = 0;
  };

  const int64_t min_bytes_per_second_;
  const TimeDelta low_speed_time_;
  // The last kWindowSamples + 1 samples, oldest first at head_ (a ring).
  Point window_[kWindowSamples + 1];
  int count_ = 0;
  int head_ = 0;
  // Since when the rate has been below the limit (the start of the first slow interval); zero
  // while it keeps up.
  TimeTicks slow_since_{};
  bool slow_ = false;
  double last_rate_ = 0;
};

}  // namespace netstack

#endif  // NET_HTTP_URL_REQUEST_LIMITS_H_
