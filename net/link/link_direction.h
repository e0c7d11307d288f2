// LinkDirection: one direction of the emulated link, with no I/O, on the time it is given.
// Packets are offered at their arrival time and come out at their delivery time:
//
//   arrival -> random loss (seeded) -> drop-tail queue (bounded in packets and bytes)
//           -> serialization (at rate_bps, or at a delivery trace's opportunities)
//           -> one-way delay (per-address override) -> delivery
//
// Since the queue is FIFO and later arrivals never change an earlier packet's fate, each
// packet's departure is computed when it is offered; the direction then only holds packets until
// their delivery time. The packets of one direction leave the queue in the order they arrived;
// packets with the same one-way delay are delivered in that order (with per-address delays, a
// packet on a shorter path may overtake one on a longer path, as on two real paths). Per packet
// the cost is O(1) amortized, plus O(log n) in a trace of n lines and one step per opportunity a
// large packet spans, plus one comparison per distinct delay when it is delivered (one FIFO
// lane per distinct delay: a handful in the lab); nothing is allocated beyond the packet's own
// bytes and the deques' blocks. Bounds: the queue's (params), and at most kMaxInFlightPackets /
// kMaxInFlightBytes serialized but not yet delivered (beyond them a packet is dropped as by the
// queue).
#ifndef NET_LINK_LINK_DIRECTION_H_
#define NET_LINK_LINK_DIRECTION_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <vector>

#include "net/base/time.h"
#include "net/link/link_params.h"

namespace netstack {

// One IP packet's bytes.
using LinkPacket = std::vector<uint8_t>;

class LinkDirection {
 public:
  // Which address of an IPv4 packet selects a per-address delay: the destination for the up
  // direction (the client sends to the server's address), the source for the down direction.
  enum class AddressField { kDestination, kSource };

  // Packets in flight (serialized, not yet delivered) at most, per direction.
  static constexpr size_t kMaxInFlightPackets = 1 << 16;
  static constexpr size_t kMaxInFlightBytes = size_t{64} << 20;

  // `params` must pass ValidateLinkDirectionParams (link_params.h). `start` is the link's start:
  // a delivery trace's time 0. `seed` seeds the loss generator (std::mt19937_64).
  LinkDirection(const LinkDirectionParams& params, AddressField address_field, TimeTicks start,
                uint64_t seed);
  LinkDirection(const LinkDirection&) = delete;
  LinkDirection& operator=(const LinkDirection&) = delete;

  // Offers a packet arriving at `now` (never before an earlier Offer's or DeliverDue's `now`).
  // Returns false if it was dropped (at random, or because the queue or the in-flight bound is
  // full; counted in stats()), true if it will be delivered.
  bool Offer(TimeTicks now, LinkPacket packet);
  // The delivery time of the earliest packet still held, or nullopt if none is.
  std::optional<TimeTicks> NextDeliveryTime() const;
  // Appends to `*out` every packet whose delivery time is <= `now`, earliest first (ties in
  // arrival order), and counts them in stats().packets_out / bytes_out.
  void DeliverDue(TimeTicks now, std::vector<LinkPacket>* out);
  // Drops every packet held, uncounted (the link is going away).
  void Clear();

  // packets_in/bytes_in (offered), packets_out/bytes_out (delivered), the drops and the queue's
  // high-water marks; write_drops stays 0 (the model does not write).
  const LinkDirectionStats& stats() const { return stats_; }
  // Packets and bytes waiting in the queue at the last Offer (not counting the one on the wire).
  size_t queued_packets() const { return waiting_packets_; }
  size_t queued_bytes() const { return waiting_bytes_; }

 private:
  // A packet's passage through the serializer, kept (without its bytes) to know the queue's
  // occupancy at a later arrival.
  struct Serialization {
    TimeTicks start;   // its first bit leaves
    TimeTicks finish;  // its last bit has left
    size_t bytes;
  };
  // Packets with the same one-way delay, in delivery (and arrival) order.
  struct Held {
    TimeTicks deliver_at;
    uint64_t sequence;  // arrival order, to break ties between lanes
    LinkPacket packet;
  };
  struct Lane {
    TimeDelta delay;
    std::deque<Held> packets;
  };

  // Forgets serializations finished by `now` and recounts the packets still waiting.
  void AdvanceQueue(TimeTicks now);
  // The departure (start, finish) of a packet of `bytes` arriving at `now`, the previous one
  // having finished at last_finish_: at the rate, or at the trace's opportunities.
  Serialization SerializeAtRate(TimeTicks now, size_t bytes);
  Serialization SerializeOnTrace(TimeTicks now, size_t bytes);
  // The lane of a packet (its per-address delay's, or the default's).
  size_t LaneOf(const LinkPacket& packet) const;
  // The lane whose head is delivered next, or -1.
  int NextLane() const;

  const LinkDirectionParams params_;
  const AddressField address_field_;
  const TimeTicks start_;
  std::mt19937_64 random_;
  std::bernoulli_distribution lose_;

  std::deque<Serialization> serializing_;  // not finished at the last AdvanceQueue
  size_t serializing_bytes_ = 0;
  size_t waiting_packets_ = 0, waiting_bytes_ = 0;
  // Rate mode: the serializer is busy until last_finish_ + finish_remainder_ / rate µs.
  TimeTicks last_finish_;
  int64_t finish_remainder_ = 0;
  // Trace mode: the next opportunity not yet used, and the bytes left in the last used one
  // (at last_finish_), which the next packet may use if it had arrived by then.
  uint64_t next_opportunity_ = 0;
  size_t bytes_left_in_last_ = 0;

  std::vector<Lane> lanes_;                     // [0] is the default delay's
  std::map<uint32_t, size_t> lane_by_address_;  // into lanes_
  size_t in_flight_packets_ = 0, in_flight_bytes_ = 0;
  uint64_t sequence_ = 0;
  LinkDirectionStats stats_;
};

}  // namespace netstack

#endif  // NET_LINK_LINK_DIRECTION_H_
