#include "net/socket/uv_tcp_client_socket.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

#include "net/base/pooled_buffer.h"
#include "net/base/uv_error.h"
#include "net/socket/socket_callback_util.h"

namespace netstack {

namespace {

// Read buffers of sockets with nothing buffered go back to a per-thread list instead of to
// malloc, so an idle keep-alive socket holds none (its pages would stay resident) while busy
// sockets reuse warm buffers (no page faults, no zeroing). Sockets live on their loop's thread.
using SocketReadBuffer = PooledBuffer<UvTcpClientSocket::kReadBufferSize, 16>;

}  // namespace

// Everything libuv may touch after this object is gone: the handle and its requests. Freed only
// in the close callback, which runs after libuv has cancelled the pending requests (their
// callbacks see `owner == nullptr` and return). The read buffer is held only while it has unread
// bytes or libuv is reading into it (between the alloc and read callbacks, which libuv calls
// back to back); it is taken in OnAlloc and given back when drained.
struct UvTcpClientSocket::Core {
  uv_tcp_t tcp;
  uv_connect_t connect_req;
  uv_write_t write_req;
  UvTcpClientSocket* owner = nullptr;
  // Unread bytes are buffer[begin, end).
  size_t begin = 0;
  size_t end = 0;
  SocketReadBuffer buffer;  // Empty when nothing is buffered; unread bytes die with the socket.

  size_t buffered() const { return end - begin; }
  uv_stream_t* stream() { return reinterpret_cast<uv_stream_t*>(&tcp); }
  void ReleaseBufferIfEmpty() {
    if (!buffer || begin != end) return;
    buffer.Release();
    begin = end = 0;
  }
};

namespace {

nlohmann::json AddressParams(const IPEndPoint& endpoint) {
  return nlohmann::json{{"address", endpoint.ToString()}};
}

}  // namespace

UvTcpClientSocket::UvTcpClientSocket(uv_loop_t* loop, const IPEndPoint& endpoint,
                                     netstack::NetLog* net_log, const NetLogSource& creator)
    : loop_(loop),
      endpoint_(endpoint),
      net_log_(NetLogWithSource::Make(net_log, NetLogSourceType::SOCKET)) {
  net_log_.BeginEvent(NetLogEventType::SOCKET_ALIVE, [&creator] {
    nlohmann::json params = nlohmann::json::object();
    if (creator.IsValid()) params["source_dependency"] = creator.ToJson();
    return params;
  });
}

UvTcpClientSocket::~UvTcpClientSocket() {
  Disconnect();
  net_log_.EndEvent(NetLogEventType::SOCKET_ALIVE);
}

int UvTcpClientSocket::Connect(CompletionCallback callback) {
  if (connected_) return OK;
  // A connect is already in progress: the contract allows one operation of a kind at a time.
  if (core_) return ERR_INVALID_ARGUMENT;

  net_log_.BeginEvent(NetLogEventType::TCP_CONNECT, [this] { return AddressParams(endpoint_); });
  net_log_.BeginEvent(NetLogEventType::TCP_CONNECT_ATTEMPT,
                      [this] { return AddressParams(endpoint_); });

  auto core = std::make_unique<Core>();
  int rv = uv_tcp_init(loop_, &core->tcp);
  if (rv == 0) {
    core_ = core.release();
    core_->owner = this;
    core_->tcp.data = core_;
    core_->connect_req.data = core_;
    core_->write_req.data = core_;
    sockaddr_storage storage;
    endpoint_.ToSockAddr(&storage);
    rv = uv_tcp_connect(&core_->connect_req, &core_->tcp, reinterpret_cast<sockaddr*>(&storage),
                        &UvTcpClientSocket::OnConnect);
    if (rv < 0) CloseCore();
  }
  if (rv < 0) {
    int error = MapUvError(rv);
    net_log_.EndEventWithNetErrorCode(NetLogEventType::TCP_CONNECT_ATTEMPT, error);
    net_log_.EndEventWithNetErrorCode(NetLogEventType::TCP_CONNECT, error);
    return error;
  }
  // The fd exists now; requests are small (an HTTP request line and headers) and latency-bound.
  uv_tcp_nodelay(&core_->tcp, 1);
  connect_callback_ = std::move(callback);
  return ERR_IO_PENDING;
}

void UvTcpClientSocket::OnConnect(uv_connect_t* req, int status) {
  auto* core = static_cast<Core*>(req->data);
  if (core->owner) core->owner->DidConnect(status);
}

void UvTcpClientSocket::DidConnect(int status) {
  int result = MapUvError(status);
  if (result == OK) {
    connected_ = true;
    MaybeStartReading();
  }
  net_log_.EndEventWithNetErrorCode(NetLogEventType::TCP_CONNECT_ATTEMPT, result);
  if (result == OK) {
    net_log_.EndEvent(NetLogEventType::TCP_CONNECT, [this] {
      sockaddr_storage storage;
      int len = sizeof(storage);
      nlohmann::json params = nlohmann::json::object();
      if (uv_tcp_getsockname(&core_->tcp, reinterpret_cast<sockaddr*>(&storage), &len) == 0) {
        if (auto local = IPEndPoint::FromSockAddr(reinterpret_cast<sockaddr*>(&storage))) {
          params["source_address"] = local->ToString();
        }
      }
      return params;
    });
  } else {
    net_log_.EndEventWithNetErrorCode(NetLogEventType::TCP_CONNECT, result);
    // Release the fd now; the caller may Connect() again or destroy the socket.
    CloseCore();
  }
  // May destroy this object: nothing after.
  RunCallback(connect_callback_, result);
}

void UvTcpClientSocket::MaybeStartReading() {
  if (!core_ || !connected_ || reading_ || eof_ || read_error_ != OK) return;
  if (core_->buffered() >= kReadBufferSize) return;  // Back-pressure until Read() drains.
  int rv = uv_read_start(core_->stream(), &UvTcpClientSocket::OnAlloc, &UvTcpClientSocket::OnRead);
  if (rv < 0) {
    read_error_ = MapUvError(rv);
    return;
  }
  reading_ = true;
}

void UvTcpClientSocket::OnAlloc(uv_handle_t* handle, size_t suggested, uv_buf_t* buf) {
  auto* core = static_cast<Core*>(handle->data);
  core->buffer.Allocate();
  // Move unread bytes to the front when little room is left at the end, so the free space is
  // one span. Bounded by kReadBufferSize per call.
  if (core->begin > 0 && kReadBufferSize - core->end < kReadBufferSize / 4) {
    size_t n = core->buffered();
    std::memmove(core->buffer.data(), core->buffer.data() + core->begin, n);
    core->begin = 0;
    core->end = n;
  }
  *buf = uv_buf_init(core->buffer.data() + core->end,
                     static_cast<unsigned>(kReadBufferSize - core->end));
}

void UvTcpClientSocket::OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
  auto* core = static_cast<Core*>(stream->data);
  if (core->owner) core->owner->DidRead(nread);
}

void UvTcpClientSocket::DidRead(ssize_t nread) {
  if (nread == 0) {  // EAGAIN: libuv returns the buffer unused.
    core_->ReleaseBufferIfEmpty();
    return;
  }
  if (nread > 0) {
    core_->end += static_cast<size_t>(nread);
    if (core_->buffered() >= kReadBufferSize) {
      uv_read_stop(core_->stream());
      reading_ = false;
    }
  } else {
    uv_read_stop(core_->stream());
    reading_ = false;
    if (nread == UV_EOF) {
      eof_ = true;
    } else if (nread != UV_ENOBUFS) {  // ENOBUFS: no room offered; resumed by Read().
      read_error_ = MapUvError(static_cast<int>(nread));
    }
  }

  core_->ReleaseBufferIfEmpty();  // EOF or an error with nothing buffered.
  if (!read_buf_) return;         // No Read() pending: the bytes wait in the buffer.
  int result;
  if (core_->buffered() > 0) {
    result = CopyBuffered(read_buf_, read_buf_len_);
  } else if (read_error_ != OK) {
    result = read_error_;
  } else if (eof_) {
    result = 0;
  } else {
    return;
  }
  read_buf_ = nullptr;
  read_buf_len_ = 0;
  // May destroy this object: nothing after.
  RunCallback(read_callback_, result);
}

int UvTcpClientSocket::CopyBuffered(char* buf, int len) {
  size_t n = std::min(core_->buffered(), static_cast<size_t>(len));
  std::memcpy(buf, core_->buffer.data() + core_->begin, n);
  core_->begin += n;
  core_->ReleaseBufferIfEmpty();
  was_ever_used_ = true;
  LogBytes(NetLogEventType::SOCKET_BYTES_RECEIVED, static_cast<int>(n));
  MaybeStartReading();
  return static_cast<int>(n);
}

int UvTcpClientSocket::Read(char* buf, int len, CompletionCallback callback) {
  if (!connected_ || !core_) return ERR_SOCKET_NOT_CONNECTED;
  if (!buf || len <= 0 || read_buf_) return ERR_INVALID_ARGUMENT;
  if (core_->buffered() > 0) return CopyBuffered(buf, len);
  if (read_error_ != OK) return read_error_;
  if (eof_) return 0;
  MaybeStartReading();  // In case an earlier ENOBUFS paused it.
  if (read_error_ != OK) return read_error_;
  read_buf_ = buf;
  read_buf_len_ = len;
  read_callback_ = std::move(callback);
  return ERR_IO_PENDING;
}

int UvTcpClientSocket::Write(const char* data, int len, CompletionCallback callback) {
  if (!connected_ || !core_) return ERR_SOCKET_NOT_CONNECTED;
  if (!data || len <= 0 || write_len_ > 0) return ERR_INVALID_ARGUMENT;
  uv_buf_t buf = uv_buf_init(const_cast<char*>(data), static_cast<unsigned>(len));
  // Try the kernel first: most writes (a request's headers) complete at once, saving a loop turn.
  int rv = uv_try_write(core_->stream(), &buf, 1);
  if (rv > 0) {
    was_ever_used_ = true;
    LogBytes(NetLogEventType::SOCKET_BYTES_SENT, rv);
    return rv;
  }
  if (rv != UV_EAGAIN) return MapUvError(rv);
  rv = uv_write(&core_->write_req, core_->stream(), &buf, 1, &UvTcpClientSocket::OnWrite);
  if (rv < 0) return MapUvError(rv);
  write_len_ = len;
  write_callback_ = std::move(callback);
  return ERR_IO_PENDING;
}

void UvTcpClientSocket::OnWrite(uv_write_t* req, int status) {
  auto* core = static_cast<Core*>(req->data);
  if (core->owner) core->owner->DidWrite(status);
}

void UvTcpClientSocket::DidWrite(int status) {
  int result = status < 0 ? MapUvError(status) : write_len_;
  if (result > 0) {
    was_ever_used_ = true;
    LogBytes(NetLogEventType::SOCKET_BYTES_SENT, result);
  }
  write_len_ = 0;
  // May destroy this object: nothing after.
  RunCallback(write_callback_, result);
}

void UvTcpClientSocket::LogBytes(NetLogEventType type, int count) const {
  if (!net_log_.IsCapturing()) return;
  net_log_.AddEvent(type, [count] { return nlohmann::json{{"byte_count", count}}; });
}

void UvTcpClientSocket::Disconnect() {
  if (core_ && !connected_) {  // A connect is pending.
    net_log_.EndEventWithNetErrorCode(NetLogEventType::TCP_CONNECT_ATTEMPT, ERR_ABORTED);
    net_log_.EndEventWithNetErrorCode(NetLogEventType::TCP_CONNECT, ERR_ABORTED);
  }
  if (core_) net_log_.AddEvent(NetLogEventType::SOCKET_CLOSED);
  CloseCore();
  connected_ = false;
  eof_ = false;
  read_error_ = OK;
  connect_callback_ = nullptr;
  read_callback_ = nullptr;
  read_buf_ = nullptr;
  read_buf_len_ = 0;
  write_callback_ = nullptr;
  write_len_ = 0;
}

void UvTcpClientSocket::CloseCore() {
  if (!core_) return;
  core_->owner = nullptr;
  uv_close(reinterpret_cast<uv_handle_t*>(&core_->tcp),
           [](uv_handle_t* handle) { delete static_cast<Core*>(handle->data); });
  core_ = nullptr;
  connected_ = false;
  reading_ = false;
}

bool UvTcpClientSocket::IsConnected() const {
  if (!connected_ || !core_) return false;
  return core_->buffered() > 0 || (!eof_ && read_error_ == OK);
}

bool UvTcpClientSocket::IsConnectedAndIdle() const {
  return connected_ && core_ && core_->buffered() == 0 && !eof_ && read_error_ == OK;
}

int UvTcpClientSocket::GetPeerAddress(IPEndPoint* address) const {
  if (!connected_) return ERR_SOCKET_NOT_CONNECTED;
  *address = endpoint_;
  return OK;
}

size_t UvTcpClientSocket::buffered_bytes() const { return core_ ? core_->buffered() : 0; }

bool UvTcpClientSocket::holds_read_buffer() const { return core_ && core_->buffer; }

}  // namespace netstack
