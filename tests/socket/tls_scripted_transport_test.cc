// SslClientSocket over a scripted transport on virtual time: the transport completes reads and
// writes in chunks as small as one byte, synchronously or later, and can fail on demand. The
// server is an in-memory OpenSSL server. No sockets, no threads, deterministic.
#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "net/base/virtual_scheduler.h"
#include "net/base/weak_ptr.h"
#include "net/socket/ssl_client_context.h"
#include "net/socket/ssl_client_socket.h"
#include "tests/socket/tls_memory_server.h"
#include "tests/socket/tls_test_certs.h"
#include "tests/socket/tls_test_util.h"

namespace netstack {
namespace {

using test::RunSocketOperation;
using test::TestCertificate;
using test::TestCertificateAuthority;
using test::TlsMemoryServer;
using test::TlsMemoryServerContext;

// A connected byte pipe whose far end the test moves by hand.
class ScriptedTransport : public StreamSocket {
 public:
  struct Script {
    size_t chunk = 1;          // At most this many bytes per Read/Write.
    bool async = true;         // Complete later (a posted task) rather than in the call.
    int fail_reads_with = OK;  // Once set, pending and new reads fail with it.
    // A broken transport: a read that fills the caller's buffer claims this many bytes more.
    int overreport = 0;
  };

  ScriptedTransport(Scheduler& scheduler, Script* script)
      : scheduler_(scheduler), script_(script) {}

  std::string inbound;   // Bytes the peer sent, not yet read.
  std::string outbound;  // Bytes written, for the peer.
  bool eof = false;
  int largest_read_asked = 0;     // The largest `len` a Read was given.
  int largest_read_returned = 0;  // The most bytes one Read returned.

  int Connect(CompletionCallback) override { return OK; }

  int Read(char* buf, int len, CompletionCallback callback) override {
    if (!script_->async) {
      int rv = ReadNow(buf, len);
      if (rv != ERR_IO_PENDING) return rv;
    }
    read_buf_ = buf;
    read_len_ = len;
    read_callback_ = std::move(callback);
    return ERR_IO_PENDING;
  }

  int Write(const char* data, int len, CompletionCallback callback) override {
    int n = std::min(len, static_cast<int>(script_->chunk));
    outbound.append(data, n);
    if (!script_->async) return n;
    auto weak = weak_factory_.GetWeakPtr();
    scheduler_.PostTask([weak, n, callback = std::move(callback)] {
      if (weak) callback(n);
    });
    return ERR_IO_PENDING;
  }

  // Completes a pending read if the script allows now. Returns true if a callback ran.
  bool Deliver() {
    if (!read_callback_) return false;
    int rv = ReadNow(read_buf_, read_len_);
    if (rv == ERR_IO_PENDING) return false;
    read_buf_ = nullptr;
    CompletionCallback callback = std::move(read_callback_);
    read_callback_ = nullptr;
    callback(rv);
    return true;
  }

  void Disconnect() override { read_callback_ = nullptr; }
  bool IsConnected() const override { return true; }
  bool IsConnectedAndIdle() const override { return inbound.empty() && !eof; }
  bool WasEverUsed() const override { return true; }
  int GetPeerAddress(IPEndPoint* address) const override { return ERR_SOCKET_NOT_CONNECTED; }
  const NetLogWithSource& NetLog() const override { return net_log_; }

 private:
  int ReadNow(char* buf, int len) {
    if (script_->fail_reads_with != OK) return script_->fail_reads_with;
    if (inbound.empty()) return eof ? 0 : ERR_IO_PENDING;
    int n = std::min({len, static_cast<int>(script_->chunk), static_cast<int>(inbound.size())});
    std::copy_n(inbound.data(), n, buf);
    inbound.erase(0, n);
    largest_read_asked = std::max(largest_read_asked, len);
    largest_read_returned = std::max(largest_read_returned, n);
    return n == len ? n + script_->overreport : n;
  }

  Scheduler& scheduler_;
  Script* script_;
  NetLogWithSource net_log_;
  char* read_buf_ = nullptr;
  int read_len_ = 0;
  CompletionCallback read_callback_;
  WeakPtrFactory<ScriptedTransport> weak_factory_{this};
};

struct Fixture {
  Fixture() {
    SslConfig config;
    config.ca_file = dir.Write("ca.pem", ca.cert_pem());
    std::string error;
    context = SslClientContext::Create(config, &error);
    REQUIRE(context);
    auto owned = std::make_unique<ScriptedTransport>(scheduler, &script);
    transport = owned.get();
    socket = std::make_unique<SslClientSocket>(std::move(owned), context.get(), "localhost", 443);
  }

  // Moves bytes between the transport and the server and runs posted completions until
  // nothing changes.
  void Pump() {
    for (int i = 0; i < 100000; ++i) {
      bool progress = scheduler.RunUntilIdle() > 0;
      if (!transport) return;  // The socket was destroyed by a callback.
      if (!transport->outbound.empty()) {
        server.Feed(transport->outbound);
        transport->outbound.clear();
        progress = true;
      }
      server.Handshake();
      std::string out = server.TakeOutput();
      if (!out.empty()) {
        transport->inbound += out;
        progress = true;
      }
      if (transport->Deliver()) progress = true;
      if (!progress) return;
    }
  }

  // Starts an operation and pumps until it completes; checks the async contract.
  int Run(const std::function<int(CompletionCallback)>& start) {
    return RunSocketOperation(start, [this](const std::function<bool()>& done) {
      Pump();
      return done();
    });
  }

  VirtualScheduler scheduler;
  TestCertificateAuthority ca{"netstack test CA"};
  TestCertificate leaf = ca.Issue("localhost", {"localhost"}, {});
  test::TempDir dir;
  std::unique_ptr<SslClientContext> context;
  TlsMemoryServerContext server_context{leaf.cert_pem, leaf.key_pem};
  TlsMemoryServer server{server_context};
  ScriptedTransport::Script script;
  ScriptedTransport* transport = nullptr;
  std::unique_ptr<SslClientSocket> socket;
};

TEST_CASE("tls scripted: handshake and data survive one-byte transport chunks") {
  Fixture f;
  f.script.async = GENERATE(true, false);
  f.script.chunk = GENERATE(1, 7, 100000);
  CAPTURE(f.script.async, f.script.chunk);
  REQUIRE(f.Run([&](CompletionCallback cb) { return f.socket->Connect(cb); }) == OK);
  CHECK(f.socket->TlsVersion() == "TLSv1.3");

  std::string request(40000, 'q');
  size_t sent = 0;
  while (sent < request.size()) {
    int rv = f.Run([&](CompletionCallback cb) {
      return f.socket->Write(request.data() + sent, static_cast<int>(request.size() - sent), cb);
    });
    REQUIRE(rv > 0);
    sent += static_cast<size_t>(rv);
  }
  f.Pump();
  CHECK(f.server.ReadAll() == request);

  std::string response(30000, 'r');
  f.server.Write(response);
  std::string got;
  char buf[5000];
  while (got.size() < response.size()) {
    int rv = f.Run([&](CompletionCallback cb) { return f.socket->Read(buf, sizeof(buf), cb); });
    REQUIRE(rv > 0);
    got.append(buf, rv);
  }
  CHECK(got == response);
  f.Pump();
  CHECK(f.socket->IsConnectedAndIdle());

  f.server.SendCloseNotify();
  CHECK(f.Run([&](CompletionCallback cb) { return f.socket->Read(buf, sizeof(buf), cb); }) == 0);
  CHECK_FALSE(f.socket->IsConnected());
}

TEST_CASE("tls scripted: transport errors pass through, EOF mid-handshake is CONNECTION_CLOSED") {
  Fixture f;
  SECTION("a reset during the handshake") {
    f.script.fail_reads_with = ERR_CONNECTION_RESET;
    CHECK(f.Run([&](CompletionCallback cb) { return f.socket->Connect(cb); }) ==
          ERR_CONNECTION_RESET);
  }
  SECTION("EOF during the handshake") {
    f.transport->eof = true;  // Once the 10 bytes below are read.
    f.script.chunk = 100000;
    std::optional<int> result;
    REQUIRE(f.socket->Connect([&](int rv) { result = rv; }) == ERR_IO_PENDING);
    f.server.Feed(f.transport->outbound);
    f.transport->outbound.clear();
    f.server.Handshake();
    f.transport->inbound = f.server.TakeOutput().substr(0, 10);
    while (!result && (f.transport->Deliver() || f.scheduler.RunUntilIdle() > 0)) {
    }
    REQUIRE(result.has_value());
    CHECK(*result == ERR_CONNECTION_CLOSED);
    CHECK(f.socket->last_error_detail().find("closed") != std::string::npos);
  }
  SECTION("a reset while reading") {
    REQUIRE(f.Run([&](CompletionCallback cb) { return f.socket->Connect(cb); }) == OK);
    f.Pump();
    char buf[16];
    std::optional<int> result;
    REQUIRE(f.socket->Read(buf, sizeof(buf), [&](int rv) { result = rv; }) == ERR_IO_PENDING);
    f.script.fail_reads_with = ERR_CONNECTION_RESET;
    f.Pump();
    REQUIRE(result.has_value());
    CHECK(*result == ERR_CONNECTION_RESET);
  }
}

TEST_CASE("tls scripted: a read callback may destroy the socket") {
  Fixture f;
  REQUIRE(f.Run([&](CompletionCallback cb) { return f.socket->Connect(cb); }) == OK);
  f.Pump();
  char buf[16];
  std::optional<int> result;
  REQUIRE(f.socket->Read(buf, sizeof(buf), [&](int rv) {
    result = rv;
    f.socket.reset();
    f.transport = nullptr;
  }) == ERR_IO_PENDING);
  f.server.Write("hello");
  f.Pump();
  REQUIRE(result.has_value());
  CHECK(*result > 0);
  CHECK(f.socket == nullptr);
  f.scheduler.RunAll();  // Posted transport completions find the transport gone.
}

TEST_CASE("tls scripted: a burst larger than the engine's buffer arrives whole") {
  Fixture f;
  f.script.async = GENERATE(true, false);
  f.script.chunk = 1 << 20;  // The transport returns as much as each read asks for.
  CAPTURE(f.script.async);
  REQUIRE(f.Run([&](CompletionCallback cb) { return f.socket->Connect(cb); }) == OK);
  f.Pump();

  // 256 KiB of varied plaintext written at once: the ciphertext waits whole in the transport.
  std::string response;
  for (int i = 0; response.size() < 256 * 1024; ++i) response += std::to_string(i) + ",";
  f.server.Write(response);
  f.Pump();
  std::string got;
  std::vector<char> buf(64 * 1024);
  while (got.size() < response.size()) {
    int rv = f.Run([&](CompletionCallback cb) {
      return f.socket->Read(buf.data(), static_cast<int>(buf.size()), cb);
    });
    REQUIRE(rv > 0);
    got.append(buf.data(), rv);
  }
  CHECK(got == response);
  // Reads were as large as the engine could take, and never larger.
  CHECK(f.transport->largest_read_returned == static_cast<int>(TlsClientEngine::kBufferSize));
  CHECK(f.transport->largest_read_asked == static_cast<int>(TlsClientEngine::kBufferSize));
  f.Pump();
  CHECK(f.socket->IsConnectedAndIdle());
}

TEST_CASE("tls scripted: bytes the engine cannot take fail the socket, never vanish") {
  Fixture f;
  f.script.async = GENERATE(true, false);
  f.script.chunk = 1 << 20;
  CAPTURE(f.script.async);
  REQUIRE(f.Run([&](CompletionCallback cb) { return f.socket->Connect(cb); }) == OK);
  f.Pump();
  // The transport now claims one byte more than a full read holds: more than the engine has
  // room for. Dropping it silently would desynchronize the TLS stream.
  f.script.overreport = 1;
  f.server.Write(std::string(64 * 1024, 'r'));
  f.Pump();
  std::vector<char> buf(64 * 1024);
  int rv = OK;
  std::string got;
  for (int i = 0; i < 100; ++i) {
    rv = f.Run([&](CompletionCallback cb) {
      return f.socket->Read(buf.data(), static_cast<int>(buf.size()), cb);
    });
    if (rv <= 0) break;
    got.append(buf.data(), rv);
  }
  CHECK(rv == ERR_SSL_PROTOCOL_ERROR);
  CHECK_THAT(f.socket->last_error_detail(), Catch::Contains("more than asked"));
  CHECK(got.size() < 64 * 1024);
  CHECK_FALSE(f.socket->IsConnected());
}

}  // namespace
}  // namespace netstack
