// Lifetimes and ordering: a UrlRequest destroyed mid-flight (from the test or from its own
// delegate) cancels cleanly and never calls back; a half-read socket is closed, not pooled;
// a request's priority orders the pool's queue. Run under ASan (NETSTACK_SANITIZE=ON) to catch
// use-after-free on these paths.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/request/request_test_env.h"

namespace netstack::test {
namespace {

// Checks that the request's own events are balanced: one REQUEST_ALIVE and one
// URL_REQUEST_START_JOB end for each begin.
void CheckBalanced(const NetLogRecorder& log, uint32_t id) {
  for (NetLogEventType type :
       {NetLogEventType::REQUEST_ALIVE, NetLogEventType::URL_REQUEST_START_JOB}) {
    INFO(NetLogEventTypeToString(type));
    CHECK(log.Count(type, NetLogEventPhase::BEGIN, id) ==
          log.Count(type, NetLogEventPhase::END, id));
  }
}

TEST_CASE("destroying a request mid-flight is safe and silent", "[request][lifetime]") {
  RequestTestEnv env;
  FakeConnection* conn = nullptr;
  TimeDelta destroy_at;
  bool expect_closed = true;  // the socket was in use: closed, never pooled
  bool expect_connected = true;

  SECTION("during DNS") {
    env.dns->SetAddresses("a.test", {"192.0.2.1"}, Seconds(60), Milliseconds(50));
    conn = env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "x"), IoMode::kAsync)});
    destroy_at = Milliseconds(20);
    expect_closed = false;  // the pool's job goes on; its socket idles unused
  }
  SECTION("during connect") {
    env.AddHost("a.test");
    conn = env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "x"), IoMode::kAsync)}, {},
                                  FakeConnectRule::After(Milliseconds(100)));
    destroy_at = Milliseconds(50);
    expect_closed = false;
  }
  SECTION("during a connect that never ends") {
    env.AddHost("a.test");
    conn = env.factory->AddSocket({}, {}, FakeConnectRule::Hang());
    destroy_at = Milliseconds(50);
    expect_closed = false;
    expect_connected = false;
  }
  SECTION("during the send") {
    env.AddHost("a.test");
    conn = env.factory->AddSocket({}, {ScriptedWrite::Hang()});
    destroy_at = Milliseconds(40);
  }
  SECTION("waiting for the headers") {
    env.AddHost("a.test");
    conn = env.factory->AddSocket(
        {ScriptedRead::Data(Response("200 OK", "x"), IoMode::kAsync, Milliseconds(100))});
    destroy_at = Milliseconds(40);
  }
  SECTION("during the body") {
    env.AddHost("a.test");
    conn = env.factory->AddSocket(
        {ScriptedRead::Data("HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nabcd", IoMode::kAsync),
         ScriptedRead::Data("efgh", IoMode::kAsync, Milliseconds(100))});
    destroy_at = Milliseconds(40);
  }
  SECTION("while draining a redirect body") {
    env.AddHost("a.test");
    conn = env.factory->AddSocket(
        {ScriptedRead::Data("HTTP/1.1 302 Found\r\nLocation: /b\r\nContent-Length: 8\r\n\r\nab",
                            IoMode::kAsync),
         ScriptedRead::Data("cdefgh", IoMode::kAsync, Milliseconds(100)),
         ScriptedRead::Data(Response("200 OK", "b"), IoMode::kAsync)});
    destroy_at = Milliseconds(40);
  }

  RecordingDelegate d;
  auto request = env.MakeRequest(env.Params("http://a.test/"), &d);
  d.Start(request.get());
  env.scheduler.AdvanceBy(destroy_at);
  CHECK(d.completions == 0);
  const uint32_t id = request->net_log().source().id;
  const std::vector<std::string> events_before = d.events;
  request.reset();
  // Long enough for every scripted delay; short of the pool's 10 s unused-idle timeout.
  env.scheduler.AdvanceBy(Seconds(1));

  CHECK(d.events == events_before);  // never called after destruction
  CHECK(d.completions == 0);
  CHECK(env.factory->unscripted_sockets() == 0);
  auto alive = env.recorder.Get(NetLogEventType::REQUEST_ALIVE, id);
  REQUIRE(alive.size() == 2);
  CHECK(alive[1].phase == NetLogEventPhase::END);
  CHECK(alive[1].params["net_error"] == ERR_ABORTED);
  CheckBalanced(env.recorder, id);
  ClientSocketPool* pool = env.context->socket_pool();
  CHECK(pool->handed_out_socket_count() == 0);
  if (expect_closed) {
    // Mid-exchange: the socket is closed, never offered to another request.
    CHECK(conn->destroyed);
    CHECK(pool->IdleSocketCount() == 0);
  } else if (expect_connected) {
    // Destroyed before any byte: the pool's connect job finished for the next request (Chrome
    // keeps it); the socket waits idle and unused.
    CHECK(conn->script->written().empty());
    CHECK_FALSE(conn->script->WasEverUsed());
    CHECK(pool->IdleSocketCount() == 1);
  } else {
    CHECK(pool->IdleSocketCount() == 0);
  }
}

TEST_CASE("a delegate may destroy its request in OnComplete", "[request][lifetime]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  SECTION("after success") {
    env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "x"), IoMode::kAsync)});
  }
  SECTION("after an error") {
    env.factory->AddSocket({ScriptedRead::Error(ERR_CONNECTION_RESET, IoMode::kAsync)});
  }
  SECTION("after a synchronous error during the body") {
    env.factory->AddSocket({ScriptedRead::Data("HTTP/1.1 200 OK\r\n\r\nx"),
                            ScriptedRead::Error(ERR_CONNECTION_RESET)});
  }
  RecordingDelegate d;
  auto request = env.MakeRequest(env.Params("http://a.test/"), &d);
  d.on_complete = [&](UrlRequest* r, int) {
    REQUIRE(r == request.get());
    request.reset();
  };
  d.Start(request.get());
  env.scheduler.RunUntil([&] { return request == nullptr; });
  env.scheduler.AdvanceBy(Seconds(1));
  CHECK(d.completions == 1);
  CHECK(request == nullptr);
  CHECK(d.calls_after_complete == 0);
}

TEST_CASE("a delegate may destroy its request in OnResponseStarted", "[request][lifetime]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  FakeConnection* conn =
      env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "body"), IoMode::kAsync)});
  RecordingDelegate d;
  auto request = env.MakeRequest(env.Params("http://a.test/"), &d);
  d.on_response_started = [&](UrlRequest*) { request.reset(); };
  d.Start(request.get());
  env.scheduler.RunUntil([&] { return request == nullptr; });
  env.scheduler.AdvanceBy(Seconds(1));
  CHECK(request == nullptr);
  CHECK(d.response_started == 1);
  CHECK(d.read_calls == 0);
  CHECK(d.completions == 0);
  // The body was never read: the socket is closed, not pooled.
  CHECK(conn->destroyed);
  CHECK(env.context->socket_pool()->IdleSocketCount() == 0);
}

TEST_CASE("a request destroyed without being started leaves a clean NetLog",
          "[request][lifetime][netlog]") {
  RequestTestEnv env;
  RecordingDelegate d;
  auto request = env.MakeRequest(env.Params("http://a.test/"), &d);
  const uint32_t id = request->net_log().source().id;
  request.reset();
  env.scheduler.RunAll();
  CheckBalanced(env.recorder, id);
  CHECK(d.events.empty());
}

TEST_CASE("the request's priority reaches the pool", "[request][priority]") {
  UrlRequestContext::Config config = RequestTestEnv::DefaultConfig();
  config.pool.max_sockets_per_group = 1;
  RequestTestEnv env(config);
  env.AddHost("a.test");
  std::vector<std::string> completed;
  auto on_complete = [&completed](UrlRequest* r, int) {
    completed.push_back(r->url().path_and_query());
  };

  SECTION("a HIGHEST request queued after a LOW one gets the first socket") {
    FakeConnection* conn = env.factory->AddSocket(
        {ScriptedRead::Data(Response("200 OK", "1"), IoMode::kAsync, Milliseconds(5)),
         ScriptedRead::Data(Response("200 OK", "2"), IoMode::kAsync, Milliseconds(5))});
    RecordingDelegate low_d, high_d;
    low_d.on_complete = high_d.on_complete = on_complete;
    UrlRequest::Params low = env.Params("http://a.test/low");
    low.priority = LOW;
    UrlRequest::Params high = env.Params("http://a.test/high");
    high.priority = HIGHEST;
    auto low_r = env.MakeRequest(low, &low_d);
    auto high_r = env.MakeRequest(high, &high_d);
    low_d.Start(low_r.get());
    high_d.Start(high_r.get());
    env.scheduler.RunUntil([&] { return low_d.completions + high_d.completions == 2; });
    CHECK(low_d.result == OK);
    CHECK(high_d.result == OK);
    CHECK(completed == std::vector<std::string>{"/high", "/low"});
    CHECK(RequestLines(conn->script->written()) ==
          std::vector<std::string>{"GET /high HTTP/1.1", "GET /low HTTP/1.1"});
    CHECK(env.factory->transport_sockets_created() == 1);
    CHECK(low_r->connection_info().reused());
  }

  SECTION("waiting requests get a released socket by priority, not by arrival") {
    FakeConnection* conn = env.factory->AddSocket(
        {ScriptedRead::Data(Response("200 OK", "1"), IoMode::kAsync, Milliseconds(50)),
         ScriptedRead::Data(Response("200 OK", "2"), IoMode::kAsync, Milliseconds(5)),
         ScriptedRead::Data(Response("200 OK", "3"), IoMode::kAsync, Milliseconds(5)),
         ScriptedRead::Data(Response("200 OK", "4"), IoMode::kAsync, Milliseconds(5))});
    RecordingDelegate first_d, lowest_d, medium_d, highest_d;
    for (RecordingDelegate* d : {&first_d, &lowest_d, &medium_d, &highest_d}) {
      d->on_complete = on_complete;
    }
    auto first = env.MakeRequest(env.Params("http://a.test/first"), &first_d);
    first_d.Start(first.get());
    env.scheduler.AdvanceBy(Milliseconds(40));  // connected, waiting for its response
    REQUIRE(env.context->socket_pool()->handed_out_socket_count() == 1);
    UrlRequest::Params p1 = env.Params("http://a.test/lowest");
    p1.priority = LOWEST;
    UrlRequest::Params p2 = env.Params("http://a.test/medium");
    p2.priority = MEDIUM;
    UrlRequest::Params p3 = env.Params("http://a.test/highest");
    p3.priority = HIGHEST;
    auto r1 = env.MakeRequest(p1, &lowest_d);
    auto r2 = env.MakeRequest(p2, &medium_d);
    auto r3 = env.MakeRequest(p3, &highest_d);
    lowest_d.Start(r1.get());
    medium_d.Start(r2.get());
    highest_d.Start(r3.get());
    env.scheduler.RunUntil([&] { return completed.size() == 4; });
    CHECK(completed == std::vector<std::string>{"/first", "/highest", "/medium", "/lowest"});
    CHECK(RequestLines(conn->script->written()) ==
          std::vector<std::string>{"GET /first HTTP/1.1", "GET /highest HTTP/1.1",
                                   "GET /medium HTTP/1.1", "GET /lowest HTTP/1.1"});
    CHECK(env.factory->transport_sockets_created() == 1);
    const uint32_t id = r3->net_log().source().id;
    CHECK(env.recorder.Count(NetLogEventType::SOCKET_POOL_STALLED_MAX_SOCKETS_PER_GROUP, id) == 1);
    auto alive = env.recorder.Get(NetLogEventType::REQUEST_ALIVE, id);
    REQUIRE_FALSE(alive.empty());
    CHECK(alive[0].params["priority"] == "HIGHEST");
  }
}

}  // namespace
}  // namespace netstack::test
