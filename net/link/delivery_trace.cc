#include "net/link/delivery_trace.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace netstack {

namespace {

// A line quoted in an error: at most 40 bytes, anything but printable ASCII escaped, so the
// error stays one short line whatever the file holds.
std::string Quote(std::string_view line) {
  constexpr size_t kMax = 40;
  std::string out = "'";
  for (size_t i = 0; i < line.size() && i < kMax; ++i) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
      out += static_cast<char>(c);
    } else {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (line.size() > kMax) out += "...";
  out += "'";
  return out;
}

bool Fail(std::string_view name, size_t line, const std::string& what, std::string* error) {
  std::string text(name);
  if (line > 0) text += ": line " + std::to_string(line);
  *error = text + ": " + what;
  return false;
}

// Parses `line` as a whole number of milliseconds (digits only, at most kMaxTimestampMs).
bool ParseMs(std::string_view line, uint32_t* ms) {
  if (line.empty()) return false;
  uint64_t value = 0;
  for (char c : line) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<uint64_t>(c - '0');
    if (value > DeliveryTrace::kMaxTimestampMs) return false;
  }
  *ms = static_cast<uint32_t>(value);
  return true;
}

}  // namespace

DeliveryTrace::DeliveryTrace(std::vector<uint32_t> opportunities_ms)
    : opportunities_ms_(std::move(opportunities_ms)) {}

std::shared_ptr<const DeliveryTrace> DeliveryTrace::Parse(std::string_view text,
                                                          std::string_view name, std::string* error,
                                                          DeliveryTraceLimits limits) {
  if (text.size() > limits.max_bytes) {
    Fail(name, 0, "larger than " + std::to_string(limits.max_bytes) + " bytes", error);
    return nullptr;
  }
  std::vector<uint32_t> ms;
  size_t line_number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    if (line_number > limits.max_lines) {
      Fail(name, 0, "more than " + std::to_string(limits.max_lines) + " lines", error);
      return nullptr;
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) {
      Fail(name, line_number, "empty line (each line is one delivery opportunity)", error);
      return nullptr;
    }
    uint32_t value = 0;
    if (!ParseMs(line, &value)) {
      Fail(name, line_number,
           Quote(line) + " is not a whole number of milliseconds (0.." +
               std::to_string(kMaxTimestampMs) + ")",
           error);
      return nullptr;
    }
    if (!ms.empty() && value < ms.back()) {
      Fail(name, line_number,
           "timestamps go backwards (" + std::to_string(value) + " after " +
               std::to_string(ms.back()) + ")",
           error);
      return nullptr;
    }
    ms.push_back(value);
  }
  if (ms.empty()) {
    Fail(name, 0, "empty trace (no delivery opportunity)", error);
    return nullptr;
  }
  if (ms.back() == 0) {
    Fail(name, 0, "the trace must last more than 0 ms (its last timestamp is the period)", error);
    return nullptr;
  }
  ms.shrink_to_fit();
  return std::shared_ptr<const DeliveryTrace>(new DeliveryTrace(std::move(ms)));
}

std::shared_ptr<const DeliveryTrace> DeliveryTrace::ReadFile(const std::string& path,
                                                             std::string* error,
                                                             DeliveryTraceLimits limits) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    Fail(path, 0, std::string("cannot read: ") + std::strerror(errno), error);
    return nullptr;
  }
  // Read at most one byte more than the bound: a larger file (or an endless FIFO) is refused
  // without being read whole.
  std::string text;
  char buffer[1 << 16];
  while (text.size() <= limits.max_bytes) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int read_errno = errno;
      close(fd);
      Fail(path, 0, std::string("cannot read: ") + std::strerror(read_errno), error);
      return nullptr;
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return Parse(text, path, error, limits);
}

TimeDelta DeliveryTrace::OpportunityTime(uint64_t index) const {
  const uint64_t n = opportunities_ms_.size();
  return period() * static_cast<int64_t>(index / n) + Milliseconds(opportunities_ms_[index % n]);
}

uint64_t DeliveryTrace::FirstOpportunityAfter(TimeDelta t) const {
  if (t < TimeDelta(0)) t = TimeDelta(0);
  const uint64_t n = opportunities_ms_.size();
  const int64_t period_us = period().count();
  const uint64_t cycle = static_cast<uint64_t>(t.count() / period_us);
  const int64_t offset_us = t.count() % period_us;
  // The first timestamp whose time (in µs) is > offset: a timestamp of m ms is after the
  // offset iff m * 1000 > offset_us, i.e. m > offset_us / 1000 (integer division).
  const uint32_t after_ms = static_cast<uint32_t>(offset_us / 1000);
  auto it = std::upper_bound(opportunities_ms_.begin(), opportunities_ms_.end(), after_ms);
  // Within a cycle, timestamps equal to the period sit at its end; those beyond every
  // timestamp start the next cycle (whose first opportunities, at cycle start + m, are > t).
  return cycle * n + static_cast<uint64_t>(it - opportunities_ms_.begin());
}

}  // namespace netstack
