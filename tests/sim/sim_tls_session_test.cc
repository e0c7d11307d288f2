// The simulated world's TLS sessions through the real stack: the stack's session cache
// (SslClientSessionCache, the live world's class) decides resumption, so a TLS 1.3 ticket
// resumes one connection only, the cache's bound evicts the least recently used server, a
// session past the server's lifetime is not resumed, and a new stack starts with none.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "net/http/url_request_context_builder.h"
#include "tests/sim/sim_test_env.h"

namespace netstack::test {
namespace {

TimeDelta Ms(int64_t ms) { return Milliseconds(ms); }

// Unlimited links, RTT 80 ms, TLS `version`. Responses close their connection (/close/N), so
// every fetch makes a connection and a handshake of its own.
NetworkParams Params(TlsVersion version) {
  NetworkParams params = SimTestEnv::WorkedExample();
  params.defaults.tls = version;
  return params;
}

// A second stack over `env`'s network (its own session cache); the env's requests go through
// it while it lives. Declare it after the env.
std::unique_ptr<UrlRequestContext> NewStackOverSameNetwork(SimTestEnv& env) {
  UrlRequestContextBuilder builder;
  builder.set_config(SimTestEnv::DefaultConfig());
  builder.set_scheduler(&env.scheduler);
  builder.set_net_log(&env.net_log);
  builder.set_dns_transport(env.network->CreateDnsTransport());
  builder.set_socket_factory(env.network->CreateSocketFactory());
  std::string error;
  std::unique_ptr<UrlRequestContext> context = builder.Build(&error);
  REQUIRE(context);
  env.context = context.get();
  return context;
}

TEST_CASE("sim tls: a full TLS 1.3 handshake's two tickets resume two of three connections",
          "[sim][tls]") {
  SimTestEnv env(Params(TlsVersion::kTls13));
  REQUIRE(env.Fetch("https://a.test/close/100").result == OK);
  CHECK(env.stats().tls_handshakes == 1);

  std::vector<FetchResult> three = env.FetchAll(
      {"https://a.test/close/100?1", "https://a.test/close/100?2", "https://a.test/close/100?3"});
  for (const FetchResult& r : three) {
    REQUIRE(r.result == OK);
    CHECK_FALSE(r.timing.socket_reused);
  }
  // The server sent two tickets after the full handshake; the first two handshakes took one
  // each (0-RTT), the third had none left: one RTT.
  CHECK(three[0].connection.tls_resumed);
  CHECK(three[0].tls() == Ms(0));
  CHECK(three[1].connection.tls_resumed);
  CHECK(three[1].tls() == Ms(0));
  CHECK_FALSE(three[2].connection.tls_resumed);
  CHECK(three[2].tls() == Ms(80));
  CHECK(env.stats().tls_handshakes == 2);
  CHECK(env.stats().tls_resumed == 2);

  // Every handshake brought fresh tickets (two after the full one, one after each resumption;
  // the cache keeps the newest two): the next two connections resume, one after the other.
  CHECK(env.Fetch("https://a.test/close/100?4").connection.tls_resumed);
  CHECK(env.Fetch("https://a.test/close/100?5").connection.tls_resumed);
  CHECK(env.stats().tls_resumed == 4);
}

TEST_CASE("sim tls: a TLS 1.2 session resumes every connection started together", "[sim][tls]") {
  SimTestEnv env(Params(TlsVersion::kTls12));
  REQUIRE(env.Fetch("https://a.test/close/100").result == OK);
  std::vector<FetchResult> all = env.FetchAll(
      {"https://a.test/close/100?1", "https://a.test/close/100?2", "https://a.test/close/100?3"});
  for (const FetchResult& r : all) {
    CHECK(r.connection.tls_resumed);
    CHECK(r.tls() == Ms(80));  // The abbreviated handshake: one RTT instead of two.
  }
  CHECK(env.stats().tls_handshakes == 1);
  CHECK(env.stats().tls_resumed == 3);
}

TEST_CASE("sim tls: the session cache's bound evicts the least recently used server",
          "[sim][tls]") {
  const TlsVersion version = GENERATE(TlsVersion::kTls12, TlsVersion::kTls13);
  CAPTURE(TlsVersionName(version));
  SimStackOptions options = SimTestEnv::Options(Params(version));
  options.max_tls_sessions = 2;
  SimTestEnv env(options);
  for (const char* host : {"a", "b", "c"}) {
    REQUIRE(env.Fetch("https://" + std::string(host) + ".test/close/100").result == OK);
  }
  CHECK(env.stats().tls_handshakes == 3);
  // Three servers, room for two: a's session is gone, c's is there.
  CHECK_FALSE(env.Fetch("https://a.test/close/100?again").connection.tls_resumed);
  CHECK(env.Fetch("https://c.test/close/100?again").connection.tls_resumed);
  CHECK(env.stats().tls_handshakes == 4);
  CHECK(env.stats().tls_resumed == 1);
  // a's new session evicted b's, the least recently used by then.
  CHECK_FALSE(env.Fetch("https://b.test/close/100?again").connection.tls_resumed);
}

TEST_CASE("sim tls: a session past the server's lifetime is not resumed", "[sim][tls]") {
  const TlsVersion version = GENERATE(TlsVersion::kTls12, TlsVersion::kTls13);
  CAPTURE(TlsVersionName(version));
  NetworkParams params = Params(version);
  std::string error;
  REQUIRE(params.Set("tls_session_lifetime_s", "60", &error));
  SimTestEnv env(params);
  REQUIRE(env.Fetch("https://a.test/close/100").result == OK);
  env.Advance(Seconds(59));
  CHECK(env.Fetch("https://a.test/close/100?1").connection.tls_resumed);
  // TLS 1.3 issued a new ticket at that handshake; TLS 1.2 kept the first session's lifetime.
  env.Advance(version == TlsVersion::kTls13 ? Seconds(60) : Seconds(1));
  CHECK_FALSE(env.Fetch("https://a.test/close/100?2").connection.tls_resumed);
  CHECK(env.stats().tls_handshakes == 2);
  CHECK(env.stats().tls_resumed == 1);
}

TEST_CASE("sim tls: a server with a session lifetime of 0 is never resumed", "[sim][tls]") {
  NetworkParams params = Params(TlsVersion::kTls13);
  std::string error;
  REQUIRE(params.Set("a.test:tls_session_lifetime_s", "0", &error));
  SimTestEnv env(params);
  for (int i = 0; i < 2; ++i) {
    CHECK_FALSE(env.Fetch("https://a.test/close/100?" + std::to_string(i)).connection.tls_resumed);
    CHECK(env.Fetch("https://b.test/close/100?" + std::to_string(i)).connection.tls_resumed ==
          (i > 0));
  }
}

TEST_CASE("sim tls: sessions belong to the stack: a new one over the same network has none",
          "[sim][tls]") {
  SimTestEnv env(Params(TlsVersion::kTls12));
  REQUIRE(env.Fetch("https://a.test/close/100").result == OK);
  CHECK(env.Fetch("https://a.test/close/100?1").connection.tls_resumed);
  std::unique_ptr<UrlRequestContext> second = NewStackOverSameNetwork(env);
  CHECK_FALSE(env.Fetch("https://a.test/close/100?2").connection.tls_resumed);
}

}  // namespace
}  // namespace netstack::test
