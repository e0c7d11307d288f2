#include "net/server/uv_http_connection.h"

#include <algorithm>
#include <exception>
#include <utility>

namespace netstack {

namespace {

// After the last answer of a closing connection, how long its unread input is drained (so the
// kernel does not reset the connection and destroy the answer before the client reads it).
constexpr uint64_t kLingerMs = 2000;

}  // namespace

// static
UvHttpConnection* UvHttpConnection::Create(uv_loop_t* loop, Delegate* delegate,
                                           const UvHttpServer::Limits& limits) {
  auto* connection = new UvHttpConnection(delegate, limits);
  if (!connection->Init(loop)) return nullptr;  // deleted by Init
  return connection;
}

UvHttpConnection::UvHttpConnection(Delegate* delegate, const UvHttpServer::Limits& limits)
    : delegate_(delegate),
      limits_(limits),
      reader_({limits_.max_head_bytes, limits_.max_body_bytes}),
      slot_(std::make_shared<Slot>()) {
  slot_->connection = this;
}

bool UvHttpConnection::Init(uv_loop_t* loop) {
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

void UvHttpConnection::Start() {
  uv_tcp_nodelay(&tcp_, 1);
  last_progress_ = delegate_->NextProgressStamp();
  UpdateReadingAndTimer();
}

void UvHttpConnection::Close() noexcept {
  if (closing_) return;
  closing_ = true;
  slot_->connection = nullptr;
  if (delegate_) {
    delegate_->RemoveQueuedWriteBytes(queued_write_bytes_);
    delegate_->OnConnectionClosing(this);
  }
  delegate_ = nullptr;
  uv_close(reinterpret_cast<uv_handle_t*>(&tcp_), &OnClose);
  uv_close(reinterpret_cast<uv_handle_t*>(&timer_), &OnClose);
  uv_close(reinterpret_cast<uv_handle_t*>(&resume_timer_), &OnClose);
}

void UvHttpConnection::ProcessInput() {
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

void UvHttpConnection::Dispatch(HttpServerRequest request) {
  std::shared_ptr<Slot> slot = slot_;
  const uint64_t generation = slot->generation;
  UvHttpServer::Respond respond = [slot, generation](HttpServerResponse response) {
    UvHttpConnection* connection = slot->connection;
    if (connection == nullptr || slot->generation != generation) return;  // closed or answered
    ++slot->generation;
    connection->Answer(std::move(response));
  };
  try {
    delegate_->HandleRequest(request, respond);
  } catch (...) {
    // A throwing handler must not unwind into libuv; if it did not answer, the client gets 500.
    if (slot->connection != nullptr && slot->generation == generation) {
      respond(HttpServerResponse::Error(500, "internal error while handling the request"));
    }
  }
}

void UvHttpConnection::Answer(HttpServerResponse response) {
  if (closing_ || !in_flight_) return;
  try {
    in_flight_ = false;
    delegate_->OnRequestAnswered();
    last_progress_ = delegate_->NextProgressStamp();
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

void UvHttpConnection::AnswerRequestTimeout() {
  request_deadline_ms_ = 0;
  in_flight_ = true;
  head_ = false;
  keep_alive_ = false;
  ++slot_->generation;
  Answer(HttpServerResponse::Error(
      408, "request not complete within " + std::to_string(limits_.request_timeout_ms) + " ms"));
}

bool UvHttpConnection::Write(std::string data) {
  if (data.size() > limits_.max_queued_write_bytes -
                        std::min(queued_write_bytes_, limits_.max_queued_write_bytes) ||
      !delegate_->HasRoomToQueueWrite(data.size())) {
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
  delegate_->AddQueuedWriteBytes(write->data.size());
  return true;
}

void UvHttpConnection::MaybeShutdown() {
  if (!finishing_ || queued_write_bytes_ != 0 || shutdown_started_ || closing_) return;
  shutdown_started_ = true;
  shutdown_req_.data = this;
  if (peer_eof_ || uv_shutdown(&shutdown_req_, stream(), &OnShutdown) != 0) {
    Close();
    return;
  }
  UpdateReadingAndTimer();
}

void UvHttpConnection::UpdateReadingAndTimer() {
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
void UvHttpConnection::OnAlloc(uv_handle_t* handle, size_t, uv_buf_t* buf) {
  auto* self = static_cast<UvHttpConnection*>(handle->data);
  if (self->closing_ || self->delegate_ == nullptr) {
    *buf = uv_buf_init(nullptr, 0);  // libuv reports UV_ENOBUFS
    return;
  }
  *buf = self->delegate_->ReadBuffer();
}

// static
void UvHttpConnection::OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
  auto* self = static_cast<UvHttpConnection*>(stream->data);
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
void UvHttpConnection::OnWrite(uv_write_t* req, int status) {
  auto* write = static_cast<WriteRequest*>(req->data);
  UvHttpConnection* self = write->connection;
  size_t size = write->data.size();
  delete write;
  // libuv runs write callbacks before the close callbacks, so `self` is still allocated.
  if (self->closing_) return;
  self->queued_write_bytes_ -= size;
  self->delegate_->RemoveQueuedWriteBytes(size);
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
void UvHttpConnection::OnShutdown(uv_shutdown_t* req, int status) {
  auto* self = static_cast<UvHttpConnection*>(req->data);
  if (self->closing_) return;
  if (status != 0 || self->peer_eof_) self->Close();
  // Otherwise input is drained until the client's EOF or the linger timer.
}

// static
void UvHttpConnection::OnTimer(uv_timer_t* timer) {
  auto* self = static_cast<UvHttpConnection*>(timer->data);
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
void UvHttpConnection::OnResume(uv_timer_t* timer) {
  auto* self = static_cast<UvHttpConnection*>(timer->data);
  if (self->closing_) return;
  try {
    self->ProcessInput();
    if (!self->closing_) self->MaybeShutdown();
  } catch (...) {
    self->Close();
  }
}

// static
void UvHttpConnection::OnClose(uv_handle_t* handle) {
  auto* self = static_cast<UvHttpConnection*>(handle->data);
  if (--self->open_handles_ == 0) delete self;
}

}  // namespace netstack
