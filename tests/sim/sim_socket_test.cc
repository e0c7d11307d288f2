// The edges on their own (no stack above): the DNS transport's and the sockets' async
// contracts, the server's parsing of raw bytes, pipelining, cancellation.
#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "net/base/virtual_scheduler.h"
#include "net/sim/sim_network.h"
#include "tests/sim/sim_test_env.h"

namespace netstack::test {
namespace {

struct Edges {
  explicit Edges(NetworkParams p = Params()) : network(scheduler, p, &responder) {
    dns = network.CreateDnsTransport();
    factory = network.CreateSocketFactory();
  }

  static NetworkParams Params() { return SimTestEnv::PlainNetwork(); }

  IPAddress Resolve(const std::string& host) {
    DnsTransportResult result;
    bool called = false;
    auto transaction =
        dns->StartLookup(host, AddressFamily::kUnspecified, [&](const DnsTransportResult& r) {
          result = r;
          called = true;
        });
    CHECK_FALSE(called);  // never inside StartLookup
    scheduler.RunAll();
    REQUIRE(called);
    REQUIRE(result.error == OK);
    REQUIRE(result.addresses.size() == 1);
    return result.addresses[0];
  }

  // A connected transport socket to `host`.
  std::unique_ptr<StreamSocket> Connect(const std::string& host, uint16_t port = 80) {
    auto socket = factory->CreateTransportClientSocket(IPEndPoint(Resolve(host), port), host,
                                                       nullptr, NetLogSource());
    int result = ERR_IO_PENDING;
    REQUIRE(socket->Connect([&](int rv) { result = rv; }) == ERR_IO_PENDING);
    CHECK(result == ERR_IO_PENDING);
    TimeTicks start = scheduler.Now();
    scheduler.RunAll();
    CHECK(result == OK);
    CHECK(scheduler.Now() - start == Milliseconds(100));
    CHECK(socket->IsConnectedAndIdle());
    CHECK_FALSE(socket->WasEverUsed());
    return socket;
  }

  // Reads everything until the read would wait; `eof` is set at the end of the stream.
  std::string ReadAvailable(StreamSocket* socket, bool* eof = nullptr) {
    std::string out;
    char buf[1000];
    while (true) {
      int rv = socket->Read(buf, sizeof(buf), [](int) { FAIL("unexpected callback"); });
      if (rv == ERR_IO_PENDING) {
        socket->Disconnect();  // drop the pending read; callers reconnect if they need to
        break;
      }
      if (rv == 0 && eof) *eof = true;
      if (rv <= 0) break;
      out.append(buf, static_cast<size_t>(rv));
    }
    return out;
  }

  VirtualScheduler scheduler{SimTestEnv::kEpoch};
  TestResponder responder;
  SimNetwork network;
  std::unique_ptr<DnsTransport> dns;
  std::unique_ptr<ClientSocketFactory> factory;
};

// The connect time of a socket to `address` opened for `host` ("" when unknown).
TimeDelta ConnectTime(Edges& edges, const IPAddress& address, const std::string& host) {
  auto socket =
      edges.factory->CreateTransportClientSocket(IPEndPoint(address, 80), host, nullptr, {});
  int result = ERR_IO_PENDING;
  REQUIRE(socket->Connect([&](int rv) { result = rv; }) == ERR_IO_PENDING);
  TimeTicks start = edges.scheduler.Now();
  edges.scheduler.RunAll();
  REQUIRE(result == OK);
  return edges.scheduler.Now() - start;
}

TEST_CASE("sim socket: a connect DNS did not answer reaches the host its URL host names",
          "[sim][socket][literal]") {
  NetworkParams p = Edges::Params();
  std::string error;
  REQUIRE(p.Set("localhost:rtt_ms", "10", &error));
  REQUIRE(p.Set("127.0.0.1:rtt_ms", "20", &error));
  REQUIRE(p.Set("192.0.2.7:rtt_ms", "30", &error));
  REQUIRE(p.Set("other.test:rtt_ms", "40", &error));
  Edges edges(p);
  const IPAddress loopback = IPAddress::IPv4(127, 0, 0, 1);
  CHECK(ConnectTime(edges, loopback, "localhost") == Milliseconds(10));
  CHECK(ConnectTime(edges, loopback, "127.0.0.1") == Milliseconds(20));
  // Without a name, the address names the host: loopback is localhost.
  CHECK(ConnectTime(edges, loopback, "") == Milliseconds(10));
  CHECK(ConnectTime(edges, *IPAddress::Parse("::1"), "") == Milliseconds(10));
  CHECK(ConnectTime(edges, *IPAddress::Parse("192.0.2.7"), "") == Milliseconds(30));
  // A name DNS never answered (a resolver override's address) is a host of that name.
  CHECK(ConnectTime(edges, *IPAddress::Parse("192.0.2.9"), "other.test") == Milliseconds(40));
  // None of them is an address DNS handed out.
  CHECK(edges.network.HostForAddress(loopback).empty());
  CHECK(edges.network.stats().dns_lookups == 0);
}

TEST_CASE("sim dns: addresses in first-seen order, the host's TTL, IPv4 only", "[sim][dns]") {
  NetworkParams p = Edges::Params();
  std::string error;
  REQUIRE(p.Set("b.test:dns_ttl_s", "7", &error));
  Edges edges(p);
  CHECK(edges.Resolve("a.test").ToString() == "10.0.0.1");
  CHECK(edges.Resolve("B.TEST").ToString() == "10.0.0.2");
  CHECK(edges.Resolve("a.test").ToString() == "10.0.0.1");
  CHECK(edges.network.HostForAddress(*IPAddress::Parse("10.0.0.2")) == "b.test");

  DnsTransportResult result;
  auto t = edges.dns->StartLookup("b.test", AddressFamily::kIPv4,
                                  [&](const DnsTransportResult& r) { result = r; });
  edges.scheduler.RunAll();
  CHECK(result.ttl == Seconds(7));
  auto v6 = edges.dns->StartLookup("a.test", AddressFamily::kIPv6,
                                   [&](const DnsTransportResult& r) { result = r; });
  edges.scheduler.RunAll();
  CHECK(result.error == ERR_NAME_NOT_RESOLVED);
  CHECK_FALSE(result.detail.empty());
  CHECK(edges.network.stats().dns_lookups == 5);
}

TEST_CASE("sim dns: destroying a transaction or the transport cancels the answer", "[sim][dns]") {
  Edges edges;
  bool called = false;
  auto t1 = edges.dns->StartLookup("a.test", AddressFamily::kUnspecified,
                                   [&](const DnsTransportResult&) { called = true; });
  t1.reset();
  auto t2 = edges.dns->StartLookup("b.test", AddressFamily::kUnspecified,
                                   [&](const DnsTransportResult&) { called = true; });
  edges.dns.reset();
  edges.scheduler.RunAll();
  CHECK_FALSE(called);
  t2.reset();  // inert, safe after its transport
}

TEST_CASE("sim socket: raw request bytes, a response read as it arrives", "[sim][socket]") {
  Edges edges;
  auto socket = edges.Connect("a.test");
  const std::string request = "GET /size/10 HTTP/1.1\r\nHost: A.Test:80\r\n\r\n";
  int read_result = ERR_IO_PENDING;
  char buf[4096];
  REQUIRE(socket->Read(buf, sizeof(buf), [&](int rv) { read_result = rv; }) == ERR_IO_PENDING);
  CHECK(socket->Write(request.data(), static_cast<int>(request.size()), [](int) {}) ==
        static_cast<int>(request.size()));
  CHECK(read_result == ERR_IO_PENDING);  // nothing inside the calls
  TimeTicks sent = edges.scheduler.Now();
  edges.scheduler.RunAll();
  const std::string expected = TestResponder::Head(10) + std::string(10, 'x');
  REQUIRE(read_result == static_cast<int>(expected.size()));
  CHECK(std::string(buf, static_cast<size_t>(read_result)) == expected);
  CHECK(edges.scheduler.Now() - sent == Milliseconds(150));
  CHECK(socket->WasEverUsed());
  CHECK(socket->IsConnectedAndIdle());
  REQUIRE(edges.responder.requests.size() == 1);
  CHECK(edges.responder.requests[0].host == "a.test");  // lowercase, default port dropped
}

TEST_CASE("sim socket: pipelined requests are answered in order", "[sim][socket]") {
  Edges edges;
  auto socket = edges.Connect("a.test");
  const std::string two =
      "GET /size/3 HTTP/1.1\r\nHost: a.test\r\n\r\nGET /size/4 HTTP/1.1\r\nHost: a.test\r\n\r\n";
  socket->Write(two.data(), static_cast<int>(two.size()), [](int) {});
  edges.scheduler.RunAll();
  CHECK_FALSE(socket->IsConnectedAndIdle());  // unread data
  std::string got = edges.ReadAvailable(socket.get());
  CHECK(got == TestResponder::Head(3) + "xxx" + TestResponder::Head(4) + "xxxx");
  REQUIRE(edges.responder.requests.size() == 2);
  CHECK(edges.responder.requests[0].target == "/size/3");
  CHECK(edges.responder.requests[1].target == "/size/4");
}

TEST_CASE("sim socket: a response leaves no earlier than its server time, even pipelined",
          "[sim][socket]") {
  // Both requests arrive together (50 ms); the first response leaves 100 ms later, the second
  // 110 ms later: it joins the first one's round (the window has room) when it is ready, 10 ms
  // after the first, not with it.
  Edges edges;  // RTT 100 ms
  SimResponse first, second;
  first.head = TestResponder::Head(3);
  first.body_bytes = 3;
  first.server_time = Milliseconds(100);
  second.head = TestResponder::Head(4);
  second.body_bytes = 4;
  second.server_time = Milliseconds(110);
  edges.responder.scripted["/first"] = first;
  edges.responder.scripted["/second"] = second;
  auto socket = edges.Connect("a.test");
  const std::string two =
      "GET /first HTTP/1.1\r\nHost: a.test\r\n\r\nGET /second HTTP/1.1\r\nHost: a.test\r\n\r\n";
  const TimeTicks sent = edges.scheduler.Now();
  socket->Write(two.data(), static_cast<int>(two.size()), [](int) {});
  std::vector<std::pair<TimeDelta, int>> reads;
  char buf[1000];
  std::function<void(int)> on_read = [&](int rv) {
    reads.emplace_back(edges.scheduler.Now() - sent, rv);
    if (rv > 0) {
      int again = socket->Read(buf, sizeof(buf), on_read);
      if (again != ERR_IO_PENDING) reads.emplace_back(edges.scheduler.Now() - sent, again);
    }
  };
  REQUIRE(socket->Read(buf, sizeof(buf), on_read) == ERR_IO_PENDING);
  edges.scheduler.RunAll();
  REQUIRE(reads.size() == 2);
  CHECK(reads[0].first == Milliseconds(50 + 100 + 50));
  CHECK(reads[0].second == static_cast<int>(TestResponder::Head(3).size()) + 3);
  CHECK(reads[1].first == Milliseconds(50 + 110 + 50));
  CHECK(reads[1].second == static_cast<int>(TestResponder::Head(4).size()) + 4);
  socket->Disconnect();
}

TEST_CASE("sim socket: garbage makes the server close: the read ends with 0",
          "[sim][socket][errors]") {
  Edges edges;
  auto socket = edges.Connect("a.test");
  const std::string garbage = "\x01\x02 not http\r\n\r\n";
  socket->Write(garbage.data(), static_cast<int>(garbage.size()), [](int) {});
  int read_result = ERR_IO_PENDING;
  char buf[100];
  REQUIRE(socket->Read(buf, sizeof(buf), [&](int rv) { read_result = rv; }) == ERR_IO_PENDING);
  TimeTicks sent = edges.scheduler.Now();
  edges.scheduler.RunAll();
  CHECK(read_result == 0);
  CHECK(edges.scheduler.Now() - sent == Milliseconds(100));
  CHECK_FALSE(socket->IsConnected());
  CHECK(edges.responder.requests.empty());
}

TEST_CASE("sim socket: an oversized request head closes the connection", "[sim][socket]") {
  Edges edges;
  auto socket = edges.Connect("a.test");
  std::string request = "GET /" + std::string(300 * 1024, 'a') + " HTTP/1.1\r\n\r\n";
  socket->Write(request.data(), static_cast<int>(request.size()), [](int) {});
  edges.scheduler.RunAll();
  bool eof = false;
  CHECK(edges.ReadAvailable(socket.get(), &eof).empty());
  CHECK(eof);
  CHECK(edges.responder.requests.empty());
}

// Writes `request` on a fresh connection to a.test, runs everything and returns what came back;
// *eof says whether the server closed the connection after it.
std::string Exchange(Edges& edges, const std::string& request, bool* eof) {
  auto socket = edges.Connect("a.test");
  socket->Write(request.data(), static_cast<int>(request.size()), [](int) {});
  edges.scheduler.RunAll();
  return edges.ReadAvailable(socket.get(), eof);
}

TEST_CASE("sim socket: the server closes after a response by the client's keep-alive rule",
          "[sim][socket][server]") {
  struct Case {
    const char* name;
    std::string request;
    std::string head;
    int64_t body;
    bool close;
  };
  const std::string get = "GET /r HTTP/1.1\r\nHost: a.test\r\n\r\n";
  const std::string framed = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n";
  const Case cases[] = {
      {"HTTP/1.1, framed", get, framed, 3, false},
      {"Connection: close", get,
       "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 3\r\n\r\n", 3, true},
      {"a close token among others", get,
       "HTTP/1.1 200 OK\r\nConnection: x-a, Close\r\nContent-Length: 3\r\n\r\n", 3, true},
      {"HTTP/1.0 without keep-alive", get, "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\n", 3, true},
      {"HTTP/1.0 with keep-alive", get,
       "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 3\r\n\r\n", 3, false},
      {"a body delimited by the close", get, "HTTP/1.1 200 OK\r\n\r\n", 3, true},
      {"204 without framing", get, "HTTP/1.1 204 No Content\r\n\r\n", 0, false},
      {"304 without framing", get, "HTTP/1.1 304 Not Modified\r\n\r\n", 0, false},
      {"HEAD, no framing", "HEAD /r HTTP/1.1\r\nHost: a.test\r\n\r\n", "HTTP/1.1 200 OK\r\n\r\n", 0,
       false},
      {"chunked", get, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 0, false},
      {"chunked and Content-Length", get,
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", 0, true},
      {"101", get, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: x\r\n\r\n",
       0, true},
      {"a head that does not parse", get, "HTTP/1.1 2x0 OK\r\n\r\n", 0, true},
      {"the request said Connection: close",
       "GET /r HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n", framed, 3, true},
      {"an HTTP/1.0 request", "GET /r HTTP/1.0\r\n\r\n", framed, 3, true},
      {"an HTTP/1.0 request with keep-alive", "GET /r HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
       framed, 3, false},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    Edges edges;
    edges.responder.scripted["/r"] = SimResponse{c.head, c.body, std::nullopt};
    bool eof = false;
    CHECK(Exchange(edges, c.request, &eof) == c.head + std::string(c.body, 'x'));
    CHECK(eof == c.close);
    CHECK(edges.responder.requests.size() == 1);
  }
}

TEST_CASE(
    "sim socket: requests the reader refuses or the model does not speak close the "
    "connection unanswered",
    "[sim][socket][errors]") {
  const char* cases[] = {
      "GET / HTTP/1.1\r\n\r\n",                                  // HTTP/1.1 without Host
      "GET / HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\n\r\n",  // two Hosts
      "GET / HTTP/2.0\r\nHost: a.test\r\n\r\n",                  // not HTTP/1.x
      "GET / HTTP/1.1\r\nHost: a.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
      "CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\n",
  };
  for (const char* request : cases) {
    INFO(request);
    Edges edges;
    bool eof = false;
    CHECK(Exchange(edges, request, &eof).empty());
    CHECK(eof);
    CHECK(edges.responder.requests.empty());
  }
}

TEST_CASE("sim socket: empty lines between pipelined requests, at most 64 waiting",
          "[sim][socket][server]") {
  Edges edges;
  const std::string one = "GET /size/1 HTTP/1.1\r\nHost: a.test\r\n\r\n";
  bool eof = false;
  CHECK(Exchange(edges, one + "\r\n\r\n" + one, &eof) ==
        TestResponder::Head(1) + "x" + TestResponder::Head(1) + "x");
  CHECK_FALSE(eof);
  // 64 pipelined requests are answered; a 65th in the same bytes is one too many: the server
  // answers the 64 and closes.
  std::string many;
  for (int i = 0; i < 65; ++i) many += one;
  Edges more;
  std::string got = Exchange(more, many, &eof);
  CHECK(more.responder.requests.size() == 64);
  CHECK(got.size() == 64 * (TestResponder::Head(1).size() + 1));
  CHECK(eof);
}

TEST_CASE("sim socket: destroying or disconnecting cancels pending callbacks", "[sim][socket]") {
  Edges edges;
  IPAddress address = edges.Resolve("a.test");
  bool called = false;
  {
    auto connecting = edges.factory->CreateTransportClientSocket(IPEndPoint(address, 80), "",
                                                                 nullptr, NetLogSource());
    REQUIRE(connecting->Connect([&](int) { called = true; }) == ERR_IO_PENDING);
  }
  auto socket = edges.Connect("a.test");
  const std::string request = "GET /size/10 HTTP/1.1\r\nHost: a.test\r\n\r\n";
  char buf[100];
  REQUIRE(socket->Read(buf, sizeof(buf), [&](int) { called = true; }) == ERR_IO_PENDING);
  socket->Write(request.data(), static_cast<int>(request.size()), [](int) {});
  socket->Disconnect();
  CHECK(socket->Read(buf, sizeof(buf), [](int) {}) == ERR_SOCKET_NOT_CONNECTED);
  auto other = edges.Connect("a.test");
  REQUIRE(other->Read(buf, sizeof(buf), [&](int) { called = true; }) == ERR_IO_PENDING);
  other->Write(request.data(), static_cast<int>(request.size()), [](int) {});
  other.reset();
  edges.scheduler.RunAll();
  CHECK_FALSE(called);
}

TEST_CASE("sim socket: TLS over a sim socket: full, then resumed in no round trip",
          "[sim][socket][tls]") {
  Edges edges;
  auto transport = edges.Connect("a.test", 443);
  auto tls =
      edges.factory->CreateSslClientSocket(std::move(transport), "a.test", 443, NetLogWithSource());
  int result = ERR_IO_PENDING;
  REQUIRE(tls->Connect([&](int rv) { result = rv; }) == ERR_IO_PENDING);
  CHECK(tls->TlsVersion().empty());
  edges.scheduler.RunAll();
  CHECK(result == OK);
  CHECK(tls->TlsVersion() == "TLSv1.3");
  CHECK_FALSE(tls->WasSessionResumed());
  const std::string request = "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n";
  tls->Write(request.data(), static_cast<int>(request.size()), [](int) {});
  edges.scheduler.RunAll();
  REQUIRE(edges.responder.requests.size() == 1);
  CHECK(edges.responder.requests[0].scheme == "https");

  // Resumed TLS 1.3: no round trip, so the handshake completes inside Connect.
  auto again = edges.factory->CreateSslClientSocket(edges.Connect("a.test", 443), "a.test", 443,
                                                    NetLogWithSource());
  CHECK(again->Connect([](int) { FAIL("no callback for a synchronous result"); }) == OK);
  CHECK(again->WasSessionResumed());
  CHECK(edges.network.stats().tls_resumed == 1);
}

}  // namespace
}  // namespace netstack::test

namespace netstack::test {
namespace {

TEST_CASE("sim socket: TLS 1.3 tickets arrive a round trip after the handshake, if still open",
          "[sim][socket][tls]") {
  Edges edges;  // RTT 100 ms, TLS 1.3
  auto start_tls = [&](std::unique_ptr<StreamSocket> transport, int* result) {
    auto tls = edges.factory->CreateSslClientSocket(std::move(transport), "a.test", 443,
                                                    NetLogWithSource());
    *result = tls->Connect([result](int rv) { *result = rv; });
    return tls;
  };
  auto first_transport = edges.Connect("a.test", 443);
  auto second_transport = edges.Connect("a.test", 443);
  int first_result = ERR_IO_PENDING;
  auto first = start_tls(std::move(first_transport), &first_result);
  edges.scheduler.AdvanceBy(Milliseconds(100));
  REQUIRE(first_result == OK);
  CHECK_FALSE(first->WasSessionResumed());

  // Half a round trip later the ticket is still on its way: a full handshake.
  edges.scheduler.AdvanceBy(Milliseconds(50));
  int second_result = ERR_IO_PENDING;
  auto second = start_tls(std::move(second_transport), &second_result);
  CHECK(second_result == ERR_IO_PENDING);
  edges.scheduler.AdvanceBy(Milliseconds(50));  // The first socket's ticket lands.
  edges.scheduler.AdvanceBy(Milliseconds(50));
  REQUIRE(second_result == OK);
  CHECK_FALSE(second->WasSessionResumed());

  // The second socket closes before its tickets arrive: it brings none. The first one's two
  // are there: the next two connections resume (at once: 0-RTT), taking one each, and a third
  // started then finds none.
  second.reset();
  std::vector<std::unique_ptr<StreamSocket>> transports, later;
  for (int i = 0; i < 3; ++i) transports.push_back(edges.Connect("a.test", 443));
  std::vector<int> results(3, ERR_IO_PENDING);
  for (int i = 0; i < 3; ++i) later.push_back(start_tls(std::move(transports[i]), &results[i]));
  CHECK(results[0] == OK);
  CHECK(later[0]->WasSessionResumed());
  CHECK(results[1] == OK);
  CHECK(later[1]->WasSessionResumed());
  CHECK(results[2] == ERR_IO_PENDING);
  edges.scheduler.AdvanceBy(Milliseconds(100));
  REQUIRE(results[2] == OK);
  CHECK_FALSE(later[2]->WasSessionResumed());
  CHECK(edges.network.stats().tls_handshakes == 3);
  CHECK(edges.network.stats().tls_resumed == 2);
}

}  // namespace
}  // namespace netstack::test
