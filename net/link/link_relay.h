// LinkRelay: the lab's emulated link on a libuv loop. It carries IP packets between two packet
// devices (the client side's and the server side's TUN file descriptors) as an access link
// would: each direction has a drop-tail queue with a bound, serializes every packet at its rate
// (or at the opportunities of a recorded packet-delivery trace, as mahimahi's mm-link), adds a
// one-way propagation delay, and may drop packets at random (seeded). The link model itself
// (link_direction.h) does no I/O and runs on virtual time in the tests; this class reads the
// devices, stamps packets with the monotonic clock at microsecond resolution (a timerfd, since
// libuv's timers have millisecond resolution), and writes them out when the model delivers them.
#ifndef NET_LINK_LINK_RELAY_H_
#define NET_LINK_LINK_RELAY_H_

#include <uv.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "net/base/time.h"

namespace netstack {

class DeliveryTrace;  // delivery_trace.h: mahimahi's packet-delivery trace format

// One direction of the link.
struct LinkDirectionParams {
  TimeDelta delay{0};    // one-way propagation delay, added after serialization
  int64_t rate_bps = 0;  // serialization rate; 0 = unlimited (ignored when `trace` is set)
  // When set, packets leave only at this trace's delivery opportunities (one MTU-sized packet
  // each, the trace looping), instead of at `rate_bps`.
  std::shared_ptr<const DeliveryTrace> trace;
  // Drop-tail bound of the queue of packets waiting to be serialized: a packet that would exceed
  // either bound is dropped. Both must be > 0 (the queue is always bounded).
  size_t queue_packets = 1000;
  size_t queue_bytes = 4 * 1024 * 1024;
  double loss = 0;  // probability 0..1 that a packet is dropped at random on arrival
  // One-way delays that replace `delay` for packets to or from these IPv4 addresses (network
  // byte order as in the packet, host-order uint32_t here): per-host RTTs and the DNS server's.
  std::map<uint32_t, TimeDelta> delay_by_address;
};

// The whole link. "up" carries packets the client side sends; "down" those the server side sends.
struct LinkParams {
  LinkDirectionParams up;
  LinkDirectionParams down;
  uint64_t seed = 1;  // the random loss's generator (each direction derives its own)
};

struct LinkDirectionStats {
  uint64_t packets_in = 0, bytes_in = 0;              // read from the sending device
  uint64_t packets_out = 0, bytes_out = 0;            // written to the receiving device
  uint64_t queue_drops = 0, loss_drops = 0;           // dropped by the bound, at random
  uint64_t write_drops = 0;                           // the receiving device refused them
  size_t max_queue_packets = 0, max_queue_bytes = 0;  // high-water marks
};

class LinkRelay {
 public:
  // `client_fd` and `server_fd` are non-blocking packet file descriptors: one read gives one IP
  // packet and one write sends one (TUN devices opened with IFF_TUN | IFF_NO_PI; SOCK_SEQPACKET
  // or SOCK_DGRAM socketpairs in tests). They are not owned: the caller closes them after the
  // relay's Close callback has run. `loop` must outlive the relay.
  LinkRelay(uv_loop_t* loop, int client_fd, int server_fd, LinkParams params);
  ~LinkRelay();  // only after Close's callback (or if Start was never called)
  LinkRelay(const LinkRelay&) = delete;
  LinkRelay& operator=(const LinkRelay&) = delete;

  // Starts relaying. Returns 0, or a negative errno (a uv_poll or timerfd failure) with nothing
  // started.
  int Start();
  // Stops reading, drops what is still queued or in flight (counted nowhere: the link is gone)
  // and closes the relay's handles; `on_closed` runs on the loop once every handle is closed.
  void Close(std::function<void()> on_closed);

  const LinkDirectionStats& up_stats() const;
  const LinkDirectionStats& down_stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace netstack

#endif  // NET_LINK_LINK_RELAY_H_
