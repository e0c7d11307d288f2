#include "net/server/uv_http_connection.h"

#include <algorithm>
#include <exception>
#include <utility>

namespace netstack {

namespace {

// After the last answer of a closing connection, how long its unread input is drained (so the
// kernel does not reset the connection and destroy the answer before the client reads it).
constexpr uint64_t kLingerMs = 2000;

// A limit in ms as a TimeDelta, saturating (a limit of years is as good as none).
TimeDelta Ms(uint64_t ms) {
  constexpr uint64_t kMaxMs = uint64_t{1} << 40;
  return Milliseconds(static_cast<int64_t>(std::min(ms, kMaxMs)));
}

}  // namespace

// static
UvHttpConnection* UvHttpConnection::Create(uv_loop_t* loop, Scheduler& scheduler,
                                           Delegate* delegate, const UvHttpServer::Limits& limits) {
  auto* connection = new UvHttpConnection(scheduler, delegate, limits);
  if (!connection->Init(loop)) return nullptr;  // deleted by Init
  return connection;
}

UvHttpConnection::UvHttpConnection(Scheduler& scheduler, Delegate* delegate,
                                   const UvHttpServer::Limits& limits)
    : scheduler_(scheduler),
      delegate_(delegate),
      limits_(limits),
      deadline_timer_(scheduler),
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
  uv_timer_init(loop, &resume_timer_);  // cannot fail on an initialized loop
  resume_timer_.data = this;
  ++open_handles_;
  return true;
}

void UvHttpConnection::Start() {
  uv_tcp_nodelay(&tcp_, 1);
  last_progress_ = delegate_->NextProgressStamp();
  accept_epoch_ = delegate_->LoopEpoch();
  EnterPhase(Phase::kHead, limits_.head_timeout_ms);  // the first head's deadline runs from here
  UpdateReadingAndTimer();
}

void UvHttpConnection::Reject(HttpServerResponse response) {
  if (closing_) return;
  rejected_ = true;
  input_.clear();
  in_flight_ = true;
  head_ = false;
  keep_alive_ = false;
  ++slot_->generation;  // a Respond still held (none should be) cannot answer after this
  phase_ = Phase::kHandler;
  uv_tcp_nodelay(&tcp_, 1);
  Answer(std::move(response));  // closes after it is written
}

UvHttpConnection::EvictionClass UvHttpConnection::eviction_class() const {
  if (closing_ || delegate_ == nullptr) return EvictionClass::kNever;
  if (finishing_) {
    return !in_flight_ && queued_write_bytes_ == 0 ? EvictionClass::kFinished
                                                   : EvictionClass::kNever;
  }
  if (in_flight_ || queued_write_bytes_ > 0 || !input_.empty()) return EvictionClass::kNever;
  if (delegate_->LoopEpoch() < accept_epoch_ + 2) return EvictionClass::kTooNew;
  return phase_ == Phase::kKeepAlive ? EvictionClass::kIdle : EvictionClass::kWaiting;
}

void UvHttpConnection::Close() noexcept {
  if (closing_) return;
  closing_ = true;
  slot_->connection = nullptr;
  deadline_timer_.Stop();
  if (delegate_) {
    delegate_->RemoveQueuedWriteBytes(queued_write_bytes_);
    delegate_->OnConnectionClosing(this);
  }
  delegate_ = nullptr;
  uv_close(reinterpret_cast<uv_handle_t*>(&tcp_), &OnClose);
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
      HttpServerRequest request = reader_.TakeRequest();
      head_ = request.method == "HEAD";
      in_flight_ = true;
      phase_ = Phase::kHandler;
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
  UpdatePhase();
  UpdateReadingAndTimer();
}

void UvHttpConnection::UpdatePhase() {
  if (finishing_) return;  // only the send and linger deadlines apply now
  if (in_flight_) {
    phase_ = Phase::kHandler;
  } else if (reader_.head_complete()) {
    if (phase_ != Phase::kBody) EnterPhase(Phase::kBody, limits_.body_timeout_ms);
  } else if (reader_.in_request()) {
    // A later request's head deadline runs from its first byte; the first request's has run
    // since accept (it is already kHead).
    if (phase_ != Phase::kHead) EnterPhase(Phase::kHead, limits_.head_timeout_ms);
  } else if (answered_ > 0 && phase_ != Phase::kKeepAlive) {
    // Nothing of the next request read (a request held back in input_ while the answers drain
    // has not started either). Its first byte, an empty line included, starts its head.
    EnterPhase(Phase::kKeepAlive, limits_.keep_alive_timeout_ms);
  }
}

void UvHttpConnection::EnterPhase(Phase phase, uint64_t timeout_ms) {
  phase_ = phase;
  phase_deadline_ = scheduler_.Now() + Ms(timeout_ms);
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
    ++answered_;
    if (!rejected_) delegate_->OnRequestAnswered();
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

void UvHttpConnection::AnswerTimeout(Phase phase) {
  const bool head = phase == Phase::kHead;
  const uint64_t ms = head ? limits_.head_timeout_ms : limits_.body_timeout_ms;
  input_.clear();
  in_flight_ = true;
  head_ = false;
  keep_alive_ = false;
  ++slot_->generation;
  phase_ = Phase::kHandler;
  Answer(HttpServerResponse::Error(408, std::string(head ? "request head" : "request body") +
                                            " not complete within " + std::to_string(ms) + " ms"));
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
  if (queued_write_bytes_ == 0) {
    send_deadline_ = scheduler_.Now() + Ms(limits_.send_timeout_ms);
    send_queue_mark_ = uv_stream_get_write_queue_size(stream());
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
  linger_deadline_ = scheduler_.Now() + Ms(kLingerMs);
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
  // The earliest deadline that applies (none while the handler works and nothing is queued).
  TimeTicks due = TimeTicks::max();
  if (shutdown_started_) {
    due = linger_deadline_;
  } else {
    if (queued_write_bytes_ > 0) due = send_deadline_;
    const bool idle = phase_ == Phase::kKeepAlive && queued_write_bytes_ == 0 && input_.empty();
    if (!finishing_ && !in_flight_ && (phase_ == Phase::kHead || phase_ == Phase::kBody || idle)) {
      due = std::min(due, phase_deadline_);
    }
  }
  if (due == TimeTicks::max()) {
    deadline_timer_.Stop();
  } else if (!deadline_timer_.IsRunning() || deadline_timer_.desired_run_time() != due) {
    deadline_timer_.Start(due - scheduler_.Now(), [this] { OnDeadlineTimer(); });
  }
}

void UvHttpConnection::OnDeadlineTimer() {
  if (closing_) return;
  const TimeTicks now = scheduler_.Now();
  try {
    if (shutdown_started_) {
      if (now >= linger_deadline_)
        Close();  // the linger after the last answer is over
      else
        UpdateReadingAndTimer();
      return;
    }
    if (queued_write_bytes_ > 0 && now >= send_deadline_) {
      // Bytes left for the kernel since the deadline was set are progress: it moves on.
      const size_t left = uv_stream_get_write_queue_size(stream());
      if (left >= send_queue_mark_) {
        delegate_->OnDeadline(Deadline::kSend);
        Close();  // the client stopped reading its answer
        return;
      }
      send_queue_mark_ = left;
      send_deadline_ = now + Ms(limits_.send_timeout_ms);
    }
    if (!finishing_ && !in_flight_ && now >= phase_deadline_) {
      if (phase_ == Phase::kHead || phase_ == Phase::kBody) {
        delegate_->OnDeadline(phase_ == Phase::kHead ? Deadline::kHead : Deadline::kBody);
        AnswerTimeout(phase_);  // closes after the 408 is written
        return;
      }
      if (phase_ == Phase::kKeepAlive && queued_write_bytes_ == 0 && input_.empty()) {
        delegate_->OnDeadline(Deadline::kKeepAlive);
        Close();
        return;
      }
    }
    UpdateReadingAndTimer();  // woken early (a deadline moved): wait for the next one
  } catch (...) {
    Close();
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
    // Finishing: drained and dropped, without moving a deadline (a client that keeps sending
    // cannot keep the connection open).
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
  const TimeTicks now = self->scheduler_.Now();
  self->send_deadline_ = now + Ms(self->limits_.send_timeout_ms);  // progress
  self->send_queue_mark_ = uv_stream_get_write_queue_size(self->stream());
  // The keep-alive deadline runs from the end of the last answer's write.
  if (self->queued_write_bytes_ == 0 && self->phase_ == Phase::kKeepAlive) {
    self->phase_deadline_ = now + Ms(self->limits_.keep_alive_timeout_ms);
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
  // Otherwise input is drained until the client's EOF or the linger deadline.
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
