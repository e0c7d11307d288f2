// The limits of url_request_limits.h over HTTP/2, on virtual time: a server that answers at once
// and then sends its body one byte a second (a one-byte DATA frame each time, so the stream's
// idle timeout never fires) is stopped by the total time and by the minimum rate, and one that
// never finishes its headers by the headers timeout; the session survives each (the stream is
// cancelled, not the connection).
#include <catch2/catch.hpp>
#include <functional>
#include <string>

#include "net/http/url_request_limits.h"
#include "tests/http2/h2_stack_env.h"

namespace netstack::test {
namespace {

// A DATA frame of one byte "x" on `stream_id`, without END_STREAM.
std::string OneByteDataFrame(int32_t stream_id) {
  std::string frame = {0, 0, 1, 0 /* DATA */, 0 /* flags */};
  frame.push_back(static_cast<char>((stream_id >> 24) & 0x7f));
  frame.push_back(static_cast<char>((stream_id >> 16) & 0xff));
  frame.push_back(static_cast<char>((stream_id >> 8) & 0xff));
  frame.push_back(static_cast<char>(stream_id & 0xff));
  frame.push_back('x');
  return frame;
}

// /drip: 200 at once, then a byte a second for `drip_seconds`; other paths: the default answer.
struct DripHandler {
  H2Env* env;
  int drip_seconds = 1000;
  int dripped = 0;

  void Install() {
    env->factory->set_handler([this](H2ServerConnection& conn, int32_t id) {
      if (conn.server.Header(id, ":path") != "/drip") {
        H2SocketFactory::AnswerWithPath(conn, id);
        return;
      }
      conn.server.Respond(id, 200, {}, "", /*end=*/false);
      Drip(&conn, id);
    });
  }
  void Drip(H2ServerConnection* conn, int32_t id) {
    env->scheduler.PostDelayedTask(Seconds(1), [this, conn, id] {
      if (conn->closed || dripped >= drip_seconds) return;
      conn->server.InjectRaw(OneByteDataFrame(id));
      conn->flush();
      ++dripped;
      Drip(conn, id);
    });
  }
};

UrlRequestContext::Config WithLimits(const TransferLimits& limits) {
  UrlRequestContext::Config config = RequestTestEnv::DefaultConfig();
  config.limits = limits;
  return config;
}

// The session carried on: a request after the failed one is a stream on it.
void CheckSessionSurvives(H2Env& env) {
  env.Start("https://a.test/after");
  env.RunUntilDone();
  CHECK(env.delegates.back()->result == OK);
  CHECK(env.requests.back()->connection_info().socket_source == SocketSource::kHttp2Session);
  CHECK(env.factory->connections().size() == 1);
}

TEST_CASE("HTTP/2: max time stops a body drip", "[http2][limits]") {
  TransferLimits limits;
  limits.max_time = Seconds(5);
  H2Env env({}, WithLimits(limits));
  env.AddHost("a.test");
  DripHandler drip{&env};
  drip.Install();
  UrlRequest* r = env.Start("https://a.test/drip");
  env.RunUntilDone();
  INFO(r->error_message());
  CHECK(env.delegates[0]->result == ERR_TIMED_OUT);
  CHECK(r->error_message().find("total time limit of 5 s") != std::string::npos);
  CHECK(env.delegates[0]->response_started == 1);
  CHECK(!env.delegates[0]->data.empty());
  CHECK(env.delegates[0]->data.size() < 6);
  CheckSessionSurvives(env);
}

TEST_CASE("HTTP/2: a speed limit stops a body drip", "[http2][limits]") {
  TransferLimits limits;
  limits.min_bytes_per_second = 10;
  limits.low_speed_time = Seconds(4);
  H2Env env({}, WithLimits(limits));
  env.AddHost("a.test");
  DripHandler drip{&env};
  drip.Install();
  UrlRequest* r = env.Start("https://a.test/drip");
  env.RunUntilDone();
  INFO(r->error_message());
  CHECK(env.delegates[0]->result == ERR_TRANSFER_TOO_SLOW);
  CHECK(r->end_time() - r->start_time() == Seconds(4));
  CheckSessionSurvives(env);
}

TEST_CASE("HTTP/2: without limits the drip runs to its end", "[http2][limits]") {
  H2Env env;
  env.AddHost("a.test");
  DripHandler drip{&env};
  drip.drip_seconds = 8;
  drip.Install();
  env.Start("https://a.test/drip");
  // The body never ends (no END_STREAM): the request is still reading after the drip.
  env.scheduler.AdvanceBy(Seconds(9));
  CHECK(env.delegates[0]->completions == 0);
  CHECK(env.delegates[0]->data == std::string(8, 'x'));
}

TEST_CASE("HTTP/2: the headers timeout stops a server that never answers", "[http2][limits]") {
  TransferLimits limits;
  limits.headers_timeout = Seconds(5);
  UrlRequestContext::Config config = WithLimits(limits);
  config.stream.idle_timeout = Seconds(60);
  H2Env env({}, config);
  env.AddHost("a.test");
  env.factory->set_handler([](H2ServerConnection& conn, int32_t id) {
    if (conn.server.Header(id, ":path") == "/after") H2SocketFactory::AnswerWithPath(conn, id);
  });
  UrlRequest* r = env.Start("https://a.test/silent");
  env.RunUntilDone();
  INFO(r->error_message());
  CHECK(env.delegates[0]->result == ERR_TIMED_OUT);
  CHECK(r->error_message().find("response headers were not complete 5 s") != std::string::npos);
  CheckSessionSurvives(env);
}

}  // namespace
}  // namespace netstack::test
