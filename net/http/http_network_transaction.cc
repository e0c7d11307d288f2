#include "net/http/http_network_transaction.h"

#include <algorithm>
#include <utility>

#include "net/base/string_util.h"
#include "net/http/http2_http_stream.h"
#include "net/http/url_request_context.h"
#include "net/http2/http2_session_pool.h"
#include "net/socket/client_socket_pool.h"

namespace netstack {
namespace {

// How often a request is restarted after a reused socket turned out dead, or an HTTP/2 server
// refused or dropped it unprocessed. More than one: each restart may pick another idle socket
// the server has also closed (Chrome allows a few too).
constexpr int kMaxRetries = 3;

}  // namespace

void AddDefaultRequestHeaders(HttpRequestHeaders* headers,
                              const std::vector<std::string>& omitted) {
  static constexpr std::pair<const char*, const char*> kDefaults[] = {
      {"Accept", "*/*"}, {"Accept-Encoding", "gzip, deflate, br"}, {"User-Agent", "netstack/0.1"}};
  for (const auto& [name, value] : kDefaults) {
    const bool omit = std::any_of(omitted.begin(), omitted.end(), [name = name](const auto& o) {
      return EqualsCaseInsensitiveAscii(o, name);
    });
    if (!omit) headers->SetHeaderIfMissing(name, value);
  }
}

HttpNetworkTransaction::HttpNetworkTransaction(UrlRequestContext* context, RequestPriority priority,
                                               const NetLogWithSource& net_log, bool decode_content)
    : context_(context),
      priority_(priority),
      net_log_(net_log),
      decode_content_(decode_content),
      handle_(std::make_unique<ClientSocketHandle>()),
      throttle_timer_(context->scheduler()),
      headers_timer_(context->scheduler()) {}

HttpNetworkTransaction::~HttpNetworkTransaction() {
  StopWaitingForSession();
  // A stream destroyed mid-exchange leaves the socket in an unknown state.
  if (stream_ && !(body_done_ && stream_->CanReuseConnection())) handle_->MarkUnusable();
  stream_.reset();
  handle_->Reset();
}

int HttpNetworkTransaction::Start(HttpRequestInfo info, CompletionCallback callback) {
  info_ = std::move(info);
  message_.method = info_.method;
  message_.target = info_.url.path_and_query();
  message_.host = info_.url.HostHeader();
  message_.headers = info_.extra_headers;
  AddDefaultRequestHeaders(&message_.headers, info_.omitted_headers);
  message_.body = info_.body;
  // Any method may carry a body (curl's -X PUT -d, DELETE with a body); POST, PUT and PATCH say
  // Content-Length: 0 without one, as curl and browsers do.
  if (!info_.body.empty() || info_.method == "POST" || info_.method == "PUT" ||
      info_.method == "PATCH")
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
      case State::kResolveForPooling:
        rv = DoResolveForPooling();
        break;
      case State::kResolveForPoolingComplete:
        rv = DoResolveForPoolingComplete(rv);
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

bool HttpNetworkTransaction::CanUseHttp2() const {
  const Http2SessionPool* pool = context_->http2_session_pool();
  if (!pool) return false;
  if (info_.url.scheme() == "https") return context_->config().http2.offered_in_alpn;
  return context_->config().http2.prior_knowledge;
}

int HttpNetworkTransaction::DoInitStream() {
  const SchemeHostPort key = info_.url.scheme_host_port();
  Http2SessionPool* h2 = context_->http2_session_pool();
  if (CanUseHttp2()) {
    if (Http2Session* session = h2->FindAvailableSession(key)) {
      UseSession(session, SocketSource::kHttp2Session,
                 NetLogEventType::HTTP2_SESSION_POOL_FOUND_EXISTING_SESSION);
      next_state_ = State::kSendRequest;
      return OK;
    }
    // Another origin's session may cover this one: resolve first (the host cache makes the
    // connect job's own lookup free afterwards). Only worth it while sessions exist.
    if (!tried_ip_pooling_ && h2->session_count() > 0 && key.scheme == "https" &&
        h2->params().enable_ip_pooling) {
      tried_ip_pooling_ = true;
      next_state_ = State::kResolveForPooling;
      return OK;
    }
    if (session_waiter_ == 0) {
      session_waiter_ = h2->AddWaiter(
          key,
          [weak = weak_factory_.GetWeakPtr()] {
            if (weak) weak->OnSessionAvailable();
          },
          [weak = weak_factory_.GetWeakPtr()] {
            // The session will carry this request: stop asking the pool for a socket now, so
            // a slot freed before the callback runs does not start a connect for it.
            if (weak && weak->handle_->is_pending()) weak->handle_->Reset();
          });
    }
    // Known to speak h2 and already connecting: its session will carry this request too.
    if (session_waiter_ != 0 && !throttle_expired_ && h2->IsKnownHttp2(key) &&
        h2->ConnectsInFlight(key) > 0) {
      throttle_timer_.Start(h2->params().throttle_delay, [weak = weak_factory_.GetWeakPtr()] {
        if (weak) weak->OnThrottleExpired();
      });
      next_state_ = State::kInitStream;
      return ERR_IO_PENDING;
    }
    h2->OnConnectStarted(key);
    counted_connect_ = true;
  }
  next_state_ = State::kInitStreamComplete;
  return handle_->Init(
      key, priority_,
      [weak = weak_factory_.GetWeakPtr()](int rv) {
        if (weak) weak->OnIoComplete(rv);
      },
      context_->socket_pool(), net_log_, info_.speculative, info_.request_start);
}

int HttpNetworkTransaction::DoResolveForPooling() {
  next_state_ = State::kResolveForPoolingComplete;
  pooling_resolve_ = context_->host_resolver()->CreateRequest(
      info_.url.host(), info_.url.scheme_host_port().port, priority_, net_log_);
  return pooling_resolve_->Start([weak = weak_factory_.GetWeakPtr()](int rv) {
    if (weak) weak->OnIoComplete(rv);
  });
}

int HttpNetworkTransaction::DoResolveForPoolingComplete(int rv) {
  next_state_ = State::kInitStream;
  if (rv == OK) {
    std::vector<IPAddress> addresses;
    for (const IPEndPoint& e : pooling_resolve_->addresses()) addresses.push_back(e.address());
    if (Http2Session* session = context_->http2_session_pool()->FindSessionByAddresses(
            info_.url.scheme_host_port(), addresses)) {
      pooling_resolve_.reset();
      UseSession(session, SocketSource::kHttp2Session,
                 NetLogEventType::HTTP2_SESSION_POOL_FOUND_EXISTING_SESSION_FROM_IP_POOL);
      next_state_ = State::kSendRequest;
      return OK;
    }
  }
  // No session to share (or the lookup failed: the connect job's own lookup reports it).
  pooling_resolve_.reset();
  return OK;
}

void HttpNetworkTransaction::OnSessionAvailable() {
  session_waiter_ = 0;
  if (next_state_ != State::kInitStream && next_state_ != State::kInitStreamComplete) return;
  StopWaitingForSession();
  // Cancels the socket request, if any: its connect job goes on and its socket will wait idle.
  handle_->Reset();
  next_state_ = State::kInitStream;
  OnIoComplete(OK);
}

void HttpNetworkTransaction::OnThrottleExpired() {
  throttle_expired_ = true;
  next_state_ = State::kInitStream;
  OnIoComplete(OK);
}

void HttpNetworkTransaction::StopWaitingForSession() {
  throttle_timer_.Stop();
  Http2SessionPool* h2 = context_->http2_session_pool();
  if (!h2) return;
  if (session_waiter_ != 0) h2->RemoveWaiter(session_waiter_);
  session_waiter_ = 0;
  if (counted_connect_) h2->OnConnectFinished(info_.url.scheme_host_port());
  counted_connect_ = false;
}

int HttpNetworkTransaction::DoInitStreamComplete(int rv) {
  StopWaitingForSession();
  if (rv != OK) {
    error_detail_ = handle_->connect_error_detail();
    return rv;
  }
  RecordConnectionInfo();
  StreamSocket* socket = handle_->socket();
  const bool h2 =
      CanUseHttp2() && (info_.url.scheme() == "https" ? socket->NegotiatedProtocol() == "h2"
                                                      : context_->config().http2.prior_knowledge);
  if (h2) {
    const SchemeHostPort key = info_.url.scheme_host_port();
    Http2SessionPool* pool = context_->http2_session_pool();
    if (Http2Session* existing = pool->FindAvailableSession(key)) {
      // Another request's connect won the race: this socket goes back to the pool unused.
      handle_->Reset();
      UseSession(existing, SocketSource::kHttp2Session,
                 NetLogEventType::HTTP2_SESSION_POOL_FOUND_EXISTING_SESSION);
    } else {
      const SocketSource source = handle_->socket_source();
      std::unique_ptr<ClientSocketHandle> handle = std::move(handle_);
      handle_ = std::make_unique<ClientSocketHandle>();
      Http2Session* session = pool->CreateSession(key, std::move(handle));
      UseSession(session, source, NetLogEventType::HTTP2_SESSION_POOL_IMPORTED_SESSION_FROM_SOCKET);
    }
    next_state_ = State::kSendRequest;
    return OK;
  }
  connection_info_.protocol = "http/1.1";
  HttpBasicStream::Params params = context_->config().stream;
  params.decode_content = decode_content_;
  stream_ =
      std::make_unique<HttpBasicStream>(handle_->socket(), context_->scheduler(), net_log_, params);
  next_state_ = State::kSendRequest;
  return OK;
}

void HttpNetworkTransaction::UseSession(Http2Session* session, SocketSource source,
                                        NetLogEventType event) {
  net_log_.AddEventReferencingSource(event, session->net_log().source());
  if (source == SocketSource::kHttp2Session) {
    // No connection setup of its own: like a reused socket, the timing has no connect part.
    connection_info_ = ConnectionInfo();
    connection_info_.socket_source = source;
    if (const StreamSocket* socket = session->socket()) {
      connection_info_.socket_id = socket->NetLog().source().id;
      IPEndPoint peer;
      if (socket->GetPeerAddress(&peer) == OK) connection_info_.peer_address = peer.ToString();
      connection_info_.tls_version = socket->TlsVersion();
      connection_info_.tls_resumed = socket->WasSessionResumed();
    }
  }
  connection_info_.protocol = "h2";
  connection_info_.h2_session_id = session->net_log().source().id;
  HttpBasicStream::Params params = context_->config().stream;
  params.decode_content = decode_content_;
  auto stream =
      std::make_unique<Http2HttpStream>(session->GetWeakPtr(), priority_, info_.url.scheme(),
                                        context_->scheduler(), net_log_, params);
  h2_stream_ = stream.get();
  stream_ = std::move(stream);
}

bool HttpNetworkTransaction::MaybeRetryHttp2(int error) {
  if (!h2_stream_ || !h2_stream_->retriable() || retries_ >= kMaxRetries) return false;
  ++retries_;
  net_log_.AddEvent(NetLogEventType::HTTP_TRANSACTION_RESTART_AFTER_ERROR, [error] {
    return nlohmann::json{{"net_error", error}};
  });
  h2_stream_ = nullptr;
  stream_.reset();
  tried_ip_pooling_ = false;
  next_state_ = State::kInitStream;
  return true;
}

int HttpNetworkTransaction::DoSendRequest() {
  next_state_ = State::kSendRequestComplete;
  return stream_->SendRequest(message_, [weak = weak_factory_.GetWeakPtr()](int rv) {
    if (weak) weak->OnIoComplete(rv);
  });
}

int HttpNetworkTransaction::DoSendRequestComplete(int rv) {
  if (rv != OK) {
    if (MaybeRetryHttp2(rv) || MaybeRestartOnFreshSocket(rv)) return OK;
    error_detail_ = stream_->error_message();
    return rv;
  }
  next_state_ = State::kReadHeaders;
  const TimeDelta headers_timeout = context_->config().limits.headers_timeout;
  if (headers_timeout > TimeDelta::zero()) {
    headers_timer_.Start(headers_timeout, [this] { OnHeadersTimeout(); });
  }
  return OK;
}

int HttpNetworkTransaction::DoReadHeaders() {
  next_state_ = State::kReadHeadersComplete;
  return stream_->ReadResponseHeaders([weak = weak_factory_.GetWeakPtr()](int rv) {
    if (weak) weak->OnIoComplete(rv);
  });
}

int HttpNetworkTransaction::DoReadHeadersComplete(int rv) {
  headers_timer_.Stop();
  if (rv != OK) {
    if (MaybeRetryHttp2(rv) || MaybeRestartOnFreshSocket(rv)) return OK;
    error_detail_ = stream_->error_message();
    return rv;
  }
  if (h2_stream_) connection_info_.h2_stream_id = h2_stream_->stream_id();
  response_headers_ = stream_->response_headers();
  return OK;
}

bool HttpNetworkTransaction::MaybeRestartOnFreshSocket(int error) {
  const bool connection_error = error == ERR_CONNECTION_RESET || error == ERR_CONNECTION_CLOSED ||
                                error == ERR_CONNECTION_ABORTED || error == ERR_EMPTY_RESPONSE ||
                                error == ERR_SOCKET_NOT_CONNECTED;
  // A socket that sat idle (used before, or preconnected and never used) may have been closed
  // by the server meanwhile; a freshly connected one has no such excuse.
  if (h2_stream_) return false;  // MaybeRetryHttp2 decides for HTTP/2
  const bool was_idle = IsIdleSocket(handle_->socket_source());
  if (!connection_error || !was_idle || retries_ >= kMaxRetries || stream_->bytes_received() > 0) {
    return false;
  }
  ++retries_;
  net_log_.AddEvent(NetLogEventType::HTTP_TRANSACTION_RESTART_AFTER_ERROR, [error] {
    return nlohmann::json{{"net_error", error}};
  });
  stream_.reset();
  handle_->ResetAndCloseSocket();
  next_state_ = State::kInitStream;
  return true;
}

void HttpNetworkTransaction::OnHeadersTimeout() {
  if (next_state_ != State::kReadHeadersComplete) return;
  next_state_ = State::kNone;
  error_detail_ = "the response headers were not complete " +
                  FormatSeconds(context_->config().limits.headers_timeout) +
                  " s after the request was sent";
  // Mid-response: the HTTP/1.1 socket is closed (not pooled), the HTTP/2 stream cancelled.
  if (!h2_stream_) handle_->MarkUnusable();
  stream_->GetLoadTimingInfo(&timing_);
  h2_stream_ = nullptr;
  stream_.reset();
  handle_->Reset();
  CompletionCallback cb = std::move(callback_);
  callback_ = nullptr;
  if (cb) cb(ERR_TIMED_OUT);  // May destroy this.
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
  if (h2_stream_) {
    // Nothing to give back: the session stays in its pool. Keep the stream's figures.
    stream_->GetLoadTimingInfo(&timing_);
    encoded_body_bytes_ = stream_->raw_body_bytes();
    return;
  }
  if (!stream_ || !handle_->is_initialized()) return;
  // Keep the timing before the stream goes.
  stream_->GetLoadTimingInfo(&timing_);
  encoded_body_bytes_ = stream_->raw_body_bytes();
  if (!(body_done_ && stream_->CanReuseConnection())) handle_->MarkUnusable();
  net_log_.AddEvent(NetLogEventType::HTTP_STREAM_SOCKET_RELEASED, [this] {
    return nlohmann::json{{"reusable", body_done_ && stream_->CanReuseConnection()}};
  });
  stream_.reset();
  handle_->Reset();
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
  handle_->GetLoadTimingInfo(&timing_);
  StreamSocket* socket = handle_->socket();
  connection_info_ = ConnectionInfo();
  connection_info_.socket_id = socket->NetLog().source().id;
  connection_info_.socket_source = handle_->socket_source();
  IPEndPoint peer;
  if (socket->GetPeerAddress(&peer) == OK) connection_info_.peer_address = peer.ToString();
  connection_info_.tls_version = socket->TlsVersion();
  connection_info_.tls_resumed = socket->WasSessionResumed();
  connection_info_.dns_from_cache = handle_->dns_from_cache();
  connection_info_.dns_stale = handle_->dns_served_stale();
}

}  // namespace netstack
