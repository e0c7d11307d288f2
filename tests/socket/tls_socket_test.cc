// SslClientSocket over UvTcpClientSocket (built by UvClientSocketFactory) against an OpenSSL
// server on 127.0.0.1 running on its own thread. The PKI is made at test time.
#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "net/socket/ssl_client_context.h"
#include "net/socket/ssl_client_socket.h"
#include "net/socket/uv_client_socket_factory.h"
#include "tests/socket/tls_test_certs.h"
#include "tests/socket/tls_test_server.h"
#include "tests/socket/tls_test_util.h"
#include "tests/socket/transport_test_util.h"

namespace netstack {
namespace {

using test::CapturingNetLog;
using test::LiveLoop;
using test::SharedTestPki;
using test::TestSslConfig;
using test::TlsTestServer;

TlsTestServer::Options ServerOptions(int max_version = TLS1_3_VERSION) {
  TlsTestServer::Options options;
  options.cert_pem = SharedTestPki().leaf.cert_pem;
  options.key_pem = SharedTestPki().leaf.key_pem;
  options.max_version = max_version;
  return options;
}

// One loop, one stack's TLS context and factory, and a NetLog capture.
struct Stack {
  explicit Stack(const SslConfig& config) {
    context = test::MakeTestSslContext(config);
    factory = std::make_unique<UvClientSocketFactory>(loop.get(), context.get());
  }

  // Waits for a pending operation; checks the callback did not run inside the call.
  int Wait(const std::function<int(CompletionCallback)>& start) {
    return test::RunSocketOperation(
        start, [this](const std::function<bool()>& done) { return loop.RunUntil(done); });
  }

  // TCP to 127.0.0.1:port, then TLS for `host`. Returns the handshake result.
  int Connect(uint16_t port, const std::string& host, std::unique_ptr<StreamSocket>* out) {
    auto tcp = factory->CreateTransportClientSocket(IPEndPoint(IPAddress::IPv4(127, 0, 0, 1), port),
                                                    "127.0.0.1", log.net_log(), NetLogSource{});
    int rv = Wait([&](CompletionCallback cb) { return tcp->Connect(std::move(cb)); });
    if (rv != OK) return rv;
    *out = factory->CreateSslClientSocket(std::move(tcp), host, port, NetLogWithSource());
    StreamSocket* socket = out->get();
    return Wait([&](CompletionCallback cb) { return socket->Connect(std::move(cb)); });
  }

  // Writes all of `data`, then reads until as many bytes came back (the server echoes).
  std::string RoundTrip(StreamSocket& socket, const std::string& data) {
    size_t sent = 0;
    while (sent < data.size()) {
      int rv = Wait([&](CompletionCallback cb) {
        return socket.Write(data.data() + sent, static_cast<int>(data.size() - sent),
                            std::move(cb));
      });
      REQUIRE(rv > 0);
      sent += static_cast<size_t>(rv);
    }
    std::string echoed;
    std::vector<char> buf(8192);
    while (echoed.size() < data.size()) {
      int rv = Wait([&](CompletionCallback cb) {
        return socket.Read(buf.data(), static_cast<int>(buf.size()), std::move(cb));
      });
      REQUIRE(rv > 0);
      echoed.append(buf.data(), rv);
    }
    return echoed;
  }

  LiveLoop loop;  // Declared first: destroyed last, after every handle user.
  CapturingNetLog log;
  std::unique_ptr<SslClientContext> context;
  std::unique_ptr<UvClientSocketFactory> factory;
};

TEST_CASE("tls: handshake with --cacert, SNI, and a data round trip") {
  Stack stack(TestSslConfig(SharedTestPki().ca_file));
  {
    TlsTestServer server(ServerOptions());
    std::unique_ptr<StreamSocket> socket;
    REQUIRE(stack.Connect(server.port(), "localhost", &socket) == OK);
    CHECK(socket->IsConnected());
    CHECK(socket->IsConnectedAndIdle());
    CHECK(socket->TlsVersion() == "TLSv1.3");
    CHECK_FALSE(socket->WasSessionResumed());
    CHECK_FALSE(socket->WasEverUsed());

    CHECK(stack.RoundTrip(*socket, "GET / HTTP/1.1\r\n\r\n") == "GET / HTTP/1.1\r\n\r\n");
    CHECK(socket->WasEverUsed());
    // Larger than a TLS record and than the engine's buffers: partial writes and many reads.
    std::string big(300 * 1000, '\0');
    for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('a' + i % 23);
    CHECK(stack.RoundTrip(*socket, big) == big);
    CHECK(socket->IsConnectedAndIdle());

    auto handshakes = server.handshakes();
    REQUIRE(handshakes.size() == 1);
    CHECK(handshakes[0].ok);
    CHECK(handshakes[0].server_name == "localhost");

    // SSL_CONNECT is logged on the TCP socket's source.
    auto ssl_connect = stack.log.Find(NetLogEventType::SSL_CONNECT);
    REQUIRE(ssl_connect.size() == 2);
    CHECK(ssl_connect[0].source.id == socket->NetLog().source().id);
    CHECK(ssl_connect[0].source.type == NetLogSourceType::SOCKET);
    CHECK(ssl_connect[1].params["version"] == "TLSv1.3");
    CHECK_FALSE(ssl_connect[1].params["cipher_suite"].get<std::string>().empty());
    CHECK(ssl_connect[1].params["is_resumed"] == false);
    socket.reset();
  }
  REQUIRE(stack.loop.Shutdown() == 0);
}

TEST_CASE("tls: a fresh TLS 1.3 socket stays idle once its session tickets arrive") {
  Stack stack(TestSslConfig(SharedTestPki().ca_file));
  {
    TlsTestServer server(ServerOptions());
    std::unique_ptr<StreamSocket> socket;
    REQUIRE(stack.Connect(server.port(), "localhost", &socket) == OK);
    // No Read(): the socket processes the tickets in the background and caches the session.
    REQUIRE(stack.loop.RunUntil([&] { return stack.context->session_count() == 1; }));
    CHECK(socket->IsConnectedAndIdle());
    CHECK_FALSE(socket->WasEverUsed());
    socket.reset();
  }
  REQUIRE(stack.loop.Shutdown() == 0);
}

TEST_CASE("tls: certificate errors") {
  std::string host = "localhost";
  SslConfig config = TestSslConfig(SharedTestPki().ca_file);
  int expected = OK;
  std::string detail;
  SECTION("an unknown CA is ERR_CERT_AUTHORITY_INVALID") {
    config.ca_file = SharedTestPki().other_ca_file;
    expected = ERR_CERT_AUTHORITY_INVALID;
    detail = "unable to get local issuer certificate";
  }
  SECTION("the system store does not know the test CA either") {
    config.ca_file.clear();
    expected = ERR_CERT_AUTHORITY_INVALID;
    detail = "unable to get local issuer certificate";
  }
  SECTION("a name the certificate lacks is ERR_CERT_COMMON_NAME_INVALID") {
    host = "wrong.example.test";
    expected = ERR_CERT_COMMON_NAME_INVALID;
    detail = "hostname mismatch";
  }
  SECTION("-k accepts an unknown CA and a wrong name") {
    config.ca_file = SharedTestPki().other_ca_file;
    config.verify_peer = false;
    host = "wrong.example.test";
    expected = OK;
  }
  Stack stack(config);
  {
    TlsTestServer server(ServerOptions());
    std::unique_ptr<StreamSocket> socket;
    CHECK(stack.Connect(server.port(), host, &socket) == expected);
    auto* ssl = static_cast<SslClientSocket*>(socket.get());
    CHECK(ssl->last_error_detail() == detail);
    if (expected == OK) {
      CHECK(stack.RoundTrip(*socket, "hello") == "hello");
    } else {
      CHECK_FALSE(socket->IsConnected());
      char buf[4];
      CHECK(socket->Read(buf, sizeof(buf), [](int) {}) == ERR_SOCKET_NOT_CONNECTED);
      auto ends = stack.log.Find(NetLogEventType::SSL_CONNECT);
      REQUIRE(ends.size() == 2);
      CHECK(ends[1].params["net_error"] == expected);
      CHECK(ends[1].params["error_detail"] == detail);
    }
    socket.reset();
  }
  REQUIRE(stack.loop.Shutdown() == 0);
}

TEST_CASE("tls: an IP literal is matched against the certificate's IPs and sends no SNI") {
  Stack stack(TestSslConfig(SharedTestPki().ca_file));
  {
    TlsTestServer server(ServerOptions());
    std::unique_ptr<StreamSocket> socket;
    REQUIRE(stack.Connect(server.port(), "127.0.0.1", &socket) == OK);
    CHECK(stack.RoundTrip(*socket, "ip") == "ip");
    socket.reset();
    auto handshakes = server.handshakes();
    REQUIRE(handshakes.size() == 1);
    CHECK(handshakes[0].server_name.empty());
  }
  REQUIRE(stack.loop.Shutdown() == 0);
}

TEST_CASE("tls: no common version is ERR_SSL_VERSION_OR_CIPHER_MISMATCH") {
  Stack stack(TestSslConfig(SharedTestPki().ca_file, "1.2"));
  {
    TlsTestServer::Options options = ServerOptions();
    options.min_version = TLS1_3_VERSION;
    TlsTestServer server(options);
    std::unique_ptr<StreamSocket> socket;
    CHECK(stack.Connect(server.port(), "localhost", &socket) == ERR_SSL_VERSION_OR_CIPHER_MISMATCH);
    socket.reset();
  }
  REQUIRE(stack.loop.Shutdown() == 0);
}

TEST_CASE("tls: the second connection to the same host:port resumes the session") {
  const bool tls13 = GENERATE(true, false);
  CAPTURE(tls13);
  Stack stack(TestSslConfig(SharedTestPki().ca_file, tls13 ? "1.3" : "1.2"));
  {
    TlsTestServer server(ServerOptions(tls13 ? TLS1_3_VERSION : TLS1_2_VERSION));
    for (int i = 0; i < 3; ++i) {
      std::unique_ptr<StreamSocket> socket;
      REQUIRE(stack.Connect(server.port(), "localhost", &socket) == OK);
      CHECK(socket->TlsVersion() == (tls13 ? "TLSv1.3" : "TLSv1.2"));
      CHECK(socket->WasSessionResumed() == (i > 0));
      // Reading is what stores TLS 1.3 tickets (they follow the handshake).
      CHECK(stack.RoundTrip(*socket, "again") == "again");
      socket.reset();
    }
    auto handshakes = server.handshakes();
    REQUIRE(handshakes.size() == 3);
    CHECK_FALSE(handshakes[0].resumed);
    CHECK(handshakes[1].resumed);
    CHECK(handshakes[2].resumed);
  }
  CHECK(stack.log.Find(NetLogEventType::SSL_SESSION_RESUMED).size() == 2);
  stack.context->ClearSessionCache();
  REQUIRE(stack.loop.Shutdown() == 0);
}

TEST_CASE("tls: with the session cache disabled every handshake is full") {
  SslConfig config = TestSslConfig(SharedTestPki().ca_file);
  config.enable_session_cache = false;
  Stack stack(config);
  {
    TlsTestServer server(ServerOptions());
    for (int i = 0; i < 2; ++i) {
      std::unique_ptr<StreamSocket> socket;
      REQUIRE(stack.Connect(server.port(), "localhost", &socket) == OK);
      CHECK(stack.RoundTrip(*socket, "x") == "x");
      CHECK_FALSE(socket->WasSessionResumed());
      socket.reset();
    }
  }
  REQUIRE(stack.loop.Shutdown() == 0);
}

TEST_CASE("tls: the end of the stream reads as 0") {
  const bool abrupt = GENERATE(false, true);
  CAPTURE(abrupt);  // close_notify, or a bare TCP FIN.
  Stack stack(TestSslConfig(SharedTestPki().ca_file));
  {
    TlsTestServer::Options options = ServerOptions();
    options.close_after_bytes = 4;
    options.abrupt_close = abrupt;
    TlsTestServer server(options);
    std::unique_ptr<StreamSocket> socket;
    REQUIRE(stack.Connect(server.port(), "localhost", &socket) == OK);
    CHECK(stack.RoundTrip(*socket, "bye!") == "bye!");
    char buf[16];
    int rv = stack.Wait(
        [&](CompletionCallback cb) { return socket->Read(buf, sizeof(buf), std::move(cb)); });
    CHECK(rv == 0);
    CHECK_FALSE(socket->IsConnectedAndIdle());
    socket.reset();
  }
  REQUIRE(stack.loop.Shutdown() == 0);
}

TEST_CASE("tls: an idle TLS socket stops being idle when the server closes it") {
  Stack stack(TestSslConfig(SharedTestPki().ca_file));
  {
    TlsTestServer::Options options = ServerOptions();
    options.close_after_bytes = 1;
    TlsTestServer server(options);
    std::unique_ptr<StreamSocket> socket;
    REQUIRE(stack.Connect(server.port(), "localhost", &socket) == OK);
    // The server echoes one byte, then sends close_notify and FIN while the socket is idle.
    const char byte = 'z';
    REQUIRE(stack.Wait([&](CompletionCallback cb) { return socket->Write(&byte, 1, cb); }) == 1);
    char buf[1];
    REQUIRE(stack.Wait([&](CompletionCallback cb) { return socket->Read(buf, 1, cb); }) == 1);
    CHECK(stack.loop.RunUntil([&] { return !socket->IsConnectedAndIdle(); }));
    socket.reset();
  }
  REQUIRE(stack.loop.Shutdown() == 0);
}

TEST_CASE("tls: destroying a socket mid-handshake or with a pending read is safe") {
  const bool during_handshake = GENERATE(true, false);
  CAPTURE(during_handshake);
  Stack stack(TestSslConfig(SharedTestPki().ca_file));
  {
    TlsTestServer server(ServerOptions());
    auto tcp = stack.factory->CreateTransportClientSocket(
        IPEndPoint(IPAddress::IPv4(127, 0, 0, 1), server.port()), "127.0.0.1", stack.log.net_log(),
        {});
    REQUIRE(stack.Wait([&](CompletionCallback cb) { return tcp->Connect(cb); }) == OK);
    auto socket =
        stack.factory->CreateSslClientSocket(std::move(tcp), "localhost", server.port(), {});
    bool called = false;
    auto buf = std::make_unique<char[]>(64);
    if (during_handshake) {
      REQUIRE(socket->Connect([&](int) { called = true; }) == ERR_IO_PENDING);
    } else {
      REQUIRE(stack.Wait([&](CompletionCallback cb) { return socket->Connect(cb); }) == OK);
      REQUIRE(socket->Read(buf.get(), 64, [&](int) { called = true; }) == ERR_IO_PENDING);
    }
    socket.reset();
    buf.reset();
    stack.loop.RunUntil([&] { return server.handshakes().size() == 1; });
    stack.loop.RunPending();
    CHECK_FALSE(called);
  }
  REQUIRE(stack.loop.Shutdown() == 0);
}

}  // namespace
}  // namespace netstack
