// The emulated link's parameters and counters, shared by the model (link_direction.h) and the
// relay that runs it on the loop (link_relay.h). Split out of link_relay.h so the model, which
// does no I/O, does not include libuv.
#ifndef NET_LINK_LINK_PARAMS_H_
#define NET_LINK_LINK_PARAMS_H_

#include <cstddef>
#include <cstdint>
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

// Hard limits on the parameters (ValidateLinkParams refuses anything beyond them).
inline constexpr TimeDelta kMaxLinkDelay = std::chrono::seconds(60);
inline constexpr int64_t kMaxLinkRateBps = 1'000'000'000'000;  // 1 Tbit/s
inline constexpr size_t kMaxLinkQueuePackets = 1'000'000;
inline constexpr size_t kMaxLinkQueueBytes = size_t{1} << 30;  // 1 GiB
inline constexpr size_t kMaxLinkDelayAddresses = 4096;

// Returns true if `params` is within the limits above (delays 0..60 s, rate 0..1 Tbit/s, queue
// bounds 1..1,000,000 packets and 1..1 GiB, loss 0..1, at most 4096 per-address delays).
// Otherwise sets `*error` to one line naming the direction ("up"/"down"), the field and the
// value, e.g. "up: queue_packets must be 1..1000000, got 0".
bool ValidateLinkDirectionParams(const LinkDirectionParams& params, const std::string& name,
                                 std::string* error);
// Both directions (named "up" and "down").
bool ValidateLinkParams(const LinkParams& params, std::string* error);

}  // namespace netstack

#endif  // NET_LINK_LINK_PARAMS_H_
