// H2TestServer: the server side of an HTTP/2 connection for unit tests, on nghttp2's server
// session (no I/O, like the client under test): it collects each request (its headers and
// whether it ended), and the test answers, resets, limits streams or sends GOAWAY. Pump() moves
// bytes between an Http2Connection and it until neither has anything to say. Recorder and Get()
// are the tests' stream delegate and request.
#ifndef TESTS_HTTP2_H2_TEST_SERVER_H_
#define TESTS_HTTP2_H2_TEST_SERVER_H_

#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "net/http2/http2_connection.h"

namespace netstack {

// Records what a stream's delegate hears; consumes nothing unless told to.
struct Recorder : Http2StreamDelegate {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  bool closed = false;
  int error = 1;
  bool retriable = false;
  std::vector<std::string>* order = nullptr;  // appends `name` when the headers arrive
  std::string name;

  void OnResponseHeaders(int s, std::vector<std::pair<std::string, std::string>> h) override {
    status = s;
    headers = std::move(h);
    if (order) order->push_back(name);
  }
  void OnData(std::string_view data) override { body.append(data); }
  void OnStreamClosed(int e, bool r) override {
    closed = true;
    error = e;
    retriable = r;
  }
};

inline Http2RequestHead Get(const std::string& path) {
  Http2RequestHead head;
  head.authority = "a.test";
  head.path = path;
  return head;
}

class H2TestServer {
 public:
  struct Request {
    std::vector<std::pair<std::string, std::string>> headers;  // pseudo-headers included, in order
    std::string body;
    bool ended = false;                 // END_STREAM received
    uint32_t closed_with = UINT32_MAX;  // the close's error code, once closed
  };

  // `settings`: the server's SETTINGS (empty: none beyond the defaults).
  explicit H2TestServer(std::vector<nghttp2_settings_entry> settings = {});
  ~H2TestServer();
  H2TestServer(const H2TestServer&) = delete;
  H2TestServer& operator=(const H2TestServer&) = delete;

  // Moves bytes both ways until both sides are quiet; returns the client's last OnBytesRead.
  int Pump(Http2Connection& client);
  // For a client behind a transport: takes what the client wrote, and gives what the server
  // has to say (the session's frames, then injected bytes).
  void Receive(std::string_view bytes);
  std::string TakeOutput();
  // Whether a GOAWAY arrived from the client.
  bool goaway_received() const { return goaway_received_; }
  // Raw bytes for the client next, after what the session writes (a frame nghttp2 would refuse
  // to send).
  void InjectRaw(std::string bytes) { raw_ += bytes; }

  // Answers stream `stream_id` with `status`, `headers` and `body` (END_STREAM after the body
  // unless `end` is false; then the body stays open).
  void Respond(int32_t stream_id, int status,
               std::vector<std::pair<std::string, std::string>> headers = {}, std::string body = "",
               bool end = true);
  void Reset(int32_t stream_id, uint32_t error_code);
  void Goaway(int32_t last_stream_id, uint32_t error_code = NGHTTP2_NO_ERROR);

  nghttp2_session* session() const { return session_; }
  std::map<int32_t, Request>& requests() { return requests_; }
  // The value of `name` in stream `stream_id`'s request ("" when absent).
  std::string Header(int32_t stream_id, const std::string& name);

 private:
  struct Body {
    std::string data;
    size_t sent = 0;
    bool end = true;
  };
  static int OnHeader(nghttp2_session*, const nghttp2_frame*, const uint8_t*, size_t,
                      const uint8_t*, size_t, uint8_t, void*);
  static int OnFrameRecv(nghttp2_session*, const nghttp2_frame*, void*);
  static int OnDataChunk(nghttp2_session*, uint8_t, int32_t, const uint8_t*, size_t, void*);
  static int OnStreamClose(nghttp2_session*, int32_t, uint32_t, void*);
  static ssize_t ReadBody(nghttp2_session*, int32_t, uint8_t*, size_t, uint32_t*,
                          nghttp2_data_source*, void*);

  nghttp2_session* session_ = nullptr;
  std::map<int32_t, Request> requests_;
  std::map<int32_t, Body> bodies_;
  std::string raw_;
  bool goaway_received_ = false;
};

}  // namespace netstack

#endif  // TESTS_HTTP2_H2_TEST_SERVER_H_
