#include "net/http2/http2_connection.h"

#include <algorithm>
#include <cstring>

#include "net/base/net_error.h"
#include "net/base/string_util.h"

namespace netstack {

namespace {

// RFC 9113 section 8.2.2: connection-specific fields an HTTP/2 request must not carry.
bool IsConnectionSpecific(std::string_view lower_name) {
  return lower_name == "connection" || lower_name == "keep-alive" ||
         lower_name == "proxy-connection" || lower_name == "transfer-encoding" ||
         lower_name == "upgrade" || lower_name == "host";
}

nghttp2_nv MakeNv(const std::string& name, const std::string& value) {
  nghttp2_nv nv;
  nv.name = reinterpret_cast<uint8_t*>(const_cast<char*>(name.data()));
  nv.namelen = name.size();
  nv.value = reinterpret_cast<uint8_t*>(const_cast<char*>(value.data()));
  nv.valuelen = value.size();
  nv.flags = NGHTTP2_NV_FLAG_NONE;  // nghttp2 copies both
  return nv;
}

// A stream reset by the server, as a net error.
int ErrorForResetCode(uint32_t code) {
  switch (code) {
    case NGHTTP2_REFUSED_STREAM:
      return ERR_HTTP2_SERVER_REFUSED_STREAM;
    case NGHTTP2_FLOW_CONTROL_ERROR:
      return ERR_HTTP2_FLOW_CONTROL_ERROR;
    case NGHTTP2_COMPRESSION_ERROR:
      return ERR_HTTP2_COMPRESSION_ERROR;
    default:
      return ERR_HTTP2_PROTOCOL_ERROR;
  }
}

}  // namespace

Http2Connection::Http2Connection() {
  nghttp2_session_callbacks* callbacks = nullptr;
  nghttp2_option* option = nullptr;
  if (nghttp2_session_callbacks_new(&callbacks) != 0) return;
  if (nghttp2_option_new(&option) != 0) {
    nghttp2_session_callbacks_del(callbacks);
    return;
  }
  nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, &OnBeginHeaders);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, &OnHeader);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &OnFrameRecv);
  nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, &OnFrameSend);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &OnDataChunk);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &OnStreamClose);
  // Windows reopen as the owners consume (ConsumeData), not as bytes arrive.
  nghttp2_option_set_no_auto_window_update(option, 1);
  nghttp2_option_set_peer_max_concurrent_streams(option, kInitialMaxConcurrentStreams);
  const int rv = nghttp2_session_client_new2(&session_, callbacks, this, option);
  nghttp2_session_callbacks_del(callbacks);
  nghttp2_option_del(option);
  if (rv != 0) {
    session_ = nullptr;
    return;
  }
  const nghttp2_settings_entry settings[] = {
      {NGHTTP2_SETTINGS_HEADER_TABLE_SIZE, kHeaderTableSize},
      {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, kInitialWindowSize},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, kMaxHeaderListBytes},
  };
  if (nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, std::size(settings)) != 0 ||
      nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0, kSessionWindowSize) !=
          0) {
    nghttp2_session_del(session_);
    session_ = nullptr;
    return;
  }
  Flush();
}

int32_t Http2Connection::send_window() const {
  return session_ ? nghttp2_session_get_remote_window_size(session_) : -1;
}

int32_t Http2Connection::recv_window() const {
  return session_ ? nghttp2_session_get_local_window_size(session_) : -1;
}

int32_t Http2Connection::StreamIdOf(int request_id) const {
  auto it = requests_.find(request_id);
  return it == requests_.end() ? 0 : it->second.stream_id;
}

Http2Connection::~Http2Connection() {
  going_away_ = true;  // a delegate submitting from its OnStreamClosed is refused
  while (!requests_.empty()) Close(requests_.begin()->first, ERR_ABORTED, false);
  if (session_) nghttp2_session_del(session_);
}

// static
int32_t Http2Connection::WeightForPriority(RequestPriority priority) {
  // Chrome: HIGHEST..THROTTLED are SPDY/3 priorities 0..5 (ConvertRequestPriorityToSpdyPriority),
  // and Spdy3PriorityToHttp2Weight spreads 0..7 over 256..1 in steps of 255.9 / 7.
  const int spdy3 = MAXIMUM_PRIORITY - priority;
  return static_cast<int32_t>(255.9f / 7.f * static_cast<float>(7 - spdy3)) + 1;
}

size_t Http2Connection::queued_requests() const {
  size_t n = 0;
  for (const std::deque<int>& q : queued_) n += q.size();
  return n;
}

int Http2Connection::Submit(const Http2RequestHead& head, RequestPriority priority,
                            Http2StreamDelegate* delegate) {
  if (!IsAvailable()) return ERR_CONNECTION_CLOSED;
  if (queued_requests() >= kMaxQueuedRequests) return ERR_INSUFFICIENT_RESOURCES;
  const int id = next_request_id_++;
  // It waits if the server's limit is reached now (or others of its priority already wait).
  if (by_stream_.size() >= StreamLimit() || queued_requests() > 0) ++stats_.streams_queued;
  Request& request = requests_[id];
  request.head = head;
  request.priority = std::clamp(priority, MINIMUM_PRIORITY, MAXIMUM_PRIORITY);
  request.delegate = delegate;
  queued_[request.priority].push_back(id);
  if (!in_callback_) {
    StartQueued();
    Flush();
  }
  return id;
}

void Http2Connection::StartQueued() {
  if (!session_ || going_away_ || error_ != 0) return;
  const uint32_t limit = StreamLimit();
  for (int p = MAXIMUM_PRIORITY; p >= MINIMUM_PRIORITY; --p) {
    std::deque<int>& queue = queued_[p];
    while (!queue.empty() && by_stream_.size() < limit) {
      const int id = queue.front();
      queue.pop_front();
      StartRequest(id);
    }
  }
}

int Http2Connection::StartRequest(int request_id) {
  Request& request = requests_.at(request_id);
  const Http2RequestHead& head = request.head;
  // Pseudo-headers in Chrome's order, then the request's own, lowercased.
  static const std::string kMethod = ":method", kAuthority = ":authority", kScheme = ":scheme",
                           kPath = ":path";
  std::vector<std::string> names;
  names.reserve(head.headers.size());
  std::vector<nghttp2_nv> nva;
  nva.reserve(head.headers.size() + 4);
  nva.push_back(MakeNv(kMethod, head.method));
  nva.push_back(MakeNv(kAuthority, head.authority));
  nva.push_back(MakeNv(kScheme, head.scheme));
  nva.push_back(MakeNv(kPath, head.path));
  for (const auto& [name, value] : head.headers) {
    names.push_back(ToLowerAscii(name));
    if (IsConnectionSpecific(names.back())) continue;
    nva.push_back(MakeNv(names.back(), value));
  }
  nghttp2_priority_spec priority;
  nghttp2_priority_spec_init(&priority, 0, WeightForPriority(request.priority), 0);
  nghttp2_data_provider body;
  body.source.ptr = nullptr;
  body.read_callback = &ReadBody;
  const int32_t stream_id = nghttp2_submit_request(session_, &priority, nva.data(), nva.size(),
                                                   head.body.empty() ? nullptr : &body, nullptr);
  if (stream_id < 0) {
    // Stream ids exhausted: the server never saw it, another connection may take it.
    Close(request_id, ERR_HTTP2_PROTOCOL_ERROR, stream_id == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE);
    return ERR_HTTP2_PROTOCOL_ERROR;
  }
  request.stream_id = stream_id;
  by_stream_[stream_id] = request_id;
  ++stats_.streams_started;
  return OK;
}

void Http2Connection::CancelRequest(int request_id) {
  auto it = requests_.find(request_id);
  if (it == requests_.end()) return;
  Request& request = it->second;
  if (request.stream_id == 0) {
    Unqueue(request_id, request.priority);
  } else {
    by_stream_[request.stream_id] = 0;  // still counts as open until nghttp2 closes it
    if (session_) {
      nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, request.stream_id, NGHTTP2_CANCEL);
      if (request.unconsumed > 0) nghttp2_session_consume_connection(session_, request.unconsumed);
    }
  }
  requests_.erase(it);
  if (!in_callback_) Flush();
}

void Http2Connection::ConsumeData(int request_id, size_t bytes) {
  auto it = requests_.find(request_id);
  if (it == requests_.end() || !session_) return;
  Request& request = it->second;
  bytes = std::min(bytes, request.unconsumed);
  if (bytes == 0) return;
  request.unconsumed -= bytes;
  nghttp2_session_consume(session_, request.stream_id, bytes);
  if (!in_callback_) Flush();
}

int Http2Connection::OnBytesRead(std::string_view data) {
  if (error_ != 0) return error_;
  if (!session_) return ERR_HTTP2_PROTOCOL_ERROR;
  in_callback_ = true;
  const ssize_t rv = nghttp2_session_mem_recv(
      session_, reinterpret_cast<const uint8_t*>(data.data()), data.size());
  in_callback_ = false;
  if (rv < 0) {
    Fail(ERR_HTTP2_PROTOCOL_ERROR);
    return error_;
  }
  if (going_away_) {
    // Requests still waiting here were never sent: they may go to another connection.
    for (std::deque<int>& queue : queued_) {
      while (!queue.empty()) {
        const int id = queue.front();
        queue.pop_front();
        Close(id, ERR_CONNECTION_CLOSED, /*retriable=*/true);
      }
    }
  }
  StartQueued();
  if (!Flush()) return error_;
  // nghttp2 answered a connection error with GOAWAY and wants nothing more: the connection
  // failed.
  if (sent_goaway_error_ && !nghttp2_session_want_read(session_)) {
    Fail(ERR_HTTP2_PROTOCOL_ERROR);
    return error_;
  }
  return OK;
}

void Http2Connection::OnTransportClosed(int error) {
  if (error >= 0) error = ERR_CONNECTION_CLOSED;
  Fail(error);
}

void Http2Connection::Shutdown() {
  if (!session_ || going_away_) return;
  going_away_ = true;
  nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE,
                        nghttp2_session_get_last_proc_stream_id(session_), NGHTTP2_NO_ERROR,
                        nullptr, 0);
  if (!in_callback_) Flush();
}

bool Http2Connection::WantsWrite() const { return !output_.empty(); }

std::string Http2Connection::TakeOutput() { return std::exchange(output_, std::string()); }

bool Http2Connection::Flush() {
  if (!session_ || error_ != 0) return error_ == 0;
  for (;;) {
    const uint8_t* data = nullptr;
    in_callback_ = true;
    const ssize_t n = nghttp2_session_mem_send(session_, &data);
    in_callback_ = false;
    if (n < 0) {
      Fail(ERR_HTTP2_PROTOCOL_ERROR);
      return false;
    }
    if (n == 0) return true;
    output_.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
  }
}

void Http2Connection::Fail(int error) {
  if (error_ == 0) error_ = error;
  while (!requests_.empty()) {
    const auto& [id, request] = *requests_.begin();
    // A request the server never received may be retried elsewhere.
    const bool never_sent = request.stream_id == 0;
    Close(id, error_, never_sent);  // also takes it out of its queue
  }
}

void Http2Connection::Close(int request_id, int error, bool retriable) {
  auto it = requests_.find(request_id);
  if (it == requests_.end()) return;
  Request& request = it->second;
  if (request.stream_id == 0) {
    Unqueue(request_id, request.priority);
  } else {
    by_stream_.erase(request.stream_id);
    // Whatever the owner did not consume no longer holds the connection's window.
    if (session_ && request.unconsumed > 0 && error_ == 0)
      nghttp2_session_consume_connection(session_, request.unconsumed);
  }
  Http2StreamDelegate* delegate = request.delegate;
  requests_.erase(it);
  if (delegate) delegate->OnStreamClosed(error, retriable);
}

uint32_t Http2Connection::StreamLimit() const {
  return std::min<uint32_t>(
      kMaxConcurrentStreamLimit,
      nghttp2_session_get_remote_settings(session_, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS));
}

void Http2Connection::Unqueue(int request_id, RequestPriority priority) {
  std::deque<int>& queue = queued_[priority];
  queue.erase(std::remove(queue.begin(), queue.end(), request_id), queue.end());
}

Http2Connection::Request* Http2Connection::ByStream(int32_t stream_id) {
  auto it = by_stream_.find(stream_id);
  if (it == by_stream_.end() || it->second == 0) return nullptr;
  auto request = requests_.find(it->second);
  return request == requests_.end() ? nullptr : &request->second;
}

// static
int Http2Connection::OnBeginHeaders(nghttp2_session*, const nghttp2_frame* frame, void* user) {
  auto* self = static_cast<Http2Connection*>(user);
  if (frame->hd.type != NGHTTP2_HEADERS) return 0;
  if (Request* request = self->ByStream(frame->hd.stream_id)) {
    // A new header block: a final head after 1xx, or trailers (ignored).
    if (!request->headers_reported) {
      request->status = 0;
      request->headers.clear();
      request->header_bytes = 0;
    }
  }
  return 0;
}

// static
int Http2Connection::OnHeader(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                              size_t namelen, const uint8_t* value, size_t valuelen, uint8_t,
                              void* user) {
  auto* self = static_cast<Http2Connection*>(user);
  if (frame->hd.type != NGHTTP2_HEADERS) return 0;
  Request* request = self->ByStream(frame->hd.stream_id);
  if (!request || request->headers_reported) return 0;  // cancelled, or trailers
  // RFC 9113 6.5.2's accounting: name + value + 32 per field.
  request->header_bytes += namelen + valuelen + 32;
  if (request->header_bytes > kMaxHeaderListBytes) {
    request->header_error = ERR_RESPONSE_HEADERS_TOO_BIG;
    return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;  // resets this stream only
  }
  std::string_view n(reinterpret_cast<const char*>(name), namelen);
  std::string_view v(reinterpret_cast<const char*>(value), valuelen);
  if (n == ":status") {
    int status = 0;
    for (char c : v) status = status * 10 + (c - '0');  // nghttp2 checked: three digits
    request->status = status;
  } else if (!n.empty() && n[0] != ':') {
    request->headers.emplace_back(std::string(n), std::string(v));
  }
  return 0;
}

// static
int Http2Connection::OnFrameRecv(nghttp2_session* session, const nghttp2_frame* frame, void* user) {
  auto* self = static_cast<Http2Connection*>(user);
  ++self->stats_.frames_received;
  if (self->frame_observer_) self->frame_observer_(false, *frame);
  switch (frame->hd.type) {
    case NGHTTP2_SETTINGS:
      if (!(frame->hd.flags & NGHTTP2_FLAG_ACK)) {
        self->stats_.max_concurrent_streams = self->StreamLimit();
        self->stats_.received_settings = true;
      }
      break;
    case NGHTTP2_GOAWAY:
      self->going_away_ = true;
      self->stats_.last_goaway_stream_id = frame->goaway.last_stream_id;
      self->stats_.goaway_error_code = frame->goaway.error_code;
      break;
    case NGHTTP2_HEADERS:
      if (frame->hd.flags & NGHTTP2_FLAG_END_HEADERS) {
        Request* request = self->ByStream(frame->hd.stream_id);
        if (request && !request->headers_reported && request->status >= 200) {
          request->headers_reported = true;
          request->delegate->OnResponseHeaders(request->status, std::move(request->headers));
          request = self->ByStream(frame->hd.stream_id);  // the delegate may have cancelled
        }
        if (request && (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) request->end_stream = true;
      }
      break;
    case NGHTTP2_DATA:
      if (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) {
        if (Request* request = self->ByStream(frame->hd.stream_id)) request->end_stream = true;
      }
      break;
    default:
      break;
  }
  return 0;
}

// static
int Http2Connection::OnFrameSend(nghttp2_session*, const nghttp2_frame* frame, void* user) {
  auto* self = static_cast<Http2Connection*>(user);
  ++self->stats_.frames_sent;
  if (self->frame_observer_) self->frame_observer_(true, *frame);
  if (frame->hd.type == NGHTTP2_GOAWAY && frame->goaway.error_code != NGHTTP2_NO_ERROR)
    self->sent_goaway_error_ = true;
  return 0;
}

// static
int Http2Connection::OnDataChunk(nghttp2_session* session, uint8_t, int32_t stream_id,
                                 const uint8_t* data, size_t len, void* user) {
  auto* self = static_cast<Http2Connection*>(user);
  Request* request = self->ByStream(stream_id);
  if (!request || !request->headers_reported) {
    // A cancelled stream's data: nobody holds it.
    nghttp2_session_consume_connection(session, len);
    return 0;
  }
  request->unconsumed += len;
  request->delegate->OnData(std::string_view(reinterpret_cast<const char*>(data), len));
  return 0;
}

// static
int Http2Connection::OnStreamClose(nghttp2_session*, int32_t stream_id, uint32_t error_code,
                                   void* user) {
  auto* self = static_cast<Http2Connection*>(user);
  auto it = self->by_stream_.find(stream_id);
  if (it == self->by_stream_.end()) return 0;
  const int request_id = it->second;
  if (request_id == 0) {  // cancelled: its owner has gone
    self->by_stream_.erase(it);
    return 0;
  }
  Request* request = self->ByStream(stream_id);
  if (!request) {
    self->by_stream_.erase(it);
    return 0;
  }
  int error = OK;
  bool retriable = false;
  if (request->header_error != 0) {
    error = request->header_error;
  } else if (request->end_stream && request->headers_reported) {
    error = OK;  // complete (a RST_STREAM NO_ERROR after the end changes nothing)
  } else if (error_code == NGHTTP2_REFUSED_STREAM) {
    // Refused, or above a GOAWAY's last stream id (nghttp2 closes those as refused): the
    // server did not process it.
    error = ERR_HTTP2_SERVER_REFUSED_STREAM;
    retriable = !request->headers_reported;
  } else {
    error = ErrorForResetCode(error_code);
  }
  self->Close(request_id, error, retriable);
  return 0;
}

// static
ssize_t Http2Connection::ReadBody(nghttp2_session*, int32_t stream_id, uint8_t* buf, size_t length,
                                  uint32_t* data_flags, nghttp2_data_source*, void* user) {
  auto* self = static_cast<Http2Connection*>(user);
  Request* request = self->ByStream(stream_id);
  if (!request) {
    *data_flags |= NGHTTP2_DATA_FLAG_EOF;
    return 0;
  }
  const std::string& body = request->head.body;
  const size_t n = std::min(length, body.size() - request->body_sent);
  std::memcpy(buf, body.data() + request->body_sent, n);
  request->body_sent += n;
  if (request->body_sent == body.size()) *data_flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(n);
}

}  // namespace netstack
