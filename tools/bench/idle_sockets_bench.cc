// idle_sockets_bench: resident memory held by N idle keep-alive sockets (tools/bench/idle-sockets
// runs it and turns the figures into KiB per 1,000 sockets).
//
// One run opens --sockets N connections to a local HTTP/1.1 server (nginx) on the --ports given,
// does one GET on each (so every socket has carried a request, as a keep-alive socket has), lets
// every one go idle, and prints one JSON line: the process's resident set before the first
// connect and with the N sockets idle (VmRSS of /proc/self/status, KiB), and how many sockets
// ended idle. Two clients (--client):
//
// - netstack: the live ClientSocketPool (UvClientSocketFactory, UvTcpClientSocket). Each socket
//   is requested through a ClientSocketHandle (all N at once, so the pool connects N sockets),
//   used for the GET, and released: the pool keeps it idle. The pool's limits are raised
//   explicitly (Params::max_sockets = N, max_sockets_per_group = ceil(N / ports)) and the idle
//   timeouts set to an hour so nothing closes during the run.
// - floor: a plain libuv client: one malloc'd uv_tcp_t per connection, the same GET, reads into
//   one shared buffer, and reading left on while idle (as netstack does, to notice a FIN). What a
//   minimal event-loop client needs per idle connection.
//
// N = 0 gives the baseline of the same client (the script subtracts it). A measurement program,
// not a test; exit 1 when a connection fails (the JSON says which and why), 2 on bad usage.
#include <uv.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "net/base/uv_scheduler.h"
#include "net/dns/ares_dns_transport.h"
#include "net/dns/host_resolver_manager.h"
#include "net/socket/client_socket_handle.h"
#include "net/socket/client_socket_pool.h"
#include "net/socket/uv_client_socket_factory.h"

namespace netstack {
namespace {

// VmRSS of this process in KiB, or -1 when /proc cannot be read.
long ResidentKib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return -1;
}

// Where one GET's response ends: after the head and Content-Length body bytes. Returns true when
// `received` holds a complete response; sets `bad` when the head has no Content-Length.
struct ResponseTracker {
  std::string head;  // Bytes up to the end of the head (kept only until it is complete).
  long long body_left = -1;
  bool bad = false;

  bool Consume(const char* data, size_t len) {
    if (body_left < 0) {
      head.append(data, len);
      size_t end = head.find("\r\n\r\n");
      if (end == std::string::npos) return false;
      size_t cl = head.find("Content-Length:");
      if (cl == std::string::npos || cl > end) {
        bad = true;
        return true;
      }
      body_left = std::strtoll(head.c_str() + cl + 15, nullptr, 10);
      body_left -= static_cast<long long>(head.size() - (end + 4));
      std::string().swap(head);
    } else {
      body_left -= static_cast<long long>(len);
    }
    return body_left <= 0;
  }
};

std::string RequestText(const std::string& host, uint16_t port, const std::string& path) {
  return "GET " + path + " HTTP/1.1\r\nHost: " + host + ":" + std::to_string(port) +
         "\r\nConnection: keep-alive\r\n\r\n";
}

// Shared by every connection of a client: reads complete one at a time on the loop, and each
// callback consumes its bytes before returning.
char g_read_buffer[16 * 1024];

struct RunResult {
  int idle = 0;
  int failed = 0;
  std::string first_error;
};

// --- netstack: the live pool --------------------------------------------------------------------

class PoolClient {
 public:
  PoolClient(uv_loop_t* loop, int sockets, const std::vector<uint16_t>& ports,
             const std::string& host, const std::string& path)
      : loop_(loop), sockets_(sockets), ports_(ports), host_(host), path_(path) {}

  // Builds the pool (its memory is part of the baseline), then opens and idles the sockets.
  bool Setup(std::string* error) {
    scheduler_ = std::make_unique<UvScheduler>(loop_);
    AresDnsTransport::Options dns;
    auto transport = AresDnsTransport::Create(loop_, *scheduler_, dns, error);
    if (!transport) return false;
    resolver_ = std::make_unique<HostResolverManager>(*scheduler_, std::move(transport), nullptr);
    factory_ = std::make_unique<UvClientSocketFactory>(loop_, nullptr);
    ClientSocketPool::Params params;
    // Raised explicitly: the defaults (6 per group, 256 in all) would queue the requests.
    int groups = static_cast<int>(ports_.size());
    params.max_sockets = std::max(sockets_, 1);
    params.max_sockets_per_group = std::max((sockets_ + groups - 1) / groups, 1);
    params.max_pending_requests = static_cast<size_t>(sockets_) + 1;
    params.unused_idle_socket_timeout = Seconds(3600);
    params.used_idle_socket_timeout = Seconds(3600);
    params.enable_backup_jobs = false;
    pool_ = std::make_unique<ClientSocketPool>(params, *scheduler_, resolver_.get(), factory_.get(),
                                               nullptr);
    return true;
  }

  RunResult Run() {
    for (int i = 0; i < sockets_; ++i) conns_.push_back(std::make_unique<Conn>());
    for (int i = 0; i < sockets_; ++i) {
      Conn& c = *conns_[static_cast<size_t>(i)];
      uint16_t port = ports_[static_cast<size_t>(i) % ports_.size()];
      c.request = RequestText(host_, port, path_);
      int rv = c.handle.Init(
          SchemeHostPort{"http", host_, port}, MEDIUM,
          [this, i](int result) { OnConnected(i, result); }, pool_.get(), NetLogWithSource());
      if (rv != ERR_IO_PENDING) OnConnected(i, rv);
    }
    uv_run(loop_, UV_RUN_DEFAULT);  // Stopped by Finish() once every socket is done.
    return result_;
  }

  ClientSocketPool* pool() { return pool_.get(); }

  void Shutdown() {
    conns_.clear();
    pool_.reset();
    factory_.reset();
    resolver_.reset();
    scheduler_.reset();
  }

 private:
  struct Conn {
    ClientSocketHandle handle;
    std::string request;
    size_t written = 0;
    ResponseTracker response;
  };

  void OnConnected(int i, int result) {
    if (result != OK) return Fail(i, "connect: " + ErrorToString(result));
    DoWrite(i);
  }

  void DoWrite(int i) {
    Conn& c = *conns_[static_cast<size_t>(i)];
    while (c.written < c.request.size()) {
      int rv = c.handle.socket()->Write(c.request.data() + c.written,
                                        static_cast<int>(c.request.size() - c.written),
                                        [this, i](int r) { OnWritten(i, r); });
      if (rv == ERR_IO_PENDING) return;
      if (rv < 0) return Fail(i, "write: " + ErrorToString(rv));
      c.written += static_cast<size_t>(rv);
    }
    DoRead(i);
  }

  void OnWritten(int i, int result) {
    if (result < 0) return Fail(i, "write: " + ErrorToString(result));
    conns_[static_cast<size_t>(i)]->written += static_cast<size_t>(result);
    DoWrite(i);
  }

  void DoRead(int i) {
    for (;;) {
      int rv = conns_[static_cast<size_t>(i)]->handle.socket()->Read(
          g_read_buffer, sizeof(g_read_buffer), [this, i](int r) { OnRead(i, r); });
      if (rv == ERR_IO_PENDING) return;
      if (!HandleRead(i, rv)) return;
    }
  }

  void OnRead(int i, int result) {
    if (HandleRead(i, result)) DoRead(i);
  }

  // Returns true to read more.
  bool HandleRead(int i, int result) {
    Conn& c = *conns_[static_cast<size_t>(i)];
    if (result <= 0) {
      Fail(i,
           "read: " + (result == 0 ? std::string("closed by the server") : ErrorToString(result)));
      return false;
    }
    if (!c.response.Consume(g_read_buffer, static_cast<size_t>(result))) return true;
    if (c.response.bad) {
      Fail(i, "the response has no Content-Length");
      return false;
    }
    Done();
    return false;
  }

  void Fail(int i, const std::string& what) {
    if (result_.first_error.empty())
      result_.first_error = "socket " + std::to_string(i) + ": " + what;
    ++result_.failed;
    conns_[static_cast<size_t>(i)]->handle.ResetAndCloseSocket();
    Done();
  }

  void Done() {
    if (++done_ < sockets_) return;
    // Every GET is answered: release every socket (the pool keeps the good ones idle).
    for (auto& c : conns_) c->handle.Reset();
    result_.idle = pool_->IdleSocketCount();
    uv_stop(loop_);
  }

  uv_loop_t* const loop_;
  const int sockets_;
  const std::vector<uint16_t> ports_;
  const std::string host_;
  const std::string path_;
  std::unique_ptr<UvScheduler> scheduler_;
  std::unique_ptr<HostResolverManager> resolver_;
  std::unique_ptr<UvClientSocketFactory> factory_;
  std::unique_ptr<ClientSocketPool> pool_;
  std::vector<std::unique_ptr<Conn>> conns_;
  int done_ = 0;
  RunResult result_;
};

// --- floor: plain libuv -------------------------------------------------------------------------

class FloorClient {
 public:
  FloorClient(uv_loop_t* loop, int sockets, const std::vector<uint16_t>& ports,
              const std::string& host, const std::string& path)
      : loop_(loop), sockets_(sockets), ports_(ports), host_(host), path_(path) {}

  RunResult Run() {
    if (sockets_ == 0) return result_;
    for (int i = 0; i < sockets_; ++i) {
      auto* c = new Conn;  // Freed in its close callback (Shutdown).
      c->owner = this;
      c->request = RequestText(host_, ports_[static_cast<size_t>(i) % ports_.size()], path_);
      c->tcp.data = c;
      c->connect.data = c;
      c->write.data = c;
      conns_.push_back(c);
      uv_tcp_init(loop_, &c->tcp);
      sockaddr_in addr;
      uv_ip4_addr(host_.c_str(), ports_[static_cast<size_t>(i) % ports_.size()], &addr);
      int rv = uv_tcp_connect(&c->connect, &c->tcp, reinterpret_cast<sockaddr*>(&addr),
                              &FloorClient::OnConnect);
      if (rv < 0) Fail(c, std::string("connect: ") + uv_strerror(rv));
    }
    uv_run(loop_, UV_RUN_DEFAULT);
    return result_;
  }

  void Shutdown() {
    for (Conn* c : conns_) {
      c->owner = nullptr;
      if (!uv_is_closing(reinterpret_cast<uv_handle_t*>(&c->tcp)))
        uv_close(reinterpret_cast<uv_handle_t*>(&c->tcp),
                 [](uv_handle_t* h) { delete static_cast<Conn*>(h->data); });
    }
    conns_.clear();
    uv_run(loop_, UV_RUN_DEFAULT);
  }

 private:
  struct Conn {
    uv_tcp_t tcp;
    uv_connect_t connect;
    uv_write_t write;
    FloorClient* owner = nullptr;
    std::string request;
    ResponseTracker response;
    bool done = false;
  };

  static void OnConnect(uv_connect_t* req, int status) {
    auto* c = static_cast<Conn*>(req->data);
    if (!c->owner) return;
    if (status < 0) return c->owner->Fail(c, std::string("connect: ") + uv_strerror(status));
    uv_tcp_nodelay(&c->tcp, 1);
    uv_buf_t buf = uv_buf_init(c->request.data(), static_cast<unsigned>(c->request.size()));
    int rv = uv_write(&c->write, reinterpret_cast<uv_stream_t*>(&c->tcp), &buf, 1,
                      [](uv_write_t* w, int st) {
                        auto* conn = static_cast<Conn*>(w->data);
                        if (conn->owner && st < 0)
                          conn->owner->Fail(conn, std::string("write: ") + uv_strerror(st));
                      });
    if (rv < 0) return c->owner->Fail(c, std::string("write: ") + uv_strerror(rv));
    uv_read_start(
        reinterpret_cast<uv_stream_t*>(&c->tcp),
        [](uv_handle_t*, size_t, uv_buf_t* b) {
          *b = uv_buf_init(g_read_buffer, sizeof(g_read_buffer));
        },
        &FloorClient::OnRead);
  }

  static void OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t*) {
    auto* c = static_cast<Conn*>(stream->data);
    if (!c->owner || nread == 0) return;
    if (nread < 0) return c->owner->Fail(c, std::string("read: ") + uv_strerror(nread));
    if (c->done) return;  // Unexpected bytes on an idle connection: ignored here.
    if (!c->response.Consume(g_read_buffer, static_cast<size_t>(nread))) return;
    if (c->response.bad) return c->owner->Fail(c, "the response has no Content-Length");
    c->done = true;
    ++c->owner->result_.idle;
    c->owner->Done();
  }

  void Fail(Conn* c, const std::string& what) {
    if (c->done) --result_.idle;
    c->done = true;
    if (result_.first_error.empty()) result_.first_error = what;
    ++result_.failed;
    uv_read_stop(reinterpret_cast<uv_stream_t*>(&c->tcp));
    Done();
  }

  void Done() {
    if (++done_ >= sockets_) uv_stop(loop_);
  }

  uv_loop_t* const loop_;
  const int sockets_;
  const std::vector<uint16_t> ports_;
  const std::string host_;
  const std::string path_;
  std::vector<Conn*> conns_;
  int done_ = 0;
  RunResult result_;
};

int Main(int argc, char** argv) {
  CLI::App app{"Resident memory of N idle keep-alive sockets (one JSON line on stdout)."};
  int sockets = 1000;
  std::string client = "netstack";
  std::vector<uint16_t> ports;
  std::string host = "127.0.0.1";
  std::string path = "/small.txt";
  app.add_option("--sockets", sockets, "idle connections to hold (0: the baseline)")
      ->check(CLI::Range(0, 100000));
  app.add_option("--client", client, "netstack (the live pool) or floor (plain libuv)")
      ->check(CLI::IsMember({"netstack", "floor"}));
  app.add_option("--ports", ports, "the server's ports on --host (sockets spread over them)")
      ->required()
      ->delimiter(',');
  app.add_option("--host", host, "an IPv4 literal");
  app.add_option("--path", path, "the resource each connection GETs once");
  CLI11_PARSE(app, argc, argv);
  if (ports.empty() || path.empty() || path[0] != '/') {
    std::fprintf(stderr, "idle_sockets_bench: --ports needs a port and --path must start with /\n");
    return 2;
  }

  uv_loop_t loop;
  uv_loop_init(&loop);
  nlohmann::json out;
  out["client"] = client;
  out["sockets"] = sockets;
  RunResult result;
  long before = 0;
  long after = 0;
  if (client == "netstack") {
    PoolClient pool_client(&loop, sockets, ports, host, path);
    std::string error;
    if (!pool_client.Setup(&error)) {
      std::fprintf(stderr, "idle_sockets_bench: %s\n", error.c_str());
      return 1;
    }
    before = ResidentKib();
    result = sockets > 0 ? pool_client.Run() : RunResult{};
    after = ResidentKib();
    pool_client.Shutdown();
    uv_run(&loop, UV_RUN_DEFAULT);  // Close callbacks free the handles.
  } else {
    FloorClient floor_client(&loop, sockets, ports, host, path);
    before = ResidentKib();
    result = floor_client.Run();
    after = ResidentKib();
    floor_client.Shutdown();
  }
  uv_loop_close(&loop);
  out["rss_before_kib"] = before;
  out["rss_kib"] = after;
  out["idle"] = result.idle;
  out["failed"] = result.failed;
  if (!result.first_error.empty()) out["error"] = result.first_error;
  std::printf("%s\n", out.dump().c_str());
  return result.failed > 0 ? 1 : 0;
}

}  // namespace
}  // namespace netstack

int main(int argc, char** argv) { return netstack::Main(argc, argv); }
