// The link's parameters' bounds (net/link/link_params.h): each refusal is one line naming the
// direction, the field and the value.
#include "net/link/link_params.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>

namespace netstack {
namespace {

std::string Refusal(const LinkParams& params) {
  std::string error;
  CHECK(!ValidateLinkParams(params, &error));
  CHECK(error.find('\n') == std::string::npos);
  return error;
}

TEST_CASE("LinkParams: the defaults and the limits themselves are valid") {
  std::string error;
  LinkParams params;
  CHECK(ValidateLinkParams(params, &error));
  params.up.delay = kMaxLinkDelay;
  params.up.rate_bps = kMaxLinkRateBps;
  params.up.queue_packets = kMaxLinkQueuePackets;
  params.up.queue_bytes = kMaxLinkQueueBytes;
  params.up.loss = 1;
  params.down.queue_packets = 1;
  params.down.queue_bytes = 1;
  CHECK(ValidateLinkParams(params, &error));
}

TEST_CASE("LinkParams: values out of bounds are refused with one line") {
  LinkParams params;
  params.up.delay = -TimeDelta(1);
  CHECK(Refusal(params) == "up: delay must be 0..60000 ms, got -0.001 ms");
  params = LinkParams();
  params.down.delay = Seconds(61);
  CHECK(Refusal(params) == "down: delay must be 0..60000 ms, got 61000 ms");
  params = LinkParams();
  params.up.rate_bps = -1;
  CHECK(Refusal(params) == "up: rate_bps must be 0 (unlimited)..1000000000000, got -1");
  params = LinkParams();
  params.up.queue_packets = 0;
  CHECK(Refusal(params) == "up: queue_packets must be 1..1000000, got 0");
  params = LinkParams();
  params.down.queue_bytes = 0;
  CHECK(Refusal(params) == "down: queue_bytes must be 1..1073741824, got 0");
  params = LinkParams();
  params.up.loss = 1.5;
  CHECK(Refusal(params) == "up: loss must be 0..1, got 1.5");
  params.up.loss = std::nan("");
  CHECK(Refusal(params) == "up: loss must be 0..1, got nan");
  params = LinkParams();
  params.down.delay_by_address[0xC6120005] = Milliseconds(-2);
  CHECK(Refusal(params) == "down: the delay for 198.18.0.5 must be 0..60000 ms, got -2 ms");
  params = LinkParams();
  for (uint32_t i = 0; i <= kMaxLinkDelayAddresses; ++i) params.up.delay_by_address[i] = {};
  CHECK(Refusal(params) == "up: at most 4096 per-address delays, got 4097");
}

}  // namespace
}  // namespace netstack
