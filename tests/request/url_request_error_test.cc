// Failures reach the delegate once, as a net error with a one-line message: DNS, connect,
// a truncated or malformed response, a silent server.
#include <catch2/catch.hpp>
#include <string>

#include "tests/request/request_test_env.h"

namespace netstack::test {
namespace {

// Checks what every failed request must satisfy.
void CheckFailed(const RecordingDelegate& d, const UrlRequest& r, int expected) {
  INFO("error_message: " << r.error_message());
  CHECK(d.result == expected);
  CHECK(d.completions == 1);
  CHECK(d.calls_inside_start == 0);
  CHECK(d.calls_after_complete == 0);
  CHECK(r.error() == expected);
  CHECK_FALSE(r.error_message().empty());
  CHECK(IsOneLine(r.error_message()));
  // It starts with the error's own text, so it says what failed.
  CHECK(r.error_message().rfind(ErrorToMessage(expected), 0) == 0);
}

TEST_CASE("DNS NXDOMAIN fails with ERR_NAME_NOT_RESOLVED", "[request][error]") {
  RequestTestEnv env;
  env.dns->SetError("nope.test", ERR_NAME_NOT_RESOLVED, Milliseconds(15));
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://nope.test/"), &d);
  CheckFailed(d, *r, ERR_NAME_NOT_RESOLVED);
  CHECK(d.response_started == 0);
  CHECK(env.factory->transport_sockets_created() == 0);
  CHECK(env.dns->CallCount("nope.test") >= 1);
  CHECK(ToMilliseconds(r->end_time()) == 15);
  CHECK(r->response_headers() == nullptr);
}

TEST_CASE("other DNS failures keep their own error", "[request][error]") {
  for (int error : {ERR_DNS_SERVER_FAILED, ERR_DNS_TIMED_OUT, ERR_DNS_REFUSED}) {
    INFO(ErrorToString(error));
    RequestTestEnv env;
    env.dns->SetError("a.test", error);
    RecordingDelegate d;
    auto r = env.Fetch(env.Params("http://a.test/"), &d);
    CheckFailed(d, *r, error);
  }
}

TEST_CASE("connection refused fails with ERR_CONNECTION_REFUSED", "[request][error]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  FakeConnectRule refuse = FakeConnectRule::After(Milliseconds(20), ERR_CONNECTION_REFUSED);
  SECTION("async") {}
  SECTION("sync") { refuse = FakeConnectRule::Sync(ERR_CONNECTION_REFUSED); }
  env.factory->AddSocket({}, {}, refuse);
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test:81/"), &d);
  CheckFailed(d, *r, ERR_CONNECTION_REFUSED);
  CHECK(env.factory->transport_sockets_created() == 1);
  CHECK(env.factory->connection(0).endpoint.ToString() == "192.0.2.1:81");
  CHECK(env.factory->connection(0).script->written().empty());
  CHECK(env.context->socket_pool()->IdleSocketCount() == 0);
}

TEST_CASE("a truncated body is an error, and the socket is not kept", "[request][error]") {
  struct Case {
    const char* name;
    std::string wire;
    std::string delivered;
    int expected;
  };
  const Case cases[] = {
      {"Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", "abc",
       ERR_CONTENT_LENGTH_MISMATCH},
      {"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n5\r\nde",
       "abcde", ERR_INCOMPLETE_CHUNKED_ENCODING},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    RequestTestEnv env;
    env.AddHost("a.test");
    FakeConnection* conn = env.factory->AddSocket(
        {ScriptedRead::Data(c.wire, IoMode::kAsync), ScriptedRead::Eof(IoMode::kAsync)});
    RecordingDelegate d;
    auto r = env.Fetch(env.Params("http://a.test/"), &d);
    CheckFailed(d, *r, c.expected);
    CHECK(d.response_started == 1);
    CHECK(d.data == c.delivered);
    CHECK(env.context->socket_pool()->IdleSocketCount() == 0);
    CHECK(conn->destroyed);
  }
}

TEST_CASE("a malformed response is ERR_INVALID_HTTP_RESPONSE with the parser's reason",
          "[request][error]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  env.factory->AddSocket({ScriptedRead::Data("HTTP/1.1 abc Broken\r\n\r\n", IoMode::kAsync)});
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/"), &d);
  CheckFailed(d, *r, ERR_INVALID_HTTP_RESPONSE);
  // The parser said more than the error's name.
  CHECK(r->error_message().size() > ErrorToMessage(ERR_INVALID_HTTP_RESPONSE).size());
  CHECK(d.response_started == 0);
}

TEST_CASE("a server that never answers times out after the idle timeout", "[request][error]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  FakeConnection* conn = env.factory->AddSocket({ScriptedRead::Hang()});
  RecordingDelegate d;
  auto r = env.MakeRequest(env.Params("http://a.test/"), &d);
  d.Start(r.get());
  env.scheduler.AdvanceBy(Seconds(59));
  CHECK(d.completions == 0);
  REQUIRE(env.scheduler.RunUntil([&] { return d.completions > 0; }));
  CheckFailed(d, *r, ERR_TIMED_OUT);
  CHECK(r->error_message().find("60 s") != std::string::npos);
  CHECK(conn->destroyed);
}

TEST_CASE("response headers over the bound fail the request", "[request][error]") {
  UrlRequestContext::Config config = RequestTestEnv::DefaultConfig();
  config.stream.max_header_bytes = 1024;
  RequestTestEnv env(config);
  env.AddHost("a.test");
  std::string big = "HTTP/1.1 200 OK\r\nX-Big: " + std::string(4096, 'b') + "\r\n\r\n";
  env.factory->AddSocket({ScriptedRead::Data(big, IoMode::kAsync)});
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/"), &d);
  CheckFailed(d, *r, ERR_RESPONSE_HEADERS_TOO_BIG);
}

TEST_CASE("a body over the configured bound fails the request", "[request][error]") {
  UrlRequestContext::Config config = RequestTestEnv::DefaultConfig();
  config.stream.max_body_bytes = 100;
  RequestTestEnv env(config);
  env.AddHost("a.test");
  env.factory->AddSocket(
      {ScriptedRead::Data(Response("200 OK", std::string(1000, 'z')), IoMode::kAsync)});
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/"), &d);
  CheckFailed(d, *r, ERR_RESPONSE_BODY_TOO_BIG);
}

}  // namespace
}  // namespace netstack::test
