#include "net/http/http_network_transaction.h"

#include <utility>

#include "net/http/url_request_context.h"
#include "net/socket/client_socket_pool.h"

namespace netstack {
namespace {

// How often a request is restarted after a reused socket turned out dead. More than one: each
// restart may pick another idle socket the server has also closed (Chrome allows a few too).
constexpr int kMaxRetries = 3;

}  // namespace

void AddDefaultRequestHeaders(HttpRequestHeaders* headers) {
  headers->SetHeaderIfMissing("Accept", "*/*");
  headers->SetHeaderIfMissing("Accept-Encoding", "gzip, deflate, br");
  headers->SetHeaderIfMissing("User-Agent", "netstack/0.1");
}

HttpNetworkTransaction::HttpNetworkTransaction(UrlRequestContext* context, RequestPriority priority,
                                               const NetLogWithSource& net_log, bool decode_content)
    : context_(context), priority_(priority), net_log_(net_log), decode_content_(decode_content) {}

HttpNetworkTransaction::~HttpNetworkTransaction() {
  // A stream destroyed mid-exchange leaves the socket in an unknown state.
  if (stream_ && !(body_done_ && stream_->CanReuseConnection())) handle_.MarkUnusable();
  stream_.reset();
  handle_.Reset();
}

int HttpNetworkTransaction::Start(HttpRequestInfo info, CompletionCallback callback) {
  info_ = std::move(info);
  message_.method = info_.method;
  message_.target = info_.url.path_and_query();
  message_.host = info_.url.HostHeader();
  message_.headers = info_.extra_headers;
  AddDefaultRequestHeaders(&message_.headers);
  message_.body = info_.body;
  if (info_.method == "POST")
    message_.headers.SetHeaderIfMissing("Content-Length", std::to_string(info_.body.size()));
  timing_ = LoadTimingInfo();
  timing_.request_start = context_->scheduler().Now();
  next_state_ = State::kInitStream;
  int rv = DoLoop(OK);
  if (rv == ERR_IO_PENDING) callback_ = std::move(callback);
  return rv;
}

int HttpNetworkTransaction::DoLoop(int rv) {
  do {
    State state = next_state_;
    next_state_ = State::kNone;
    switch (state) {
      case State::kInitStream:
        rv = DoInitStream();
        break;
      case State::kInitStreamComplete:
        rv = DoInitStreamComplete(rv);
        break;
      case State::kSendRequest:
        rv = DoSendRequest();
        break;
      case State::kSendRequestComplete:
        rv = DoSendRequestComplete(rv);
        break;
      case State::kReadHeaders:
        rv = DoReadHeaders();
        break;
      case State::kReadHeadersComplete:
        rv = DoReadHeadersComplete(rv);
        break;
      case State::kNone:
        return rv;
    }
  } while (rv != ERR_IO_PENDING && next_state_ != State::kNone);
  return rv;
}

int HttpNetworkTransaction::DoInitStream() {
  next_state_ = State::kInitStreamComplete;
  return handle_.Init(
      info_.url.scheme_host_port(), priority_,
      [weak = weak_factory_.GetWeakPtr()](int rv) {
        if (weak) weak->OnIoComplete(rv);
      },
      context_->socket_pool(), net_log_, info_.speculative, info_.request_start);
}

int HttpNetworkTransaction::DoInitStreamComplete(int rv) {
  if (rv != OK) {
    error_detail_ = handle_.connect_error_detail();
    return rv;
  }
  RecordConnectionInfo();
  HttpBasicStream::Params params = context_->config().stream;
  params.decode_content = decode_content_;
  stream_ =
      std::make_unique<HttpBasicStream>(handle_.socket(), context_->scheduler(), net_log_, params);
  next_state_ = State::kSendRequest;
  return OK;
}

int HttpNetworkTransaction::DoSendRequest() {
  next_state_ = State::kSendRequestComplete;
  return stream_->SendRequest(message_, [weak = weak_factory_.GetWeakPtr()](int rv) {
    if (weak) weak->OnIoComplete(rv);
  });
}

int HttpNetworkTransaction::DoSendRequestComplete(int rv) {
  if (rv != OK) {
    if (MaybeRestartOnFreshSocket(rv)) return OK;
    error_detail_ = stream_->error_message();
    return rv;
  }
  next_state_ = State::kReadHeaders;
  return OK;
}

int HttpNetworkTransaction::DoReadHeaders() {
  next_state_ = State::kReadHeadersComplete;
  return stream_->ReadResponseHeaders([weak = weak_factory_.GetWeakPtr()](int rv) {
    if (weak) weak->OnIoComplete(rv);
  });
}

int HttpNetworkTransaction::DoReadHeadersComplete(int rv) {
  if (rv != OK) {
    if (MaybeRestartOnFreshSocket(rv)) return OK;
    error_detail_ = stream_->error_message();
    return rv;
  }
  response_headers_ = stream_->response_headers();
  return OK;
}

bool HttpNetworkTransaction::MaybeRestartOnFreshSocket(int error) {
  const bool connection_error = error == ERR_CONNECTION_RESET || error == ERR_CONNECTION_CLOSED ||
                                error == ERR_CONNECTION_ABORTED || error == ERR_EMPTY_RESPONSE ||
                                error == ERR_SOCKET_NOT_CONNECTED;
  // A socket that sat idle (used before, or preconnected and never used) may have been closed
  // by the server meanwhile; a freshly connected one has no such excuse.
  const bool was_idle = IsIdleSocket(handle_.socket_source());
  if (!connection_error || !was_idle || retries_ >= kMaxRetries || stream_->bytes_received() > 0) {
    return false;
  }
  ++retries_;
  net_log_.AddEvent(NetLogEventType::HTTP_TRANSACTION_RESTART_AFTER_ERROR, [error] {
    return nlohmann::json{{"net_error", error}};
  });
  stream_.reset();
  handle_.ResetAndCloseSocket();
  next_state_ = State::kInitStream;
  return true;
}

void HttpNetworkTransaction::OnIoComplete(int rv) {
  rv = DoLoop(rv);
  if (rv != ERR_IO_PENDING && callback_) {
    CompletionCallback cb = std::move(callback_);
    callback_ = nullptr;
    cb(rv);  // May destroy this.
  }
}

int HttpNetworkTransaction::Read(char* buf, int len, CompletionCallback callback) {
  if (!stream_) return ERR_SOCKET_NOT_CONNECTED;
  int rv = stream_->ReadResponseBody(buf, len, [weak = weak_factory_.GetWeakPtr()](int rv) {
    if (weak) weak->OnReadComplete(rv);
  });
  if (rv == ERR_IO_PENDING) {
    read_callback_ = std::move(callback);
    return rv;
  }
  if (rv <= 0) {
    if (rv < 0) error_detail_ = stream_->error_message();
    if (rv == 0) body_done_ = true;
    ReleaseSocket();
  }
  return rv;
}

void HttpNetworkTransaction::OnReadComplete(int rv) {
  if (rv <= 0) {
    if (rv < 0) error_detail_ = stream_->error_message();
    if (rv == 0) body_done_ = true;
    ReleaseSocket();
  }
  CompletionCallback cb = std::move(read_callback_);
  read_callback_ = nullptr;
  if (cb) cb(rv);  // May destroy this.
}

void HttpNetworkTransaction::ReleaseSocket() {
  if (!stream_ || !handle_.is_initialized()) return;
  // Keep the timing before the stream goes.
  stream_->GetLoadTimingInfo(&timing_);
  encoded_body_bytes_ = stream_->raw_body_bytes();
  if (!(body_done_ && stream_->CanReuseConnection())) handle_.MarkUnusable();
  net_log_.AddEvent(NetLogEventType::HTTP_STREAM_SOCKET_RELEASED, [this] {
    return nlohmann::json{{"reusable", body_done_ && stream_->CanReuseConnection()}};
  });
  stream_.reset();
  handle_.Reset();
}

std::shared_ptr<const HttpResponseHeaders> HttpNetworkTransaction::response_headers() const {
  return response_headers_;
}

LoadTimingInfo HttpNetworkTransaction::GetLoadTimingInfo() const {
  LoadTimingInfo info = timing_;
  if (stream_) stream_->GetLoadTimingInfo(&info);
  return info;
}

int64_t HttpNetworkTransaction::encoded_body_bytes() const {
  return stream_ ? stream_->raw_body_bytes() : encoded_body_bytes_;
}

void HttpNetworkTransaction::RecordConnectionInfo() {
  handle_.GetLoadTimingInfo(&timing_);
  StreamSocket* socket = handle_.socket();
  connection_info_ = ConnectionInfo();
  connection_info_.socket_id = socket->NetLog().source().id;
  connection_info_.socket_source = handle_.socket_source();
  IPEndPoint peer;
  if (socket->GetPeerAddress(&peer) == OK) connection_info_.peer_address = peer.ToString();
  connection_info_.tls_version = socket->TlsVersion();
  connection_info_.tls_resumed = socket->WasSessionResumed();
  connection_info_.dns_from_cache = handle_.dns_from_cache();
  connection_info_.dns_stale = handle_.dns_served_stale();
}

}  // namespace netstack
