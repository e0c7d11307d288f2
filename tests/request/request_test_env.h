// Scaffolding for the request-layer tests: a UrlRequestContext on virtual time, built by
// UrlRequestContextBuilder over fake edges (ScriptedDnsTransport, FakeClientSocketFactory), a
// NetLog recorder, a recording UrlRequest::Delegate, and helpers that write HTTP/1.1 responses.
#ifndef TESTS_REQUEST_REQUEST_TEST_ENV_H_
#define TESTS_REQUEST_REQUEST_TEST_ENV_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "net/base/net_log.h"
#include "net/base/virtual_scheduler.h"
#include "net/http/url_request.h"
#include "net/http/url_request_context.h"
#include "net/http/url_request_context_builder.h"
#include "tests/support/fake_client_socket_factory.h"
#include "tests/support/scripted_dns_transport.h"

namespace netstack::test {

// Every NetLog entry, kept in order.
class NetLogRecorder : public NetLog::Observer {
 public:
  explicit NetLogRecorder(NetLog* net_log) : net_log_(net_log) { net_log_->AddObserver(this); }
  ~NetLogRecorder() override { net_log_->RemoveObserver(this); }
  NetLogRecorder(const NetLogRecorder&) = delete;
  NetLogRecorder& operator=(const NetLogRecorder&) = delete;

  void OnAddEntry(const NetLogEntry& entry) override { entries_.push_back(entry); }

  const std::vector<NetLogEntry>& entries() const { return entries_; }
  // Entries of `type` logged under source `source_id` (any source when 0), any phase.
  std::vector<NetLogEntry> Get(NetLogEventType type, uint32_t source_id = 0) const;
  size_t Count(NetLogEventType type, uint32_t source_id = 0) const {
    return Get(type, source_id).size();
  }
  // Entries of `type` with `phase` under `source_id`.
  size_t Count(NetLogEventType type, NetLogEventPhase phase, uint32_t source_id) const;

 private:
  NetLog* net_log_;
  std::vector<NetLogEntry> entries_;
};

// Records what a UrlRequest tells its delegate. Checks the contract as it goes: OnComplete
// once, never inside Start(), nothing after OnComplete. Optional hooks let a test act (e.g.
// destroy the request) from inside a callback.
class RecordingDelegate : public UrlRequest::Delegate {
 public:
  void OnResponseStarted(UrlRequest* request) override;
  void OnReadData(UrlRequest* request, const char* data, int len) override;
  void OnComplete(UrlRequest* request, int result) override;

  // Calls request->Start() and notes that the delegate is inside Start() meanwhile.
  void Start(UrlRequest* request);

  int response_started = 0;
  int completions = 0;
  int result = ERR_IO_PENDING;
  std::string data;
  int read_calls = 0;
  // Contract violations seen: a callback inside Start(), after OnComplete, or data before
  // OnResponseStarted.
  int calls_inside_start = 0;
  int calls_after_complete = 0;
  int data_before_started = 0;
  // Every callback, in order: "started", "data", "complete".
  std::vector<std::string> events;

  std::function<void(UrlRequest*)> on_response_started;
  std::function<void(UrlRequest*, int)> on_complete;

 private:
  void Note(const char* event);
  bool in_start_ = false;
};

struct RequestTestEnv {
  // The context's defaults for tests: Chrome's pool, with backup jobs off so slow scripted
  // connects do not open extra sockets.
  static UrlRequestContext::Config DefaultConfig();

  explicit RequestTestEnv(UrlRequestContext::Config config = DefaultConfig());
  // Destroys the context (requests must be gone), then the recorder.
  ~RequestTestEnv();

  // Scripts `host` to resolve to 192.0.2.1 (or `address`) after `delay` (TTL 60 s).
  void AddHost(const std::string& host, TimeDelta delay = Milliseconds(10),
               const std::string& address = "192.0.2.1");

  // A request for `url` (absolute); aborts the test if it does not parse.
  UrlRequest::Params Params(const std::string& url, const std::string& method = "GET",
                            const std::string& body = {});
  std::unique_ptr<UrlRequest> MakeRequest(const UrlRequest::Params& params,
                                          RecordingDelegate* delegate);
  // Makes, starts and runs a request until its delegate's OnComplete (scheduler.RunUntil). The
  // request is returned for inspection.
  std::unique_ptr<UrlRequest> Fetch(const UrlRequest::Params& params, RecordingDelegate* delegate);

  VirtualScheduler scheduler;
  NetLog net_log{scheduler};
  NetLogRecorder recorder{&net_log};
  ScriptedDnsTransport* dns = nullptr;         // owned by the context
  FakeClientSocketFactory* factory = nullptr;  // owned by the context
  std::unique_ptr<UrlRequestContext> context;
};

// "HTTP/1.1 <status>\r\n<headers>Content-Length: <n>\r\n\r\n<body>": a keep-alive response.
// `headers` are complete lines ("Location: /b\r\n").
std::string Response(const std::string& status, const std::string& body,
                     const std::string& headers = {});
// A redirect with `code`, a Location and a short body.
std::string Redirect(int code, const std::string& location, const std::string& body = "moved");
// The request heads (the lines up to the empty line) written on a connection, in order.
std::vector<std::string> RequestLines(const std::string& written);
// True if the text has no line break (an error message fit for one output line).
bool IsOneLine(const std::string& text);

}  // namespace netstack::test

#endif  // TESTS_REQUEST_REQUEST_TEST_ENV_H_
