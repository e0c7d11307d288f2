#include "net/http/url_request.h"

#include <utility>

#include "net/http/url_request_context.h"

namespace netstack {
namespace {

constexpr int kReadBufferBytes = ReadBuffer::kBytes;
// A redirect body larger than this is not worth draining: the socket is closed instead.
constexpr int64_t kMaxDrainBytes = 64 * 1024;

}  // namespace

UrlRequest::UrlRequest(UrlRequestContext* context, const Params& params, Delegate* delegate)
    : context_(context),
      params_(params),
      delegate_(delegate),
      net_log_(NetLogWithSource::Make(context->net_log(), NetLogSourceType::URL_REQUEST)),
      url_(params.request.url),
      method_(params.request.method),
      body_(params.request.body),
      extra_headers_(params.request.extra_headers),
      limits_(context->config().limits),
      max_time_timer_(context->scheduler()),
      speed_timer_(context->scheduler()) {}

UrlRequest::~UrlRequest() {
  if (!in_flight_) return;
  // Cancelled mid-flight: close the events this request opened, innermost first. A hop whose
  // headers have not arrived still has URL_REQUEST_START_JOB open.
  if (transaction_ && !headers_)
    net_log_.EndEventWithNetErrorCode(NetLogEventType::URL_REQUEST_START_JOB, ERR_ABORTED);
  net_log_.EndEventWithNetErrorCode(NetLogEventType::REQUEST_ALIVE, ERR_ABORTED);
}

void UrlRequest::Start() {
  in_flight_ = true;
  buffer_.Allocate();
  start_time_ = context_->scheduler().Now();
  StartLimitTimers();
  net_log_.BeginEvent(NetLogEventType::REQUEST_ALIVE, [this](NetLogParams& p) {
    p.Add("method", method_)
        .Add("priority", RequestPriorityToString(params_.priority))
        .Add("url", url_.spec());
  });
  // Post, so the delegate never hears back inside Start().
  context_->scheduler().PostTask([weak = weak_factory_.GetWeakPtr()] {
    if (weak) weak->StartHop();
  });
}

void UrlRequest::StartHop() {
  if (!in_flight_) return;  // a limit ended the fetch before its first hop's task ran
  net_log_.BeginEvent(NetLogEventType::URL_REQUEST_START_JOB, [this](NetLogParams& p) {
    p.Add("method", method_).Add("url", url_.spec());
  });
  // Built from this hop's fields (not a copy of params_.request overwritten field by field:
  // that copied URL, headers and body twice per hop), then moved into the transaction.
  HttpRequestInfo info;
  info.url = url_;
  info.method = method_;
  info.body = body_;
  info.extra_headers = extra_headers_;
  info.speculative = params_.request.speculative;
  info.request_start = start_time_;
  info.cache_mode = params_.request.cache_mode;
  info.omitted_headers = params_.request.omitted_headers;
  transaction_ = context_->http_transaction_factory()->CreateTransaction(params_.priority, net_log_,
                                                                         /*decode_content=*/true);
  int rv = transaction_->Start(std::move(info), [weak = weak_factory_.GetWeakPtr()](int rv) {
    if (weak) weak->OnHopStarted(rv);
  });
  if (rv != ERR_IO_PENDING) OnHopStarted(rv);
}

void UrlRequest::OnHopStarted(int rv) {
  net_log_.EndEventWithNetErrorCode(NetLogEventType::URL_REQUEST_START_JOB, rv);
  if (rv != OK) {
    RecordHop();
    Finish(rv, transaction_->error_detail());
    return;
  }
  OnHeaders();
}

void UrlRequest::OnHeaders() {
  headers_ = transaction_->response_headers();
  std::string location;
  if (params_.follow_redirects && headers_->IsRedirect(&location)) {
    std::string message;
    Url target;
    if (url_.Resolve(location, &target, &message) != OK) {
      RecordHop();
      Finish(ERR_INVALID_REDIRECT, "bad redirect from " + url_.spec() + ": " + message);
      return;
    }
    if (static_cast<int>(redirect_chain_.size()) >= params_.max_redirects) {
      RecordHop();
      Finish(ERR_TOO_MANY_REDIRECTS, "more than " + std::to_string(params_.max_redirects) +
                                         " redirects (last to " + target.spec() + ")");
      return;
    }
    redirect_target_ = target;
    delegate_->OnRedirectReceived(this);
    DrainRedirectBody();
    return;
  }
  // The delegate may destroy the request here (Chrome's delegates may): stop if it did.
  WeakPtr<UrlRequest> weak = weak_factory_.GetWeakPtr();
  delegate_->OnResponseStarted(this);
  if (!weak) return;
  ReadBody();
}

void UrlRequest::DrainRedirectBody() {
  draining_ = true;
  drained_bytes_ = 0;
  ReadBody();
}

void UrlRequest::ReadBody() {
  // Loops while reads complete synchronously; an asynchronous one resumes in OnReadComplete.
  for (;;) {
    int rv = transaction_->Read(buffer_.data(), kReadBufferBytes,
                                [weak = weak_factory_.GetWeakPtr()](int rv) {
                                  if (weak) weak->OnReadComplete(rv);
                                });
    if (rv == ERR_IO_PENDING || !ConsumeRead(rv)) return;
  }
}

void UrlRequest::OnReadComplete(int rv) {
  if (ConsumeRead(rv)) ReadBody();
}

bool UrlRequest::ConsumeRead(int rv) {
  if (rv > 0) {
    if (!draining_) {
      decoded_bytes_ += rv;
      delegate_->OnReadData(this, buffer_.data(), rv);
      return true;
    }
    drained_bytes_ += rv;
    if (drained_bytes_ <= kMaxDrainBytes) return true;
    FollowRedirect();  // The transaction closes the undrained socket.
    return false;
  }
  if (draining_) {
    // An error while draining a redirect body only costs the socket; follow anyway.
    FollowRedirect();
    return false;
  }
  RecordHop();
  Finish(rv, rv < 0 ? transaction_->error_detail() : std::string());
  return false;
}

void UrlRequest::FollowRedirect() {
  draining_ = false;
  int code = headers_->response_code();
  net_log_.AddEvent(NetLogEventType::URL_REQUEST_REDIRECTED, [this, code](NetLogParams& p) {
    p.Add("location", redirect_target_.spec()).Add("status", code);
  });
  // Browsers turn POST into GET on 301/302 and everything but HEAD into GET on 303; 307 and
  // 308 keep the method and body.
  if ((code == 303 && method_ != "HEAD") || ((code == 301 || code == 302) && method_ == "POST")) {
    method_ = "GET";
    body_.clear();
    // Headers that described the dropped body would make the server wait for it.
    for (const char* name : {"Content-Length", "Content-Type", "Content-Encoding"})
      extra_headers_.RemoveHeader(name);
  }
  // Credentials and the Host the user gave were for the first origin only (curl and browsers
  // drop them on a cross-origin redirect).
  if (redirect_target_.scheme_host_port() != url_.scheme_host_port()) {
    for (const char* name : {"Authorization", "Proxy-Authorization", "Cookie", "Host"})
      extra_headers_.RemoveHeader(name);
  }
  prior_hops_body_bytes_ += transaction_->encoded_body_bytes();
  transaction_.reset();  // Returns a drained socket to the pool (or closes it).
  redirect_chain_.push_back(redirect_target_.spec());
  url_ = redirect_target_;
  headers_.reset();
  StartHop();
}

void UrlRequest::RecordHop() {
  if (!transaction_) return;
  timing_ = transaction_->GetLoadTimingInfo();
  connection_ = transaction_->connection_info();
  encoded_bytes_ = transaction_->encoded_body_bytes();
  cache_disposition_ = transaction_->cache_disposition();
}

void UrlRequest::StartLimitTimers() {
  if (limits_.max_time > TimeDelta::zero()) {
    max_time_timer_.Start(limits_.max_time, [this] { OnMaxTimeExceeded(); });
  }
  if (limits_.min_bytes_per_second > 0) {
    rate_monitor_ = std::make_unique<TransferRateMonitor>(limits_.min_bytes_per_second,
                                                          limits_.low_speed_time, start_time_, 0);
    speed_timer_.Start(TransferRateMonitor::kCheckInterval, [this] { OnSpeedCheck(); });
  }
}

void UrlRequest::OnMaxTimeExceeded() {
  // Whatever the fetch is doing (resolving, connecting, waiting, reading), it stops: Finish
  // destroys the transaction, which closes its socket or cancels its HTTP/2 stream.
  RecordHop();
  Finish(ERR_TIMED_OUT, "the fetch took longer than its total time limit of " +
                            FormatSeconds(limits_.max_time) + " s");
}

void UrlRequest::OnSpeedCheck() {
  if (!rate_monitor_->Sample(context_->scheduler().Now(), BodyBytesSoFar())) {
    speed_timer_.Start(TransferRateMonitor::kCheckInterval, [this] { OnSpeedCheck(); });
    return;
  }
  RecordHop();
  Finish(ERR_TRANSFER_TOO_SLOW, "less than " + std::to_string(limits_.min_bytes_per_second) +
                                    " bytes/s for the last " +
                                    FormatSeconds(limits_.low_speed_time) + " s");
}

int64_t UrlRequest::BodyBytesSoFar() const {
  return prior_hops_body_bytes_ + (transaction_ ? transaction_->encoded_body_bytes() : 0);
}

LoadTimingPhases UrlRequest::load_timing_phases() const {
  return ComputeLoadTimingPhases(timing_, start_time_);
}

void UrlRequest::Finish(int result, std::string message) {
  max_time_timer_.Stop();
  speed_timer_.Stop();
  end_time_ = context_->scheduler().Now();
  error_ = result;
  if (result != OK) {
    error_message_ = ErrorToMessage(result);
    if (!message.empty()) error_message_ += ": " + message;
  }
  transaction_.reset();
  buffer_.Release();  // after the transaction: nothing reads into it any more
  in_flight_ = false;
  // Built only while the NetLog captures (the params are lazy).
  net_log_.AddEvent(NetLogEventType::URL_REQUEST_PHASES, [this, result](NetLogParams& p) {
    const LoadTimingPhases phases = load_timing_phases();
    const SocketSource source = connection_.socket_source;
    // A ttfb exists when the response headers came over the network (not from the cache).
    const bool exchanged =
        timing_.send_end != TimeTicks{} && timing_.receive_headers_start != TimeTicks{};
    p.Add("connect_wait_ms", phases.connect_wait_ms());
    if (result < 0) p.Add("net_error", result);
    if (source == SocketSource::kNone) {
      p.AddNull("socket_source");
    } else {
      p.Add("socket_source", SocketSourceName(source));
    }
    if (exchanged) {
      p.Add("ttfb_ms", phases.ttfb_ms);
    } else {
      p.AddNull("ttfb_ms");
    }
  });
  net_log_.EndEventWithNetErrorCode(NetLogEventType::REQUEST_ALIVE, result);
  delegate_->OnComplete(this, result);  // May destroy this.
}

}  // namespace netstack
