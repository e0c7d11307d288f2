// UrlRequest: one fetch as a user asks for it: a URL, followed through redirects, its body
// decoded and streamed to a delegate, with the timing of every step. The context's
// TransferLimits bound the whole fetch: its total time (ERR_TIMED_OUT) and its minimum rate
// (ERR_TRANSFER_TOO_SLOW), redirects and retries included (url_request_limits.h). Each hop is an
// HttpTransaction from the context's http_transaction_factory() (the HTTP cache when there is
// one, else the network layer); redirect bodies are drained so their keep-alive socket is
// reused.
#ifndef NET_HTTP_URL_REQUEST_H_
#define NET_HTTP_URL_REQUEST_H_

#include <memory>
#include <string>
#include <vector>

#include "net/base/load_timing_info.h"
#include "net/base/load_timing_phases.h"
#include "net/base/net_log.h"
#include "net/base/request_priority.h"
#include "net/base/weak_ptr.h"
#include "net/http/http_transaction.h"
#include "net/http/read_buffer_pool.h"
#include "net/http/url_request_limits.h"

namespace netstack {

class UrlRequestContext;

class UrlRequest {
 public:
  class Delegate {
   public:
    virtual ~Delegate() = default;
    // The final response's headers arrived (after any redirects). Optional. May destroy the
    // request.
    virtual void OnResponseStarted(UrlRequest* request) {}
    // A redirect about to be followed: response_headers() are its headers until the next hop
    // starts (curl's -i prints every hop's head). Optional. Must not destroy the request.
    virtual void OnRedirectReceived(UrlRequest* request) {}
    // Decoded body bytes, in order. `data` is valid only during the call. Must not destroy
    // the request (OnComplete may).
    virtual void OnReadData(UrlRequest* request, const char* data, int len) = 0;
    // The fetch ended: OK or a net error. Runs exactly once, never inside Start(), unless the
    // request is destroyed first. The delegate may destroy the request here.
    virtual void OnComplete(UrlRequest* request, int result) = 0;
  };

  struct Params {
    HttpRequestInfo request;
    bool follow_redirects = true;
    int max_redirects = 20;  // Chrome's and curl's limit
    RequestPriority priority = MEDIUM;
  };

  // `context` and `delegate` must outlive the request.
  UrlRequest(UrlRequestContext* context, const Params& params, Delegate* delegate);
  // Cancels: sockets in use are closed, the delegate is not called again.
  ~UrlRequest();
  UrlRequest(const UrlRequest&) = delete;
  UrlRequest& operator=(const UrlRequest&) = delete;

  // Starts the fetch; the delegate hears back later.
  void Start();

  // After OnResponseStarted: the final response's headers (null if none arrived).
  std::shared_ptr<const HttpResponseHeaders> response_headers() const { return headers_; }
  const Url& original_url() const { return params_.request.url; }
  // The method asked for (redirects may have changed the last hop's to GET).
  const std::string& original_method() const { return params_.request.method; }
  // The URL of the last hop.
  const Url& url() const { return url_; }
  // URLs redirected to, in order (the final URL last when redirects were followed).
  const std::vector<std::string>& redirect_chain() const { return redirect_chain_; }
  // Timing of the last hop; request_start of the first hop is start_time().
  const LoadTimingInfo& load_timing_info() const { return timing_; }
  // That timing as phases counted from start_time() (ComputeLoadTimingPhases): what the request
  // record, the URL_REQUEST_PHASES event and so the internals histograms report.
  LoadTimingPhases load_timing_phases() const;
  TimeTicks start_time() const { return start_time_; }
  TimeTicks end_time() const { return end_time_; }
  const ConnectionInfo& connection_info() const { return connection_; }
  int64_t decoded_body_bytes() const { return decoded_bytes_; }
  int64_t encoded_body_bytes() const { return encoded_bytes_; }
  // Where the final hop's response came from (kBypass without a cache); set when the fetch
  // ends.
  CacheDisposition cache_disposition() const { return cache_disposition_; }
  // The error, and a one-line message naming what went wrong (empty while no error).
  int error() const { return error_; }
  const std::string& error_message() const { return error_message_; }
  const NetLogWithSource& net_log() const { return net_log_; }

 private:
  void StartHop();
  void OnHopStarted(int rv);
  // Handles the headers of a hop: follows a redirect or starts reading the body.
  void OnHeaders();
  void ReadBody();
  // Drains a redirect's body (bounded) so its socket can be reused, then follows it.
  void DrainRedirectBody();
  void FollowRedirect();
  void OnReadComplete(int rv);
  // Takes a body read's result; returns true to keep reading.
  bool ConsumeRead(int rv);
  void RecordHop();
  // Starts the total-time timer and the rate checks the context's limits ask for.
  void StartLimitTimers();
  void OnMaxTimeExceeded();
  // Every TransferRateMonitor::kCheckInterval: fails the fetch if it has been too slow.
  void OnSpeedCheck();
  // Body bytes received so far over every hop, as on the wire (before content decoding).
  int64_t BodyBytesSoFar() const;
  // Ends the fetch with `result` and tells the delegate. Only called from loop callbacks
  // (Start() posts the first step), so OnComplete never runs inside Start().
  void Finish(int result, std::string message = {});

  UrlRequestContext* const context_;
  Params params_;
  Delegate* const delegate_;
  NetLogWithSource net_log_;

  Url url_;
  std::string method_;
  std::string body_;
  HttpRequestHeaders extra_headers_;  // the user's headers, less what redirects dropped
  Url redirect_target_;
  // Before transaction_ so it outlives it: the transaction's destruction cancels any read into
  // it before it goes back to the pool.
  ReadBuffer buffer_;  // ReadBuffer::kBytes, taken in Start()
  std::unique_ptr<HttpTransaction> transaction_;
  std::shared_ptr<const HttpResponseHeaders> headers_;
  std::vector<std::string> redirect_chain_;
  bool draining_ = false;
  int64_t drained_bytes_ = 0;
  int64_t prior_hops_body_bytes_ = 0;  // encoded body bytes of the hops before this one

  const TransferLimits limits_;  // the context's
  OneShotTimer max_time_timer_;
  OneShotTimer speed_timer_;
  std::unique_ptr<TransferRateMonitor> rate_monitor_;  // with a minimum rate, from Start()

  LoadTimingInfo timing_;
  ConnectionInfo connection_;
  TimeTicks start_time_{}, end_time_{};
  int64_t decoded_bytes_ = 0;
  int64_t encoded_bytes_ = 0;
  CacheDisposition cache_disposition_ = CacheDisposition::kBypass;
  int error_ = OK;
  std::string error_message_;
  // Between Start() and the end: REQUEST_ALIVE is open.
  bool in_flight_ = false;

  WeakPtrFactory<UrlRequest> weak_factory_{this};
};

}  // namespace netstack

#endif  // NET_HTTP_URL_REQUEST_H_
