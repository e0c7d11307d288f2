#include "net/http2/http2_session.h"

#include <utility>

#include "net/http2/http2_frame_log.h"

namespace netstack {

Http2Session::Http2Session(Scheduler& scheduler, std::unique_ptr<StreamSocket> socket,
                           Params params, std::function<void(int error)> on_closed)
    : scheduler_(scheduler),
      owned_socket_(std::move(socket)),
      socket_(owned_socket_.get()),
      created_(scheduler.Now()),
      params_(params),
      on_closed_(std::move(on_closed)),
      read_buffer_(kReadBufferBytes, '\0'),
      idle_timer_(scheduler),
      report_closed_(scheduler) {
  Start();
}

Http2Session::Http2Session(Scheduler& scheduler, std::unique_ptr<ClientSocketHandle> handle,
                           Params params, NetLog* net_log, std::function<void(int error)> on_closed)
    : scheduler_(scheduler),
      handle_(std::move(handle)),
      socket_(handle_->socket()),
      net_log_(NetLogWithSource::Make(net_log, NetLogSourceType::HTTP2_SESSION)),
      created_(scheduler.Now()),
      params_(params),
      on_closed_(std::move(on_closed)),
      read_buffer_(kReadBufferBytes, '\0'),
      idle_timer_(scheduler),
      report_closed_(scheduler) {
  net_log_.BeginEvent(NetLogEventType::HTTP2_SESSION, [this] {
    // Chrome's shape: "host:port" and the proxy (the netlog viewer names the source by both).
    const SchemeHostPort& key = handle_->group_id();
    return nlohmann::json{{"host", key.host + ":" + std::to_string(key.port)},
                          {"proxy", "DIRECT"},
                          {"source_dependency", socket_->NetLog().source().ToJson()}};
  });
  // The connection wrote its SETTINGS when it was made, before it had an observer.
  net_log_.AddEvent(NetLogEventType::HTTP2_SESSION_SEND_SETTINGS, [] {
    return nlohmann::json{
        {"settings",
         {"SETTINGS_HEADER_TABLE_SIZE (1): " + std::to_string(Http2Connection::kHeaderTableSize),
          "SETTINGS_ENABLE_PUSH (2): 0",
          "SETTINGS_INITIAL_WINDOW_SIZE (4): " +
              std::to_string(Http2Connection::kInitialWindowSize),
          "SETTINGS_MAX_HEADER_LIST_SIZE (6): " +
              std::to_string(Http2Connection::kMaxHeaderListBytes)}}};
  });
  connection_.set_frame_observer(
      [this](bool sent, const nghttp2_frame& frame) { LogHttp2Frame(net_log_, sent, frame); });
  Start();
}

void Http2Session::Start() {
  if (!connection_.ok()) {
    CloseSession(ERR_OUT_OF_MEMORY);
    return;
  }
  DoWrite();  // the preface and SETTINGS
  if (!closed_) DoRead();
  Update();
}

Http2Session::~Http2Session() {
  weak_factory_.InvalidateWeakPtrs();  // no socket callback re-enters while tearing down
  idle_timer_.Stop();
  report_closed_.Stop();
  if (socket_) socket_->Disconnect();
  if (handle_) {
    handle_->MarkUnusable();
    handle_->Reset();  // the pool closes the socket and frees the slot
  }
  net_log_.EndEvent(NetLogEventType::HTTP2_SESSION);
  // connection_'s destructor aborts what is left (members go in reverse order: it goes
  // before the socket, whose pending callbacks were cancelled above).
}

int Http2Session::StartRequest(const Http2RequestHead& head, RequestPriority priority,
                               Http2StreamDelegate* delegate) {
  if (closed_) return ERR_CONNECTION_CLOSED;
  const int rv = connection_.Submit(head, priority, delegate);
  // Requests submitted in one turn of the loop go out in one write (Chrome's SpdySession
  // batches the same way): a page's burst costs one TLS record and one syscall, not one each.
  if (!write_scheduled_) {
    write_scheduled_ = true;
    scheduler_.PostTask([weak = weak_factory_.GetWeakPtr()] {
      Http2Session* self = weak.get();
      if (!self) return;
      self->write_scheduled_ = false;
      self->DoWrite();
      self->Update();
    });
  }
  Update();
  return rv;
}

void Http2Session::CancelRequest(int request_id) {
  connection_.CancelRequest(request_id);
  DoWrite();
  Update();
}

void Http2Session::ConsumeData(int request_id, size_t bytes) {
  connection_.ConsumeData(request_id, bytes);
  DoWrite();
}

void Http2Session::Shutdown() {
  connection_.Shutdown();
  DoWrite();
  Update();
}

void Http2Session::DoRead() {
  WeakPtr<Http2Session> weak = weak_factory_.GetWeakPtr();
  while (!closed_ && !read_pending_) {
    const int rv = socket_->Read(read_buffer_.data(), kReadBufferBytes, [weak](int result) {
      Http2Session* self = weak.get();
      if (!self) return;
      self->read_pending_ = false;
      if (self->HandleRead(result)) self->DoRead();
      self->Update();
    });
    if (rv == ERR_IO_PENDING) {
      read_pending_ = true;
      return;
    }
    if (!HandleRead(rv)) return;
  }
}

bool Http2Session::HandleRead(int rv) {
  if (closed_) return false;
  if (rv <= 0) {
    const int error = rv == 0 ? ERR_CONNECTION_CLOSED : rv;
    connection_.OnTransportClosed(error);
    CloseSession(error);
    return false;
  }
  const int result = connection_.OnBytesRead(std::string_view(read_buffer_.data(), rv));
  DoWrite();  // SETTINGS ACKs, WINDOW_UPDATEs, a GOAWAY after a protocol error
  if (result != OK) {
    CloseSession(result);
    return false;
  }
  return !closed_;
}

void Http2Session::DoWrite() {
  WeakPtr<Http2Session> weak = weak_factory_.GetWeakPtr();
  while (!closed_ && !write_pending_) {
    if (write_offset_ == write_buffer_.size()) {
      write_buffer_ = connection_.TakeOutput();
      write_offset_ = 0;
      if (write_buffer_.empty()) return;
    }
    const int rv =
        socket_->Write(write_buffer_.data() + write_offset_,
                       static_cast<int>(write_buffer_.size() - write_offset_), [weak](int result) {
                         Http2Session* self = weak.get();
                         if (!self) return;
                         self->write_pending_ = false;
                         if (self->HandleWrite(result)) self->DoWrite();
                         self->Update();
                       });
    if (rv == ERR_IO_PENDING) {
      write_pending_ = true;
      return;
    }
    if (!HandleWrite(rv)) return;
  }
}

bool Http2Session::HandleWrite(int rv) {
  if (closed_) return false;
  if (rv < 0) {
    connection_.OnTransportClosed(rv);
    CloseSession(rv);
    return false;
  }
  write_offset_ += static_cast<size_t>(rv);
  return true;
}

void Http2Session::Update() {
  if (closed_) return;
  // A session that is going away ends once its last stream has.
  if (!connection_.IsAvailable() && connection_.IsIdle()) {
    CloseSession(connection_.error() != 0 ? connection_.error() : OK);
    return;
  }
  if (connection_.IsIdle()) {
    if (!idle_timer_.IsRunning()) {
      idle_timer_.Start(params_.idle_timeout, [this] {
        connection_.Shutdown();  // GOAWAY, written now if the socket takes it at once
        DoWrite();
        CloseSession(OK);
      });
    }
  } else {
    idle_timer_.Stop();
  }
}

void Http2Session::CloseSession(int error) {
  if (closed_) return;
  closed_ = true;
  close_error_ = error;
  idle_timer_.Stop();
  net_log_.AddEvent(NetLogEventType::HTTP2_SESSION_CLOSE, [error] {
    return nlohmann::json{{"net_error", error}};
  });
  if (socket_) socket_->Disconnect();
  // Reported from a task of its own: the owner may destroy the session in `on_closed`.
  report_closed_.Start(TimeDelta::zero(), [this] {
    if (close_reported_) return;
    close_reported_ = true;
    if (on_closed_) on_closed_(close_error_);  // may destroy this
  });
}

}  // namespace netstack
