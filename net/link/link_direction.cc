#include "net/link/link_direction.h"

#include <algorithm>
#include <utility>

#include "net/link/delivery_trace.h"

namespace netstack {

namespace {

constexpr int64_t kBitMicrosPerByte = 8 * 1'000'000;  // a byte's bits, times µs per second

// The IPv4 address selecting a per-address delay, host order; nullopt for a packet that is not
// IPv4 or is too short to hold the header's addresses.
std::optional<uint32_t> PacketAddress(const LinkPacket& packet, LinkDirection::AddressField field) {
  if (packet.size() < 20 || (packet[0] >> 4) != 4) return std::nullopt;
  const size_t at = field == LinkDirection::AddressField::kDestination ? 16 : 12;
  return (uint32_t{packet[at]} << 24) | (uint32_t{packet[at + 1]} << 16) |
         (uint32_t{packet[at + 2]} << 8) | uint32_t{packet[at + 3]};
}

}  // namespace

LinkDirection::LinkDirection(const LinkDirectionParams& params, AddressField address_field,
                             TimeTicks start, uint64_t seed)
    : params_(params),
      address_field_(address_field),
      start_(start),
      random_(seed),
      last_finish_(start) {
  lanes_.push_back(Lane{params_.delay, {}});
  for (const auto& [address, delay] : params_.delay_by_address) {
    size_t lane = 0;
    while (lane < lanes_.size() && lanes_[lane].delay != delay) ++lane;
    if (lane == lanes_.size()) lanes_.push_back(Lane{delay, {}});
    lane_by_address_[address] = lane;
  }
}

bool LinkDirection::Offer(TimeTicks now, LinkPacket packet) {
  const size_t bytes = packet.size();
  ++stats_.packets_in;
  stats_.bytes_in += bytes;
  // Random loss on arrival: one draw per packet offered (whatever happens to it next), so the
  // same seed loses the same packets. Drawn from the generator's bits rather than a
  // std::*_distribution, whose output the standard leaves to each library.
  if (params_.loss > 0) {
    const double u = static_cast<double>(random_() >> 11) * 0x1.0p-53;  // [0, 1)
    if (u < params_.loss) {
      ++stats_.loss_drops;
      return false;
    }
  }
  AdvanceQueue(now);
  if (waiting_packets_ + 1 > params_.queue_packets ||
      waiting_bytes_ + bytes > params_.queue_bytes ||
      in_flight_packets_ + 1 > kMaxInFlightPackets ||
      in_flight_bytes_ + bytes > kMaxInFlightBytes) {
    ++stats_.queue_drops;
    return false;
  }
  const Serialization s =
      params_.trace ? SerializeOnTrace(now, bytes) : SerializeAtRate(now, bytes);
  serializing_.push_back(s);
  serializing_bytes_ += bytes;
  if (s.start > now) {
    ++waiting_packets_;
    waiting_bytes_ += bytes;
    stats_.max_queue_packets = std::max(stats_.max_queue_packets, waiting_packets_);
    stats_.max_queue_bytes = std::max(stats_.max_queue_bytes, waiting_bytes_);
  }
  Lane& lane = lanes_[LaneOf(packet)];
  lane.packets.push_back(Held{s.finish + lane.delay, sequence_++, std::move(packet)});
  ++in_flight_packets_;
  in_flight_bytes_ += bytes;
  return true;
}

void LinkDirection::AdvanceQueue(TimeTicks now) {
  while (!serializing_.empty() && serializing_.front().finish <= now) {
    serializing_bytes_ -= serializing_.front().bytes;
    serializing_.pop_front();
  }
  // Starts are in order, and a packet starts no earlier than its predecessor finishes: only the
  // front one can be on the wire.
  waiting_packets_ = serializing_.size();
  waiting_bytes_ = serializing_bytes_;
  if (!serializing_.empty() && serializing_.front().start <= now) {
    --waiting_packets_;
    waiting_bytes_ -= serializing_.front().bytes;
  }
}

LinkDirection::Serialization LinkDirection::SerializeAtRate(TimeTicks now, size_t bytes) {
  if (params_.rate_bps <= 0) return Serialization{now, now, bytes};
  // The serializer is free at last_finish_ + finish_remainder_ / rate µs (exact, so that long
  // runs do not drift by a rounding per packet).
  const bool idle = now > last_finish_ || (now == last_finish_ && finish_remainder_ == 0);
  if (idle) {
    last_finish_ = now;
    finish_remainder_ = 0;
  }
  const TimeTicks start = last_finish_ + TimeDelta(finish_remainder_ > 0 ? 1 : 0);
  const int64_t numerator = finish_remainder_ + static_cast<int64_t>(bytes) * kBitMicrosPerByte;
  last_finish_ += TimeDelta(numerator / params_.rate_bps);
  finish_remainder_ = numerator % params_.rate_bps;
  const TimeTicks finish = last_finish_ + TimeDelta(finish_remainder_ > 0 ? 1 : 0);
  return Serialization{start, finish, bytes};
}

// mahimahi's mm-link (src/frontend/link_queue.cc, LinkQueue::rationalize), which this follows:
// each opportunity carries up to 1504 bytes, shared by as many queued packets as fit; a packet
// that does not fit in what is left takes those bytes and the rest from the next opportunity
// (what it has sent stays sent), and leaves at the one that completes it; what that opportunity
// has left goes to the next packet if that one has arrived by then, else it is wasted, as is
// every opportunity that finds the queue empty. An opportunity at the very time a packet arrives
// has already passed (mm-link runs the link up to "now" before enqueueing). One extension:
// mm-link refuses a packet larger than 1504 bytes (it exits); here such a packet (a TUN device
// with a larger MTU) spans as many opportunities as it needs, by the same rule.
LinkDirection::Serialization LinkDirection::SerializeOnTrace(TimeTicks now, size_t bytes) {
  const DeliveryTrace& trace = *params_.trace;
  size_t remaining = bytes;
  std::optional<TimeTicks> start;
  if (bytes_left_in_last_ > 0 && last_finish_ > now) {
    const size_t used = std::min(remaining, bytes_left_in_last_);
    remaining -= used;
    bytes_left_in_last_ -= used;
    start = last_finish_;
    if (remaining == 0) return Serialization{last_finish_, last_finish_, bytes};
  }
  uint64_t index = std::max(next_opportunity_, trace.FirstOpportunityAfter(now - start_));
  while (true) {
    const TimeTicks at = start_ + trace.OpportunityTime(index++);
    if (!start) start = at;
    const size_t used = std::min(remaining, DeliveryTrace::kBytesPerOpportunity);
    remaining -= used;
    if (remaining == 0) {
      last_finish_ = at;
      bytes_left_in_last_ = DeliveryTrace::kBytesPerOpportunity - used;
      next_opportunity_ = index;
      return Serialization{*start, at, bytes};
    }
  }
}

size_t LinkDirection::LaneOf(const LinkPacket& packet) const {
  if (lane_by_address_.empty()) return 0;
  const std::optional<uint32_t> address = PacketAddress(packet, address_field_);
  if (!address) return 0;
  auto it = lane_by_address_.find(*address);
  return it == lane_by_address_.end() ? 0 : it->second;
}

int LinkDirection::NextLane() const {
  int best = -1;
  for (size_t i = 0; i < lanes_.size(); ++i) {
    if (lanes_[i].packets.empty()) continue;
    const Held& head = lanes_[i].packets.front();
    if (best < 0) {
      best = static_cast<int>(i);
      continue;
    }
    const Held& other = lanes_[best].packets.front();
    if (head.deliver_at < other.deliver_at ||
        (head.deliver_at == other.deliver_at && head.sequence < other.sequence)) {
      best = static_cast<int>(i);
    }
  }
  return best;
}

std::optional<TimeTicks> LinkDirection::NextDeliveryTime() const {
  const int lane = NextLane();
  if (lane < 0) return std::nullopt;
  return lanes_[lane].packets.front().deliver_at;
}

void LinkDirection::DeliverDue(TimeTicks now, std::vector<LinkPacket>* out) {
  for (int lane = NextLane(); lane >= 0; lane = NextLane()) {
    std::deque<Held>& packets = lanes_[lane].packets;
    if (packets.front().deliver_at > now) break;
    const size_t bytes = packets.front().packet.size();
    ++stats_.packets_out;
    stats_.bytes_out += bytes;
    --in_flight_packets_;
    in_flight_bytes_ -= bytes;
    out->push_back(std::move(packets.front().packet));
    packets.pop_front();
  }
}

void LinkDirection::Clear() {
  for (Lane& lane : lanes_) lane.packets.clear();
  serializing_.clear();
  serializing_bytes_ = 0;
  waiting_packets_ = waiting_bytes_ = 0;
  in_flight_packets_ = in_flight_bytes_ = 0;
}

}  // namespace netstack
