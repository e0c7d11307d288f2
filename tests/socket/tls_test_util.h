// Scaffolding shared by the TLS tests (engine, socket over loopback, socket over a scripted
// transport): a client config and context trusting a test CA, and one socket operation run
// under the StreamSocket async contract. The certificates themselves are in tls_test_certs.h.
#ifndef TESTS_SOCKET_TLS_TEST_UTIL_H_
#define TESTS_SOCKET_TLS_TEST_UTIL_H_

#include <functional>
#include <memory>
#include <string>

#include "net/base/net_error.h"
#include "net/socket/ssl_client_context.h"

namespace netstack::test {

// A client config trusting `ca_file`, negotiating up to `max_version` ("1.2" or "1.3"),
// verifying the server unless `verify` is false.
SslConfig TestSslConfig(const std::string& ca_file, const std::string& max_version = "1.3",
                        bool verify = true);

// SslClientContext::Create(config); fails the test (REQUIRE, with the error) if it cannot.
std::unique_ptr<SslClientContext> MakeTestSslContext(const SslConfig& config);

// Starts one operation (`start` passes the callback to e.g. socket->Read and returns its
// result) and returns its result. Checks the contract: the callback never runs inside the call.
// If the call returned ERR_IO_PENDING, `run_until` drives the loop or scheduler until the given
// condition (the callback ran) holds and returns whether it does; the test fails if not.
int RunSocketOperation(const std::function<int(CompletionCallback)>& start,
                       const std::function<bool(const std::function<bool()>&)>& run_until);

}  // namespace netstack::test

#endif  // TESTS_SOCKET_TLS_TEST_UTIL_H_
