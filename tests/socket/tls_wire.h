// TlsWire: a TlsClientEngine and a TlsMemoryServer joined by hand, so tests of the engine run a
// real TLS handshake and data exchange over bytes only, with no socket and no loop.
#ifndef TESTS_SOCKET_TLS_WIRE_H_
#define TESTS_SOCKET_TLS_WIRE_H_

#include <string>

#include "net/base/net_error.h"
#include "net/socket/tls_client_engine.h"
#include "tests/socket/tls_memory_server.h"

namespace netstack::test {

// Moves bytes both ways until neither side makes progress; the client's input is fed only as
// far as its bounded buffer allows, the rest waits in `to_client`.
struct TlsWire {
  TlsClientEngine& client;
  TlsMemoryServer& server;
  std::string to_client = {};

  void Pump() {
    for (int i = 0; i < 100; ++i) {
      char buf[4096];
      std::string to_server;
      size_t n;
      while ((n = client.TakeOutput(buf, sizeof(buf))) > 0) to_server.append(buf, n);
      server.Feed(to_server);
      server.Handshake();
      to_client += server.TakeOutput();
      size_t fed = client.FeedInput(to_client.data(), to_client.size());
      to_client.erase(0, fed);
      if (to_server.empty() && fed == 0) return;
    }
  }

  // Runs the client handshake to completion or failure.
  int Handshake() {
    int rv = ERR_IO_PENDING;
    for (int i = 0; i < 50 && rv == ERR_IO_PENDING; ++i) {
      rv = client.Handshake();
      Pump();
    }
    return rv;
  }

  // Reads what the server sent (processing tickets on the way).
  std::string ReadAll() {
    std::string out;
    char buf[4096];
    for (int i = 0; i < 100; ++i) {
      Pump();
      int rv = client.Read(buf, sizeof(buf));
      if (rv > 0) {
        out.append(buf, rv);
      } else if (rv == ERR_IO_PENDING && to_client.empty()) {
        return out;
      } else if (rv != ERR_IO_PENDING) {
        return out;
      }
    }
    return out;
  }
};

}  // namespace netstack::test

#endif  // TESTS_SOCKET_TLS_WIRE_H_
