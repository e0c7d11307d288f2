// Scaffolding for the HTTP/2 tests of net/sim: the edges (modelled DNS, sockets, TLS with the
// stack's ALPN list) without a context above them, the client's own Http2Session
// (net/http2) over a modelled connection, a stream delegate that records what it heard and
// when, raw-socket helpers, and nghttp2's HPACK encoder to count header bytes as the server's.
#ifndef TESTS_SIM_SIM_HTTP2_ENV_H_
#define TESTS_SIM_SIM_HTTP2_ENV_H_

#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "net/base/virtual_scheduler.h"
#include "net/http2/http2_session.h"
#include "net/sim/sim_http2_server.h"
#include "net/sim/sim_network.h"
#include "tests/sim/sim_test_env.h"

namespace netstack::test {

// What one stream's delegate heard, and when.
struct Stream : Http2StreamDelegate {
  explicit Stream(Scheduler& s) : scheduler(s) {}
  void OnResponseHeaders(int s, std::vector<std::pair<std::string, std::string>> h) override {
    status = s;
    headers = std::move(h);
    headers_at = scheduler.Now();
  }
  void OnData(std::string_view data) override {
    body_bytes += static_cast<int64_t>(data.size());
    if (body.size() < 4096) body.append(data.substr(0, 4096 - body.size()));
  }
  void OnStreamClosed(int e, bool) override {
    closed = true;
    error = e;
    closed_at = scheduler.Now();
  }
  std::string Header(const std::string& name) const {
    for (const auto& [n, v] : headers) {
      if (n == name) return v;
    }
    return "";
  }

  Scheduler& scheduler;
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  int64_t body_bytes = 0;
  std::string body;  // the first 4 KiB
  bool closed = false;
  int error = 1;
  TimeTicks headers_at{}, closed_at{};
};

struct H2Env {
  explicit H2Env(NetworkParams p, std::vector<std::string> alpn = {"h2", "http/1.1"})
      : network(scheduler, p, &responder) {
    dns = network.CreateDnsTransport();
    factory = network.CreateSocketFactory(kDefaultSslSessionCacheSize, std::move(alpn));
  }

  // A network where only round trips and the server's time count.
  static NetworkParams Plain(const std::string& http2_host = "a.test") {
    NetworkParams params = SimTestEnv::PlainNetwork();  // RTT 100, DNS 10, server 50, TLS 1.3
    std::string error;
    if (!http2_host.empty()) REQUIRE(params.Set(http2_host + ":http2", "on", &error));
    return params;
  }

  IPAddress Resolve(const std::string& host) {
    DnsTransportResult result;
    auto t = dns->StartLookup(host, AddressFamily::kUnspecified,
                              [&](const DnsTransportResult& r) { result = r; });
    REQUIRE(scheduler.RunUntil([&] { return !result.addresses.empty(); }));
    return result.addresses[0];
  }
  std::unique_ptr<StreamSocket> ConnectTcp(const std::string& host, uint16_t port) {
    auto socket = factory->CreateTransportClientSocket(IPEndPoint(Resolve(host), port), host,
                                                       nullptr, NetLogSource());
    int rv = socket->Connect([&](int r) { rv = r; });
    REQUIRE(scheduler.RunUntil([&] { return rv != ERR_IO_PENDING; }));
    REQUIRE(rv == OK);
    return socket;
  }
  std::unique_ptr<StreamSocket> ConnectTls(const std::string& host) {
    auto tls = factory->CreateSslClientSocket(ConnectTcp(host, 443), host, 443, NetLogWithSource());
    int rv = tls->Connect([&](int r) { rv = r; });
    REQUIRE(scheduler.RunUntil([&] { return rv != ERR_IO_PENDING; }));
    REQUIRE(rv == OK);
    return tls;
  }

  // An Http2Session over `socket`, and `paths` requested on it at once.
  void StartSession(std::unique_ptr<StreamSocket> socket, const std::vector<std::string>& paths,
                    const std::string& scheme = "https") {
    session = std::make_unique<Http2Session>(scheduler, std::move(socket), Http2Session::Params(),
                                             [this](int error) { session_error = error; });
    for (const std::string& path : paths) {
      streams.push_back(std::make_unique<Stream>(scheduler));
      Http2RequestHead head;
      head.scheme = scheme;
      head.authority = "a.test";
      head.path = path;
      REQUIRE(session->StartRequest(head, MEDIUM, streams.back().get()) > 0);
    }
  }
  void RunUntilStreamsClosed() {
    REQUIRE(scheduler.RunUntil([&] {
      for (const auto& s : streams) {
        if (!s->closed) return false;
      }
      return true;
    }));
  }

  VirtualScheduler scheduler{SimTestEnv::kEpoch};
  TestResponder responder;
  SimNetwork network;
  std::unique_ptr<DnsTransport> dns;
  std::unique_ptr<ClientSocketFactory> factory;
  std::unique_ptr<Http2Session> session;
  std::vector<std::unique_ptr<Stream>> streams;
  int session_error = 1;
};

// Reads until the end of the stream, or until nothing more will come (the socket is then
// disconnected); `eof`: the stream ended.
std::string ReadToEnd(VirtualScheduler& scheduler, StreamSocket* socket, bool* eof);
// The frame types in `bytes` (whole frames from the start).
std::vector<int> FrameTypes(const std::string& bytes);
// Writes all of `bytes` (modelled sockets take everything at once).
void Write(StreamSocket* socket, const std::string& bytes);
// The HPACK block nghttp2's deflater (the server's, with its default 4096-byte table) makes for
// each of `count` identical responses in turn: the first adds to the table, later ones index it.
// The client's SETTINGS_HEADER_TABLE_SIZE (65536) makes the server's encoder apply
// min(65536, 4096): it announces that size in its first block (a 3-byte size update).
std::vector<size_t> HeaderBlockSizes(const std::vector<std::pair<std::string, std::string>>& fields,
                                     int count);

// The client preface, and an empty SETTINGS frame.
inline const std::string kPreface(SimHttp2Server::kClientPreface);
inline const std::string kEmptySettings("\0\0\0\x04\0\0\0\0\0", 9);

}  // namespace netstack::test

#endif  // TESTS_SIM_SIM_HTTP2_ENV_H_
