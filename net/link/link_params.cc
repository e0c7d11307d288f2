#include "net/link/link_params.h"

#include <cstdio>

namespace netstack {

namespace {

bool Fail(const std::string& name, const std::string& what, std::string* error) {
  *error = name + ": " + what;
  return false;
}

std::string Ms(TimeDelta d) {
  char text[48];
  std::snprintf(text, sizeof(text), "%.3f", ToMilliseconds(d));
  std::string ms = text;
  while (ms.back() == '0') ms.pop_back();
  if (ms.back() == '.') ms.pop_back();
  return ms + " ms";
}

bool DelayOk(TimeDelta d) { return d >= TimeDelta(0) && d <= kMaxLinkDelay; }

std::string Ipv4(uint32_t address) {
  return std::to_string(address >> 24) + "." + std::to_string((address >> 16) & 255) + "." +
         std::to_string((address >> 8) & 255) + "." + std::to_string(address & 255);
}

}  // namespace

bool ValidateLinkDirectionParams(const LinkDirectionParams& params, const std::string& name,
                                 std::string* error) {
  const std::string max_delay = std::to_string(kMaxLinkDelay.count() / 1000) + " ms";
  if (!DelayOk(params.delay)) {
    return Fail(name, "delay must be 0.." + max_delay + ", got " + Ms(params.delay), error);
  }
  if (params.rate_bps < 0 || params.rate_bps > kMaxLinkRateBps) {
    return Fail(name,
                "rate_bps must be 0 (unlimited).." + std::to_string(kMaxLinkRateBps) + ", got " +
                    std::to_string(params.rate_bps),
                error);
  }
  if (params.queue_packets < 1 || params.queue_packets > kMaxLinkQueuePackets) {
    return Fail(name,
                "queue_packets must be 1.." + std::to_string(kMaxLinkQueuePackets) + ", got " +
                    std::to_string(params.queue_packets),
                error);
  }
  if (params.queue_bytes < 1 || params.queue_bytes > kMaxLinkQueueBytes) {
    return Fail(name,
                "queue_bytes must be 1.." + std::to_string(kMaxLinkQueueBytes) + ", got " +
                    std::to_string(params.queue_bytes),
                error);
  }
  if (!(params.loss >= 0 && params.loss <= 1)) {  // also refuses NaN
    char loss[32];
    std::snprintf(loss, sizeof(loss), "%g", params.loss);
    return Fail(name, std::string("loss must be 0..1, got ") + loss, error);
  }
  if (params.delay_by_address.size() > kMaxLinkDelayAddresses) {
    return Fail(name,
                "at most " + std::to_string(kMaxLinkDelayAddresses) + " per-address delays, got " +
                    std::to_string(params.delay_by_address.size()),
                error);
  }
  for (const auto& [address, delay] : params.delay_by_address) {
    if (!DelayOk(delay)) {
      return Fail(
          name,
          "the delay for " + Ipv4(address) + " must be 0.." + max_delay + ", got " + Ms(delay),
          error);
    }
  }
  return true;
}

bool ValidateLinkParams(const LinkParams& params, std::string* error) {
  return ValidateLinkDirectionParams(params.up, "up", error) &&
         ValidateLinkDirectionParams(params.down, "down", error);
}

}  // namespace netstack
