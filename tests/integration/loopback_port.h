// Port helpers for servers on 127.0.0.1.
#ifndef TESTS_INTEGRATION_LOOPBACK_PORT_H_
#define TESTS_INTEGRATION_LOOPBACK_PORT_H_

#include <chrono>

namespace netstack::test {

// Returns a port that was free on 127.0.0.1 for both TCP and UDP a moment ago (the kernel
// picks it), or 0. There is a small race with other processes; fixtures that start a server
// on it retry with a new port if the server fails to bind.
int PickFreePort();

// Returns a TCP port on 127.0.0.1 on which nothing listens right now (for "connection
// refused" tests): a port the kernel handed out and that was closed again.
int PickClosedPort();

// Polls until a TCP connect to 127.0.0.1:port succeeds or `timeout` passes. Returns success.
bool WaitForTcpPort(int port, std::chrono::milliseconds timeout);

// True if this machine has ::1 on loopback (a TCP socket can bind [::1]:0). Tests that need
// IPv6 skip without it (a property of the machine, not a missing program).
bool HasIpv6Loopback();

// True if a TCP connect to [::1]:port succeeds right now (something listens there).
bool Ipv6LoopbackPortOpen(int port);

}  // namespace netstack::test

#endif  // TESTS_INTEGRATION_LOOPBACK_PORT_H_
