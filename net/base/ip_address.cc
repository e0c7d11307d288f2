#include "net/base/ip_address.h"

#include <arpa/inet.h>

#include <charconv>
#include <cstring>

namespace netstack {

IPAddress IPAddress::IPv4(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
  IPAddress ip;
  ip.family_ = AddressFamily::kIPv4;
  ip.bytes_[0] = a;
  ip.bytes_[1] = b;
  ip.bytes_[2] = c;
  ip.bytes_[3] = d;
  return ip;
}

std::optional<IPAddress> IPAddress::Parse(std::string_view text) {
  if (text.empty() || text.size() >= INET6_ADDRSTRLEN) return std::nullopt;
  char buf[INET6_ADDRSTRLEN];
  std::memcpy(buf, text.data(), text.size());
  buf[text.size()] = '\0';
  IPAddress ip;
  if (inet_pton(AF_INET, buf, ip.bytes_.data()) == 1) {
    ip.family_ = AddressFamily::kIPv4;
    return ip;
  }
  if (inet_pton(AF_INET6, buf, ip.bytes_.data()) == 1) {
    ip.family_ = AddressFamily::kIPv6;
    return ip;
  }
  return std::nullopt;
}

bool IPAddress::IsLoopback() const {
  if (IsIPv4()) return bytes_[0] == 127;
  if (IsIPv6()) {
    for (int i = 0; i < 15; ++i)
      if (bytes_[i] != 0) return false;
    return bytes_[15] == 1;
  }
  return false;
}

std::string IPAddress::ToString() const {
  char buf[INET6_ADDRSTRLEN] = {0};
  if (IsIPv4()) inet_ntop(AF_INET, bytes_.data(), buf, sizeof(buf));
  if (IsIPv6()) inet_ntop(AF_INET6, bytes_.data(), buf, sizeof(buf));
  return buf;
}

std::optional<IPEndPoint> IPEndPoint::Parse(std::string_view text,
                                            std::optional<uint16_t> default_port) {
  std::string_view host = text;
  std::string_view port_text;
  if (!text.empty() && text.front() == '[') {
    size_t close = text.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = text.substr(1, close - 1);
    std::string_view rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return std::nullopt;
      port_text = rest.substr(1);
    }
  } else if (size_t colon = text.rfind(':');
             colon != std::string_view::npos && text.find(':') == colon) {
    host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
  }
  auto address = IPAddress::Parse(host);
  if (!address) return std::nullopt;
  if (port_text.empty()) {
    if (!default_port) return std::nullopt;
    return IPEndPoint(*address, *default_port);
  }
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port > 65535)
    return std::nullopt;
  return IPEndPoint(*address, static_cast<uint16_t>(port));
}

std::optional<IPEndPoint> IPEndPoint::FromSockAddr(const sockaddr* sa) {
  IPAddress ip;
  if (sa->sa_family == AF_INET) {
    auto* in = reinterpret_cast<const sockaddr_in*>(sa);
    const auto* b = reinterpret_cast<const uint8_t*>(&in->sin_addr);
    return IPEndPoint(IPAddress::IPv4(b[0], b[1], b[2], b[3]), ntohs(in->sin_port));
  }
  if (sa->sa_family == AF_INET6) {
    auto* in6 = reinterpret_cast<const sockaddr_in6*>(sa);
    char buf[INET6_ADDRSTRLEN];
    inet_ntop(AF_INET6, &in6->sin6_addr, buf, sizeof(buf));
    auto parsed = IPAddress::Parse(buf);
    if (!parsed) return std::nullopt;
    return IPEndPoint(*parsed, ntohs(in6->sin6_port));
  }
  return std::nullopt;
}

socklen_t IPEndPoint::ToSockAddr(sockaddr_storage* storage) const {
  std::memset(storage, 0, sizeof(*storage));
  if (address_.IsIPv4()) {
    auto* in = reinterpret_cast<sockaddr_in*>(storage);
    in->sin_family = AF_INET;
    in->sin_port = htons(port_);
    std::memcpy(&in->sin_addr, address_.bytes(), 4);
    return sizeof(sockaddr_in);
  }
  auto* in6 = reinterpret_cast<sockaddr_in6*>(storage);
  in6->sin6_family = AF_INET6;
  in6->sin6_port = htons(port_);
  std::memcpy(&in6->sin6_addr, address_.bytes(), 16);
  return sizeof(sockaddr_in6);
}

std::string IPEndPoint::ToString() const {
  if (address_.IsIPv6()) return "[" + address_.ToString() + "]:" + std::to_string(port_);
  return address_.ToString() + ":" + std::to_string(port_);
}

}  // namespace netstack
