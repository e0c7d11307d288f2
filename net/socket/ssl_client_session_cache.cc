#include "net/socket/ssl_client_session_cache.h"

namespace netstack {

std::string SslSessionCacheKey(const std::string& host, uint16_t port) {
  const bool ipv6_literal =
      !host.empty() && host.find(':') != std::string::npos && host.front() != '[';
  return (ipv6_literal ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

}  // namespace netstack
