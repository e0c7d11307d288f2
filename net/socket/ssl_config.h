// TLS settings of a stack (one per context), as the CLI sets them.
#ifndef NET_SOCKET_SSL_CONFIG_H_
#define NET_SOCKET_SSL_CONFIG_H_

#include <string>
#include <vector>

namespace netstack {

struct SslConfig {
  // Verify the server's chain and host name (curl's default); false is `-k`.
  bool verify_peer = true;
  // PEM file of trusted CAs (`--cacert`); empty means the system store.
  std::string ca_file;
  // Resume sessions per host:port (Chrome and curl do).
  bool enable_session_cache = true;
  // Highest version offered: "1.2" or "1.3" (default). The simulator models the same knob.
  std::string max_version = "1.3";
  // ALPN protocols offered, most preferred first (Chrome's: h2, then http/1.1); `--http1.1`
  // offers only http/1.1. The simulator's servers choose from the same list.
  std::vector<std::string> alpn = {"h2", "http/1.1"};
};

}  // namespace netstack

#endif  // NET_SOCKET_SSL_CONFIG_H_
