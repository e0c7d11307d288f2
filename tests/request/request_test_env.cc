#include "tests/request/request_test_env.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <utility>

#include "net/base/url.h"

namespace netstack::test {

std::vector<NetLogEntry> NetLogRecorder::Get(NetLogEventType type, uint32_t source_id) const {
  std::vector<NetLogEntry> out;
  for (const NetLogEntry& e : entries_) {
    if (e.type == type && (source_id == 0 || e.source.id == source_id)) out.push_back(e);
  }
  return out;
}

size_t NetLogRecorder::Count(NetLogEventType type, NetLogEventPhase phase,
                             uint32_t source_id) const {
  size_t n = 0;
  for (const NetLogEntry& e : Get(type, source_id)) n += e.phase == phase;
  return n;
}

void RecordingDelegate::Note(const char* event) {
  events.push_back(event);
  if (in_start_) ++calls_inside_start;
  if (completions > 0) ++calls_after_complete;
}

void RecordingDelegate::Start(UrlRequest* request) {
  in_start_ = true;
  request->Start();
  in_start_ = false;
}

void RecordingDelegate::OnResponseStarted(UrlRequest* request) {
  Note("started");
  ++response_started;
  if (on_response_started) on_response_started(request);
}

void RecordingDelegate::OnReadData(UrlRequest* request, const char* bytes, int len) {
  (void)request;
  Note("data");
  ++read_calls;
  if (response_started == 0) ++data_before_started;
  data.append(bytes, static_cast<size_t>(len));
}

void RecordingDelegate::OnComplete(UrlRequest* request, int rv) {
  Note("complete");
  ++completions;
  result = rv;
  if (on_complete) on_complete(request, rv);  // may destroy the request
}

UrlRequestContext::Config RequestTestEnv::DefaultConfig() {
  UrlRequestContext::Config config;
  config.pool.enable_backup_jobs = false;
  return config;
}

RequestTestEnv::RequestTestEnv(UrlRequestContext::Config config) {
  auto dns_transport = std::make_unique<ScriptedDnsTransport>(scheduler);
  auto socket_factory = std::make_unique<FakeClientSocketFactory>(scheduler);
  // A socket no script was queued for refuses (and is counted: tests check there is none).
  socket_factory->set_default_rule(
      FakeConnectRule::After(Milliseconds(20), ERR_CONNECTION_REFUSED));
  dns = dns_transport.get();
  factory = socket_factory.get();
  UrlRequestContextBuilder builder;
  builder.set_config(config);
  builder.set_scheduler(&scheduler);
  builder.set_net_log(&net_log);
  builder.set_dns_transport(std::move(dns_transport));
  builder.set_socket_factory(std::move(socket_factory));
  std::string error;
  context = builder.Build(&error);
  INFO(error);
  REQUIRE(context);
}

RequestTestEnv::~RequestTestEnv() {
  context.reset();
  // Whatever the context posted while going away runs against nothing it owned.
  scheduler.RunUntilIdle();
}

void RequestTestEnv::AddHost(const std::string& host, TimeDelta delay, const std::string& address) {
  dns->SetAddresses(host, {address}, Seconds(60), delay);
}

UrlRequest::Params RequestTestEnv::Params(const std::string& url, const std::string& method,
                                          const std::string& body) {
  UrlRequest::Params params;
  std::string message;
  int rv = Url::Parse(url, &params.request.url, &message);
  INFO(message);
  REQUIRE(rv == OK);
  params.request.method = method;
  params.request.body = body;
  return params;
}

std::unique_ptr<UrlRequest> RequestTestEnv::MakeRequest(const UrlRequest::Params& params,
                                                        RecordingDelegate* delegate) {
  return std::make_unique<UrlRequest>(context.get(), params, delegate);
}

std::unique_ptr<UrlRequest> RequestTestEnv::Fetch(const UrlRequest::Params& params,
                                                  RecordingDelegate* delegate) {
  auto request = MakeRequest(params, delegate);
  delegate->Start(request.get());
  bool done = scheduler.RunUntil([delegate] { return delegate->completions > 0; });
  INFO("the request never completed");
  CHECK(done);
  return request;
}

std::string Response(const std::string& status, const std::string& body,
                     const std::string& headers) {
  return "HTTP/1.1 " + status + "\r\n" + headers +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string Redirect(int code, const std::string& location, const std::string& body) {
  return Response(std::to_string(code) + " Redirect", body, "Location: " + location + "\r\n");
}

std::vector<std::string> RequestLines(const std::string& written) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < written.size()) {
    size_t head_end = written.find("\r\n\r\n", pos);
    if (head_end == std::string::npos) break;
    std::string head = written.substr(pos, head_end - pos);
    lines.push_back(head.substr(0, head.find("\r\n")));
    size_t body = 0;
    size_t cl = head.find("\r\nContent-Length: ");
    if (cl != std::string::npos) {
      body = std::strtoul(head.c_str() + cl + 18, nullptr, 10);
    }
    pos = head_end + 4 + body;
  }
  return lines;
}

bool IsOneLine(const std::string& text) { return text.find_first_of("\r\n") == std::string::npos; }

}  // namespace netstack::test
