// The idle-close race: a kept-alive socket the server closed while it sat idle fails the next
// request before any response byte; the transaction then retries once on a fresh socket
// (HTTP_TRANSACTION_RESTART_AFTER_ERROR). A failure after response bytes, or on a fresh
// socket, is the request's error.
#include <catch2/catch.hpp>
#include <string>

#include "tests/request/request_test_env.h"

namespace netstack::test {
namespace {

// Runs a first request that leaves connection 0 idle in the pool, so the next request to
// a.test reuses it.
void WarmUp(RequestTestEnv& env) {
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/warm"), &d);
  REQUIRE(d.result == OK);
  REQUIRE(env.context->socket_pool()->IdleSocketCount() == 1);
}

TEST_CASE("a reused socket that fails before any response byte is retried on a fresh one",
          "[request][retry]") {
  struct Case {
    const char* name;
    ScriptedRead read;    // what the reused socket reads after the warm-up
    ScriptedWrite write;  // what the reused socket does with the second request
    int expected_logged_error;
  };
  const Case cases[] = {
      {"read reset", ScriptedRead::Error(ERR_CONNECTION_RESET, IoMode::kAsync),
       ScriptedWrite::Accept(), ERR_CONNECTION_RESET},
      {"read EOF", ScriptedRead::Eof(IoMode::kAsync), ScriptedWrite::Accept(), ERR_EMPTY_RESPONSE},
      {"read closed", ScriptedRead::Error(ERR_CONNECTION_CLOSED, IoMode::kAsync),
       ScriptedWrite::Accept(), ERR_EMPTY_RESPONSE},
      {"write reset", ScriptedRead::Hang(), ScriptedWrite::Error(ERR_CONNECTION_RESET),
       ERR_CONNECTION_RESET},
      {"write aborted async", ScriptedRead::Hang(),
       ScriptedWrite::Error(ERR_CONNECTION_ABORTED, IoMode::kAsync), ERR_CONNECTION_ABORTED},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    RequestTestEnv env;
    env.AddHost("a.test");
    FakeConnection* stale = env.factory->AddSocket(
        {ScriptedRead::Data(Response("200 OK", "warm"), IoMode::kAsync), c.read},
        {ScriptedWrite::Accept(), c.write});
    FakeConnection* fresh =
        env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "second"), IoMode::kAsync)});
    WarmUp(env);

    RecordingDelegate d;
    auto r = env.Fetch(env.Params("http://a.test/again"), &d);
    CHECK(d.result == OK);
    CHECK(d.data == "second");
    CHECK(d.completions == 1);
    CHECK(env.factory->transport_sockets_created() == 2);
    CHECK(env.factory->unscripted_sockets() == 0);
    CHECK(stale->destroyed);  // the dead socket was closed, not put back
    CHECK_FALSE(r->connection_info().reused());
    CHECK(r->connection_info().socket_id == fresh->net_log_id);
    CHECK(RequestLines(fresh->script->written()) ==
          std::vector<std::string>{"GET /again HTTP/1.1"});
    const uint32_t id = r->net_log().source().id;
    auto restarts = env.recorder.Get(NetLogEventType::HTTP_TRANSACTION_RESTART_AFTER_ERROR, id);
    REQUIRE(restarts.size() == 1);
    CHECK(restarts[0].params["net_error"] == c.expected_logged_error);
    // The retry's socket is fresh: its connect timing is there again.
    CHECK_FALSE(r->load_timing_info().socket_reused);
    CHECK(r->load_timing_info().connect_timing.connect_end != TimeTicks{});
  }
}

TEST_CASE("a reused socket that fails after response bytes arrived is not retried",
          "[request][retry]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "warm"), IoMode::kAsync),
                          ScriptedRead::Data("HTTP/1.1 200 OK\r\nContent-", IoMode::kAsync),
                          ScriptedRead::Error(ERR_CONNECTION_RESET, IoMode::kAsync)});
  env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "never"), IoMode::kAsync)});
  WarmUp(env);

  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/again"), &d);
  CHECK(d.result == ERR_CONNECTION_RESET);
  CHECK(d.completions == 1);
  CHECK(d.response_started == 0);
  CHECK(env.factory->transport_sockets_created() == 1);
  CHECK(env.recorder.Count(NetLogEventType::HTTP_TRANSACTION_RESTART_AFTER_ERROR) == 0);
  INFO(r->error_message());
  CHECK(IsOneLine(r->error_message()));
  CHECK(r->error_message().find(ErrorToMessage(ERR_CONNECTION_RESET)) != std::string::npos);
  CHECK(r->connection_info().reused());
}

TEST_CASE("a reused socket failing during the body is not retried", "[request][retry]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  env.factory->AddSocket(
      {ScriptedRead::Data(Response("200 OK", "warm"), IoMode::kAsync),
       ScriptedRead::Data("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", IoMode::kAsync),
       ScriptedRead::Error(ERR_CONNECTION_RESET, IoMode::kAsync)});
  env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "never"), IoMode::kAsync)});
  WarmUp(env);

  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/again"), &d);
  CHECK(d.result == ERR_CONNECTION_RESET);
  CHECK(d.response_started == 1);
  CHECK(d.data == "abc");
  CHECK(env.factory->transport_sockets_created() == 1);
  CHECK(env.recorder.Count(NetLogEventType::HTTP_TRANSACTION_RESTART_AFTER_ERROR) == 0);
}

TEST_CASE("a fresh socket's failure is not retried", "[request][retry]") {
  struct Case {
    const char* name;
    ScriptedRead read;
    int expected;
  };
  const Case cases[] = {
      {"reset", ScriptedRead::Error(ERR_CONNECTION_RESET, IoMode::kAsync), ERR_CONNECTION_RESET},
      {"EOF", ScriptedRead::Eof(IoMode::kAsync), ERR_EMPTY_RESPONSE},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    RequestTestEnv env;
    env.AddHost("a.test");
    env.factory->AddSocket({c.read});
    env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "never"), IoMode::kAsync)});
    RecordingDelegate d;
    auto r = env.Fetch(env.Params("http://a.test/"), &d);
    CHECK(d.result == c.expected);
    CHECK(d.completions == 1);
    CHECK(env.factory->transport_sockets_created() == 1);
    CHECK(env.recorder.Count(NetLogEventType::HTTP_TRANSACTION_RESTART_AFTER_ERROR) == 0);
    CHECK(IsOneLine(r->error_message()));
    CHECK_FALSE(r->error_message().empty());
  }
}

TEST_CASE("a retry that fails on its fresh socket reports that failure", "[request][retry]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "warm"), IoMode::kAsync),
                          ScriptedRead::Error(ERR_CONNECTION_RESET, IoMode::kAsync)});
  env.factory->AddSocket({ScriptedRead::Eof(IoMode::kAsync)});
  env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "never"), IoMode::kAsync)});
  WarmUp(env);
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/again"), &d);
  CHECK(d.result == ERR_EMPTY_RESPONSE);
  CHECK(d.completions == 1);
  CHECK(env.factory->transport_sockets_created() == 2);  // one retry, not more
  CHECK(env.recorder.Count(NetLogEventType::HTTP_TRANSACTION_RESTART_AFTER_ERROR) == 1);
}

TEST_CASE("a non-connection error on a reused socket is not retried", "[request][retry]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "warm"), IoMode::kAsync),
                          ScriptedRead::Error(ERR_TIMED_OUT, IoMode::kAsync)});
  env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "never"), IoMode::kAsync)});
  WarmUp(env);
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/again"), &d);
  CHECK(d.result == ERR_TIMED_OUT);
  CHECK(env.factory->transport_sockets_created() == 1);
}

}  // namespace
}  // namespace netstack::test
