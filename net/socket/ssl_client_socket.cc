#include "net/socket/ssl_client_socket.h"

#include <algorithm>
#include <string>
#include <utility>

#include "net/socket/socket_callback_util.h"
#include "net/socket/ssl_client_context.h"

namespace netstack {

namespace {

using Want = TlsClientEngine::Want;

}  // namespace

SslClientSocket::SslClientSocket(std::unique_ptr<StreamSocket> transport, SslClientContext* context,
                                 const std::string& host, uint16_t port,
                                 const NetLogWithSource& fallback_net_log)
    : transport_(std::move(transport)),
      context_(context),
      host_(host),
      port_(port),
      net_log_(transport_ && transport_->NetLog().net_log() ? transport_->NetLog()
                                                            : fallback_net_log),
      recv_buf_(new char[TlsClientEngine::kBufferSize]),
      send_buf_(new char[TlsClientEngine::kBufferSize]) {}

SslClientSocket::~SslClientSocket() {
  if (state_ == State::kHandshaking) {
    net_log_.EndEventWithNetErrorCode(NetLogEventType::SSL_CONNECT, ERR_ABORTED);
  }
  // The transport may hold our buffers in pending operations: it goes first.
  transport_.reset();
}

int SslClientSocket::Connect(CompletionCallback callback) {
  if (state_ == State::kConnected) return OK;
  if (state_ != State::kIdle) return ERR_INVALID_ARGUMENT;  // Handshaking, failed or closed.
  if (!transport_ || !transport_->IsConnected()) return ERR_SOCKET_NOT_CONNECTED;

  net_log_.BeginEvent(NetLogEventType::SSL_CONNECT, [this] {
    return nlohmann::json{{"host", host_}, {"port", port_}};
  });
  engine_ = std::make_unique<TlsClientEngine>(context_, host_, port_);
  state_ = State::kHandshaking;
  int rv = engine_->init_result();
  if (rv == OK) rv = DoHandshakeLoop();
  if (rv == ERR_IO_PENDING) {
    connect_callback_ = std::move(callback);
    return rv;
  }
  return FinishHandshake(rv);
}

int SslClientSocket::DoHandshakeLoop() {
  while (true) {
    int rv = engine_->Handshake();
    // Always send what the engine produced: the next flight, or the alert of a failure.
    int flush = FlushOutput();
    if (rv == OK) return flush == ERR_IO_PENDING ? OK : flush;
    if (rv != ERR_IO_PENDING) return rv;
    if (flush != OK && flush != ERR_IO_PENDING) return flush;
    if (engine_->want() == Want::kOutputSpace) {
      if (flush == ERR_IO_PENDING) return ERR_IO_PENDING;
      continue;
    }
    int read = ReadTransport();
    if (read == ERR_IO_PENDING) return ERR_IO_PENDING;
    if (read == 0) {
      last_error_detail_ = "the server closed the connection during the TLS handshake";
      return ERR_CONNECTION_CLOSED;
    }
    if (read < 0) return read;
  }
}

int SslClientSocket::FinishHandshake(int result) {
  if (result == OK) {
    state_ = State::kConnected;
    const bool resumed = engine_->session_resumed();
    net_log_.EndEvent(NetLogEventType::SSL_CONNECT, [this, resumed] {
      return nlohmann::json{{"version", engine_->version()},
                            {"cipher_suite", engine_->cipher()},
                            {"is_resumed", resumed},
                            {"next_proto", engine_->negotiated_protocol()}};
    });
    if (resumed) net_log_.AddEvent(NetLogEventType::SSL_SESSION_RESUMED);
    DoBackgroundReadLoop();
    return OK;
  }
  state_ = State::kFailed;
  if (last_error_detail_.empty()) last_error_detail_ = engine_->last_error_detail();
  net_log_.EndEvent(NetLogEventType::SSL_CONNECT, [this, result] {
    return nlohmann::json{{"net_error", result}, {"error_detail", last_error_detail_}};
  });
  return result;
}

int SslClientSocket::Read(char* buf, int len, CompletionCallback callback) {
  if (state_ != State::kConnected) return ERR_SOCKET_NOT_CONNECTED;
  if (!buf || len <= 0 || user_read_buf_) return ERR_INVALID_ARGUMENT;
  user_read_buf_ = buf;
  user_read_len_ = len;
  int rv = DoPayloadReadLoop();
  if (rv == ERR_IO_PENDING) {
    read_callback_ = std::move(callback);
    return rv;
  }
  user_read_buf_ = nullptr;
  user_read_len_ = 0;
  DoBackgroundReadLoop();
  return rv;
}

void SslClientSocket::DoBackgroundReadLoop() {
  while (state_ == State::kConnected && !user_read_buf_ && !stream_ended_ && !peer_finished_) {
    int rv = engine_->Peek();
    FlushOutput();       // A post-handshake message may need an answer.
    if (rv > 0) return;  // Application data waits for Read(): not idle.
    if (rv != ERR_IO_PENDING) {
      // close_notify or a broken stream while idle; Read() will report it.
      peer_finished_ = true;
      return;
    }
    if (engine_->want() == Want::kOutputSpace) return;  // Resumed when the write completes.
    if (ReadTransport() <= 0) return;                   // Pending, EOF or error (both recorded).
  }
}

int SslClientSocket::DoPayloadReadLoop() {
  while (true) {
    int rv = engine_->Read(user_read_buf_, user_read_len_);
    // Reading may produce output (a KeyUpdate answer); its errors surface on the next Write.
    int flush = FlushOutput();
    if (rv > 0) {
      was_ever_used_ = true;
      return rv;
    }
    if (rv != ERR_IO_PENDING) {
      if (rv < 0) last_error_detail_ = engine_->last_error_detail();
      stream_ended_ = true;
      return rv;
    }
    if (engine_->want() == Want::kOutputSpace) {
      if (flush == ERR_IO_PENDING) return ERR_IO_PENDING;
      if (flush != OK) return flush;
      continue;
    }
    int read = ReadTransport();
    // A transport EOF without close_notify also ends the stream (HTTP/1.1 framing detects
    // truncation itself).
    if (read == ERR_IO_PENDING) return read;
    if (read <= 0) {
      stream_ended_ = true;
      return read;
    }
  }
}

int SslClientSocket::Write(const char* data, int len, CompletionCallback callback) {
  if (state_ != State::kConnected) return ERR_SOCKET_NOT_CONNECTED;
  if (!data || len <= 0 || user_write_buf_) return ERR_INVALID_ARGUMENT;
  user_write_buf_ = data;
  user_write_len_ = len;
  int rv = DoPayloadWriteLoop();
  if (rv == ERR_IO_PENDING) {
    write_callback_ = std::move(callback);
    return rv;
  }
  user_write_buf_ = nullptr;
  user_write_len_ = 0;
  return rv;
}

int SslClientSocket::DoPayloadWriteLoop() {
  while (true) {
    if (transport_write_error_ != OK) return transport_write_error_;
    int rv = engine_->Write(user_write_buf_, user_write_len_);
    int flush = FlushOutput();
    if (rv > 0) {
      was_ever_used_ = true;
      return rv;
    }
    if (rv != ERR_IO_PENDING) {
      last_error_detail_ = engine_->last_error_detail();
      return rv;
    }
    if (flush != OK && flush != ERR_IO_PENDING) return flush;
    if (engine_->want() == Want::kOutputSpace) {
      if (flush == ERR_IO_PENDING) return ERR_IO_PENDING;
      continue;
    }
    // The engine needs peer data before it can write (renegotiation is off; defensive).
    int read = ReadTransport();
    if (read == ERR_IO_PENDING) return ERR_IO_PENDING;
    if (read == 0) return ERR_CONNECTION_CLOSED;
    if (read < 0) return read;
  }
}

int SslClientSocket::FlushOutput() {
  while (true) {
    if (transport_write_error_ != OK) return transport_write_error_;
    if (transport_write_pending_) return ERR_IO_PENDING;
    if (send_offset_ == send_length_) {
      send_offset_ = 0;
      send_length_ = engine_->TakeOutput(send_buf_.get(), TlsClientEngine::kBufferSize);
      if (send_length_ == 0) return OK;
    }
    int rv = transport_->Write(send_buf_.get() + send_offset_,
                               static_cast<int>(send_length_ - send_offset_),
                               [this](int result) { OnTransportWriteComplete(result); });
    if (rv == ERR_IO_PENDING) {
      transport_write_pending_ = true;
      return ERR_IO_PENDING;
    }
    if (rv <= 0) {
      transport_write_error_ = rv < 0 ? rv : ERR_CONNECTION_CLOSED;
      return transport_write_error_;
    }
    send_offset_ += static_cast<size_t>(rv);
  }
}

int SslClientSocket::ReadTransport() {
  if (transport_read_pending_) return ERR_IO_PENDING;
  if (transport_read_error_ != OK) return transport_read_error_;
  if (transport_eof_) return 0;
  // The read asks for no more than the engine can take now. Only FeedInput reduces the
  // engine's InputSpace(), and it is called only with this read's result, so when the read
  // completes the engine takes all of it: no pending-input buffer is needed here.
  // HandleTransportRead checks that anyway.
  size_t space = std::min(engine_->InputSpace(), TlsClientEngine::kBufferSize);
  // The engine asks for input only after consuming what it had, so there is room.
  if (space == 0) {
    last_error_detail_ = "the TLS engine asked for input with its input buffer full";
    return ERR_SSL_PROTOCOL_ERROR;
  }
  int rv = transport_->Read(recv_buf_.get(), static_cast<int>(space),
                            [this](int result) { OnTransportReadComplete(result); });
  if (rv == ERR_IO_PENDING) {
    transport_read_pending_ = true;
    return rv;
  }
  return HandleTransportRead(rv);
}

int SslClientSocket::HandleTransportRead(int result) {
  if (result > 0) {
    size_t fed = engine_->FeedInput(recv_buf_.get(), static_cast<size_t>(result));
    if (fed < static_cast<size_t>(result)) {
      // Only possible if the transport returned more than the read asked for (see
      // ReadTransport). Dropping the rest would corrupt the TLS stream silently: fail instead.
      last_error_detail_ = "the TLS engine took " + std::to_string(fed) + " of " +
                           std::to_string(result) +
                           " received bytes (the transport returned more than asked for)";
      transport_read_error_ = ERR_SSL_PROTOCOL_ERROR;
      return ERR_SSL_PROTOCOL_ERROR;
    }
  } else if (result == 0) {
    transport_eof_ = true;
  } else {
    transport_read_error_ = result;
  }
  return result;
}

void SslClientSocket::OnTransportReadComplete(int result) {
  transport_read_pending_ = false;
  HandleTransportRead(result);
  RetryOperations();
}

void SslClientSocket::OnTransportWriteComplete(int result) {
  transport_write_pending_ = false;
  if (result < 0) {
    transport_write_error_ = result;
  } else {
    send_offset_ += static_cast<size_t>(result);
  }
  // Keep draining what earlier writes left in the engine, even when no operation waits.
  FlushOutput();
  RetryOperations();
}

void SslClientSocket::RetryOperations() {
  if (state_ == State::kHandshaking) {
    int rv = DoHandshakeLoop();
    if (rv == ERR_IO_PENDING) return;
    rv = FinishHandshake(rv);
    RunCallback(connect_callback_, rv);  // May destroy this object: nothing after.
    return;
  }
  if (state_ != State::kConnected) return;
  WeakPtr<SslClientSocket> weak = weak_factory_.GetWeakPtr();
  if (user_read_buf_) {
    int rv = DoPayloadReadLoop();
    if (rv != ERR_IO_PENDING) {
      user_read_buf_ = nullptr;
      user_read_len_ = 0;
      RunCallback(read_callback_, rv);
      if (!weak) return;
    }
  }
  // No Read() waiting: keep processing what arrives (see DoBackgroundReadLoop).
  DoBackgroundReadLoop();
  if (user_write_buf_ && state_ == State::kConnected) {
    int rv = DoPayloadWriteLoop();
    if (rv != ERR_IO_PENDING) {
      user_write_buf_ = nullptr;
      user_write_len_ = 0;
      RunCallback(write_callback_, rv);  // May destroy this object: nothing after.
    }
  }
}

void SslClientSocket::Disconnect() {
  if (state_ == State::kHandshaking) {
    net_log_.EndEventWithNetErrorCode(NetLogEventType::SSL_CONNECT, ERR_ABORTED);
  }
  if (transport_) transport_->Disconnect();
  state_ = State::kDisconnected;
  transport_read_pending_ = false;
  transport_write_pending_ = false;
  connect_callback_ = nullptr;
  user_read_buf_ = nullptr;
  user_read_len_ = 0;
  read_callback_ = nullptr;
  user_write_buf_ = nullptr;
  user_write_len_ = 0;
  write_callback_ = nullptr;
}

bool SslClientSocket::IsConnected() const {
  if (state_ != State::kConnected || stream_ended_) return false;
  if (engine_->HasBufferedInput()) return true;  // Data (or a close_notify) still to read.
  return !peer_finished_ && !transport_eof_ && transport_read_error_ == OK &&
         transport_->IsConnected();
}

bool SslClientSocket::IsConnectedAndIdle() const {
  return state_ == State::kConnected && !stream_ended_ && !peer_finished_ && !transport_eof_ &&
         transport_read_error_ == OK && !engine_->HasBufferedInput() &&
         transport_->IsConnectedAndIdle();
}

int SslClientSocket::GetPeerAddress(IPEndPoint* address) const {
  if (!transport_) return ERR_SOCKET_NOT_CONNECTED;
  return transport_->GetPeerAddress(address);
}

bool SslClientSocket::WasSessionResumed() const {
  return state_ == State::kConnected && engine_->session_resumed();
}

std::string SslClientSocket::TlsVersion() const {
  return engine_ ? engine_->version() : std::string();
}

std::string SslClientSocket::Cipher() const { return engine_ ? engine_->cipher() : std::string(); }

std::string SslClientSocket::NegotiatedProtocol() const {
  return engine_ && engine_->handshake_done() ? engine_->negotiated_protocol() : std::string();
}

bool SslClientSocket::CertificateCoversHost(const std::string& host) const {
  return state_ == State::kConnected && engine_ && engine_->CertificateCoversHost(host);
}

}  // namespace netstack
