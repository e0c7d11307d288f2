// A /16 of loopback addresses for a test's lab servers: 127.X (the whole of 127/8 is local on
// Linux). Picked at random and checked free, so test programs of several build trees running at
// once (each binds ports 53, 80 and 443 of its prefix) do not collide.
#ifndef TESTS_LAB_SERVERS_LOOPBACK_PREFIX_H_
#define TESTS_LAB_SERVERS_LOOPBACK_PREFIX_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <random>
#include <string>

namespace netstack::test {

// True if TCP `port` on `address` can be bound right now.
inline bool CanBind(const std::string& address, int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, address.c_str(), &sa.sin_addr);
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0;
  ::close(fd);
  return ok;
}

// "127.X" with X in 64..254 whose DNS address (127.X.0.1:53) and first hosts' HTTPS ports are
// free; "127.77" if twenty tries find none (the test then fails with nginx's or dnsmasq's error).
inline std::string PickLoopbackPrefix() {
  std::random_device seed;
  std::mt19937 random(seed());
  std::uniform_int_distribution<int> second(64, 254);
  for (int attempt = 0; attempt < 20; ++attempt) {
    const std::string prefix = "127." + std::to_string(second(random));
    if (CanBind(prefix + ".0.1", 53) && CanBind(prefix + ".0.2", 443) &&
        CanBind(prefix + ".0.3", 443)) {
      return prefix;
    }
  }
  return "127.77";
}

}  // namespace netstack::test

#endif  // TESTS_LAB_SERVERS_LOOPBACK_PREFIX_H_
