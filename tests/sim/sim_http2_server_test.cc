// SimHttp2Server on its own, against nghttp2's client session in memory (a client that does
// what a test asks, not what Chrome would): the server's bounds (concurrent streams, header
// list, request body, pending output, unread input), malformed byte streams and floods, and how
// an HTTP/1.1 head becomes HTTP/2 headers. The connection is a fake Output: what the server
// sends is kept as bytes (filler as 'x') and delivered when the test says.
#include "net/sim/sim_http2_server.h"

#include <nghttp2/nghttp2.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "net/base/virtual_scheduler.h"
#include "net/sim/sim_world.h"
#include "tests/sim/sim_http2_env.h"

namespace netstack::test {
namespace {

struct FakeOutput : SimHttp2Server::Output {
  void SendFrames(TimeTicks, std::vector<SimWireSegment>& frames, int64_t) override {
    for (const SimWireSegment& segment : frames) {
      wire += segment.bytes;
      wire.append(static_cast<size_t>(segment.filler), 'x');
    }
  }
  void CloseConnection(TimeTicks) override { closed = true; }
  int64_t PendingOutputBytes() const override {
    return static_cast<int64_t>(wire.size()) - delivered;
  }

  std::string wire;       // everything sent
  int64_t delivered = 0;  // of which the client has it
  bool closed = false;
};

// nghttp2's client session, collecting what each stream got.
class RawClient {
 public:
  struct Result {
    int status = 0;
    std::map<std::string, std::string> headers;
    int64_t body = 0;
    bool closed = false;
    uint32_t error_code = UINT32_MAX;
  };

  // `settings`: the client's SETTINGS; `window`: its connection window (0: the default).
  explicit RawClient(std::vector<nghttp2_settings_entry> settings = {}, int32_t window = 0) {
    nghttp2_session_callbacks* callbacks = nullptr;
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, &OnHeader);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &OnFrameRecv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &OnData);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &OnClose);
    nghttp2_option* option = nullptr;
    nghttp2_option_new(&option);
    nghttp2_option_set_max_send_header_block_length(option, 1 << 20);
    // Until the server's SETTINGS arrive, as many streams as the test opens.
    nghttp2_option_set_peer_max_concurrent_streams(option, 1000);
    nghttp2_session_client_new2(&session_, callbacks, this, option);
    nghttp2_option_del(option);
    nghttp2_session_callbacks_del(callbacks);
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings.data(), settings.size());
    if (window > 0) nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0, window);
  }
  ~RawClient() { nghttp2_session_del(session_); }

  int32_t Request(const std::string& path, const std::string& method = "GET",
                  std::vector<std::pair<std::string, std::string>> extra = {},
                  int64_t body_bytes = 0) {
    std::vector<std::pair<std::string, std::string>> fields = {
        {":method", method}, {":scheme", "https"}, {":authority", "a.test"}, {":path", path}};
    for (auto& field : extra) fields.push_back(std::move(field));
    std::vector<nghttp2_nv> nva;
    for (auto& [n, v] : fields) {
      nva.push_back(
          {(uint8_t*)n.data(), (uint8_t*)v.data(), n.size(), v.size(), NGHTTP2_NV_FLAG_NONE});
    }
    nghttp2_data_provider provider;
    provider.source.ptr = nullptr;
    provider.read_callback = &ReadBody;
    const int32_t id = nghttp2_submit_request(session_, nullptr, nva.data(), nva.size(),
                                              body_bytes > 0 ? &provider : nullptr, this);
    if (id > 0 && body_bytes > 0) upload_[id] = body_bytes;
    return id;
  }
  std::string TakeOutput() {
    std::string out;
    const uint8_t* data = nullptr;
    for (ssize_t n; (n = nghttp2_session_mem_send(session_, &data)) > 0;) {
      out.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
    }
    return out;
  }
  void Receive(std::string_view bytes) {
    nghttp2_session_mem_recv(session_, reinterpret_cast<const uint8_t*>(bytes.data()),
                             bytes.size());
  }

  std::map<int32_t, Result> results;
  bool goaway = false;
  uint32_t goaway_error = UINT32_MAX;
  uint32_t server_max_streams = 0;

 private:
  static int OnHeader(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                      size_t namelen, const uint8_t* value, size_t valuelen, uint8_t, void* user) {
    auto* self = static_cast<RawClient*>(user);
    std::string n(reinterpret_cast<const char*>(name), namelen);
    std::string v(reinterpret_cast<const char*>(value), valuelen);
    Result& r = self->results[frame->hd.stream_id];
    if (n == ":status") r.status = std::stoi(v);
    r.headers[n] = v;
    return 0;
  }
  static int OnFrameRecv(nghttp2_session* session, const nghttp2_frame* frame, void* user) {
    auto* self = static_cast<RawClient*>(user);
    if (frame->hd.type == NGHTTP2_GOAWAY) {
      self->goaway = true;
      self->goaway_error = frame->goaway.error_code;
    }
    if (frame->hd.type == NGHTTP2_SETTINGS && !(frame->hd.flags & NGHTTP2_FLAG_ACK)) {
      self->server_max_streams =
          nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
    }
    return 0;
  }
  static int OnData(nghttp2_session*, uint8_t, int32_t stream_id, const uint8_t*, size_t len,
                    void* user) {
    static_cast<RawClient*>(user)->results[stream_id].body += static_cast<int64_t>(len);
    return 0;
  }
  static int OnClose(nghttp2_session*, int32_t stream_id, uint32_t error_code, void* user) {
    Result& r = static_cast<RawClient*>(user)->results[stream_id];
    r.closed = true;
    r.error_code = error_code;
    return 0;
  }
  static ssize_t ReadBody(nghttp2_session*, int32_t stream_id, uint8_t* buf, size_t length,
                          uint32_t* flags, nghttp2_data_source*, void* user) {
    int64_t& left = static_cast<RawClient*>(user)->upload_[stream_id];
    const size_t n = static_cast<size_t>(std::min<int64_t>(left, static_cast<int64_t>(length)));
    std::memset(buf, 'u', n);
    left -= static_cast<int64_t>(n);
    if (left == 0) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  }

  nghttp2_session* session_ = nullptr;
  std::map<int32_t, int64_t> upload_;
};

struct ServerEnv {
  explicit ServerEnv(SimHttp2Limits limits = {}, TimeDelta server_time = Milliseconds(10))
      : world(scheduler, Params(server_time), &responder),
        server(world, nullptr, &output, "https", limits) {}

  static NetworkParams Params(TimeDelta server_time) {
    NetworkParams params;
    params.defaults.server_time = server_time;
    return params;
  }

  // The client's bytes reach the server at once; the server's reach the client while the test
  // lets them (`deliver`); virtual time runs until nothing is left to do.
  void Pump(RawClient& client, bool deliver = true) {
    for (int i = 0; i < 10'000; ++i) {
      bool moved = false;
      const std::string out = client.TakeOutput();
      if (!out.empty()) {
        written += static_cast<int64_t>(out.size());
        server.OnClientBytes(out.data(), out.size());
        server.OnUplinkDelivered(written);
        moved = true;
      }
      if (deliver && output.delivered < static_cast<int64_t>(output.wire.size())) {
        client.Receive(std::string_view(output.wire).substr(static_cast<size_t>(output.delivered)));
        output.delivered = static_cast<int64_t>(output.wire.size());
        server.OnDownlinkDelivered();
        moved = true;
      }
      if (!moved && scheduler.RunAll() > 0) moved = true;  // the responses' departures
      if (!moved) return;
    }
    FAIL("the exchange never settled");
  }
  // Raw bytes from the client, arriving at once.
  void SendRaw(const std::string& bytes) {
    written += static_cast<int64_t>(bytes.size());
    server.OnClientBytes(bytes.data(), bytes.size());
    server.OnUplinkDelivered(written);
  }
  // Frame types in what the server sent (a clean frame sequence assumed).
  std::vector<int> FrameTypes() const { return test::FrameTypes(output.wire); }
  bool SentGoaway() const {
    for (int type : FrameTypes()) {
      if (type == NGHTTP2_GOAWAY) return true;
    }
    return false;
  }

  VirtualScheduler scheduler{SimTestEnv::kEpoch};
  TestResponder responder;
  SimWorld world;
  FakeOutput output;
  SimHttp2Server server;
  int64_t written = 0;
};

std::string Frame(uint8_t type, uint8_t flags, uint32_t stream, std::string payload) {
  std::string f;
  f += static_cast<char>(payload.size() >> 16);
  f += static_cast<char>(payload.size() >> 8);
  f += static_cast<char>(payload.size());
  f += static_cast<char>(type);
  f += static_cast<char>(flags);
  for (int shift = 24; shift >= 0; shift -= 8) f += static_cast<char>(stream >> shift);
  return f + payload;
}

TEST_CASE("sim h2 server: SETTINGS like nginx's, sent when the client's preface arrives",
          "[sim][http2]") {
  ServerEnv env;
  CHECK(env.output.wire.empty());
  RawClient client;
  env.Pump(client);
  CHECK(client.server_max_streams == 128);
  // SETTINGS, the ACK of the client's, the connection's WINDOW_UPDATE.
  CHECK(env.FrameTypes() ==
        std::vector<int>{NGHTTP2_SETTINGS, NGHTTP2_SETTINGS, NGHTTP2_WINDOW_UPDATE});
  CHECK(env.output.wire.size() == 27 + 13 + 9);
  CHECK_FALSE(env.output.closed);
}

TEST_CASE("sim h2 server: streams beyond MAX_CONCURRENT_STREAMS are refused", "[sim][http2]") {
  SECTION("a limit of 2") {
    SimHttp2Limits limits;
    limits.max_concurrent_streams = 2;
    ServerEnv env(limits);
    RawClient client;
    const int32_t a = client.Request("/size/1"), b = client.Request("/size/2"),
                  c = client.Request("/size/3");
    env.Pump(client);
    CHECK(client.results[a].status == 200);
    CHECK(client.results[b].status == 200);
    CHECK(client.results[c].error_code == NGHTTP2_REFUSED_STREAM);
    CHECK(client.results[c].status == 0);
    CHECK(env.responder.requests.size() == 2);
    CHECK(env.server.open_streams() == 0);
    CHECK_FALSE(env.output.closed);
  }
  SECTION("nginx's 128") {
    ServerEnv env;
    RawClient client;  // opens them all before the server's SETTINGS arrive
    std::vector<int32_t> ids;
    for (int i = 0; i < 200; ++i) ids.push_back(client.Request("/size/10"));
    env.SendRaw(client.TakeOutput());
    CHECK(env.server.open_streams() == 128);
    env.Pump(client);
    int answered = 0, refused = 0;
    for (int32_t id : ids) {
      answered += client.results[id].status == 200 && client.results[id].body == 10;
      refused += client.results[id].error_code == NGHTTP2_REFUSED_STREAM;
    }
    CHECK(answered == 128);
    CHECK(refused == 72);
    CHECK(env.server.open_streams() == 0);
  }
}

TEST_CASE("sim h2 server: a request header list over the bound resets its stream only",
          "[sim][http2][bounds]") {
  STATIC_REQUIRE(SimHttp2Limits().max_header_list_bytes == SimHttpServer::kMaxRequestHeadBytes);
  SimHttp2Limits limits;
  limits.max_header_list_bytes = 1000;
  ServerEnv env(limits);
  RawClient client;
  const int32_t big = client.Request("/size/1", "GET", {{"x-big", std::string(2000, 'b')}});
  const int32_t fine = client.Request("/size/2", "GET", {{"x-small", "s"}});
  env.Pump(client);
  CHECK(client.results[big].error_code == NGHTTP2_ENHANCE_YOUR_CALM);
  CHECK(client.results[fine].status == 200);
  CHECK(client.results[fine].body == 2);
  CHECK_FALSE(client.goaway);
  CHECK(env.responder.requests.size() == 1);
}

TEST_CASE("sim h2 server: request bodies are counted, over the bound, the stream is reset",
          "[sim][http2][bounds]") {
  STATIC_REQUIRE(SimHttp2Limits().max_body_bytes ==
                 static_cast<int64_t>(SimHttpServer::kMaxRequestBodyBytes));
  SimHttp2Limits limits;
  limits.max_body_bytes = 100'000;
  ServerEnv env(limits);
  RawClient client;
  const int32_t ok = client.Request("/upload", "POST", {}, 100'000);
  const int32_t big = client.Request("/upload", "POST", {}, 100'001);
  env.Pump(client);
  CHECK(client.results[ok].status == 200);
  CHECK(client.results[big].error_code == NGHTTP2_ENHANCE_YOUR_CALM);
  REQUIRE(env.responder.requests.size() == 1);
  CHECK(env.responder.requests[0].method == "POST");
  CHECK(env.responder.requests[0].body_bytes == 100'000);
  CHECK_FALSE(client.goaway);
}

TEST_CASE("sim h2 server: DATA waits while the undelivered output is over its bound",
          "[sim][http2][bounds]") {
  SimHttp2Limits limits;
  limits.max_pending_output_bytes = 100'000;
  ServerEnv env(limits);
  // A client whose windows would let the whole megabyte go at once.
  RawClient client({{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 0x7fffffff}}, 0x7fffffff);
  const int32_t id = client.Request("/size/1000000");
  env.Pump(client, /*deliver=*/false);  // the client's bytes arrive, nothing goes back
  const int64_t held = env.output.PendingOutputBytes();
  CHECK(held >= 100'000);
  CHECK(held <= 100'000 + 16'384 + 9 + 200);  // at most one frame (and the heads) over
  env.Pump(client);                           // now the client reads: the rest follows as it drains
  CHECK(client.results[id].status == 200);
  CHECK(client.results[id].body == 1'000'000);
  CHECK(client.results[id].error_code == NGHTTP2_NO_ERROR);
}

TEST_CASE(
    "sim h2 server: malformed bytes, a bad preface, a flood or too much unread input "
    "end the connection",
    "[sim][http2][errors]") {
  SECTION("garbage after the preface: GOAWAY, then the close") {
    ServerEnv env;
    env.SendRaw(kPreface + std::string("\xff\xff\xff\x00\x00\x00\x00\x00\x00garbage", 16));
    CHECK(env.SentGoaway());
    CHECK(env.output.closed);
    CHECK(env.server.closed());
    env.SendRaw("more");  // ignored
  }
  SECTION("a first frame that is not SETTINGS") {
    ServerEnv env;
    env.SendRaw(kPreface + Frame(NGHTTP2_PING, 0, 0, std::string(8, '\0')));
    CHECK(env.SentGoaway());
    CHECK(env.output.closed);
  }
  SECTION("not the HTTP/2 preface") {
    ServerEnv env;
    env.SendRaw("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n");
    CHECK(env.output.closed);
    CHECK(env.responder.requests.empty());
  }
  SECTION("a PING flood (nghttp2's outbound-ACK bound)") {
    ServerEnv env;
    std::string flood = kPreface + Frame(NGHTTP2_SETTINGS, 0, 0, "");
    for (int i = 0; i < 2000; ++i) flood += Frame(NGHTTP2_PING, 0, 0, std::string(8, 'p'));
    env.SendRaw(flood);
    CHECK(env.output.closed);
    CHECK(env.output.wire.size() < 1000 * 17 + 200);  // far from 2000 ACKs
  }
  SECTION("more unread input than the bound") {
    SimHttp2Limits limits;
    limits.max_unread_input_bytes = 1000;
    ServerEnv env(limits);
    RawClient client;
    client.Request("/size/1", "GET", {{"x-big", std::string(2000, 'b')}});
    const std::string out = client.TakeOutput();
    env.server.OnClientBytes(out.data(), out.size());  // written, not yet arrived
    env.server.OnUplinkDelivered(static_cast<int64_t>(out.size()));
    CHECK(env.output.closed);
    CHECK(env.SentGoaway());
    CHECK(env.responder.requests.empty());
  }
  SECTION("the client's GOAWAY: the server closes once its streams are done") {
    ServerEnv env;
    RawClient client;
    client.Request("/size/5");
    env.Pump(client);
    CHECK_FALSE(env.output.closed);
    env.SendRaw(Frame(NGHTTP2_GOAWAY, 0, 0, std::string(8, '\0')));
    CHECK(env.output.closed);
  }
}

TEST_CASE("sim h2 server: HEAD keeps the Content-Length and sends no DATA", "[sim][http2]") {
  ServerEnv env;
  RawClient client;
  const int32_t head = client.Request("/size/1234", "HEAD");
  const int32_t get = client.Request("/size/1234");
  env.Pump(client);
  CHECK(client.results[head].status == 200);
  CHECK(client.results[head].headers["content-length"] == "1234");
  CHECK(client.results[head].body == 0);
  CHECK(client.results[head].error_code == NGHTTP2_NO_ERROR);
  CHECK(client.results[get].body == 1234);
  CHECK(env.server.requests_answered() == 2);
}

TEST_CASE("sim h2 server: a head that is not a final status resets the stream", "[sim][http2]") {
  ServerEnv env;
  SimResponse upgrade;
  upgrade.head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n";
  env.responder.scripted["/101"] = upgrade;
  SimResponse junk;
  junk.head = "not a head";
  env.responder.scripted["/junk"] = junk;
  RawClient client;
  const int32_t a = client.Request("/101"), b = client.Request("/junk"),
                c = client.Request("/size/3");
  env.Pump(client);
  CHECK(client.results[a].error_code == NGHTTP2_INTERNAL_ERROR);
  CHECK(client.results[b].error_code == NGHTTP2_INTERNAL_ERROR);
  CHECK(client.results[c].body == 3);
}

}  // namespace
}  // namespace netstack::test
