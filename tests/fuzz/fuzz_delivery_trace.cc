// libFuzzer target for the packet-delivery trace reader (net/link/delivery_trace.h) and the link
// direction that a trace drives (net/link/link_direction.h). Any bytes give either a one-line
// error naming the file, or a trace that keeps the format's promises (opportunities
// non-decreasing, a period > 0, "first opportunity after t" consistent with the times); the
// trace then carries a few packets whose sizes and arrival times come from the input's bytes,
// and every packet leaves strictly after it arrived, in arrival order, the counts adding up.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "net/link/delivery_trace.h"
#include "net/link/link_direction.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using netstack::DeliveryTrace;
using netstack::LinkDirection;
using netstack::LinkPacket;
using netstack::TimeDelta;
using netstack::TimeTicks;

void CheckTrace(const DeliveryTrace& trace) {
  const std::vector<uint32_t>& ms = trace.opportunities_ms();
  FUZZ_CHECK(!ms.empty());
  FUZZ_CHECK(ms.back() > 0);
  FUZZ_CHECK(trace.period() == netstack::Milliseconds(ms.back()));
  for (size_t i = 1; i < ms.size(); ++i) FUZZ_CHECK(ms[i - 1] <= ms[i]);
  // Around a few opportunities of the first two repetitions: the first one after t is after t,
  // and the one before it is not.
  const size_t n = ms.size();
  for (uint64_t index = 0; index < 2 * n && index < 64; ++index) {
    const TimeDelta at = trace.OpportunityTime(index);
    for (TimeDelta t : {at - TimeDelta(1), at, at + TimeDelta(1)}) {
      if (t < TimeDelta(0)) continue;
      const uint64_t first = trace.FirstOpportunityAfter(t);
      FUZZ_CHECK(trace.OpportunityTime(first) > t);
      FUZZ_CHECK(first == 0 || trace.OpportunityTime(first - 1) <= t);
    }
  }
}

// Packets of sizes and arrival gaps taken from `bytes`, through a direction driven by `trace`.
void CheckLink(std::shared_ptr<const DeliveryTrace> trace, std::string_view bytes) {
  netstack::LinkDirectionParams params;
  params.trace = std::move(trace);
  params.queue_packets = 8;
  params.queue_bytes = 16 * 1024;
  params.delay = TimeDelta(bytes.size() % 3 * 1000);
  const TimeTicks start(TimeDelta(1'000'000));
  LinkDirection link(params, LinkDirection::AddressField::kDestination, start, bytes.size());
  TimeTicks now = start;
  std::vector<TimeTicks> arrivals;  // of the packets accepted, in order; tagged by index
  std::vector<LinkPacket> out;
  uint32_t next_tag = 0, expected_tag = 0;
  TimeTicks last_delivery = start;
  auto deliver = [&](TimeTicks until) {
    out.clear();
    link.DeliverDue(until, &out);
    for (const LinkPacket& packet : out) {
      uint32_t tag = 0;
      for (int i = 0; i < 4; ++i) tag |= uint32_t{packet[i]} << (8 * i);
      FUZZ_CHECK(tag == expected_tag);  // one delay for all: arrival order
      FUZZ_CHECK(until > arrivals[tag]);
      ++expected_tag;
    }
  };
  for (size_t i = 0; i + 1 < bytes.size() && i < 128; i += 2) {
    now += TimeDelta(static_cast<uint8_t>(bytes[i]) * 97);
    deliver(now);
    const size_t size = 4 + static_cast<uint8_t>(bytes[i + 1]) * 23;  // 4..5869 bytes
    LinkPacket packet(size, 0);
    for (int b = 0; b < 4; ++b) packet[b] = static_cast<uint8_t>(next_tag >> (8 * b));
    if (link.Offer(now, std::move(packet))) {
      arrivals.push_back(now);
      ++next_tag;
    }
    FUZZ_CHECK(link.queued_packets() <= params.queue_packets);
    FUZZ_CHECK(link.queued_bytes() <= params.queue_bytes);
  }
  while (std::optional<TimeTicks> next = link.NextDeliveryTime()) {
    FUZZ_CHECK(*next >= last_delivery);
    last_delivery = *next;
    deliver(*next);
  }
  const netstack::LinkDirectionStats& stats = link.stats();
  FUZZ_CHECK(expected_tag == next_tag);
  FUZZ_CHECK(stats.packets_out == next_tag);
  FUZZ_CHECK(stats.packets_in == stats.packets_out + stats.queue_drops + stats.loss_drops);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string error;
  std::shared_ptr<const DeliveryTrace> trace = DeliveryTrace::Parse(text, "fuzz.trace", &error);
  if (!trace) {
    FUZZ_CHECK(error.rfind("fuzz.trace: ", 0) == 0);
    FUZZ_CHECK(error.find('\n') == std::string::npos);
    FUZZ_CHECK(error.size() < 300);
    return 0;
  }
  FUZZ_CHECK(error.empty());
  CheckTrace(*trace);
  CheckLink(std::move(trace), text);
  return 0;
}
