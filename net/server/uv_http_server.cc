#include "net/server/uv_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <exception>
#include <unordered_set>
#include <utility>
#include <vector>

#include "net/server/uv_http_connection.h"

namespace netstack {

namespace {

constexpr size_t kReadBufferSize = 64 * 1024;
constexpr int kListenBacklog = 128;

// `address` as it may appear in a one-line message: control characters replaced, length capped.
std::string Printable(const std::string& address) {
  std::string out = address.substr(0, 100);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return out;
}

}  // namespace

// The listener and what the connections share: the handler, the read buffer, the limits
// across connections (their number, the bytes queued on all of them) and the choice of the
// connection to evict. Each connection (uv_http_connection.h) handles its own socket, requests
// and answers, and reaches this state only through the Delegate methods while it is open.
class UvHttpServer::Impl final : public UvHttpConnection::Delegate {
 public:
  Impl(uv_loop_t* loop, Handler handler, Limits limits)
      : loop_(loop),
        handler_(std::move(handler)),
        limits_(limits),
        read_buffer_(new char[kReadBufferSize]) {}
  ~Impl() { Close(); }

  int Listen(const std::string& address, int port, std::string* error, int* bound_port);
  void Close();
  size_t connection_count() const { return connections_.size(); }
  uint64_t requests_served() const { return requests_served_; }

  // UvHttpConnection::Delegate:
  void HandleRequest(const HttpServerRequest& request, Respond respond) override {
    handler_(request, std::move(respond));
  }
  uv_buf_t ReadBuffer() override { return uv_buf_init(read_buffer_.get(), kReadBufferSize); }
  void OnRequestAnswered() override { ++requests_served_; }
  uint64_t NextProgressStamp() override { return ++progress_counter_; }
  bool HasRoomToQueueWrite(size_t bytes) const override {
    const size_t max = limits_.max_total_queued_write_bytes;
    return bytes <= max - std::min(total_queued_write_bytes_, max);
  }
  void AddQueuedWriteBytes(size_t bytes) override { total_queued_write_bytes_ += bytes; }
  void RemoveQueuedWriteBytes(size_t bytes) override { total_queued_write_bytes_ -= bytes; }
  void OnConnectionClosing(UvHttpConnection* connection) override {
    connections_.erase(connection);
  }

 private:
  static void OnConnection(uv_stream_t* listener, int status);

  uv_loop_t* const loop_;
  const Handler handler_;
  const Limits limits_;
  // Shared by every connection: a read is consumed (copied) inside its read callback.
  std::unique_ptr<char[]> read_buffer_;
  uv_tcp_t* listener_ = nullptr;  // freed in its close callback
  std::unordered_set<UvHttpConnection*> connections_;
  uint64_t requests_served_ = 0;
  // Bytes queued for writing on all open connections (a closing one's are no longer counted).
  size_t total_queued_write_bytes_ = 0;
  // Orders the connections' progress (accepted, a request answered) without a clock, for
  // choosing which connection to evict at the connection bound.
  uint64_t progress_counter_ = 0;
};

int UvHttpServer::Impl::Listen(const std::string& address, int port, std::string* error,
                               int* bound_port) {
  auto fail = [&](int rv, const std::string& why) {
    if (error) {
      std::string host = address.find(':') != std::string::npos ? "[" + Printable(address) + "]"
                                                                : Printable(address);
      *error = "cannot listen on " + host + ":" + std::to_string(port) + ": " + why;
    }
    return rv;
  };
  if (listener_ != nullptr) return fail(UV_EBUSY, "the server is already listening");
  if (port < 0 || port > 65535) return fail(UV_EINVAL, "port out of range 0-65535");
  sockaddr_storage addr{};
  if (uv_ip4_addr(address.c_str(), port, reinterpret_cast<sockaddr_in*>(&addr)) != 0 &&
      uv_ip6_addr(address.c_str(), port, reinterpret_cast<sockaddr_in6*>(&addr)) != 0) {
    return fail(UV_EINVAL, "not an IPv4 or IPv6 address literal");
  }
  auto* tcp = new uv_tcp_t;
  int rv = uv_tcp_init(loop_, tcp);
  if (rv != 0) {
    delete tcp;
    return fail(rv, uv_strerror(rv));
  }
  tcp->data = this;
  // Bind errors (EADDRINUSE) may surface only at listen time: both are checked.
  rv = uv_tcp_bind(tcp, reinterpret_cast<const sockaddr*>(&addr), 0);
  if (rv == 0) rv = uv_listen(reinterpret_cast<uv_stream_t*>(tcp), kListenBacklog, &OnConnection);
  sockaddr_storage bound{};
  int len = sizeof(bound);
  if (rv == 0) rv = uv_tcp_getsockname(tcp, reinterpret_cast<sockaddr*>(&bound), &len);
  if (rv != 0) {
    uv_close(reinterpret_cast<uv_handle_t*>(tcp),
             [](uv_handle_t* handle) { delete reinterpret_cast<uv_tcp_t*>(handle); });
    return fail(rv, uv_strerror(rv));
  }
  listener_ = tcp;
  *bound_port = bound.ss_family == AF_INET6
                    ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                    : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  return 0;
}

void UvHttpServer::Impl::Close() {
  if (listener_ != nullptr) {
    uv_close(reinterpret_cast<uv_handle_t*>(listener_),
             [](uv_handle_t* handle) { delete reinterpret_cast<uv_tcp_t*>(handle); });
    listener_ = nullptr;
  }
  std::vector<UvHttpConnection*> connections(connections_.begin(), connections_.end());
  for (UvHttpConnection* connection : connections) connection->Close();  // erases itself
}

// static
void UvHttpServer::Impl::OnConnection(uv_stream_t* listener, int status) {
  auto* self = static_cast<Impl*>(listener->data);
  if (status != 0) return;  // a failed accept (EMFILE...): the next one may succeed
  try {
    UvHttpConnection* connection = UvHttpConnection::Create(self->loop_, self, self->limits_);
    if (connection == nullptr) return;
    if (uv_accept(listener, connection->stream()) != 0) {
      connection->Close();
      return;
    }
    if (self->connections_.size() >= self->limits_.max_connections) {
      // At the bound, the connection that has made no progress for longest and would lose no
      // request makes room (so clients trickling bytes or idling cannot lock the page out);
      // if every connection is busy, the new one is accepted (the backlog drains) and closed.
      UvHttpConnection* victim = nullptr;
      for (UvHttpConnection* open : self->connections_) {
        if (open->Evictable() &&
            (victim == nullptr || open->last_progress() < victim->last_progress())) {
          victim = open;
        }
      }
      if (victim == nullptr) {
        connection->Close();
        return;
      }
      victim->Close();  // erases itself from connections_
    }
    try {
      self->connections_.insert(connection);
    } catch (...) {
      connection->Close();
      return;
    }
    connection->Start();
  } catch (...) {
    // Out of memory: the connection is not taken; the listener stays up.
  }
}

UvHttpServer::UvHttpServer(uv_loop_t* loop, Handler handler, Limits limits)
    : impl_(std::make_unique<Impl>(loop, std::move(handler), limits)) {}

UvHttpServer::~UvHttpServer() = default;

int UvHttpServer::Listen(const std::string& address, int port, std::string* error) {
  int bound = 0;
  int rv = impl_->Listen(address, port, error, &bound);
  if (rv == 0) port_ = bound;
  return rv;
}

size_t UvHttpServer::connection_count() const { return impl_->connection_count(); }

uint64_t UvHttpServer::requests_served() const { return impl_->requests_served(); }

void UvHttpServer::Close() { impl_->Close(); }

}  // namespace netstack
