#include "net/http/http2_http_stream.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "net/base/pooled_string.h"
#include "net/base/string_util.h"
#include "net/http/http_util.h"

namespace netstack {

namespace {

// Received-body buffers, reused across streams: a replay opens one stream per request, and each
// new buffer grew (copying what it held) as DATA came in faster than the reader took it. At most
// 16 x 256 KiB kept per thread.
using BodyBufferPool = PooledString<256 * 1024, 16>;

}  // namespace

Http2HttpStream::Http2HttpStream(WeakPtr<Http2Session> session, RequestPriority priority,
                                 std::string scheme, Scheduler& scheduler,
                                 const NetLogWithSource& net_log,
                                 const HttpBasicStream::Params& params)
    : session_(std::move(session)),
      priority_(priority),
      scheme_(std::move(scheme)),
      scheduler_(scheduler),
      net_log_(net_log),
      params_(params),
      idle_timer_(scheduler) {
  if (Http2Session* s = session_.get()) session_id_ = s->net_log().source().id;
}

Http2HttpStream::~Http2HttpStream() {
  weak_factory_.InvalidateWeakPtrs();
  idle_timer_.Stop();
  if (request_id_ > 0 && !stream_closed_) {
    if (Http2Session* session = session_.get()) session->CancelRequest(request_id_);
  }
  BodyBufferPool::Give(std::move(body_));
}

int Http2HttpStream::SendRequest(const HttpRequestMessage& request, CompletionCallback callback) {
  Http2Session* session = session_.get();
  if (!session || !session->IsAvailable()) {
    retriable_ = true;
    return SetError(ERR_CONNECTION_CLOSED, "the HTTP/2 session closed before the request");
  }
  Http2RequestHead head;
  head.method = request.method;
  head.scheme = scheme_;
  head.authority = request.host;
  head.path = request.target;
  head.body = request.body;
  head.headers.reserve(request.headers.headers().size());
  for (const HttpRequestHeaders::Header& h : request.headers.headers()) {
    if (EqualsCaseInsensitiveAscii(h.name, "Host")) {
      head.authority = h.value;
      continue;
    }
    head.headers.emplace_back(h.name, h.value);
  }
  head_request_ = request.method == "HEAD";
  net_log_.AddEvent(NetLogEventType::HTTP_TRANSACTION_HTTP2_SEND_REQUEST_HEADERS,
                    [&](NetLogParams& p) {
                      p.BeginArray("headers")
                          .AddElement(":method: " + head.method)
                          .AddElement(":authority: " + SanitizeUtf8(head.authority))
                          .AddElement(":scheme: " + head.scheme)
                          .AddElement(":path: " + SanitizeUtf8(head.path));
                      for (const auto& [name, value] : head.headers)
                        p.AddElement(NetLogHeaderLine(name, value));
                      p.EndArray().AddSource("source_dependency", session->net_log().source());
                    });
  send_start_ = scheduler_.Now();
  const int rv = session->StartRequest(head, priority_, this);
  if (rv < 0) {
    retriable_ = rv == ERR_CONNECTION_CLOSED;
    return SetError(rv, "the HTTP/2 session refused the request");
  }
  request_id_ = rv;
  send_end_ = scheduler_.Now();
  NoteStreamId();
  // The session may have failed the request from inside StartRequest (OnStreamClosed).
  if (stream_closed_ && stream_error_ != OK) return SetError(stream_error_, error_message_);
  return OK;
}

void Http2HttpStream::NoteStreamId() {
  if (stream_id_ != 0 || request_id_ <= 0) return;
  if (Http2Session* session = session_.get()) {
    stream_id_ = session->connection().StreamIdOf(request_id_);
  }
}

int Http2HttpStream::ReadResponseHeaders(CompletionCallback callback) {
  if (error_ != OK) return error_;
  if (response_headers_) return OK;
  if (stream_closed_) {
    if (stream_error_ == OK) {
      return SetError(ERR_INVALID_HTTP_RESPONSE, "the HTTP/2 stream ended without a response");
    }
    return SetError(stream_error_, error_message_);
  }
  op_ = Op::kReadHeaders;
  callback_ = std::move(callback);
  StartIdleTimer();
  return ERR_IO_PENDING;
}

void Http2HttpStream::OnResponseHeaders(int status,
                                        std::vector<std::pair<std::string, std::string>> headers) {
  NoteStreamId();
  first_byte_ = headers_end_ = scheduler_.Now();
  auto parsed = std::make_shared<HttpResponseHeaders>(HttpVersion{2, 0}, status, std::string());
  for (auto& [name, value] : headers) {
    bytes_received_ += static_cast<int64_t>(name.size() + value.size() + 32);  // RFC 9113 6.5.2
    parsed->AddHeader(std::move(name), std::move(value));
  }
  // The response-splitting checks of HTTP/1.1 apply here too (nghttp2 itself checks that a
  // content-length matches the DATA). The error wins over the headers in ReadResponseHeaders.
  std::string message;
  if (int rv = CheckSingleValuedHeaders(*parsed, /*check_content_length=*/true, &message);
      rv != OK) {
    SetError(rv, std::move(message));
  }
  response_headers_ = std::move(parsed);
  net_log_.AddEvent(NetLogEventType::HTTP_TRANSACTION_READ_RESPONSE_HEADERS,
                    [this](NetLogParams& p) { response_headers_->WriteNetLogParams(p); });
  if (head_request_ || status == 204 || status == 304) body_end_ = headers_end_;
  MaybeCompletePending();
}

void Http2HttpStream::OnData(std::string_view data) {
  if (body_offset_ > 0 && body_offset_ == body_.size()) {
    body_.clear();
    body_offset_ = 0;
  }
  raw_body_bytes_ += static_cast<int64_t>(data.size());
  bytes_received_ += static_cast<int64_t>(data.size());
  // A read is waiting and nothing is buffered ahead of these bytes: a body that is not decoded
  // goes straight into the reader's buffer, where DoReadBody would copy it from body_ when the
  // completion runs (same bytes, same window update then). Saves buffering every byte twice.
  if (op_ == Op::kReadBody && user_buf_ != nullptr && filled_ < user_len_ &&
      body_offset_ == body_.size() && error_ == OK && decoder_ && decoder_->passes_through() &&
      raw_body_bytes_ <= params_.max_body_bytes) {
    const int rv =
        decoder_->Decode(&data, user_buf_ + filled_, static_cast<size_t>(user_len_ - filled_));
    if (rv > 0) filled_ += rv;  // cannot fail: nothing is decoded and the bound holds
  }
  if (!data.empty()) {
    if (body_.capacity() < data.size() && body_.empty()) body_ = BodyBufferPool::Take();
    if (body_offset_ > 0 && body_.size() + data.size() > body_.capacity()) {
      // Drop what was handed out before growing: the copy is only what is still unread.
      body_.erase(0, body_offset_);
      body_offset_ = 0;
    }
    body_.append(data.data(), data.size());
  }
  MaybeCompletePending();
}

void Http2HttpStream::OnStreamClosed(int error, bool retriable) {
  stream_closed_ = true;
  stream_error_ = error;
  retriable_ = retriable && !response_headers_;
  if (body_end_ == TimeTicks{}) body_end_ = scheduler_.Now();
  // The error names what failed; only a refusal needs a word more (if retries run out).
  if (error != OK && error_message_.empty() && retriable_) {
    error_message_ = "the server did not process the request on its HTTP/2 connection";
  }
  if (error != OK) {
    net_log_.AddEvent(NetLogEventType::HTTP2_STREAM_ERROR, [&] {
      return nlohmann::json{{"stream_id", stream_id_},
                            {"net_error", error},
                            {"description", retriable_ ? "refused or unprocessed (retriable)"
                                                       : ErrorToMessage(error)}};
    });
  }
  request_id_ = 0;  // the session forgot it
  MaybeCompletePending();
}

int Http2HttpStream::ReadResponseBody(char* buf, int len, CompletionCallback callback) {
  if (body_result_ <= 0) return body_result_;
  user_buf_ = buf;
  user_len_ = len;
  const int rv = DoReadBody();
  if (rv != ERR_IO_PENDING) {
    user_buf_ = nullptr;
    return rv;
  }
  op_ = Op::kReadBody;
  callback_ = std::move(callback);
  StartIdleTimer();
  return ERR_IO_PENDING;
}

int Http2HttpStream::DoReadBody() {
  if (error_ != OK) return error_;
  if (!decoder_) {
    std::string encoding;
    if (params_.decode_content && response_headers_) {
      response_headers_->GetNormalizedHeader("Content-Encoding", &encoding);
    }
    std::string message;
    const int rv = ContentDecoder::Create(encoding, params_.max_body_bytes, &decoder_, &message);
    if (rv != OK) return body_result_ = SetError(rv, message);
  }
  if (raw_body_bytes_ > params_.max_body_bytes) {
    return body_result_ =
               SetError(ERR_RESPONSE_BODY_TOO_BIG,
                        "response body over " + std::to_string(params_.max_body_bytes) + " bytes");
  }
  if (filled_ > 0) {
    // OnData put these into the buffer already; anything in body_ came after they filled it.
    const int rv = filled_;
    filled_ = 0;
    if (request_id_ > 0) {
      if (Http2Session* session = session_.get()) session->ConsumeData(request_id_, rv);
    }
    return rv;
  }
  while (true) {
    std::string_view raw(body_.data() + body_offset_, body_.size() - body_offset_);
    const size_t before = raw.size();
    const int rv = decoder_->Decode(&raw, user_buf_, static_cast<size_t>(user_len_));
    const size_t consumed = before - raw.size();
    body_offset_ += consumed;
    if (consumed > 0 && request_id_ > 0) {
      if (Http2Session* session = session_.get()) session->ConsumeData(request_id_, consumed);
    }
    if (rv < 0) return body_result_ = SetError(rv, decoder_->error_message());
    if (rv > 0) return rv;
    // Nothing decoded from what is here: wait for more, or finish.
    if (!stream_closed_) return ERR_IO_PENDING;
    if (stream_error_ != OK) return body_result_ = SetError(stream_error_, error_message_);
    const int finish = decoder_->Finish();
    if (finish != OK) return body_result_ = SetError(finish, decoder_->error_message());
    body_.clear();
    body_offset_ = 0;
    return body_result_ = 0;
  }
}

void Http2HttpStream::MaybeCompletePending() {
  if (op_ == Op::kNone || completion_posted_) return;
  if (op_ == Op::kReadHeaders && !response_headers_ && !stream_closed_) return;
  if (op_ == Op::kReadBody && body_offset_ == body_.size() && filled_ == 0 && !stream_closed_) {
    return;
  }
  // From a session callback: finish in a task of our own, so the caller may destroy this stream
  // (and cancel it on the session) without nghttp2 on the stack.
  completion_posted_ = true;
  scheduler_.PostTask([weak = weak_factory_.GetWeakPtr()] {
    Http2HttpStream* self = weak.get();
    if (!self) return;
    self->completion_posted_ = false;
    int rv = OK;
    if (self->op_ == Op::kReadHeaders) {
      self->op_ = Op::kNone;
      CompletionCallback cb = std::move(self->callback_);
      rv = self->ReadResponseHeaders(nullptr);
      if (rv == ERR_IO_PENDING) {  // cannot happen: headers or closure arrived
        self->op_ = Op::kReadHeaders;
        self->callback_ = std::move(cb);
        return;
      }
      self->idle_timer_.Stop();
      cb(rv);  // may destroy this
      return;
    }
    if (self->op_ == Op::kReadBody) {
      rv = self->DoReadBody();
      if (rv == ERR_IO_PENDING) return;  // more will come (a DATA frame that decoded to nothing)
      self->op_ = Op::kNone;
      self->user_buf_ = nullptr;
      self->idle_timer_.Stop();
      CompletionCallback cb = std::move(self->callback_);
      cb(rv);  // may destroy this
    }
  });
}

void Http2HttpStream::GetLoadTimingInfo(LoadTimingInfo* info) const {
  info->send_start = send_start_;
  info->send_end = send_end_;
  if (first_byte_ != TimeTicks{}) info->receive_headers_start = first_byte_;
  if (headers_end_ != TimeTicks{}) info->receive_headers_end = headers_end_;
  if (body_end_ != TimeTicks{} && response_headers_) info->receive_end = body_end_;
}

int Http2HttpStream::SetError(int rv, std::string message) {
  error_ = rv;
  if (!message.empty()) error_message_ = std::move(message);
  return rv;
}

void Http2HttpStream::StartIdleTimer() {
  idle_timer_.Start(params_.idle_timeout, [this] { OnIdleTimeout(); });
}

void Http2HttpStream::OnIdleTimeout() {
  if (op_ == Op::kNone) return;
  std::string seconds = std::to_string(ToMilliseconds(params_.idle_timeout) / 1000.0);
  seconds.erase(seconds.find_last_not_of('0') + 1);
  if (!seconds.empty() && seconds.back() == '.') seconds.pop_back();
  SetError(ERR_TIMED_OUT, "the server sent nothing on the HTTP/2 stream for " + seconds + " s");
  if (request_id_ > 0) {
    if (Http2Session* session = session_.get()) session->CancelRequest(request_id_);
    request_id_ = 0;
  }
  op_ = Op::kNone;
  user_buf_ = nullptr;
  CompletionCallback cb = std::move(callback_);
  cb(error_);  // may destroy this
}

}  // namespace netstack
