// TlsClientEngine and SslClientContext with no socket at all: the engine's ciphertext is moved
// by hand to and from an in-memory OpenSSL server. Certificates are made at test time.
#include "net/socket/tls_client_engine.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "net/base/clock.h"
#include "net/socket/ssl_client_context.h"
#include "tests/socket/tls_memory_server.h"
#include "tests/socket/tls_test_certs.h"
#include "tests/socket/tls_test_util.h"
#include "tests/socket/tls_wire.h"

namespace netstack {
namespace {

using test::TestPki;
using test::TlsMemoryServer;
using test::TlsMemoryServerContext;

std::unique_ptr<SslClientContext> MakeContext(const std::string& ca_file,
                                              const std::string& max_version = "1.3",
                                              bool verify = true) {
  return test::MakeTestSslContext(test::TestSslConfig(ca_file, max_version, verify));
}

TEST_CASE("tls engine: a handshake over bytes only, with SNI, ALPN and data both ways") {
  TestPki& pki = test::SharedTestPki();
  auto context = MakeContext(pki.ca_file);
  TlsMemoryServerContext server_context(pki.leaf.cert_pem, pki.leaf.key_pem);
  TlsClientEngine client(context.get(), "localhost", 443);
  TlsMemoryServer server(server_context);
  test::TlsWire wire{client, server};
  REQUIRE(client.init_result() == OK);

  // Nothing happens until the engine is asked: it does no I/O of its own.
  CHECK(client.OutputPending() == 0);
  CHECK(client.Handshake() == ERR_IO_PENDING);
  CHECK(client.want() == TlsClientEngine::Want::kInput);
  CHECK(client.OutputPending() > 0);  // The ClientHello.

  REQUIRE(wire.Handshake() == OK);
  CHECK(client.handshake_done());
  CHECK(client.version() == "TLSv1.3");
  CHECK_FALSE(client.cipher().empty());
  CHECK(client.negotiated_protocol() == "http/1.1");
  CHECK(server.server_name() == "localhost");
  CHECK(client.session_key() == "localhost:443");

  REQUIRE(client.Write("ping", 4) == 4);
  wire.Pump();
  CHECK(server.ReadAll() == "ping");
  server.Write("pong");
  CHECK(wire.ReadAll() == "pong");

  // close_notify is a clean end of stream.
  server.SendCloseNotify();
  wire.Pump();
  char buf[16];
  CHECK(client.Read(buf, sizeof(buf)) == 0);
}

TEST_CASE("tls engine: the incoming ciphertext buffer is bounded") {
  TestPki& pki = test::SharedTestPki();
  auto context = MakeContext(pki.ca_file);
  TlsClientEngine client(context.get(), "localhost", 443);
  std::string flood(100 * 1024, '\x17');
  size_t accepted = client.FeedInput(flood.data(), flood.size());
  CHECK(accepted == TlsClientEngine::kBufferSize);
  CHECK(client.InputSpace() == 0);
  CHECK(client.FeedInput(flood.data(), flood.size()) == 0);
  CHECK(client.HasBufferedInput());
}

TEST_CASE("tls engine: verification failures map to Chrome's certificate errors") {
  TestPki& pki = test::SharedTestPki();
  TlsMemoryServerContext server_context(pki.leaf.cert_pem, pki.leaf.key_pem);

  SECTION("unknown authority") {
    auto context = MakeContext(pki.other_ca_file);
    TlsClientEngine client(context.get(), "localhost", 443);
    TlsMemoryServer server(server_context);
    test::TlsWire wire{client, server};
    CHECK(wire.Handshake() == ERR_CERT_AUTHORITY_INVALID);
    CHECK(client.last_error_detail() == "unable to get local issuer certificate");
  }
  SECTION("wrong host name") {
    auto context = MakeContext(pki.ca_file);
    TlsClientEngine client(context.get(), "www.example.test", 443);
    TlsMemoryServer server(server_context);
    test::TlsWire wire{client, server};
    CHECK(wire.Handshake() == ERR_CERT_COMMON_NAME_INVALID);
    CHECK(client.last_error_detail() == "hostname mismatch");
  }
  SECTION("wrong IP address") {
    auto context = MakeContext(pki.ca_file);
    TlsClientEngine client(context.get(), "127.0.0.2", 443);
    TlsMemoryServer server(server_context);
    test::TlsWire wire{client, server};
    CHECK(wire.Handshake() == ERR_CERT_COMMON_NAME_INVALID);
    CHECK(server.server_name().empty());  // No SNI for IP literals.
  }
  SECTION("expired certificate") {
    test::TestCertificate expired = pki.ca.Issue("localhost", {"localhost"}, {}, -7200, -3600);
    TlsMemoryServerContext expired_context(expired.cert_pem, expired.key_pem);
    auto context = MakeContext(pki.ca_file);
    TlsClientEngine client(context.get(), "localhost", 443);
    TlsMemoryServer server(expired_context);
    test::TlsWire wire{client, server};
    CHECK(wire.Handshake() == ERR_CERT_DATE_INVALID);
    CHECK(client.last_error_detail() == "certificate has expired");
  }
  SECTION("-k accepts all of that") {
    auto context = MakeContext(pki.other_ca_file, "1.3", /*verify=*/false);
    TlsClientEngine client(context.get(), "www.example.test", 443);
    TlsMemoryServer server(server_context);
    test::TlsWire wire{client, server};
    CHECK(wire.Handshake() == OK);
  }
}

TEST_CASE("tls engine: no common version is ERR_SSL_VERSION_OR_CIPHER_MISMATCH") {
  TestPki& pki = test::SharedTestPki();
  TlsMemoryServerContext tls13_only(pki.leaf.cert_pem, pki.leaf.key_pem, TLS1_3_VERSION);
  auto context = MakeContext(pki.ca_file, "1.2");
  TlsClientEngine client(context.get(), "localhost", 443);
  TlsMemoryServer server(tls13_only);
  test::TlsWire wire{client, server};
  CHECK(wire.Handshake() == ERR_SSL_VERSION_OR_CIPHER_MISMATCH);
  CHECK_FALSE(client.last_error_detail().empty());
}

TEST_CASE("tls engine: the second connection to a host:port resumes its session") {
  TestPki& pki = test::SharedTestPki();
  const bool tls13 = GENERATE(true, false);
  CAPTURE(tls13);
  auto context = MakeContext(pki.ca_file, tls13 ? "1.3" : "1.2");
  TlsMemoryServerContext server_context(pki.leaf.cert_pem, pki.leaf.key_pem);
  {
    TlsClientEngine client(context.get(), "localhost", 8443);
    TlsMemoryServer server(server_context);
    test::TlsWire wire{client, server};
    REQUIRE(wire.Handshake() == OK);
    CHECK_FALSE(client.session_resumed());
    CHECK(client.version() == (tls13 ? "TLSv1.3" : "TLSv1.2"));
    // TLS 1.3 tickets come after the handshake and are stored when read.
    server.Write("x");
    CHECK(wire.ReadAll() == "x");
  }
  CHECK(context->session_count() == 1);
  {
    // Another port is another cache key: a full handshake.
    TlsClientEngine client(context.get(), "localhost", 9443);
    TlsMemoryServer server(server_context);
    test::TlsWire wire{client, server};
    REQUIRE(wire.Handshake() == OK);
    CHECK_FALSE(client.session_resumed());
  }
  {
    TlsClientEngine client(context.get(), "localhost", 8443);
    TlsMemoryServer server(server_context);
    test::TlsWire wire{client, server};
    REQUIRE(wire.Handshake() == OK);
    CHECK(client.session_resumed());
    CHECK(server.resumed());
  }
}

// One connection to localhost:8443 over bytes: engine and server, kept together.
struct Connection {
  Connection(SslClientContext* context, const TlsMemoryServerContext& server_context)
      : client(context, "localhost", 8443), server(server_context) {}

  // Handshakes; then, if `read`, reads a byte from the server, which stores what tickets
  // followed the handshake.
  bool Open(bool read) {
    REQUIRE(wire.Handshake() == OK);
    if (read) {
      server.Write("x");
      CHECK(wire.ReadAll() == "x");
    }
    return client.session_resumed();
  }

  TlsClientEngine client;
  TlsMemoryServer server;
  test::TlsWire wire{client, server};
};

TEST_CASE("tls engine: each TLS 1.3 ticket resumes once, a TLS 1.2 session again, both expire") {
  TestPki& pki = test::SharedTestPki();
  const bool tls13 = GENERATE(true, false);
  CAPTURE(tls13);
  ManualClock clock;
  std::string error;
  auto context = SslClientContext::Create(test::TestSslConfig(pki.ca_file, tls13 ? "1.3" : "1.2"),
                                          &error, SslClientContext::kDefaultMaxSessions, &clock);
  REQUIRE(context);
  TlsMemoryServerContext server_context(pki.leaf.cert_pem, pki.leaf.key_pem);

  CHECK_FALSE(Connection(context.get(), server_context).Open(/*read=*/true));
  REQUIRE(context->session_count() == 1);
  // OpenSSL stamps sessions with the system's time: the test clock starts at or after it.
  clock.SetNow(SystemClock().Now());

  // Three connections at once after one full handshake: with TLS 1.3 the server sent two
  // tickets (OpenSSL's default), the cache kept both (as Chrome's does), the first two
  // connections take one each and the third has none left; a TLS 1.2 session serves all three.
  Connection first(context.get(), server_context);
  CHECK(first.Open(/*read=*/false));
  Connection second(context.get(), server_context);
  CHECK(second.Open(/*read=*/false));
  CHECK(context->session_count() == (tls13 ? 0u : 1u));
  Connection third(context.get(), server_context);
  CHECK(third.Open(/*read=*/true) == !tls13);
  CHECK(context->session_count() == 1);  // TLS 1.3: the third connection's new tickets.

  // Past any session's lifetime (TLS 1.3 caps tickets at 7 days): a full handshake, and the
  // expired session is dropped.
  clock.Advance(Seconds(8 * 24 * 3600));
  CHECK_FALSE(Connection(context.get(), server_context).Open(/*read=*/false));
  CHECK(context->session_count() == 0);
}

TEST_CASE("ssl client context: bad settings are one-line errors") {
  SslConfig config;
  std::string error;
  config.max_version = "1.1";
  CHECK(SslClientContext::Create(config, &error) == nullptr);
  CHECK(error.find("1.1") != std::string::npos);
  config.max_version = "1.3";
  config.ca_file = "/nonexistent/ca.pem";
  CHECK(SslClientContext::Create(config, &error) == nullptr);
  CHECK(error.find("/nonexistent/ca.pem") != std::string::npos);
  config.ca_file.clear();
  CHECK(SslClientContext::Create(config, &error) != nullptr);  // The system store.
}

// A resumable TLS 1.2 session object (an id is all OpenSSL needs to call it resumable).
SslSessionPtr FakeSession() {
  SSL_SESSION* session = SSL_SESSION_new();
  static const unsigned char kId[] = {1, 2, 3, 4};
  SSL_SESSION_set1_id(session, kId, sizeof(kId));
  SSL_SESSION_set_protocol_version(session, TLS1_2_VERSION);
  SSL_SESSION_set_time(session, static_cast<long>(time(nullptr)));
  SSL_SESSION_set_timeout(session, 300);
  return SslSessionPtr(session);
}

TEST_CASE("ssl client context: the session cache is bounded, LRU, and can be flushed") {
  SslConfig config;
  config.verify_peer = false;
  std::string error;
  auto context = SslClientContext::Create(config, &error, /*max_sessions=*/2);
  REQUIRE(context);
  CHECK(SslSessionCacheKey("::1", 443) == "[::1]:443");
  context->InsertSession("a:443", FakeSession());
  context->InsertSession("b:443", FakeSession());
  CHECK(context->LookupSession("a:443") != nullptr);  // "a" is now the most recent.
  context->InsertSession("c:443", FakeSession());
  CHECK(context->session_count() == 2);
  CHECK(context->LookupSession("b:443") == nullptr);  // Evicted.
  CHECK(context->LookupSession("a:443") != nullptr);
  CHECK(context->LookupSession("c:443") != nullptr);
  context->ClearSessionCache();
  CHECK(context->session_count() == 0);
  CHECK(context->LookupSession("a:443") == nullptr);

  config.enable_session_cache = false;
  auto disabled = SslClientContext::Create(config, &error);
  disabled->InsertSession("a:443", FakeSession());
  CHECK(disabled->session_count() == 0);
}

}  // namespace
}  // namespace netstack

namespace netstack {
namespace {

// Runs a handshake in lockstep and counts round trips: each time the client has sent what it
// can and must wait for the server's answer before going on.
int HandshakeRoundTrips(TlsClientEngine& client, TlsMemoryServer& server) {
  int round_trips = 0;
  int rv = client.Handshake();
  for (int guard = 0; rv == ERR_IO_PENDING && guard < 20; ++guard) {
    char buf[4096];
    std::string to_server;
    size_t n;
    while ((n = client.TakeOutput(buf, sizeof(buf))) > 0) to_server.append(buf, n);
    server.Feed(to_server);
    server.Handshake();
    std::string reply = server.TakeOutput();
    if (!reply.empty()) ++round_trips;
    REQUIRE(client.FeedInput(reply.data(), reply.size()) == reply.size());
    rv = client.Handshake();
  }
  REQUIRE(rv == OK);
  return round_trips;
}

}  // namespace

TEST_CASE("tls engine: a resumed TLS 1.2 handshake is one round trip shorter, 1.3 takes one") {
  TestPki& pki = test::SharedTestPki();
  const bool tls13 = GENERATE(false, true);
  CAPTURE(tls13);
  auto context = MakeContext(pki.ca_file, tls13 ? "1.3" : "1.2");
  TlsMemoryServerContext server_context(pki.leaf.cert_pem, pki.leaf.key_pem);
  int full = 0, resumed = 0;
  {
    TlsClientEngine client(context.get(), "localhost", 443);
    TlsMemoryServer server(server_context);
    full = HandshakeRoundTrips(client, server);
    CHECK_FALSE(client.session_resumed());
    // Let the client see TLS 1.3's post-handshake tickets so it has a session to resume.
    test::TlsWire wire{client, server};
    wire.Pump();  // the client's last flight completes the server's handshake
    server.Write("x");
    CHECK(wire.ReadAll() == "x");
  }
  {
    TlsClientEngine client(context.get(), "localhost", 443);
    TlsMemoryServer server(server_context);
    resumed = HandshakeRoundTrips(client, server);
    CHECK(client.session_resumed());
  }
  if (tls13) {
    CHECK(full == 1);
    CHECK(resumed == 1);  // no 0-RTT: resumption saves computation, not a round trip
  } else {
    CHECK(full == 2);
    CHECK(resumed == 1);
  }
}

}  // namespace netstack
