#include "tests/support/scripted_stream_socket.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "net/base/net_error.h"

namespace netstack {

ScriptedRead ScriptedRead::Data(std::string bytes, IoMode mode, TimeDelta delay) {
  ScriptedRead step;
  step.kind = bytes.empty() ? Kind::kEof : Kind::kData;  // an empty read is an EOF
  step.data = std::move(bytes);
  step.mode = mode;
  step.delay = delay;
  return step;
}

ScriptedRead ScriptedRead::Error(int error, IoMode mode, TimeDelta delay) {
  ScriptedRead step;
  step.kind = Kind::kError;
  step.error = error;
  step.mode = mode;
  step.delay = delay;
  return step;
}

ScriptedRead ScriptedRead::Eof(IoMode mode, TimeDelta delay) {
  ScriptedRead step;
  step.kind = Kind::kEof;
  step.mode = mode;
  step.delay = delay;
  return step;
}

ScriptedRead ScriptedRead::Hang() {
  ScriptedRead step;
  step.kind = Kind::kHang;
  step.mode = IoMode::kAsync;
  return step;
}

ScriptedWrite ScriptedWrite::Accept(size_t max_bytes, IoMode mode, TimeDelta delay) {
  ScriptedWrite step;
  step.kind = Kind::kAccept;
  step.max_bytes = std::max<size_t>(max_bytes, 1);
  step.mode = mode;
  step.delay = delay;
  return step;
}

ScriptedWrite ScriptedWrite::Error(int error, IoMode mode, TimeDelta delay) {
  ScriptedWrite step;
  step.kind = Kind::kError;
  step.error = error;
  step.mode = mode;
  step.delay = delay;
  return step;
}

ScriptedWrite ScriptedWrite::Hang() {
  ScriptedWrite step;
  step.kind = Kind::kHang;
  step.mode = IoMode::kAsync;
  return step;
}

ScriptedStreamSocket::ScriptedStreamSocket(Scheduler& scheduler, std::vector<ScriptedRead> reads,
                                           std::vector<ScriptedWrite> writes)
    : scheduler_(scheduler),
      reads_(reads.begin(), reads.end()),
      writes_(writes.begin(), writes.end()),
      peer_address_(IPAddress::IPv4(127, 0, 0, 1), 80) {}

ScriptedStreamSocket::~ScriptedStreamSocket() { CancelTasks(); }

void ScriptedStreamSocket::CancelTasks() {
  for (OneShotTimer* timer : {&read_timer_, &write_timer_, &connect_timer_}) timer->Stop();
  read_pending_ = false;
  read_buf_ = nullptr;
  read_len_ = 0;
  read_callback_ = nullptr;
  write_pending_ = false;
  write_callback_ = nullptr;
}

void ScriptedStreamSocket::AddRead(ScriptedRead step) {
  reads_.push_back(std::move(step));
  // A read waiting on an exhausted script (not on a Hang step) gets the new step.
  if (read_pending_ && !read_timer_.IsRunning() && reads_.size() == 1 &&
      reads_.front().kind != ScriptedRead::Kind::kHang) {
    StartPendingRead();
  }
}

void ScriptedStreamSocket::AddWrite(ScriptedWrite step) { writes_.push_back(std::move(step)); }

void ScriptedStreamSocket::set_connect_result(int result, IoMode mode) {
  connect_result_ = result;
  connect_mode_ = mode;
}

int ScriptedStreamSocket::Connect(CompletionCallback callback) {
  if (connect_mode_ == IoMode::kSync) {
    connected_ = connect_result_ == OK;
    return connect_result_;
  }
  connect_timer_.Start(TimeDelta::zero(), [this, callback = std::move(callback)] {
    connected_ = connect_result_ == OK;
    callback(connect_result_);
  });
  return ERR_IO_PENDING;
}

bool ScriptedStreamSocket::IsConnectedAndIdle() const {
  return connected_ && !read_ended_ && !split_front_;
}

int ScriptedStreamSocket::GetPeerAddress(IPEndPoint* address) const {
  if (!connected_) return ERR_SOCKET_NOT_CONNECTED;
  *address = peer_address_;
  return OK;
}

int ScriptedStreamSocket::TakeRead(char* buf, int len) {
  if (reads_.empty()) return 0;  // only after an EOF step (see Read)
  ScriptedRead& step = reads_.front();
  switch (step.kind) {
    case ScriptedRead::Kind::kData: {
      size_t n = std::min(step.data.size(), static_cast<size_t>(len));
      std::memcpy(buf, step.data.data(), n);
      read_data_.append(step.data, 0, n);
      was_used_ = true;
      if (n < step.data.size()) {
        step.data.erase(0, n);
        split_front_ = true;
      } else {
        reads_.pop_front();
        split_front_ = false;
      }
      return static_cast<int>(n);
    }
    case ScriptedRead::Kind::kError: {
      int error = step.error;
      reads_.pop_front();
      read_ended_ = true;
      return error;
    }
    case ScriptedRead::Kind::kEof:
      reads_.pop_front();
      read_ended_ = true;
      return 0;
    case ScriptedRead::Kind::kHang:
      break;
  }
  return ERR_IO_PENDING;
}

void ScriptedStreamSocket::StartPendingRead() {
  TimeDelta delay = reads_.front().delay;
  read_timer_.Start(delay, [this] {
    read_pending_ = false;
    int rv = TakeRead(read_buf_, read_len_);
    read_buf_ = nullptr;
    CompletionCallback callback = std::move(read_callback_);
    callback(rv);  // may destroy this socket
  });
}

int ScriptedStreamSocket::Read(char* buf, int len, CompletionCallback callback) {
  ++read_calls_;
  if (!connected_) return ERR_SOCKET_NOT_CONNECTED;
  if (read_pending_ || len <= 0) return ERR_INVALID_ARGUMENT;
  if (reads_.empty() && read_ended_) return 0;
  bool sync = !reads_.empty() && reads_.front().kind != ScriptedRead::Kind::kHang &&
              (reads_.front().mode == IoMode::kSync || split_front_);
  if (sync) return TakeRead(buf, len);
  read_pending_ = true;
  read_buf_ = buf;
  read_len_ = len;
  read_callback_ = std::move(callback);
  // An exhausted script or a Hang step leaves the read pending (AddRead may serve it).
  if (!reads_.empty() && reads_.front().kind != ScriptedRead::Kind::kHang) StartPendingRead();
  return ERR_IO_PENDING;
}

int ScriptedStreamSocket::TakeWrite(const char* data, int len) {
  ScriptedWrite step = writes_.front();
  writes_.pop_front();
  if (step.kind == ScriptedWrite::Kind::kError) return step.error;
  size_t n = std::min(step.max_bytes, static_cast<size_t>(len));
  written_.append(data, n);
  was_used_ = true;
  return static_cast<int>(n);
}

int ScriptedStreamSocket::Write(const char* data, int len, CompletionCallback callback) {
  ++write_calls_;
  if (!connected_) return ERR_SOCKET_NOT_CONNECTED;
  if (write_pending_ || len <= 0) return ERR_INVALID_ARGUMENT;
  if (writes_.empty()) {
    if (write_script_end_ != OK) return write_script_end_;
    written_.append(data, static_cast<size_t>(len));
    was_used_ = true;
    return len;
  }
  const ScriptedWrite& step = writes_.front();
  if (step.kind == ScriptedWrite::Kind::kHang) {
    write_pending_ = true;
    write_callback_ = std::move(callback);
    return ERR_IO_PENDING;
  }
  IoMode mode = step.mode;
  TimeDelta delay = step.delay;
  // The bytes are taken now (the caller's buffer need not outlive this call here), and the
  // result is reported when the step completes.
  int rv = TakeWrite(data, len);
  if (mode == IoMode::kSync) return rv;
  write_pending_ = true;
  write_callback_ = std::move(callback);
  write_timer_.Start(delay, [this, rv] {
    write_pending_ = false;
    CompletionCallback callback = std::move(write_callback_);
    callback(rv);  // may destroy this socket
  });
  return ERR_IO_PENDING;
}

void ScriptedStreamSocket::Disconnect() {
  ++disconnect_calls_;
  connected_ = false;
  CancelTasks();
}

}  // namespace netstack
