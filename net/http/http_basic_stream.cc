#include "net/http/http_basic_stream.h"

#include <string_view>
#include <utility>

#include "net/http/http_util.h"

namespace netstack {

namespace {

// The request as sent, for HTTP_TRANSACTION_SEND_REQUEST_HEADERS: {"headers": ["Host: a", ...],
// "line": "GET / HTTP/1.1\r\n"}, taken from the serialized bytes so it shows exactly what went
// out (Host and Content-Length included), sensitive values stripped.
void WriteSentHeaders(const std::string& wire, NetLogParams& params) {
  size_t end = wire.find("\r\n\r\n");
  std::string_view block(wire.data(), end == std::string::npos ? wire.size() : end);
  params.BeginArray("headers");
  std::string line;
  size_t pos = 0;
  bool first = true;
  while (pos <= block.size()) {
    size_t eol = block.find("\r\n", pos);
    if (eol == std::string_view::npos) eol = block.size();
    std::string_view text = block.substr(pos, eol - pos);
    if (first) {
      line = SanitizeUtf8(text) + "\r\n";
      first = false;
    } else {
      // Serialized as "Name: value" (HttpRequestHeaders refuses ':' in names).
      size_t colon = text.find(':');
      if (colon == std::string_view::npos) {
        params.AddElement(SanitizeUtf8(text));
      } else {
        params.AddElement(
            NetLogHeaderLine(text.substr(0, colon), TrimHttpWhitespace(text.substr(colon + 1))));
      }
    }
    pos = eol + 2;
  }
  params.EndArray().Add("line", line);
}

}  // namespace

HttpBasicStream::HttpBasicStream(StreamSocket* socket, Scheduler& scheduler,
                                 const NetLogWithSource& net_log, const Params& params)
    : socket_(socket),
      scheduler_(scheduler),
      net_log_(net_log),
      params_(params),
      idle_timer_(scheduler) {}

HttpBasicStream::HttpBasicStream(StreamSocket* socket, Scheduler& scheduler,
                                 const NetLogWithSource& net_log)
    : HttpBasicStream(socket, scheduler, net_log, Params()) {}

HttpBasicStream::~HttpBasicStream() {
  // A pending read or write would complete into a stream that is gone; the connection is in
  // the middle of a message and cannot be reused, so close it.
  if (io_pending_) socket_->Disconnect();
}

int HttpBasicStream::SetError(int rv, std::string message) {
  error_ = rv;
  error_message_ = std::move(message);
  return rv;
}

int HttpBasicStream::SendRequest(const HttpRequestMessage& request, CompletionCallback callback) {
  if (parser_ || op_ != Op::kNone) return ERR_FAILED;  // one request per stream
  net_log_.BeginEvent(NetLogEventType::HTTP_TRANSACTION_SEND_REQUEST);
  std::string wire;
  int rv = HttpStreamParser::SerializeRequest(request, &wire);
  if (rv != OK) {
    net_log_.EndEventWithNetErrorCode(NetLogEventType::HTTP_TRANSACTION_SEND_REQUEST, rv);
    return SetError(rv, "invalid request: bad method, target or Host value");
  }
  net_log_.AddEvent(NetLogEventType::HTTP_TRANSACTION_SEND_REQUEST_HEADERS,
                    [&wire](NetLogParams& p) { WriteSentHeaders(wire, p); });
  HttpStreamParser::Options options;
  options.head_request = request.method == "HEAD";
  options.max_header_bytes = params_.max_header_bytes;
  parser_ = std::make_unique<HttpStreamParser>(options);
  request_bytes_ = std::make_shared<std::string>(std::move(wire));
  request_offset_ = 0;
  send_start_ = scheduler_.Now();
  op_ = Op::kSend;
  rv = DoSendLoop();
  if (rv == ERR_IO_PENDING) callback_ = std::move(callback);
  return rv;
}

int HttpBasicStream::ReadResponseHeaders(CompletionCallback callback) {
  if (error_ != OK) return error_;
  if (!parser_ || op_ != Op::kNone || headers_end_ != TimeTicks{}) return ERR_FAILED;
  net_log_.BeginEvent(NetLogEventType::HTTP_TRANSACTION_READ_HEADERS);
  op_ = Op::kReadHeaders;
  int rv = DoReadHeadersLoop();
  if (rv == ERR_IO_PENDING) callback_ = std::move(callback);
  return rv;
}

std::shared_ptr<const HttpResponseHeaders> HttpBasicStream::response_headers() const {
  return parser_ && parser_->headers_complete() ? parser_->response_headers() : nullptr;
}

int HttpBasicStream::ReadResponseBody(char* buf, int len, CompletionCallback callback) {
  if (error_ != OK) return error_;
  if (body_result_ <= 0) return body_result_;
  if (!parser_ || !parser_->headers_complete() || op_ != Op::kNone) return ERR_FAILED;
  if (!buf || len <= 0) return ERR_INVALID_ARGUMENT;
  if (!read_body_started_) {
    read_body_started_ = true;
    net_log_.BeginEvent(NetLogEventType::HTTP_TRANSACTION_READ_BODY);
  }
  op_ = Op::kReadBody;
  user_buf_ = buf;
  user_len_ = len;
  int rv = DoReadBodyLoop();
  if (rv == ERR_IO_PENDING) callback_ = std::move(callback);
  return rv;
}

bool HttpBasicStream::CanReuseConnection() const {
  return error_ == OK && !io_pending_ && parser_ && parser_->CanReuseConnection() &&
         socket_->IsConnected();
}

void HttpBasicStream::GetLoadTimingInfo(LoadTimingInfo* info) const {
  info->send_start = send_start_;
  info->send_end = send_end_;
  info->receive_headers_start = first_byte_;
  info->receive_headers_end = headers_end_;
  info->receive_end = body_end_;
}

int HttpBasicStream::DoSendLoop() {
  while (request_offset_ < request_bytes_->size()) {
    auto data = request_bytes_;
    int rv = socket_->Write(data->data() + request_offset_,
                            static_cast<int>(data->size() - request_offset_),
                            [weak = weak_factory_.GetWeakPtr(), data](int result) {
                              if (HttpBasicStream* self = weak.get()) self->OnIoComplete(result);
                            });
    if (rv == ERR_IO_PENDING) {
      io_pending_ = true;
      StartIdleTimer();
      return rv;
    }
    if (rv <= 0) {
      if (rv == 0) rv = ERR_CONNECTION_CLOSED;
      return FinishOp(SetError(rv, "sending the request"));
    }
    request_offset_ += static_cast<size_t>(rv);
    bytes_sent_ += rv;
  }
  send_end_ = scheduler_.Now();
  return FinishOp(OK);
}

int HttpBasicStream::DoReadHeadersLoop() {
  while (!parser_->headers_complete()) {
    int rv = ReadSocket();
    if (rv == ERR_IO_PENDING) return rv;
    rv = HandleReadResult(rv);
    if (rv < 0) return FinishOp(rv);
  }
  FinishHeaders();
  return FinishOp(OK);
}

int HttpBasicStream::DoReadBodyLoop() {
  if (!decoder_) {
    // No decoding without a body (HEAD, 204, 304, empty): its Content-Encoding describes a
    // body that is not there and must not fail the request.
    bool bodiless = parser_->message_complete() && parser_->body_bytes_received() == 0;
    std::string encoding;
    if (params_.decode_content && !bodiless) {
      parser_->response_headers()->GetNormalizedHeader("content-encoding", &encoding);
    }
    std::string message;
    int rv = ContentDecoder::Create(encoding, params_.max_body_bytes, &decoder_, &message);
    if (rv != OK) return FinishOp(SetError(rv, message));
  }
  while (true) {
    // The raw body is bounded as well as the decoded one (a compressed body can be larger).
    if (parser_->body_bytes_received() > params_.max_body_bytes) {
      return FinishOp(
          SetError(ERR_RESPONSE_BODY_TOO_BIG,
                   "response body over " + std::to_string(params_.max_body_bytes) + " bytes"));
    }
    if (direct_ready_ > 0) {
      // The socket read into the caller's buffer and every byte was body: already in place.
      const int rv = direct_ready_;
      direct_ready_ = 0;
      body_bytes_read_ += rv;
      LogFilteredBytes(rv);
      return FinishOp(rv);
    }
    // Decode what the parser holds; with nothing buffered this still flushes output the
    // decoder kept back when the caller's buffer was full.
    std::string_view raw = parser_->PeekBody();
    size_t before = raw.size();
    int rv = decoder_->Decode(&raw, user_buf_, static_cast<size_t>(user_len_));
    parser_->ConsumeBody(before - raw.size());
    if (rv < 0) return FinishOp(SetError(rv, decoder_->error_message()));
    if (rv > 0) {
      body_bytes_read_ += rv;
      LogFilteredBytes(rv);
      return FinishOp(rv);
    }
    if (parser_->message_complete()) {
      rv = decoder_->Finish();
      if (rv != OK) return FinishOp(SetError(rv, decoder_->error_message()));
      body_end_ = scheduler_.Now();
      return FinishOp(0);
    }
    rv = ReadSocket();
    if (rv == ERR_IO_PENDING) return rv;
    rv = HandleReadResult(rv);
    if (rv < 0) return FinishOp(rv);
  }
}

void HttpBasicStream::LogFilteredBytes(int count) const {
  if (!net_log_.IsCapturing()) return;
  net_log_.AddEvent(NetLogEventType::URL_REQUEST_JOB_FILTERED_BYTES_READ,
                    [count](NetLogParams& p) { p.Add("byte_count", count); });
}

int HttpBasicStream::ReadSocket() {
  const size_t size = std::max<size_t>(params_.read_buffer_bytes, 1);
  // Reads of the same size either way, so the socket sees the same calls.
  direct_read_ = op_ == Op::kReadBody && decoder_ && decoder_->passes_through() &&
                 parser_->buffered_body_bytes() == 0 && static_cast<size_t>(user_len_) >= size;
  if (direct_read_) {
    // The caller's buffer stays valid until the read completes or this stream is destroyed,
    // which disconnects the socket (ReadResponseBody's contract).
    int rv = socket_->Read(user_buf_, static_cast<int>(size),
                           [weak = weak_factory_.GetWeakPtr()](int result) {
                             if (HttpBasicStream* self = weak.get()) self->OnIoComplete(result);
                           });
    if (rv == ERR_IO_PENDING) {
      io_pending_ = true;
      StartIdleTimer();
    }
    return rv;
  }
  // Not zero-filled: the socket writes before anyone reads (zeroing 32 KiB per request was a
  // measurable share of a keep-alive fetch).
  if (!read_buf_) read_buf_ = std::shared_ptr<char[]>(new char[size]);
  auto buf = read_buf_;
  int rv = socket_->Read(buf.get(), static_cast<int>(size),
                         [weak = weak_factory_.GetWeakPtr(), buf](int result) {
                           if (HttpBasicStream* self = weak.get()) self->OnIoComplete(result);
                         });
  if (rv == ERR_IO_PENDING) {
    io_pending_ = true;
    StartIdleTimer();
  }
  return rv;
}

int HttpBasicStream::HandleReadResult(int rv) {
  // Some transports report an orderly close as ERR_CONNECTION_CLOSED (TLS without
  // close_notify): the parser decides whether the response was complete, as for EOF.
  if (rv == ERR_CONNECTION_CLOSED) rv = 0;
  if (rv < 0) return SetError(rv, "reading the response");
  if (rv == 0) {
    int result = parser_->ConsumeEof();
    return result == OK ? OK : SetError(result, parser_->error_message());
  }
  if (first_byte_ == TimeTicks{}) first_byte_ = scheduler_.Now();
  if (direct_read_) {
    direct_read_ = false;
    // All of it body (no framing, nothing after the response): the caller's buffer already
    // holds the answer and the parser only counts it (no copy). Otherwise the parser's copy
    // is decoded into it as usual.
    bool all_body = false;
    int result = parser_->ConsumeInPlace(user_buf_, static_cast<size_t>(rv), &all_body);
    if (result != OK) return SetError(result, parser_->error_message());
    if (all_body) direct_ready_ = rv;
    return OK;
  }
  int result = parser_->Consume(read_buf_.get(), static_cast<size_t>(rv));
  if (result != OK) return SetError(result, parser_->error_message());
  return OK;
}

void HttpBasicStream::FinishHeaders() {
  headers_end_ = scheduler_.Now();
  auto headers = parser_->response_headers();
  net_log_.AddEvent(NetLogEventType::HTTP_TRANSACTION_READ_RESPONSE_HEADERS,
                    [&headers](NetLogParams& p) { headers->WriteNetLogParams(p); });
  if (parser_->message_complete() && parser_->body_bytes_received() == 0) {
    body_end_ = headers_end_;  // no body to wait for
  }
}

int HttpBasicStream::FinishOp(int rv) {
  switch (op_) {
    case Op::kSend:
      net_log_.EndEventWithNetErrorCode(NetLogEventType::HTTP_TRANSACTION_SEND_REQUEST, rv);
      break;
    case Op::kReadHeaders:
      net_log_.EndEventWithNetErrorCode(NetLogEventType::HTTP_TRANSACTION_READ_HEADERS, rv);
      break;
    case Op::kReadBody:
      if (rv <= 0) {
        body_result_ = rv;
        net_log_.EndEventWithNetErrorCode(NetLogEventType::HTTP_TRANSACTION_READ_BODY, rv);
      }
      user_buf_ = nullptr;
      user_len_ = 0;
      break;
    case Op::kNone:
      break;
  }
  op_ = Op::kNone;
  return rv;
}

void HttpBasicStream::StartIdleTimer() {
  idle_timer_.Start(params_.idle_timeout, [this] { OnIdleTimeout(); });
}

void HttpBasicStream::OnIdleTimeout() {
  // The socket operation is still pending: disconnecting cancels it (its callback never
  // runs), and the connection is dead anyway.
  io_pending_ = false;
  socket_->Disconnect();
  std::string seconds = std::to_string(ToMilliseconds(params_.idle_timeout) / 1000.0);
  seconds.erase(seconds.find_last_not_of('0') + 1);
  if (!seconds.empty() && seconds.back() == '.') seconds.pop_back();
  std::string what = op_ == Op::kSend ? "the server accepted no request bytes for "
                                      : "the server sent nothing for ";
  int rv = FinishOp(SetError(ERR_TIMED_OUT, what + seconds + " s"));
  CompletionCallback callback = std::move(callback_);
  callback(rv);  // may destroy this stream
}

void HttpBasicStream::OnIoComplete(int rv) {
  io_pending_ = false;
  idle_timer_.Stop();
  int result;
  if (op_ == Op::kSend) {
    if (rv <= 0) {
      if (rv == 0) rv = ERR_CONNECTION_CLOSED;
      result = FinishOp(SetError(rv, "sending the request"));
    } else {
      request_offset_ += static_cast<size_t>(rv);
      bytes_sent_ += rv;
      result = DoSendLoop();
    }
  } else {
    result = HandleReadResult(rv);
    if (result < 0) {
      result = FinishOp(result);
    } else {
      result = op_ == Op::kReadHeaders ? DoReadHeadersLoop() : DoReadBodyLoop();
    }
  }
  if (result == ERR_IO_PENDING) return;
  CompletionCallback callback = std::move(callback_);
  callback(result);  // may destroy this stream
}

}  // namespace netstack
