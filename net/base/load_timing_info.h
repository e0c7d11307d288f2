// Where the time of one request went, as Chrome's LoadTimingInfo splits it. Unset points are
// TimeTicks{} (zero); a reused socket has no connect timing.
#ifndef NET_BASE_LOAD_TIMING_INFO_H_
#define NET_BASE_LOAD_TIMING_INFO_H_

#include "net/base/time.h"

namespace netstack {

struct ConnectTiming {
  TimeTicks dns_start{}, dns_end{};
  TimeTicks connect_start{}, connect_end{};  // includes TLS, like Chrome's
  TimeTicks ssl_start{}, ssl_end{};
};

struct LoadTimingInfo {
  bool socket_reused = false;
  uint32_t socket_log_id = 0;
  TimeTicks request_start{};
  ConnectTiming connect_timing;
  TimeTicks send_start{}, send_end{};
  TimeTicks receive_headers_start{}, receive_headers_end{};  // first byte, end of headers
  TimeTicks receive_end{};                                   // body complete
};

}  // namespace netstack

#endif  // NET_BASE_LOAD_TIMING_INFO_H_
