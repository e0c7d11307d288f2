// LinkDirection (net/link/link_direction.h) on virtual time: delay, rate, queue bounds, loss,
// per-address delays and delivery traces.
#include "net/link/link_direction.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "net/link/delivery_trace.h"

namespace netstack {
namespace {

using Field = LinkDirection::AddressField;

const TimeTicks kStart = TimeTicks(Seconds(100));

TimeTicks At(double ms) { return kStart + TimeDelta(static_cast<int64_t>(ms * 1000)); }

// A packet of `bytes` whose first byte is `tag` (not an IPv4 header: 0x45 would be).
LinkPacket Tagged(uint8_t tag, size_t bytes) {
  LinkPacket packet(bytes, 0);
  packet[0] = tag;
  return packet;
}

// An IPv4 header (20 bytes) from `src` to `dst`, padded to `bytes`.
LinkPacket Ipv4(uint32_t src, uint32_t dst, size_t bytes = 60) {
  LinkPacket packet(bytes, 0);
  packet[0] = 0x45;
  for (int i = 0; i < 4; ++i) {
    packet[12 + i] = static_cast<uint8_t>(src >> (24 - 8 * i));
    packet[16 + i] = static_cast<uint8_t>(dst >> (24 - 8 * i));
  }
  return packet;
}

struct Delivery {
  TimeTicks at;
  LinkPacket packet;
};

// Runs the direction to its end, as a relay would: delivers each packet at its delivery time.
std::vector<Delivery> Drain(LinkDirection* link) {
  std::vector<Delivery> out;
  while (std::optional<TimeTicks> next = link->NextDeliveryTime()) {
    std::vector<LinkPacket> due;
    link->DeliverDue(*next, &due);
    REQUIRE(!due.empty());
    for (LinkPacket& packet : due) out.push_back(Delivery{*next, std::move(packet)});
  }
  return out;
}

std::shared_ptr<const DeliveryTrace> Trace(const std::string& text) {
  std::string error;
  auto trace = DeliveryTrace::Parse(text, "test.trace", &error);
  INFO(error);
  REQUIRE(trace);
  return trace;
}

TEST_CASE("LinkDirection: with a delay only, every packet arrives exactly the delay later") {
  LinkDirectionParams params;
  params.delay = Milliseconds(20);
  LinkDirection link(params, Field::kDestination, kStart, 1);
  REQUIRE(link.Offer(At(0), Tagged(1, 1500)));
  REQUIRE(link.Offer(At(0), Tagged(2, 1500)));
  REQUIRE(link.Offer(At(3.5), Tagged(3, 100)));
  CHECK(link.NextDeliveryTime() == At(20));
  std::vector<LinkPacket> due;
  link.DeliverDue(At(19.999), &due);
  CHECK(due.empty());
  std::vector<Delivery> out = Drain(&link);
  REQUIRE(out.size() == 3);
  CHECK(out[0].at == At(20));
  CHECK(out[0].packet[0] == 1);
  CHECK(out[1].at == At(20));
  CHECK(out[1].packet[0] == 2);
  CHECK(out[2].at == At(23.5));
  CHECK(link.stats().packets_out == 3);
  CHECK(link.stats().bytes_out == 3100);
  CHECK(!link.NextDeliveryTime());
}

TEST_CASE("LinkDirection: at a rate, packets are serialized one after the other") {
  LinkDirectionParams params;
  params.rate_bps = 1'200'000;  // 1500 B = 12000 bits = 10 ms
  LinkDirection link(params, Field::kDestination, kStart, 1);
  for (uint8_t i = 0; i < 5; ++i) REQUIRE(link.Offer(At(0), Tagged(i, 1500)));
  std::vector<Delivery> out = Drain(&link);
  REQUIRE(out.size() == 5);
  for (size_t i = 0; i < out.size(); ++i) {
    CHECK(out[i].at == At(10.0 * (i + 1)));
    CHECK(out[i].packet[0] == i);
  }
  // An idle link starts the next packet at its arrival.
  REQUIRE(link.Offer(At(100), Tagged(9, 150)));
  out = Drain(&link);
  REQUIRE(out.size() == 1);
  CHECK(out[0].at == At(101));
}

TEST_CASE("LinkDirection: a fractional serialization time does not drift over many packets") {
  LinkDirectionParams params;
  params.rate_bps = 7'000'000;  // 1500 B = 1714.2857... µs
  LinkDirection link(params, Field::kDestination, kStart, 1);
  for (int i = 0; i < 700; ++i) REQUIRE(link.Offer(At(0), Tagged(0, 1500)));
  std::vector<Delivery> out = Drain(&link);
  REQUIRE(out.size() == 700);
  CHECK(out.back().at == At(1200));              // 700 * 12000 bits / 7 Mbit/s = 1.2 s exactly
  CHECK(out[0].at == kStart + TimeDelta(1715));  // rounded up to the µs
}

TEST_CASE("LinkDirection: rate and delay add up") {
  LinkDirectionParams params;
  params.rate_bps = 1'200'000;
  params.delay = Milliseconds(40);
  LinkDirection link(params, Field::kDestination, kStart, 1);
  for (uint8_t i = 0; i < 3; ++i) REQUIRE(link.Offer(At(0), Tagged(i, 1500)));
  std::vector<Delivery> out = Drain(&link);
  REQUIRE(out.size() == 3);
  CHECK(out[0].at == At(50));
  CHECK(out[1].at == At(60));
  CHECK(out[2].at == At(70));
}

TEST_CASE("LinkDirection: the queue's packet bound drops the excess, survivors in order") {
  LinkDirectionParams params;
  params.rate_bps = 1'200'000;
  params.queue_packets = 3;
  LinkDirection link(params, Field::kDestination, kStart, 1);
  int accepted = 0;
  for (uint8_t i = 0; i < 10; ++i) accepted += link.Offer(At(0), Tagged(i, 1500));
  // One on the wire, three waiting.
  CHECK(accepted == 4);
  CHECK(link.stats().queue_drops == 6);
  CHECK(link.stats().max_queue_packets == 3);
  CHECK(link.queued_packets() == 3);
  // Once the first has left, there is room for one more.
  CHECK(!link.Offer(At(9.999), Tagged(20, 1500)));
  CHECK(link.Offer(At(10), Tagged(21, 1500)));
  std::vector<Delivery> out = Drain(&link);
  REQUIRE(out.size() == 5);
  const uint8_t expected[] = {0, 1, 2, 3, 21};
  for (size_t i = 0; i < out.size(); ++i) CHECK(out[i].packet[0] == expected[i]);
  CHECK(link.stats().packets_in == 12);
  CHECK(link.stats().queue_drops == 7);
}

TEST_CASE("LinkDirection: the queue's byte bound drops a packet that would exceed it") {
  LinkDirectionParams params;
  params.rate_bps = 1'200'000;
  params.queue_bytes = 3000;
  LinkDirection link(params, Field::kDestination, kStart, 1);
  CHECK(link.Offer(At(0), Tagged(0, 1000)));  // on the wire
  CHECK(link.Offer(At(0), Tagged(1, 1000)));
  CHECK(link.Offer(At(0), Tagged(2, 1500)));
  CHECK(!link.Offer(At(0), Tagged(3, 600)));  // 2500 + 600 > 3000
  CHECK(link.Offer(At(0), Tagged(4, 500)));   // exactly 3000
  CHECK(!link.Offer(At(0), Tagged(5, 1)));
  CHECK(link.stats().queue_drops == 2);
  CHECK(link.stats().max_queue_bytes == 3000);
  // A packet larger than the whole bound never passes, even on an idle link.
  LinkDirection idle(params, Field::kDestination, kStart, 1);
  CHECK(!idle.Offer(At(0), Tagged(0, 3001)));
  std::vector<Delivery> out = Drain(&link);
  REQUIRE(out.size() == 4);
  CHECK(out[3].packet[0] == 4);
}

TEST_CASE("LinkDirection: loss is random but the same seed drops the same packets") {
  LinkDirectionParams params;
  params.loss = 0.1;
  auto drops = [&](uint64_t seed) {
    LinkDirection link(params, Field::kDestination, kStart, seed);
    std::vector<bool> dropped;
    std::vector<LinkPacket> out;
    for (int i = 0; i < 100000; ++i) {
      dropped.push_back(!link.Offer(At(i * 0.01), Tagged(0, 100)));
      link.DeliverDue(At(i * 0.01), &out);
      out.clear();
    }
    CHECK(link.stats().loss_drops ==
          static_cast<uint64_t>(std::count(dropped.begin(), dropped.end(), true)));
    CHECK(link.stats().queue_drops == 0);
    return dropped;
  };
  const std::vector<bool> a = drops(7);
  CHECK(a == drops(7));
  CHECK(a != drops(8));
  const auto lost = std::count(a.begin(), a.end(), true);
  CHECK(lost > 9700);  // 10000 expected; the standard deviation is 95
  CHECK(lost < 10300);

  params.loss = 1;
  LinkDirection all(params, Field::kDestination, kStart, 1);
  for (int i = 0; i < 100; ++i) CHECK(!all.Offer(At(0), Tagged(0, 10)));
  params.loss = 0;
  LinkDirection none(params, Field::kDestination, kStart, 1);
  for (int i = 0; i < 100; ++i) CHECK(none.Offer(At(0), Tagged(0, 10)));
}

TEST_CASE("LinkDirection: a per-address delay selects by destination up and by source down") {
  const uint32_t server = 0xC6120005;  // 198.18.0.5
  const uint32_t dns = 0xC6120035;     // 198.18.0.53
  const uint32_t client = 0xC6130002;  // 198.19.0.2
  LinkDirectionParams params;
  params.delay = Milliseconds(10);
  params.delay_by_address[server] = Milliseconds(50);
  params.delay_by_address[dns] = Milliseconds(2);
  LinkDirection up(params, Field::kDestination, kStart, 1);
  up.Offer(At(0), Ipv4(client, server));
  up.Offer(At(0), Ipv4(client, dns));
  up.Offer(At(0), Ipv4(client, 0x01020304));
  up.Offer(At(0), Ipv4(server, client));  // the address is the source: not the destination
  std::vector<Delivery> out = Drain(&up);
  REQUIRE(out.size() == 4);
  CHECK(out[0].at == At(2));
  CHECK(out[1].at == At(10));
  CHECK(out[2].at == At(10));
  CHECK(out[3].at == At(50));

  LinkDirection down(params, Field::kSource, kStart, 1);
  down.Offer(At(0), Ipv4(server, client));
  down.Offer(At(0), Ipv4(client, server));
  out = Drain(&down);
  REQUIRE(out.size() == 2);
  CHECK(out[0].at == At(10));
  CHECK(out[1].at == At(50));
}

TEST_CASE("LinkDirection: non-IPv4 and truncated packets take the default delay") {
  LinkDirectionParams params;
  params.delay = Milliseconds(10);
  params.delay_by_address[0x01020304] = Milliseconds(30);
  LinkDirection link(params, Field::kDestination, kStart, 1);
  LinkPacket v6 = Ipv4(0, 0x01020304);
  v6[0] = 0x60;
  LinkPacket truncated = Ipv4(0, 0x01020304);
  truncated.resize(19);
  link.Offer(At(0), v6);
  link.Offer(At(0), truncated);
  link.Offer(At(0), LinkPacket{});
  link.Offer(At(0), Ipv4(0, 0x01020304));
  std::vector<Delivery> out = Drain(&link);
  REQUIRE(out.size() == 4);
  CHECK(out[0].at == At(10));
  CHECK(out[1].at == At(10));
  CHECK(out[2].at == At(10));
  CHECK(out[3].at == At(30));
}

TEST_CASE("LinkDirection: packets with the same delay keep their order, ties in arrival order") {
  LinkDirectionParams params;
  params.delay = Milliseconds(5);
  params.delay_by_address[0x01020304] = Milliseconds(5);  // same delay, another address
  LinkDirection link(params, Field::kDestination, kStart, 1);
  for (uint8_t i = 0; i < 20; ++i) {
    LinkPacket packet = Ipv4(0, i % 2 ? 0x01020304 : 0x05060708);
    packet.back() = i;
    link.Offer(At(0), packet);
  }
  std::vector<Delivery> out = Drain(&link);
  REQUIRE(out.size() == 20);
  for (size_t i = 0; i < out.size(); ++i) CHECK(out[i].packet.back() == i);
}

TEST_CASE("LinkDirection: a trace's opportunities carry one packet each and loop") {
  LinkDirectionParams params;
  params.trace = Trace("1\n1\n3\n10\n");  // period 10 ms
  LinkDirection link(params, Field::kDestination, kStart, 1);
  for (uint8_t i = 0; i < 6; ++i) REQUIRE(link.Offer(At(0), Tagged(i, 1500)));
  std::vector<Delivery> out = Drain(&link);
  REQUIRE(out.size() == 6);
  const double expected_ms[] = {1, 1, 3, 10, 11, 11};
  for (size_t i = 0; i < out.size(); ++i) {
    CHECK(out[i].at == At(expected_ms[i]));
    CHECK(out[i].packet[0] == i);
  }
  // The rate is ignored when a trace is set.
  params.rate_bps = 1000;
  LinkDirection with_rate(params, Field::kDestination, kStart, 1);
  with_rate.Offer(At(0), Tagged(0, 1500));
  CHECK(with_rate.NextDeliveryTime() == At(1));
}

TEST_CASE("LinkDirection: small packets share an opportunity's 1504 bytes") {
  LinkDirectionParams params;
  params.trace = Trace("1\n2\n3\n4\n");
  LinkDirection link(params, Field::kDestination, kStart, 1);
  for (int i = 0; i < 4; ++i) link.Offer(At(0), Tagged(0, 500));
  std::vector<Delivery> out = Drain(&link);
  REQUIRE(out.size() == 4);
  CHECK(out[0].at == At(1));
  CHECK(out[2].at == At(1));  // 1500 of 1504 bytes used
  CHECK(out[3].at == At(2));  // 4 bytes at 1 ms, the other 496 at 2 ms
}

TEST_CASE("LinkDirection: a packet larger than an opportunity spans several") {
  LinkDirectionParams params;
  params.trace = Trace("1\n2\n3\n4\n5\n");
  LinkDirection link(params, Field::kDestination, kStart, 1);
  link.Offer(At(0), Tagged(0, 4000));  // 1504 + 1504 + 992
  link.Offer(At(0), Tagged(1, 512));   // the 512 left in the third
  link.Offer(At(0), Tagged(2, 1));
  std::vector<Delivery> out = Drain(&link);
  REQUIRE(out.size() == 3);
  CHECK(out[0].at == At(3));
  CHECK(out[1].at == At(3));
  CHECK(out[2].at == At(4));
}

TEST_CASE("LinkDirection: a trace's opportunities are wasted while the queue is empty") {
  LinkDirectionParams params;
  params.trace = Trace("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n");
  LinkDirection link(params, Field::kDestination, kStart, 1);
  link.Offer(At(5.5), Tagged(0, 100));
  CHECK(link.NextDeliveryTime() == At(6));
  Drain(&link);
  // An opportunity at the very time a packet arrives has passed.
  link.Offer(At(7), Tagged(1, 100));
  CHECK(link.NextDeliveryTime() == At(8));
  // What an opportunity left is wasted for a packet that arrives after it.
  link.Offer(At(8.5), Tagged(2, 100));
  CHECK(Drain(&link).back().at == At(9));
  // ... and used by one that arrived before it.
  link.Offer(At(9.1), Tagged(3, 100));
  link.Offer(At(9.2), Tagged(4, 100));
  std::vector<Delivery> out = Drain(&link);
  REQUIRE(out.size() == 2);
  CHECK(out[1].at == At(10));
  // After a long idle time, the trace has looped many times.
  link.Offer(At(100000.5), Tagged(5, 100));
  CHECK(link.NextDeliveryTime() == At(100001));
}

TEST_CASE("LinkDirection: on a trace, packets wait in the bounded queue for an opportunity") {
  LinkDirectionParams params;
  params.trace = Trace("10\n20\n30\n40\n50\n");
  params.queue_packets = 2;
  LinkDirection link(params, Field::kDestination, kStart, 1);
  CHECK(link.Offer(At(0), Tagged(0, 1500)));
  CHECK(link.Offer(At(0), Tagged(1, 1500)));
  CHECK(!link.Offer(At(0), Tagged(2, 1500)));
  CHECK(link.Offer(At(10), Tagged(3, 1500)));  // the first has left at 10 ms
  std::vector<Delivery> out = Drain(&link);
  REQUIRE(out.size() == 3);
  CHECK(out[2].at == At(30));
  CHECK(link.stats().queue_drops == 1);
}

TEST_CASE("LinkDirection: packets in flight are bounded too, beyond the queue") {
  LinkDirectionParams params;
  params.delay = Seconds(1);  // no rate: nothing waits in the queue, all is in flight
  LinkDirection link(params, Field::kDestination, kStart, 1);
  for (size_t i = 0; i < LinkDirection::kMaxInFlightPackets; ++i) {
    REQUIRE(link.Offer(At(0), Tagged(0, 1)));
  }
  CHECK(!link.Offer(At(0), Tagged(0, 1)));
  CHECK(link.stats().queue_drops == 1);
  std::vector<LinkPacket> out;
  link.DeliverDue(At(1000), &out);
  CHECK(out.size() == LinkDirection::kMaxInFlightPackets);
  CHECK(link.Offer(At(1000), Tagged(0, 1)));  // room again once delivered
  // And in bytes.
  LinkDirection bytes(params, Field::kDestination, kStart, 1);
  const size_t big = 60000;
  size_t accepted = 0;
  while (bytes.Offer(At(0), Tagged(0, big))) ++accepted;
  CHECK(accepted == LinkDirection::kMaxInFlightBytes / big);
}

TEST_CASE("LinkDirection: Clear drops what is held") {
  LinkDirectionParams params;
  params.delay = Milliseconds(100);
  LinkDirection link(params, Field::kDestination, kStart, 1);
  link.Offer(At(0), Tagged(0, 100));
  link.Clear();
  CHECK(!link.NextDeliveryTime());
  CHECK(link.stats().packets_out == 0);
}

}  // namespace
}  // namespace netstack
