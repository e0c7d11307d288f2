// UvTcpClientSocket on a real libuv loop against a server on 127.0.0.1 (same loop).
#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "net/socket/socket_callback_util.h"
#include "net/socket/uv_tcp_client_socket.h"
#include "tests/socket/transport_test_util.h"

namespace netstack {
namespace {

using test::CapturingNetLog;
using test::LiveLoop;
using test::LoopbackTcpServer;
using test::RefusingPort;

IPEndPoint Loopback(uint16_t port) { return IPEndPoint(IPAddress::IPv4(127, 0, 0, 1), port); }

// Records one completion and checks the contract: never inside the call that returned pending.
struct Completion {
  bool in_call = false;
  bool ran_in_call = false;
  std::optional<int> result;
  CompletionCallback Callback() {
    return [this](int rv) {
      if (in_call) ran_in_call = true;
      result = rv;
    };
  }
};

// Connects `socket` and runs the loop until the connect completes; returns the result.
int ConnectAndWait(LiveLoop& loop, StreamSocket& socket) {
  Completion done;
  done.in_call = true;
  int rv = socket.Connect(done.Callback());
  done.in_call = false;
  REQUIRE_FALSE(done.ran_in_call);
  if (rv != ERR_IO_PENDING) return rv;
  REQUIRE(loop.RunUntil([&] { return done.result.has_value(); }));
  return *done.result;
}

// Reads once, waiting if needed; returns the result and appends data to `out`.
int ReadOnce(LiveLoop& loop, StreamSocket& socket, std::string* out, int len = 4096) {
  std::vector<char> buf(len);
  Completion done;
  done.in_call = true;
  int rv = socket.Read(buf.data(), len, done.Callback());
  done.in_call = false;
  REQUIRE_FALSE(done.ran_in_call);
  if (rv == ERR_IO_PENDING) {
    REQUIRE(loop.RunUntil([&] { return done.result.has_value(); }));
    rv = *done.result;
  }
  if (rv > 0) out->append(buf.data(), rv);
  return rv;
}

TEST_CASE("tcp: connect, write and read a round trip, NetLog tells the socket's life") {
  LiveLoop loop;
  CapturingNetLog log;
  {
    LoopbackTcpServer server(loop.get(), {.read = true, .echo = true});
    NetLogSource creator{NetLogSourceType::CONNECT_JOB, 4242, {}};
    UvTcpClientSocket socket(loop.get(), Loopback(server.port()), log.net_log(), creator);
    CHECK_FALSE(socket.IsConnected());
    IPEndPoint peer;
    CHECK(socket.GetPeerAddress(&peer) == ERR_SOCKET_NOT_CONNECTED);
    char byte;
    CHECK(socket.Read(&byte, 1, [](int) {}) == ERR_SOCKET_NOT_CONNECTED);

    REQUIRE(ConnectAndWait(loop, socket) == OK);
    CHECK(socket.IsConnected());
    CHECK(socket.IsConnectedAndIdle());
    CHECK_FALSE(socket.WasEverUsed());
    REQUIRE(socket.GetPeerAddress(&peer) == OK);
    CHECK(peer == Loopback(server.port()));

    const std::string request = "GET / HTTP/1.1\r\n\r\n";
    Completion write;
    int rv = socket.Write(request.data(), static_cast<int>(request.size()), write.Callback());
    if (rv == ERR_IO_PENDING) {
      REQUIRE(loop.RunUntil([&] { return write.result.has_value(); }));
      rv = *write.result;
    }
    CHECK(rv == static_cast<int>(request.size()));
    CHECK(socket.WasEverUsed());

    std::string echoed;
    while (echoed.size() < request.size()) REQUIRE(ReadOnce(loop, socket, &echoed) > 0);
    CHECK(echoed == request);
    CHECK(server.received(0) == request);
    CHECK(socket.IsConnectedAndIdle());
  }
  loop.RunPending();

  auto alive = log.Find(NetLogEventType::SOCKET_ALIVE);
  REQUIRE(alive.size() == 2);
  CHECK(alive[0].phase == NetLogEventPhase::BEGIN);
  CHECK(alive[0].source.type == NetLogSourceType::SOCKET);
  CHECK(alive[0].params["source_dependency"]["id"] == 4242);
  CHECK(alive[1].phase == NetLogEventPhase::END);
  auto connect = log.Find(NetLogEventType::TCP_CONNECT);
  REQUIRE(connect.size() == 2);
  CHECK(connect[0].params["address"].get<std::string>().rfind("127.0.0.1:", 0) == 0);
  CHECK(connect[1].params.contains("source_address"));
  CHECK(log.Find(NetLogEventType::TCP_CONNECT_ATTEMPT).size() == 2);
  auto sent = log.Find(NetLogEventType::SOCKET_BYTES_SENT);
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].params["byte_count"] == 18);
  int received = 0;
  for (const auto& e : log.Find(NetLogEventType::SOCKET_BYTES_RECEIVED)) {
    received += e.params["byte_count"].get<int>();
  }
  CHECK(received == 18);
  CHECK(log.Find(NetLogEventType::SOCKET_CLOSED).size() == 1);
  REQUIRE(loop.Shutdown() == 0);
}

TEST_CASE("tcp: a closed port is ERR_CONNECTION_REFUSED") {
  LiveLoop loop;
  CapturingNetLog log;
  {
    RefusingPort refusing;
    UvTcpClientSocket socket(loop.get(), Loopback(refusing.port()), log.net_log(), {});
    CHECK(ConnectAndWait(loop, socket) == ERR_CONNECTION_REFUSED);
    CHECK_FALSE(socket.IsConnected());
    char byte;
    CHECK(socket.Read(&byte, 1, [](int) {}) == ERR_SOCKET_NOT_CONNECTED);
  }
  auto connect = log.Find(NetLogEventType::TCP_CONNECT);
  REQUIRE(connect.size() == 2);
  CHECK(connect[1].params["net_error"] == ERR_CONNECTION_REFUSED);
  REQUIRE(loop.Shutdown() == 0);
}

TEST_CASE("tcp: buffered data, then the peer's FIN reads as 0 (end of stream)") {
  LiveLoop loop;
  {
    LoopbackTcpServer server(loop.get(), {});
    UvTcpClientSocket socket(loop.get(), Loopback(server.port()), nullptr, {});
    REQUIRE(ConnectAndWait(loop, socket) == OK);
    REQUIRE(loop.RunUntil([&] { return server.connection_count() == 1; }));
    server.Write(0, "last words");
    server.CloseWithFin(0);
    // The socket keeps reading while idle, so data and EOF are both noticed without a Read.
    REQUIRE(loop.RunUntil([&] { return !socket.IsConnectedAndIdle(); }));
    std::string data;
    int rv;
    while ((rv = ReadOnce(loop, socket, &data)) > 0) {
    }
    CHECK(rv == 0);
    CHECK(data == "last words");
    CHECK_FALSE(socket.IsConnected());
    std::string more;
    CHECK(ReadOnce(loop, socket, &more) == 0);  // Sticky.
  }
  REQUIRE(loop.Shutdown() == 0);
}

TEST_CASE("tcp: a pending read completes with 0 when the peer closes") {
  LiveLoop loop;
  {
    LoopbackTcpServer server(loop.get(), {});
    UvTcpClientSocket socket(loop.get(), Loopback(server.port()), nullptr, {});
    REQUIRE(ConnectAndWait(loop, socket) == OK);
    REQUIRE(loop.RunUntil([&] { return server.connection_count() == 1; }));
    char buf[16];
    Completion read;
    REQUIRE(socket.Read(buf, sizeof(buf), read.Callback()) == ERR_IO_PENDING);
    server.CloseWithFin(0);
    REQUIRE(loop.RunUntil([&] { return read.result.has_value(); }));
    CHECK(*read.result == 0);
  }
  REQUIRE(loop.Shutdown() == 0);
}

TEST_CASE("tcp: a peer reset mid-read is ERR_CONNECTION_RESET") {
  LiveLoop loop;
  {
    LoopbackTcpServer server(loop.get(), {});
    UvTcpClientSocket socket(loop.get(), Loopback(server.port()), nullptr, {});
    REQUIRE(ConnectAndWait(loop, socket) == OK);
    REQUIRE(loop.RunUntil([&] { return server.connection_count() == 1; }));
    server.Write(0, "partial body");
    std::string data;
    while (data.size() < 12) REQUIRE(ReadOnce(loop, socket, &data) > 0);
    CHECK(data == "partial body");

    char buf[16];
    Completion read;
    REQUIRE(socket.Read(buf, sizeof(buf), read.Callback()) == ERR_IO_PENDING);
    server.CloseWithReset(0);
    REQUIRE(loop.RunUntil([&] { return read.result.has_value(); }));
    CHECK(*read.result == ERR_CONNECTION_RESET);
    CHECK_FALSE(socket.IsConnected());
    CHECK(socket.Read(buf, sizeof(buf), [](int) {}) == ERR_CONNECTION_RESET);  // Sticky.
    const char request[] = "x";
    CHECK(socket.Write(request, 1, [](int) {}) < 0);
  }
  REQUIRE(loop.Shutdown() == 0);
}

TEST_CASE("tcp: an idle socket stops being idle when the peer closes it") {
  LiveLoop loop;
  {
    LoopbackTcpServer server(loop.get(), {});
    UvTcpClientSocket socket(loop.get(), Loopback(server.port()), nullptr, {});
    REQUIRE(ConnectAndWait(loop, socket) == OK);
    REQUIRE(loop.RunUntil([&] { return server.connection_count() == 1; }));
    loop.RunPending();
    CHECK(socket.IsConnectedAndIdle());
    server.CloseWithFin(0);
    REQUIRE(loop.RunUntil([&] { return !socket.IsConnectedAndIdle(); }));
    CHECK_FALSE(socket.IsConnected());
  }
  REQUIRE(loop.Shutdown() == 0);
}

TEST_CASE("tcp: unread data makes a socket not idle but still connected") {
  LiveLoop loop;
  {
    LoopbackTcpServer server(loop.get(), {});
    UvTcpClientSocket socket(loop.get(), Loopback(server.port()), nullptr, {});
    REQUIRE(ConnectAndWait(loop, socket) == OK);
    REQUIRE(loop.RunUntil([&] { return server.connection_count() == 1; }));
    server.Write(0, "unexpected");
    REQUIRE(loop.RunUntil([&] { return !socket.IsConnectedAndIdle(); }));
    CHECK(socket.IsConnected());
    CHECK(socket.buffered_bytes() == 10);
  }
  REQUIRE(loop.Shutdown() == 0);
}

TEST_CASE("tcp: a socket holds a read buffer only while bytes wait to be read") {
  LiveLoop loop;
  {
    LoopbackTcpServer server(loop.get(), {});
    UvTcpClientSocket socket(loop.get(), Loopback(server.port()), nullptr, {});
    REQUIRE(ConnectAndWait(loop, socket) == OK);
    REQUIRE(loop.RunUntil([&] { return server.connection_count() == 1; }));
    CHECK_FALSE(socket.holds_read_buffer());  // Connected and idle: no buffer.

    // A response arrives with no Read pending: it waits in the buffer.
    server.Write(0, "response one");
    REQUIRE(loop.RunUntil([&] { return socket.buffered_bytes() == 12; }));
    CHECK(socket.holds_read_buffer());
    std::string data;
    REQUIRE(ReadOnce(loop, socket, &data, 5) == 5);  // Partly read: still held.
    CHECK(socket.holds_read_buffer());
    REQUIRE(ReadOnce(loop, socket, &data) == 7);  // Drained: given back.
    CHECK(data == "response one");
    CHECK_FALSE(socket.holds_read_buffer());
    CHECK(socket.IsConnectedAndIdle());

    // A pending Read gets the next bytes directly; the buffer goes back at once.
    data.clear();
    std::vector<char> buf(64);
    std::optional<int> result;
    REQUIRE(socket.Read(buf.data(), static_cast<int>(buf.size()), [&](int rv) { result = rv; }) ==
            ERR_IO_PENDING);
    server.Write(0, "response two");
    REQUIRE(loop.RunUntil([&] { return result.has_value(); }));
    CHECK(std::string(buf.data(), static_cast<size_t>(*result)) == "response two");
    CHECK_FALSE(socket.holds_read_buffer());

    // The peer's FIN on an idle socket leaves no buffer behind either.
    server.CloseWithFin(0);
    REQUIRE(loop.RunUntil([&] { return !socket.IsConnectedAndIdle(); }));
    CHECK_FALSE(socket.holds_read_buffer());
  }
  REQUIRE(loop.Shutdown() == 0);
}

TEST_CASE("tcp: reading pauses when the internal buffer is full, and nothing is lost") {
  LiveLoop loop;
  {
    LoopbackTcpServer server(loop.get(), {});
    UvTcpClientSocket socket(loop.get(), Loopback(server.port()), nullptr, {});
    REQUIRE(ConnectAndWait(loop, socket) == OK);
    REQUIRE(loop.RunUntil([&] { return server.connection_count() == 1; }));
    std::string payload(1 << 20, '\0');
    for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 7 + i / 251);
    server.Write(0, payload);
    REQUIRE(loop.RunUntil(
        [&] { return socket.buffered_bytes() == UvTcpClientSocket::kReadBufferSize; }));
    for (int i = 0; i < 20; ++i) uv_run(loop.get(), UV_RUN_NOWAIT);
    CHECK(socket.buffered_bytes() == UvTcpClientSocket::kReadBufferSize);  // The bound holds.

    std::string data;
    while (data.size() < payload.size()) REQUIRE(ReadOnce(loop, socket, &data, 10000) > 0);
    CHECK(data == payload);
  }
  REQUIRE(loop.Shutdown() == 0);
}

TEST_CASE("tcp: a write the kernel cannot take at once is pending until written") {
  LiveLoop loop;
  {
    LoopbackTcpServer server(loop.get(), {.read = false});
    UvTcpClientSocket socket(loop.get(), Loopback(server.port()), nullptr, {});
    REQUIRE(ConnectAndWait(loop, socket) == OK);
    REQUIRE(loop.RunUntil([&] { return server.connection_count() == 1; }));
    std::string chunk(256 * 1024, 'w');
    size_t written = 0;
    Completion write;
    int rv;
    // The server does not read: the kernel buffers fill up and a write goes pending.
    for (int i = 0; i < 1000; ++i) {
      write.in_call = true;
      rv = socket.Write(chunk.data(), static_cast<int>(chunk.size()), write.Callback());
      write.in_call = false;
      if (rv == ERR_IO_PENDING) break;
      REQUIRE(rv > 0);
      written += static_cast<size_t>(rv);
    }
    REQUIRE(rv == ERR_IO_PENDING);
    CHECK_FALSE(write.ran_in_call);
    server.StartReading(0);
    REQUIRE(loop.RunUntil([&] { return write.result.has_value(); }));
    CHECK(*write.result == static_cast<int>(chunk.size()));
    written += chunk.size();
    REQUIRE(loop.RunUntil([&] { return server.received(0).size() == written; }));
  }
  REQUIRE(loop.Shutdown() == 0);
}

TEST_CASE("tcp: destroying a socket with a pending connect is safe, no callback runs") {
  LiveLoop loop;
  {
    LoopbackTcpServer server(loop.get(), {});
    bool called = false;
    auto socket = std::make_unique<UvTcpClientSocket>(loop.get(), Loopback(server.port()), nullptr,
                                                      NetLogSource{});
    REQUIRE(socket->Connect([&](int) { called = true; }) == ERR_IO_PENDING);
    socket.reset();
    loop.RunUntil([&] { return server.connection_count() == 1; });
    loop.RunPending();
    CHECK_FALSE(called);
  }
  REQUIRE(loop.Shutdown() == 0);
}

TEST_CASE("tcp: destroying a socket with a pending read is safe, no callback runs") {
  LiveLoop loop;
  {
    LoopbackTcpServer server(loop.get(), {});
    bool called = false;
    auto socket = std::make_unique<UvTcpClientSocket>(loop.get(), Loopback(server.port()), nullptr,
                                                      NetLogSource{});
    REQUIRE(ConnectAndWait(loop, *socket) == OK);
    REQUIRE(loop.RunUntil([&] { return server.connection_count() == 1; }));
    auto buf = std::make_unique<char[]>(100);
    REQUIRE(socket->Read(buf.get(), 100, [&](int) { called = true; }) == ERR_IO_PENDING);
    socket.reset();
    buf.reset();  // The socket no longer references it (ASan would see a write).
    server.Write(0, "too late");
    REQUIRE(loop.RunUntil([&] { return server.peer_closed(0); }));
    CHECK_FALSE(called);
  }
  REQUIRE(loop.Shutdown() == 0);
}

TEST_CASE("tcp: destroying a socket with a pending write is safe, no callback runs") {
  LiveLoop loop;
  {
    LoopbackTcpServer server(loop.get(), {.read = false});
    bool called = false;
    auto socket = std::make_unique<UvTcpClientSocket>(loop.get(), Loopback(server.port()), nullptr,
                                                      NetLogSource{});
    REQUIRE(ConnectAndWait(loop, *socket) == OK);
    REQUIRE(loop.RunUntil([&] { return server.connection_count() == 1; }));
    auto chunk = std::make_unique<std::string>(256 * 1024, 'w');
    int rv = 0;
    for (int i = 0; i < 1000 && rv != ERR_IO_PENDING; ++i) {
      rv = socket->Write(chunk->data(), static_cast<int>(chunk->size()),
                         [&](int) { called = true; });
      REQUIRE(rv != 0);
      REQUIRE((rv > 0 || rv == ERR_IO_PENDING));
    }
    REQUIRE(rv == ERR_IO_PENDING);
    socket.reset();
    chunk.reset();  // The cancelled uv_write must not read it any more.
    server.StartReading(0);
    REQUIRE(loop.RunUntil([&] { return server.peer_closed(0); }));
    CHECK_FALSE(called);
  }
  REQUIRE(loop.Shutdown() == 0);
}

TEST_CASE("tcp: a read callback may destroy its socket") {
  LiveLoop loop;
  {
    LoopbackTcpServer server(loop.get(), {});
    auto socket = std::make_unique<UvTcpClientSocket>(loop.get(), Loopback(server.port()), nullptr,
                                                      NetLogSource{});
    REQUIRE(ConnectAndWait(loop, *socket) == OK);
    REQUIRE(loop.RunUntil([&] { return server.connection_count() == 1; }));
    char buf[4];
    std::optional<int> result;
    REQUIRE(socket->Read(buf, sizeof(buf), [&](int rv) {
      result = rv;
      socket.reset();
    }) == ERR_IO_PENDING);
    server.Write(0, "0123456789");
    REQUIRE(loop.RunUntil([&] { return result.has_value(); }));
    CHECK(*result == 4);
    CHECK(socket == nullptr);
    REQUIRE(loop.RunUntil([&] { return server.peer_closed(0); }));
  }
  REQUIRE(loop.Shutdown() == 0);
}

TEST_CASE("tcp: Disconnect drops pending callbacks and can be repeated") {
  LiveLoop loop;
  CapturingNetLog log;
  {
    LoopbackTcpServer server(loop.get(), {});
    UvTcpClientSocket socket(loop.get(), Loopback(server.port()), log.net_log(), {});
    REQUIRE(ConnectAndWait(loop, socket) == OK);
    char buf[8];
    bool called = false;
    REQUIRE(socket.Read(buf, sizeof(buf), [&](int) { called = true; }) == ERR_IO_PENDING);
    socket.Disconnect();
    socket.Disconnect();
    CHECK_FALSE(socket.IsConnected());
    CHECK(socket.Read(buf, sizeof(buf), [](int) {}) == ERR_SOCKET_NOT_CONNECTED);
    loop.RunPending();
    CHECK_FALSE(called);
  }
  CHECK(log.Find(NetLogEventType::SOCKET_CLOSED).size() == 1);
  REQUIRE(loop.Shutdown() == 0);
}

TEST_CASE("RunCallback empties the member before running the callback") {
  // Shared by the TCP and TLS sockets: the callback may store a new callback in the same
  // member (a Read started from a read callback) or destroy its owner.
  CompletionCallback member;
  std::vector<int> seen;
  member = [&](int rv) {
    seen.push_back(rv);
    CHECK_FALSE(member);  // Already taken out.
    member = [&](int again) { seen.push_back(again); };
  };
  RunCallback(member, 5);
  CHECK(seen == std::vector<int>{5});
  REQUIRE(member);  // The one stored by the callback survives.
  RunCallback(member, -3);
  CHECK(seen == std::vector<int>{5, -3});
  CHECK_FALSE(member);
  RunCallback(member, 1);  // Empty: nothing runs.
  CHECK(seen.size() == 2);

  auto owned = std::make_unique<CompletionCallback>();
  *owned = [&](int) { owned.reset(); };  // Destroys the member's owner while running.
  RunCallback(*owned, OK);
  CHECK(owned == nullptr);
}

}  // namespace
}  // namespace netstack
