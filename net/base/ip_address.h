// IP addresses and endpoints as values, with no I/O.
#ifndef NET_BASE_IP_ADDRESS_H_
#define NET_BASE_IP_ADDRESS_H_

#include <netinet/in.h>
#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace netstack {

enum class AddressFamily { kUnspecified = 0, kIPv4 = 1, kIPv6 = 2 };

class IPAddress {
 public:
  IPAddress() = default;
  static IPAddress IPv4(uint8_t a, uint8_t b, uint8_t c, uint8_t d);
  // Parses dotted IPv4 or IPv6 text (no brackets). nullopt if it is neither.
  static std::optional<IPAddress> Parse(std::string_view text);

  AddressFamily family() const { return family_; }
  bool IsIPv4() const { return family_ == AddressFamily::kIPv4; }
  bool IsIPv6() const { return family_ == AddressFamily::kIPv6; }
  bool IsValid() const { return family_ != AddressFamily::kUnspecified; }
  bool IsLoopback() const;
  // Raw bytes: 4 for IPv4, 16 for IPv6.
  const uint8_t* bytes() const { return bytes_.data(); }
  size_t size() const { return IsIPv4() ? 4 : IsIPv6() ? 16 : 0; }
  std::string ToString() const;

  bool operator==(const IPAddress& o) const = default;
  auto operator<=>(const IPAddress& o) const = default;

 private:
  AddressFamily family_ = AddressFamily::kUnspecified;
  std::array<uint8_t, 16> bytes_{};
};

class IPEndPoint {
 public:
  IPEndPoint() = default;
  IPEndPoint(IPAddress address, uint16_t port) : address_(address), port_(port) {}
  // Parses "1.2.3.4:80" or "[::1]:80"; with `default_port`, a bare address is accepted too.
  static std::optional<IPEndPoint> Parse(std::string_view text,
                                         std::optional<uint16_t> default_port = std::nullopt);
  static std::optional<IPEndPoint> FromSockAddr(const sockaddr* sa);

  const IPAddress& address() const { return address_; }
  uint16_t port() const { return port_; }
  // Writes a sockaddr_in or sockaddr_in6; returns its length.
  socklen_t ToSockAddr(sockaddr_storage* storage) const;
  std::string ToString() const;  // "1.2.3.4:80", "[::1]:443"

  bool operator==(const IPEndPoint& o) const = default;

 private:
  IPAddress address_;
  uint16_t port_ = 0;
};

using AddressList = std::vector<IPEndPoint>;

}  // namespace netstack

#endif  // NET_BASE_IP_ADDRESS_H_
