#include "net/server/uv_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>

#include <algorithm>
#include <deque>
#include <exception>
#include <new>
#include <unordered_set>
#include <utility>
#include <vector>

#include "net/base/uv_scheduler.h"
#include "net/server/uv_http_connection.h"

namespace netstack {

namespace {

constexpr size_t kReadBufferSize = 64 * 1024;
// As nginx's default on Linux: a burst of connections waits in the kernel rather than being
// refused by it (the kernel caps it at net.core.somaxconn).
constexpr int kListenBacklog = 511;

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
// across connections (their number, the bytes queued on all of them), the choice of the
// connection to evict, the connections answered 503 while they drain, and the counts. Each
// connection (uv_http_connection.h) handles its own socket, requests, answers and deadlines,
// and reaches this state only through the Delegate methods while it is open.
class UvHttpServer::Impl final : public UvHttpConnection::Delegate {
 public:
  Impl(uv_loop_t* loop, Handler handler, Limits limits, Scheduler* scheduler);
  ~Impl() { Close(); }

  int Listen(const std::string& address, int port, std::string* error, int* bound_port);
  void Close();
  size_t connection_count() const { return connections_.size(); }
  uint64_t requests_served() const { return stats_.requests_served; }
  Stats stats() const {
    Stats stats = stats_;
    stats.open = connections_.size();
    stats.rejected_open = rejected_.size();
    return stats;
  }

  // UvHttpConnection::Delegate:
  void HandleRequest(const HttpServerRequest& request, Respond respond) override {
    handler_(request, std::move(respond));
  }
  uv_buf_t ReadBuffer() override { return uv_buf_init(read_buffer_.get(), kReadBufferSize); }
  void OnRequestAnswered() override { ++stats_.requests_served; }
  uint64_t NextProgressStamp() override { return ++progress_counter_; }
  uint64_t LoopEpoch() const override { return loop_epoch_; }
  void OnDeadline(UvHttpConnection::Deadline deadline) override;
  bool HasRoomToQueueWrite(size_t bytes) const override {
    const size_t max = limits_.max_total_queued_write_bytes;
    return bytes <= max - std::min(total_queued_write_bytes_, max);
  }
  void AddQueuedWriteBytes(size_t bytes) override { total_queued_write_bytes_ += bytes; }
  void RemoveQueuedWriteBytes(size_t bytes) override { total_queued_write_bytes_ -= bytes; }
  void OnConnectionClosing(UvHttpConnection* connection) override;

 private:
  // What MakeRoom did.
  enum class Room {
    kMade,  // a connection was evicted
    kWait,  // none can go yet, but some were accepted too recently to be judged: wait for them
    kNone,  // every connection is busy
  };

  static void OnConnection(uv_stream_t* listener, int status);
  // Each loop iteration, after I/O: the next epoch, and another try at a connection left
  // waiting in the listener.
  static void OnCheck(uv_check_t* check);
  // The listener holds an accepted connection: take it (making room at the bound), answer it
  // 503 if every connection is busy, or leave it there (libuv then stops accepting, and the
  // rest wait in the kernel's backlog) until the connections accepted just before it were
  // read and can be judged.
  void TakeAccepted();
  // uv_accept()s the connection the listener holds into a new UvHttpConnection (not started,
  // in no set); null if that failed (counted in accept_errors; the listener is freed either
  // way).
  UvHttpConnection* Accept();
  // Out of memory for a connection: takes the one the listener holds and closes it.
  void DropAccepted();
  // At the connection bound: evicts one connection (see uv_http_server.h).
  Room MakeRoom();
  // Answers `connection` 503 and keeps it among the rejected ones while it drains (closing the
  // oldest of those at their bound). `connection` is in no other set.
  void Reject(UvHttpConnection* connection);

  uv_loop_t* const loop_;
  const Handler handler_;
  const Limits limits_;
  std::unique_ptr<UvScheduler> own_scheduler_;  // when none was given
  Scheduler* const scheduler_;
  // Shared by every connection: a read is consumed (copied) inside its read callback.
  std::unique_ptr<char[]> read_buffer_;
  uv_tcp_t* listener_ = nullptr;       // freed in its close callback
  uv_check_t* epoch_check_ = nullptr;  // counts loop iterations; freed in its close callback
  // Active while a connection waits in the listener: the loop then polls without blocking, so
  // the epochs (and the retries) go on. Freed in its close callback.
  uv_idle_t* spin_ = nullptr;
  bool accept_waiting_ = false;  // the listener holds a connection not taken yet
  std::unordered_set<UvHttpConnection*> connections_;
  // Answered 503 and draining, oldest first (at most max_rejected_connections).
  std::deque<UvHttpConnection*> rejected_;
  Stats stats_;
  // Bytes queued for writing on all open connections (a closing one's are no longer counted).
  size_t total_queued_write_bytes_ = 0;
  // Orders the connections' progress (accepted, a request answered) without a clock, for
  // choosing which connection to evict at the connection bound.
  uint64_t progress_counter_ = 0;
  // Loop iterations since the server was made (a uv_check handle counts them).
  uint64_t loop_epoch_ = 0;
};

UvHttpServer::Impl::Impl(uv_loop_t* loop, Handler handler, Limits limits, Scheduler* scheduler)
    : loop_(loop),
      handler_(std::move(handler)),
      limits_(limits),
      own_scheduler_(scheduler ? nullptr : std::make_unique<UvScheduler>(loop)),
      scheduler_(scheduler ? scheduler : own_scheduler_.get()),
      read_buffer_(new char[kReadBufferSize]) {
  epoch_check_ = new uv_check_t;
  uv_check_init(loop_, epoch_check_);  // cannot fail on an initialized loop
  epoch_check_->data = this;
  uv_check_start(epoch_check_, &OnCheck);
  uv_unref(reinterpret_cast<uv_handle_t*>(epoch_check_));  // never keeps the loop alive
  spin_ = new uv_idle_t;
  uv_idle_init(loop_, spin_);
  spin_->data = this;
  uv_unref(reinterpret_cast<uv_handle_t*>(spin_));
}

void UvHttpServer::Impl::OnDeadline(UvHttpConnection::Deadline deadline) {
  switch (deadline) {
    case UvHttpConnection::Deadline::kHead:
      ++stats_.head_timeouts;
      break;
    case UvHttpConnection::Deadline::kBody:
      ++stats_.body_timeouts;
      break;
    case UvHttpConnection::Deadline::kKeepAlive:
      ++stats_.keep_alive_timeouts;
      break;
    case UvHttpConnection::Deadline::kSend:
      ++stats_.send_timeouts;
      break;
  }
}

void UvHttpServer::Impl::OnConnectionClosing(UvHttpConnection* connection) {
  if (connections_.erase(connection) != 0) return;
  auto it = std::find(rejected_.begin(), rejected_.end(), connection);
  if (it != rejected_.end()) rejected_.erase(it);
}

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
  accept_waiting_ = false;  // closing the listener closed the connection it held
  if (epoch_check_ != nullptr) {
    uv_close(reinterpret_cast<uv_handle_t*>(epoch_check_),
             [](uv_handle_t* handle) { delete reinterpret_cast<uv_check_t*>(handle); });
    epoch_check_ = nullptr;
  }
  if (spin_ != nullptr) {
    uv_close(reinterpret_cast<uv_handle_t*>(spin_),
             [](uv_handle_t* handle) { delete reinterpret_cast<uv_idle_t*>(handle); });
    spin_ = nullptr;
  }
  std::vector<UvHttpConnection*> connections(connections_.begin(), connections_.end());
  connections.insert(connections.end(), rejected_.begin(), rejected_.end());
  for (UvHttpConnection* connection : connections) connection->Close();  // erases itself
}

UvHttpServer::Impl::Room UvHttpServer::Impl::MakeRoom() {
  UvHttpConnection* victim = nullptr;
  bool victim_finished = false;
  bool too_new = false;
  for (UvHttpConnection* open : connections_) {
    const UvHttpConnection::EvictionClass kind = open->eviction_class();
    if (kind == UvHttpConnection::EvictionClass::kTooNew) too_new = true;
    if (kind == UvHttpConnection::EvictionClass::kNever ||
        kind == UvHttpConnection::EvictionClass::kTooNew) {
      continue;
    }
    const bool finished = kind == UvHttpConnection::EvictionClass::kFinished;
    // A finished connection first; then the one that has waited longest.
    if (victim == nullptr || (finished && !victim_finished) ||
        (finished == victim_finished && open->last_progress() < victim->last_progress())) {
      victim = open;
      victim_finished = finished;
    }
  }
  if (victim == nullptr) return too_new ? Room::kWait : Room::kNone;
  if (victim->eviction_class() == UvHttpConnection::EvictionClass::kWaiting) {
    ++stats_.evicted_waiting;
    connections_.erase(victim);
    Reject(victim);
  } else {
    ++stats_.evicted_idle;
    victim->Close();  // erases itself from connections_
  }
  return Room::kMade;
}

void UvHttpServer::Impl::Reject(UvHttpConnection* connection) {
  const size_t bound = std::max<size_t>(limits_.max_rejected_connections, 1);
  while (rejected_.size() >= bound) {
    ++stats_.rejected_cut_short;
    UvHttpConnection* oldest = rejected_.front();
    rejected_.pop_front();
    oldest->Close();  // its 503 is already with the kernel
  }
  rejected_.push_back(connection);
  HttpServerResponse busy =
      HttpServerResponse::Error(503, "server busy: " + std::to_string(limits_.max_connections) +
                                         " connections open; retry later");
  busy.headers.emplace_back("Retry-After", std::to_string(limits_.retry_after_s));
  connection->Reject(std::move(busy));  // may close it at once (a failed write)
}

// static
void UvHttpServer::Impl::OnConnection(uv_stream_t* listener, int status) {
  auto* self = static_cast<Impl*>(listener->data);
  if (status != 0) {  // a failed accept (EMFILE...): the next one may succeed
    ++self->stats_.accept_errors;
    return;
  }
  self->TakeAccepted();
}

// static
void UvHttpServer::Impl::OnCheck(uv_check_t* check) {
  auto* self = static_cast<Impl*>(check->data);
  ++self->loop_epoch_;
  if (self->accept_waiting_) self->TakeAccepted();
}

void UvHttpServer::Impl::TakeAccepted() {
  if (listener_ == nullptr) return;
  if (connections_.size() >= limits_.max_connections) {
    const Room room = MakeRoom();
    if (room == Room::kWait) {
      if (!accept_waiting_) uv_idle_start(spin_, [](uv_idle_t*) {});
      accept_waiting_ = true;
      return;
    }
    if (room == Room::kNone) {
      // Every connection is busy: the new one is told so rather than dropped.
      UvHttpConnection* connection = Accept();
      if (connection == nullptr) return;
      ++stats_.rejected_full;
      Reject(connection);
      return;
    }
  }
  UvHttpConnection* connection = Accept();
  if (connection == nullptr) return;
  try {
    connections_.insert(connection);
  } catch (...) {
    connection->Close();
    return;
  }
  stats_.peak_open = std::max(stats_.peak_open, connections_.size());
  connection->Start();
}

UvHttpConnection* UvHttpServer::Impl::Accept() {
  if (accept_waiting_) {
    accept_waiting_ = false;
    uv_idle_stop(spin_);
  }
  UvHttpConnection* connection = nullptr;
  try {
    connection = UvHttpConnection::Create(loop_, *scheduler_, this, limits_);
  } catch (...) {
    connection = nullptr;  // out of memory
  }
  if (connection == nullptr) {
    // The listener must not keep holding it (libuv would accept nothing more): a handle made
    // without the server's bookkeeping takes it and closes it.
    ++stats_.accept_errors;
    DropAccepted();
    return nullptr;
  }
  if (uv_accept(reinterpret_cast<uv_stream_t*>(listener_), connection->stream()) != 0) {
    ++stats_.accept_errors;
    connection->Close();
    return nullptr;
  }
  ++stats_.accepted;
  return connection;
}

void UvHttpServer::Impl::DropAccepted() {
  auto* tcp = new (std::nothrow) uv_tcp_t;
  if (tcp == nullptr || uv_tcp_init(loop_, tcp) != 0) {
    delete tcp;
    return;
  }
  uv_accept(reinterpret_cast<uv_stream_t*>(listener_), reinterpret_cast<uv_stream_t*>(tcp));
  uv_close(reinterpret_cast<uv_handle_t*>(tcp),
           [](uv_handle_t* handle) { delete reinterpret_cast<uv_tcp_t*>(handle); });
}

UvHttpServer::UvHttpServer(uv_loop_t* loop, Handler handler, Limits limits, Scheduler* scheduler)
    : limits_(limits), impl_(std::make_unique<Impl>(loop, std::move(handler), limits, scheduler)) {}

UvHttpServer::~UvHttpServer() = default;

int UvHttpServer::Listen(const std::string& address, int port, std::string* error) {
  int bound = 0;
  int rv = impl_->Listen(address, port, error, &bound);
  if (rv == 0) port_ = bound;
  return rv;
}

size_t UvHttpServer::connection_count() const { return impl_->connection_count(); }

uint64_t UvHttpServer::requests_served() const { return impl_->requests_served(); }

UvHttpServer::Stats UvHttpServer::stats() const { return impl_->stats(); }

void UvHttpServer::Close() { impl_->Close(); }

// static
size_t UvHttpServer::MaxConnectionsForFdLimit(uint64_t fd_limit) {
  constexpr uint64_t kKeptForTheProcess = 256;
  const uint64_t quarter = fd_limit > kKeptForTheProcess ? (fd_limit - kKeptForTheProcess) / 4 : 0;
  return static_cast<size_t>(std::clamp<uint64_t>(quarter, 16, 1024));
}

// static
uint64_t UvHttpServer::FdSoftLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  if (limit.rlim_cur == RLIM_INFINITY) return uint64_t{1} << 20;
  return static_cast<uint64_t>(limit.rlim_cur);
}

}  // namespace netstack
