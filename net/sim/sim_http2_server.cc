#include "net/sim/sim_http2_server.h"

#include <algorithm>
#include <memory>

#include "net/base/string_util.h"
#include "net/http/http_keep_alive.h"
#include "net/http/http_response_headers.h"
#include "net/sim/sim_world.h"

namespace netstack {

namespace {

// Connection-specific header fields, which HTTP/2 forbids (RFC 9113 section 8.2.2).
bool IsConnectionSpecific(std::string_view name) {
  return name == "connection" || name == "keep-alive" || name == "proxy-connection" ||
         name == "transfer-encoding" || name == "upgrade";
}

std::string Lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = ToLowerAscii(c);
  return out;
}

// The largest header block the server sends (nghttp2's default is 64 KiB): the client's bound
// on response headers is what decides.
constexpr size_t kMaxSendHeaderBlockBytes = 1 << 20;

}  // namespace

SimHttp2Server::SimHttp2Server(SimWorld& world, const SimHost* host, Output* output,
                               const char* scheme, Limits limits)
    : world_(world),
      host_(host),
      output_(output),
      scheme_(scheme),
      limits_(limits),
      departure_timer_(world.scheduler) {
  nghttp2_session_callbacks* callbacks = nullptr;
  nghttp2_option* option = nullptr;
  if (nghttp2_session_callbacks_new(&callbacks) == 0 && nghttp2_option_new(&option) == 0) {
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, &OnBeginHeaders);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, &OnHeader);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &OnFrameRecv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &OnDataChunk);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &OnStreamClose);
    nghttp2_session_callbacks_set_send_data_callback(callbacks, &SendData);
    nghttp2_option_set_max_send_header_block_length(option, kMaxSendHeaderBlockBytes);
    nghttp2_session_server_new2(&session_, callbacks, this, option);
  }
  nghttp2_option_del(option);
  nghttp2_session_callbacks_del(callbacks);
  if (!session_) {
    closed_ = true;  // out of memory: the connection closes when the client's bytes arrive
    return;
  }
  const nghttp2_settings_entry settings[] = {
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, limits_.max_concurrent_streams},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, kInitialWindowSize},
      {NGHTTP2_SETTINGS_MAX_FRAME_SIZE, kMaxFrameSize},
  };
  nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, std::size(settings));
  nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0, kConnectionWindow);
}

SimHttp2Server::~SimHttp2Server() { nghttp2_session_del(session_); }

void SimHttp2Server::OnClientBytes(const char* data, size_t len) {
  const int64_t base = written_;
  written_ += static_cast<int64_t>(len);
  if (overflow_at_ >= 0) return;
  if (static_cast<int64_t>(unread_.size() + len) > limits_.max_unread_input_bytes) {
    overflow_at_ = base;  // the connection ends when these bytes arrive
    return;
  }
  unread_.append(data, len);
}

void SimHttp2Server::OnUplinkDelivered(int64_t delivered) {
  if (!session_) {
    if (!closed_sent_) {
      closed_sent_ = true;
      output_->CloseConnection(world_.scheduler.Now());
    }
    return;
  }
  if (closed_) return;
  const int64_t readable = overflow_at_ >= 0 ? std::min(delivered, overflow_at_) : delivered;
  if (readable > arrived_) {
    const size_t n = static_cast<size_t>(readable - arrived_);
    const ssize_t rv =
        nghttp2_session_mem_recv(session_, reinterpret_cast<const uint8_t*>(unread_.data()), n);
    unread_.erase(0, n);
    arrived_ = readable;
    if (rv < 0) {
      // A bad preface, a flood, a callback failure: nghttp2 cannot go on.
      return Fail(rv == NGHTTP2_ERR_FLOODED ? NGHTTP2_ENHANCE_YOUR_CALM : NGHTTP2_PROTOCOL_ERROR);
    }
  }
  if (overflow_at_ >= 0 && delivered > overflow_at_) return Fail(NGHTTP2_ENHANCE_YOUR_CALM);
  Drain();
}

void SimHttp2Server::OnDownlinkDelivered() {
  if (!any_deferred_ || closed_) return;
  if (output_->PendingOutputBytes() > limits_.max_pending_output_bytes / 2) return;
  any_deferred_ = false;
  for (auto& [stream_id, stream] : streams_) {
    if (!stream.deferred) continue;
    stream.deferred = false;
    nghttp2_session_resume_data(session_, stream_id);
  }
  Drain();
}

void SimHttp2Server::OnRequest(int32_t stream_id) {
  Stream& stream = streams_.at(stream_id);
  SimRequest& request = stream.request;
  const TimeTicks now = world_.scheduler.Now();
  request.arrived_at = now;
  SimHttpServer::NormalizeHost(&request.host, scheme_);
  ++answered_;
  SimHttpServer::Answered answered = SimHttpServer::Respond(world_, host_, request);
  if (answered.depart <= now) {
    Submit(stream_id, std::move(answered.response), answered.body_bytes);
    return;
  }
  stream.departing = true;
  stream.departure = {answered.depart, next_departure_++};
  departures_.emplace(stream.departure,
                      Departure{stream_id, std::move(answered.response), answered.body_bytes});
  ArmDepartureTimer();
}

void SimHttp2Server::ArmDepartureTimer() {
  if (departures_.empty()) {
    departure_timer_.Stop();
    return;
  }
  const TimeTicks next = departures_.begin()->first.first;
  if (departure_timer_.IsRunning() && departure_timer_.desired_run_time() <= next) return;
  departure_timer_.Start(next - world_.scheduler.Now(), [this] { OnDepartureTimer(); });
}

void SimHttp2Server::OnDepartureTimer() {
  const TimeTicks now = world_.scheduler.Now();
  while (!departures_.empty() && departures_.begin()->first.first <= now) {
    Departure departure = std::move(departures_.begin()->second);
    departures_.erase(departures_.begin());
    if (auto it = streams_.find(departure.stream_id); it != streams_.end()) {
      it->second.departing = false;
    }
    Submit(departure.stream_id, std::move(departure.response), departure.body_bytes);
  }
  ArmDepartureTimer();
  Drain();
}

void SimHttp2Server::Submit(int32_t stream_id, SimResponse response, int64_t body_bytes) {
  auto it = streams_.find(stream_id);
  if (it == streams_.end() || it->second.reset) return;
  Stream& stream = it->second;
  // The responder's HTTP/1.1 head; any bytes after its blank line are the body's first bytes.
  const std::string_view head = response.head;
  const size_t blank = head.find("\r\n\r\n");
  const std::string_view block = blank == std::string_view::npos ? head : head.substr(0, blank + 4);
  const std::string_view prefix =
      blank == std::string_view::npos ? std::string_view() : head.substr(blank + 4);
  std::shared_ptr<HttpResponseHeaders> headers = HttpResponseHeaders::Parse(block);
  const int status = headers ? headers->response_code() : 0;
  if (status < 200 || status > 999) {  // unparseable, or no final status (101 among them)
    ResetStream(stream_id, stream, NGHTTP2_INTERNAL_ERROR);
    return;
  }
  const bool head_request = stream.request.method == "HEAD";
  const bool no_body = ResponseHasNoBody(status, head_request);
  const int64_t body = no_body ? 0 : static_cast<int64_t>(prefix.size()) + body_bytes;

  // HPACK fields: :status, then the head's fields in order, lowercased, without the
  // connection-specific ones. A Content-Length says what the DATA carries (HEAD and 304 keep
  // the responder's, which describes the representation; 204 has none).
  std::vector<std::pair<std::string, std::string>> fields;
  fields.reserve(headers->headers().size() + 1);
  fields.emplace_back(":status", std::to_string(status));
  bool has_length = false;
  for (const HttpResponseHeaders::Header& header : headers->headers()) {
    std::string name = Lowercase(header.name);
    if (IsConnectionSpecific(name)) continue;
    if (name == "content-length") {
      if (has_length || status == 204) continue;
      has_length = true;
      fields.emplace_back(std::move(name), no_body ? header.value : std::to_string(body));
      continue;
    }
    fields.emplace_back(std::move(name), header.value);
  }
  std::vector<nghttp2_nv> nva;
  nva.reserve(fields.size());
  for (auto& [name, value] : fields) {
    nva.push_back({reinterpret_cast<uint8_t*>(name.data()),
                   reinterpret_cast<uint8_t*>(value.data()), name.size(), value.size(),
                   NGHTTP2_NV_FLAG_NONE});
  }
  if (body == 0) {
    nghttp2_submit_response(session_, stream_id, nva.data(), nva.size(), nullptr);
    return;
  }
  stream.body_prefix.assign(prefix);
  stream.prefix_sent = 0;
  stream.filler_left = body_bytes;
  nghttp2_data_provider provider;
  provider.source.ptr = nullptr;
  provider.read_callback = &ReadBody;
  nghttp2_submit_response(session_, stream_id, nva.data(), nva.size(), &provider);
}

void SimHttp2Server::ResetStream(int32_t stream_id, Stream& stream, uint32_t error_code) {
  stream.reset = true;
  nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, stream_id, error_code);
}

void SimHttp2Server::Drain() {
  if (closed_ || in_drain_) return;
  in_drain_ = true;
  bool fatal = false;
  for (;;) {
    const uint8_t* data = nullptr;
    const ssize_t n = nghttp2_session_mem_send(session_, &data);
    if (n < 0) {
      fatal = true;
      break;
    }
    if (n == 0) break;
    AppendBytes(data, static_cast<size_t>(n));
  }
  in_drain_ = false;
  if (!batch_.empty()) {
    const bool leading = batch_.size() > 1 || batch_.front().filler > 0;
    const int64_t head_bytes = leading ? static_cast<int64_t>(batch_.front().bytes.size()) : 0;
    output_->SendFrames(world_.scheduler.Now(), batch_, head_bytes);
    batch_.clear();
    batch_bytes_ = 0;
  }
  if (fatal || (!nghttp2_session_want_read(session_) && !nghttp2_session_want_write(session_))) {
    Close();
  }
}

void SimHttp2Server::Fail(uint32_t error_code) {
  if (closed_) return;
  nghttp2_session_terminate_session(session_, error_code);  // GOAWAY, if none was sent
  Drain();
  Close();
}

void SimHttp2Server::Close() {
  if (closed_) return;
  closed_ = true;
  closed_sent_ = true;
  departure_timer_.Stop();
  departures_.clear();
  unread_.clear();
  output_->CloseConnection(world_.scheduler.Now());
}

void SimHttp2Server::AppendBytes(const uint8_t* data, size_t len) {
  if (len == 0) return;
  if (batch_.empty() || batch_.back().filler > 0) batch_.emplace_back();
  batch_.back().bytes.append(reinterpret_cast<const char*>(data), len);
  batch_bytes_ += static_cast<int64_t>(len);
}

void SimHttp2Server::AppendFiller(int64_t count) {
  if (count <= 0) return;
  if (batch_.empty()) batch_.emplace_back();
  batch_.back().filler += count;
  batch_bytes_ += count;
}

// static
int SimHttp2Server::OnBeginHeaders(nghttp2_session*, const nghttp2_frame* frame, void* user) {
  auto* self = static_cast<SimHttp2Server*>(user);
  if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
    self->streams_[frame->hd.stream_id].request.scheme = self->scheme_;
  }
  return 0;
}

// static
int SimHttp2Server::OnHeader(nghttp2_session* session, const nghttp2_frame* frame,
                             const uint8_t* name, size_t namelen, const uint8_t* value,
                             size_t valuelen, uint8_t, void* user) {
  auto* self = static_cast<SimHttp2Server*>(user);
  if (frame->hd.type != NGHTTP2_HEADERS) return 0;
  auto it = self->streams_.find(frame->hd.stream_id);
  if (it == self->streams_.end() || it->second.reset) return 0;
  Stream& stream = it->second;
  stream.header_bytes += namelen + valuelen + 32;
  if (stream.header_bytes > self->limits_.max_header_list_bytes) {
    stream.reset = true;
    nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, frame->hd.stream_id,
                              NGHTTP2_ENHANCE_YOUR_CALM);
    return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
  }
  if (frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;  // trailers: counted only
  const std::string_view n(reinterpret_cast<const char*>(name), namelen);
  const std::string_view v(reinterpret_cast<const char*>(value), valuelen);
  SimRequest& request = stream.request;
  if (n == ":method") {
    request.method = v;
  } else if (n == ":path") {
    request.target = v;
  } else if (n == ":authority" || (n == "host" && request.host.empty())) {
    request.host = v;
  }
  return 0;
}

// static
int SimHttp2Server::OnFrameRecv(nghttp2_session*, const nghttp2_frame* frame, void* user) {
  auto* self = static_cast<SimHttp2Server*>(user);
  if ((frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) ||
      !(frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
    return 0;
  }
  auto it = self->streams_.find(frame->hd.stream_id);
  if (it != self->streams_.end() && !it->second.reset) self->OnRequest(frame->hd.stream_id);
  return 0;
}

// static
int SimHttp2Server::OnDataChunk(nghttp2_session*, uint8_t, int32_t stream_id, const uint8_t*,
                                size_t len, void* user) {
  auto* self = static_cast<SimHttp2Server*>(user);
  auto it = self->streams_.find(stream_id);
  if (it == self->streams_.end() || it->second.reset) return 0;
  Stream& stream = it->second;
  stream.request.body_bytes += static_cast<int64_t>(len);
  if (stream.request.body_bytes > self->limits_.max_body_bytes) {
    self->ResetStream(stream_id, stream, NGHTTP2_ENHANCE_YOUR_CALM);
  }
  return 0;
}

// static
int SimHttp2Server::OnStreamClose(nghttp2_session*, int32_t stream_id, uint32_t, void* user) {
  auto* self = static_cast<SimHttp2Server*>(user);
  auto it = self->streams_.find(stream_id);
  if (it == self->streams_.end()) return 0;
  if (it->second.departing) self->departures_.erase(it->second.departure);
  self->streams_.erase(it);
  return 0;
}

// static
ssize_t SimHttp2Server::ReadBody(nghttp2_session*, int32_t stream_id, uint8_t*, size_t length,
                                 uint32_t* data_flags, nghttp2_data_source*, void* user) {
  auto* self = static_cast<SimHttp2Server*>(user);
  auto it = self->streams_.find(stream_id);
  if (it == self->streams_.end()) {
    *data_flags |= NGHTTP2_DATA_FLAG_EOF;
    return 0;
  }
  Stream& stream = it->second;
  if (self->PendingOutput() >= self->limits_.max_pending_output_bytes) {
    stream.deferred = true;
    self->any_deferred_ = true;
    return NGHTTP2_ERR_DEFERRED;
  }
  const int64_t left =
      static_cast<int64_t>(stream.body_prefix.size() - stream.prefix_sent) + stream.filler_left;
  const int64_t n = std::min<int64_t>(static_cast<int64_t>(length), left);
  // The payload is written by SendData: nothing body-sized is copied.
  *data_flags |= NGHTTP2_DATA_FLAG_NO_COPY;
  if (n == left) *data_flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(n);
}

// static
int SimHttp2Server::SendData(nghttp2_session*, nghttp2_frame* frame, const uint8_t* framehd,
                             size_t length, nghttp2_data_source*, void* user) {
  auto* self = static_cast<SimHttp2Server*>(user);
  self->AppendBytes(framehd, 9);
  const size_t padlen = frame->data.padlen;
  if (padlen > 0) {
    const uint8_t pad_length = static_cast<uint8_t>(padlen - 1);
    self->AppendBytes(&pad_length, 1);
  }
  int64_t filler = static_cast<int64_t>(length);
  if (auto it = self->streams_.find(frame->hd.stream_id); it != self->streams_.end()) {
    Stream& stream = it->second;
    const size_t real = std::min(length, stream.body_prefix.size() - stream.prefix_sent);
    self->AppendBytes(
        reinterpret_cast<const uint8_t*>(stream.body_prefix.data()) + stream.prefix_sent, real);
    stream.prefix_sent += real;
    filler -= static_cast<int64_t>(real);
    stream.filler_left -= filler;
  }
  self->AppendFiller(filler);
  if (padlen > 1) {
    const std::string zeros(padlen - 1, '\0');
    self->AppendBytes(reinterpret_cast<const uint8_t*>(zeros.data()), zeros.size());
  }
  return 0;
}

}  // namespace netstack
