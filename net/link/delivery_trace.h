// DeliveryTrace: a packet-delivery trace in the format of mahimahi's mm-link. One line per
// delivery opportunity: a whole number of milliseconds since the link started, the lines
// non-decreasing; several equal lines are several opportunities in that millisecond. Each
// opportunity can carry kBytesPerOpportunity bytes. The trace repeats from its end: its period
// is its last timestamp, which must be > 0 (as mahimahi requires). A measured cellular link's
// trace thus drives the emulated link (link_direction.h) instead of a fixed rate.
#ifndef NET_LINK_DELIVERY_TRACE_H_
#define NET_LINK_DELIVERY_TRACE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "net/base/time.h"

namespace netstack {

// The bounds on what DeliveryTrace reads (the defaults; tests lower them).
struct DeliveryTraceLimits {
  size_t max_bytes = size_t{64} << 20;  // 64 MiB
  size_t max_lines = 10'000'000;
};

class DeliveryTrace {
 public:
  // Bytes one opportunity carries: mahimahi's PACKET_SIZE (the largest TUN payload it reads).
  static constexpr size_t kBytesPerOpportunity = 1504;
  // Bounds on what is read: the file's size, its number of lines, and a timestamp's value.
  static constexpr size_t kMaxFileBytes = DeliveryTraceLimits().max_bytes;
  static constexpr size_t kMaxLines = DeliveryTraceLimits().max_lines;
  static constexpr uint32_t kMaxTimestampMs = 0xffffffffu;  // about 49.7 days

  // Parses a trace's text. `name` (the file's name) starts every error. Returns the trace, or
  // null with `*error` set to one line, e.g. "t.up: line 7: 'abc' is not a whole number of
  // milliseconds". Never throws. Each line is digits only (a trailing '\r' is allowed); the text
  // may end with one newline; an empty line elsewhere is an error, as in mahimahi.
  static std::shared_ptr<const DeliveryTrace> Parse(std::string_view text, std::string_view name,
                                                    std::string* error,
                                                    DeliveryTraceLimits limits = {});
  // Reads and parses the file at `path`, reading at most max_bytes + 1 bytes of it. Errors as
  // Parse, plus "PATH: cannot read: REASON" and "PATH: larger than 67108864 bytes".
  static std::shared_ptr<const DeliveryTrace> ReadFile(const std::string& path, std::string* error,
                                                       DeliveryTraceLimits limits = {});

  // The opportunities' timestamps in milliseconds, non-decreasing; never empty.
  const std::vector<uint32_t>& opportunities_ms() const { return opportunities_ms_; }
  // The trace's length: it repeats every period (the last timestamp; > 0).
  TimeDelta period() const { return Milliseconds(opportunities_ms_.back()); }

  // The time of opportunity `index` (counting from 0 across repetitions: index n is the first
  // opportunity of the second repetition), from the link's start.
  TimeDelta OpportunityTime(uint64_t index) const;
  // The index of the first opportunity strictly after `t` (t >= 0, from the link's start): a
  // packet that arrives at t can use it, while opportunities at or before t have passed. O(log n).
  uint64_t FirstOpportunityAfter(TimeDelta t) const;

 private:
  explicit DeliveryTrace(std::vector<uint32_t> opportunities_ms);

  std::vector<uint32_t> opportunities_ms_;
};

}  // namespace netstack

#endif  // NET_LINK_DELIVERY_TRACE_H_
