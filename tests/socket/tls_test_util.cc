#include "tests/socket/tls_test_util.h"

#include <catch2/catch.hpp>
#include <optional>

namespace netstack::test {

SslConfig TestSslConfig(const std::string& ca_file, const std::string& max_version, bool verify) {
  SslConfig config;
  config.ca_file = ca_file;
  config.max_version = max_version;
  config.verify_peer = verify;
  return config;
}

std::unique_ptr<SslClientContext> MakeTestSslContext(const SslConfig& config) {
  std::string error;
  auto context = SslClientContext::Create(config, &error);
  INFO(error);
  REQUIRE(context);
  return context;
}

int RunSocketOperation(const std::function<int(CompletionCallback)>& start,
                       const std::function<bool(const std::function<bool()>&)>& run_until) {
  std::optional<int> result;
  bool in_call = true;
  bool ran_in_call = false;
  int rv = start([&](int r) {
    ran_in_call = in_call;
    result = r;
  });
  in_call = false;
  REQUIRE_FALSE(ran_in_call);
  if (rv != ERR_IO_PENDING) return rv;
  REQUIRE(run_until([&] { return result.has_value(); }));
  return *result;
}

}  // namespace netstack::test
