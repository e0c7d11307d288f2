// The c-ares transport of the DNS integration tests: one server on 127.0.0.1:port, no search
// domains, the given per-try timeout and tries, on the test's loop and a scheduler of its choice.
#ifndef TESTS_DNS_ARES_TEST_UTIL_H_
#define TESTS_DNS_ARES_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "net/dns/ares_dns_transport.h"
#include "tests/support/live_loop.h"

namespace netstack::test {

inline std::unique_ptr<AresDnsTransport> MakeLoopbackAresTransport(LiveLoop& live,
                                                                   Scheduler& scheduler,
                                                                   uint16_t port, TimeDelta timeout,
                                                                   int tries) {
  AresDnsTransport::Options options;
  options.servers = {IPEndPoint(IPAddress::IPv4(127, 0, 0, 1), port)};
  options.timeout = timeout;
  options.tries = tries;
  options.use_search_domains = false;
  std::string error;
  auto transport = AresDnsTransport::Create(live.get(), scheduler, options, &error);
  INFO(error);
  REQUIRE(transport);
  return transport;
}

}  // namespace netstack::test

#endif  // TESTS_DNS_ARES_TEST_UTIL_H_
