#include "tools/internals/uv_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <exception>
#include <unordered_set>
#include <utility>

#include "tools/internals/http_request_reader.h"

namespace netstack {

namespace {

constexpr size_t kReadBufferSize = 64 * 1024;
constexpr int kListenBacklog = 128;
// After the last answer of a closing connection, how long its unread input is drained (so the
// kernel does not reset the connection and destroy the answer before the client reads it).
constexpr uint64_t kLingerMs = 2000;

// `address` as it may appear in a one-line message: control characters replaced, length capped.
std::string Printable(const std::string& address) {
  std::string out = address.substr(0, 100);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return out;
}

}  // namespace

class UvHttpServer::Impl {
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

 private:
  class Connection;
  static void OnConnection(uv_stream_t* listener, int status);

  uv_loop_t* const loop_;
  const Handler handler_;
  const Limits limits_;
  // Shared by every connection: a read is consumed (copied) inside its read callback.
  std::unique_ptr<char[]> read_buffer_;
  uv_tcp_t* listener_ = nullptr;  // freed in its close callback
  std::unordered_set<Connection*> connections_;
  uint64_t requests_served_ = 0;
  // Bytes queued for writing on all open connections (a closing one's are no longer counted).
  size_t total_queued_write_bytes_ = 0;
  // Orders the connections' progress (accepted, a request answered) without a clock, for
  // choosing which connection to evict at the connection bound.
  uint64_t progress_counter_ = 0;
};

// One accepted connection. It owns three handles (the socket, its timeout timer and the
// zero-delay timer that resumes input after a late answer) and deletes itself when all three
// close callbacks have run. Once closing, it never touches the server again (the
// server may be gone), so its late write/shutdown/close callbacks are safe.
class UvHttpServer::Impl::Connection {
 public:
  // What a Respond holds: the connection while it is open, and which answer it is for.
  struct Slot {
    Connection* connection = nullptr;
    uint64_t generation = 0;  // bumped by each answer: a second call of a Respond is dropped
  };

  explicit Connection(Impl* server)
      : server_(server),
        limits_(server->limits_),
        reader_({limits_.max_head_bytes, limits_.max_body_bytes}),
        slot_(std::make_shared<Slot>()) {
    slot_->connection = this;
  }

  // Initializes the handles; false (and `this` deleted) on failure.
  bool Init(uv_loop_t* loop) {
    if (uv_tcp_init(loop, &tcp_) != 0) {
      delete this;
      return false;
    }
    tcp_.data = this;
    ++open_handles_;
    uv_timer_init(loop, &timer_);  // cannot fail on an initialized loop
    timer_.data = this;
    ++open_handles_;
    uv_timer_init(loop, &resume_timer_);
    resume_timer_.data = this;
    ++open_handles_;
    return true;
  }

  uv_stream_t* stream() { return reinterpret_cast<uv_stream_t*>(&tcp_); }

  void Start() {
    uv_tcp_nodelay(&tcp_, 1);
    last_progress_ = ++server_->progress_counter_;
    UpdateReadingAndTimer();
  }

  // Whether closing this connection to make room for a new one loses no request: none awaits
  // its answer, no answer is being written and no complete request is buffered (idle
  // keep-alive, or a request head still arriving).
  bool Evictable() const {
    return !closing_ && !in_flight_ && queued_write_bytes_ == 0 && input_.empty();
  }
  // Larger is more recent: when the connection was accepted or last answered a request.
  uint64_t last_progress() const { return last_progress_; }

  // Stops everything; the object is freed in the handles' close callbacks. Idempotent.
  void Close() noexcept {
    if (closing_) return;
    closing_ = true;
    slot_->connection = nullptr;
    if (server_) {
      server_->connections_.erase(this);
      server_->total_queued_write_bytes_ -= queued_write_bytes_;
    }
    server_ = nullptr;
    uv_close(reinterpret_cast<uv_handle_t*>(&tcp_), &OnClose);
    uv_close(reinterpret_cast<uv_handle_t*>(&timer_), &OnClose);
    uv_close(reinterpret_cast<uv_handle_t*>(&resume_timer_), &OnClose);
  }

 private:
  struct WriteRequest {
    uv_write_t req;
    std::string data;
    Connection* connection;
  };

  ~Connection() = default;

  void ProcessInput();
  void Dispatch(HttpServerRequest request);
  void Answer(HttpServerResponse response);
  void AnswerRequestTimeout();
  bool Write(std::string data);
  bool WritesBelowPauseMark() const {
    return queued_write_bytes_ <= limits_.pause_reading_queued_bytes;
  }
  void MaybeShutdown();
  void UpdateReadingAndTimer();

  static void OnAlloc(uv_handle_t* handle, size_t suggested, uv_buf_t* buf);
  static void OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf);
  static void OnWrite(uv_write_t* req, int status);
  static void OnShutdown(uv_shutdown_t* req, int status);
  static void OnTimer(uv_timer_t* timer);
  static void OnResume(uv_timer_t* timer);
  static void OnClose(uv_handle_t* handle);

  Impl* server_;  // null once closing
  const Limits limits_;
  uv_tcp_t tcp_;
  uv_timer_t timer_;         // idle timeout, request deadline, linger
  uv_timer_t resume_timer_;  // zero-delay: input processing after a late answer
  uv_shutdown_t shutdown_req_;
  int open_handles_ = 0;
  HttpRequestReader reader_;
  std::string input_;  // read but not yet parsed (only while an answer is awaited)
  std::shared_ptr<Slot> slot_;
  size_t queued_write_bytes_ = 0;
  uint64_t last_progress_ = 0;
  // Loop time (uv_now) by which the request being read must be complete; 0: none is.
  uint64_t request_deadline_ms_ = 0;
  bool closing_ = false;
  bool processing_ = false;  // inside ProcessInput (a synchronous answer must not recurse)
  bool in_flight_ = false;   // a request awaits its answer
  bool head_ = false;        // ... and it is a HEAD
  bool keep_alive_ = false;  // ... and the connection may carry another after it
  bool finishing_ = false;   // no more requests: close once the answers are written
  bool shutdown_started_ = false;
  bool peer_eof_ = false;
  bool reading_ = false;
};

void UvHttpServer::Impl::Connection::ProcessInput() {
  if (processing_ || closing_) return;
  processing_ = true;
  size_t offset = 0;
  // A client slow to read its answers holds back its next request (WritesBelowPauseMark);
  // OnWrite resumes here as the writes drain.
  while (!closing_ && !in_flight_ && !finishing_ && WritesBelowPauseMark() &&
         offset < input_.size()) {
    offset += reader_.Feed(input_.data() + offset, input_.size() - offset);
    if (reader_.state() == HttpRequestReader::State::kError) {
      in_flight_ = true;
      head_ = false;
      keep_alive_ = false;
      ++slot_->generation;  // as a Respond would: no Respond may answer in its place
      Answer(HttpServerResponse::Error(reader_.error_status(), reader_.error_message()));
      break;
    }
    if (reader_.state() == HttpRequestReader::State::kRequest) {
      keep_alive_ = reader_.keep_alive() && !peer_eof_;
      request_deadline_ms_ = 0;
      HttpServerRequest request = reader_.TakeRequest();
      head_ = request.method == "HEAD";
      in_flight_ = true;
      Dispatch(std::move(request));  // may answer, or even close the server, synchronously
    }
  }
  processing_ = false;
  if (closing_) return;
  if (finishing_) {
    input_.clear();  // nothing after the last answer is read
  } else {
    input_.erase(0, offset);
  }
  // The request deadline runs from the first byte of a request the reader has taken in; a
  // request held back (in input_) while another is answered has not started.
  if (finishing_ || in_flight_ || !reader_.in_request()) {
    request_deadline_ms_ = 0;
  } else if (request_deadline_ms_ == 0) {
    request_deadline_ms_ = uv_now(tcp_.loop) + limits_.request_timeout_ms;
  }
  UpdateReadingAndTimer();
}

void UvHttpServer::Impl::Connection::Dispatch(HttpServerRequest request) {
  std::shared_ptr<Slot> slot = slot_;
  const uint64_t generation = slot->generation;
  Respond respond = [slot, generation](HttpServerResponse response) {
    Connection* connection = slot->connection;
    if (connection == nullptr || slot->generation != generation) return;  // closed or answered
    ++slot->generation;
    connection->Answer(std::move(response));
  };
  try {
    server_->handler_(request, respond);
  } catch (...) {
    // A throwing handler must not unwind into libuv; if it did not answer, the client gets 500.
    if (slot->connection != nullptr && slot->generation == generation) {
      respond(HttpServerResponse::Error(500, "internal error while handling the request"));
    }
  }
}

void UvHttpServer::Impl::Connection::Answer(HttpServerResponse response) {
  if (closing_ || !in_flight_) return;
  try {
    in_flight_ = false;
    ++server_->requests_served_;
    last_progress_ = ++server_->progress_counter_;
    const bool close = !keep_alive_;
    if (!Write(SerializeResponse(response, close, head_))) return;  // closed
    if (close) finishing_ = true;
    if (processing_) return;  // a synchronous answer: ProcessInput goes on after the handler
    // A later answer, from whatever callback the handler was waiting on: a buffered next
    // request must not run the handler inside that callback, so it waits for the next loop
    // iteration. With nothing to dispatch, ProcessInput only restarts reading and the timer.
    if (finishing_ || input_.empty()) {
      ProcessInput();
    } else {
      uv_timer_start(&resume_timer_, &OnResume, 0, 0);
      UpdateReadingAndTimer();
    }
    if (!closing_) MaybeShutdown();
  } catch (...) {
    Close();  // out of memory serializing: drop the connection rather than the process
  }
}

void UvHttpServer::Impl::Connection::AnswerRequestTimeout() {
  request_deadline_ms_ = 0;
  in_flight_ = true;
  head_ = false;
  keep_alive_ = false;
  ++slot_->generation;
  Answer(HttpServerResponse::Error(
      408, "request not complete within " + std::to_string(limits_.request_timeout_ms) + " ms"));
}

bool UvHttpServer::Impl::Connection::Write(std::string data) {
  const size_t total = server_->total_queued_write_bytes_;
  if (data.size() > limits_.max_queued_write_bytes -
                        std::min(queued_write_bytes_, limits_.max_queued_write_bytes) ||
      data.size() > limits_.max_total_queued_write_bytes -
                        std::min(total, limits_.max_total_queued_write_bytes)) {
    Close();  // the client does not read: the bound is an eviction, never growth
    return false;
  }
  auto* write = new WriteRequest{{}, std::move(data), this};
  write->req.data = write;
  uv_buf_t buf = uv_buf_init(write->data.data(), static_cast<unsigned int>(write->data.size()));
  int rv = uv_write(&write->req, stream(), &buf, 1, &OnWrite);
  if (rv != 0) {
    delete write;
    Close();
    return false;
  }
  queued_write_bytes_ += write->data.size();
  server_->total_queued_write_bytes_ += write->data.size();
  return true;
}

void UvHttpServer::Impl::Connection::MaybeShutdown() {
  if (!finishing_ || queued_write_bytes_ != 0 || shutdown_started_ || closing_) return;
  shutdown_started_ = true;
  shutdown_req_.data = this;
  if (peer_eof_ || uv_shutdown(&shutdown_req_, stream(), &OnShutdown) != 0) {
    Close();
    return;
  }
  UpdateReadingAndTimer();
}

void UvHttpServer::Impl::Connection::UpdateReadingAndTimer() {
  if (closing_) return;
  // While an answer is awaited, a buffered request waits for dispatch, or the client is slow to
  // read its answers, nothing more is read; once finishing, input is read and dropped until
  // EOF or the linger timer.
  const bool want_read =
      !peer_eof_ && (finishing_ || (!in_flight_ && input_.empty() && WritesBelowPauseMark()));
  if (want_read && !reading_) {
    if (uv_read_start(stream(), &OnAlloc, &OnRead) != 0) {
      Close();
      return;
    }
    reading_ = true;
  } else if (!want_read && reading_) {
    uv_read_stop(stream());
    reading_ = false;
  }
  // The idle timer runs except while the handler works on an answer (a fetch may be slow).
  if (in_flight_ && queued_write_bytes_ == 0) {
    uv_timer_stop(&timer_);
  } else {
    uint64_t ms =
        shutdown_started_ ? std::min(limits_.idle_timeout_ms, kLingerMs) : limits_.idle_timeout_ms;
    if (request_deadline_ms_ != 0) {
      // A read restarts the idle timeout but never moves the request's deadline.
      const uint64_t now = uv_now(tcp_.loop);
      ms = std::min(ms, request_deadline_ms_ > now ? request_deadline_ms_ - now : 0);
    }
    uv_timer_start(&timer_, &OnTimer, ms, 0);
  }
}

// static
void UvHttpServer::Impl::Connection::OnAlloc(uv_handle_t* handle, size_t, uv_buf_t* buf) {
  auto* self = static_cast<Connection*>(handle->data);
  if (self->closing_ || self->server_ == nullptr) {
    *buf = uv_buf_init(nullptr, 0);  // libuv reports UV_ENOBUFS
    return;
  }
  *buf = uv_buf_init(self->server_->read_buffer_.get(), kReadBufferSize);
}

// static
void UvHttpServer::Impl::Connection::OnRead(uv_stream_t* stream, ssize_t nread,
                                            const uv_buf_t* buf) {
  auto* self = static_cast<Connection*>(stream->data);
  if (self->closing_) return;
  try {
    if (nread == UV_EOF) {
      self->peer_eof_ = true;
      self->keep_alive_ = false;
      uv_read_stop(stream);
      self->reading_ = false;
      // A request already read is still answered (the client may have half-closed).
      if (self->in_flight_ || self->queued_write_bytes_ > 0) {
        self->finishing_ = true;
        self->MaybeShutdown();
        return;
      }
      self->Close();
      return;
    }
    if (nread < 0) {
      self->Close();
      return;
    }
    if (nread == 0) return;
    // Finishing: drained and dropped, without restarting the timer (a client that keeps
    // sending cannot keep the connection open).
    if (self->finishing_) return;
    self->input_.append(buf->base, static_cast<size_t>(nread));
    self->ProcessInput();
  } catch (...) {
    self->Close();
  }
}

// static
void UvHttpServer::Impl::Connection::OnWrite(uv_write_t* req, int status) {
  auto* write = static_cast<WriteRequest*>(req->data);
  Connection* self = write->connection;
  size_t size = write->data.size();
  delete write;
  // libuv runs write callbacks before the close callbacks, so `self` is still allocated.
  if (self->closing_) return;
  self->queued_write_bytes_ -= size;
  self->server_->total_queued_write_bytes_ -= size;
  if (status != 0) {
    self->Close();
    return;
  }
  try {
    if (!self->in_flight_ && !self->finishing_ && !self->input_.empty() &&
        self->WritesBelowPauseMark()) {
      self->ProcessInput();  // the writes drained: the request held back goes on
    } else {
      self->UpdateReadingAndTimer();
    }
    if (!self->closing_) self->MaybeShutdown();
  } catch (...) {
    self->Close();
  }
}

// static
void UvHttpServer::Impl::Connection::OnShutdown(uv_shutdown_t* req, int status) {
  auto* self = static_cast<Connection*>(req->data);
  if (self->closing_) return;
  if (status != 0 || self->peer_eof_) self->Close();
  // Otherwise input is drained until the client's EOF or the linger timer.
}

// static
void UvHttpServer::Impl::Connection::OnTimer(uv_timer_t* timer) {
  auto* self = static_cast<Connection*>(timer->data);
  if (self->closing_) return;
  if (self->request_deadline_ms_ != 0 && !self->finishing_ && !self->in_flight_ &&
      uv_now(timer->loop) >= self->request_deadline_ms_) {
    try {
      self->AnswerRequestTimeout();  // closes after the 408 is written
    } catch (...) {
      self->Close();
    }
    return;
  }
  self->Close();  // idle, or the linger after the last answer is over
}

// static
void UvHttpServer::Impl::Connection::OnResume(uv_timer_t* timer) {
  auto* self = static_cast<Connection*>(timer->data);
  if (self->closing_) return;
  try {
    self->ProcessInput();
    if (!self->closing_) self->MaybeShutdown();
  } catch (...) {
    self->Close();
  }
}

// static
void UvHttpServer::Impl::Connection::OnClose(uv_handle_t* handle) {
  auto* self = static_cast<Connection*>(handle->data);
  if (--self->open_handles_ == 0) delete self;
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
  std::vector<Connection*> connections(connections_.begin(), connections_.end());
  for (Connection* connection : connections) connection->Close();  // erases itself
}

// static
void UvHttpServer::Impl::OnConnection(uv_stream_t* listener, int status) {
  auto* self = static_cast<Impl*>(listener->data);
  if (status != 0) return;  // a failed accept (EMFILE...): the next one may succeed
  try {
    auto* connection = new Connection(self);
    if (!connection->Init(self->loop_)) return;
    if (uv_accept(listener, connection->stream()) != 0) {
      connection->Close();
      return;
    }
    if (self->connections_.size() >= self->limits_.max_connections) {
      // At the bound, the connection that has made no progress for longest and would lose no
      // request makes room (so clients trickling bytes or idling cannot lock the page out);
      // if every connection is busy, the new one is accepted (the backlog drains) and closed.
      Connection* victim = nullptr;
      for (Connection* open : self->connections_) {
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
