// The context as a whole: its services and polled data, and paths the other files leave out:
// everything completing synchronously, HEAD on a kept-alive socket, a POST retried with its
// body, a redirect whose body fails while being drained.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/request/request_test_env.h"

namespace netstack::test {
namespace {

TEST_CASE("the context owns one resolver and one pool and reports their state",
          "[request][context]") {
  UrlRequestContext::Config config = RequestTestEnv::DefaultConfig();
  config.pool.max_sockets_per_group = 4;
  RequestTestEnv env(config);
  REQUIRE(env.context->host_resolver() != nullptr);
  REQUIRE(env.context->socket_pool() != nullptr);
  CHECK(env.context->net_log() == &env.net_log);
  CHECK(&env.context->scheduler() == &env.scheduler);
  CHECK(env.context->socket_pool()->params().max_sockets_per_group == 4);
  CHECK(env.context->host_resolver()->transport() == env.dns);

  env.AddHost("a.test");
  FakeConnection* conn =
      env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "x"), IoMode::kAsync)});
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/"), &d);
  REQUIRE(d.result == OK);

  nlohmann::json polled = env.context->GetPolledData();
  INFO(polled.dump(2));
  REQUIRE(polled.contains("hostResolverInfo"));
  REQUIRE(polled.contains("socketPoolInfo"));
  CHECK(polled["hostResolverInfo"]["dns_config"]["type"] == "scripted");
  const nlohmann::json& pool = polled["socketPoolInfo"];
  CHECK(pool["idle_socket_count"] == 1);
  CHECK(pool["max_sockets_per_group"] == 4);
  REQUIRE(pool["groups"].contains("http://a.test:80"));
  CHECK(pool["groups"]["http://a.test:80"]["idle_sockets"] ==
        nlohmann::json::array({conn->net_log_id}));
}

TEST_CASE("everything synchronous: no re-entrant callbacks, redirects and reuse still work",
          "[request][sync]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  FakeConnection* conn = env.factory->AddSocket(
      {ScriptedRead::Data(Redirect(302, "/b")), ScriptedRead::Data(Redirect(307, "/c")),
       ScriptedRead::Data(Response("200 OK", "first")),
       ScriptedRead::Data(Response("200 OK", "second"))},
      {}, FakeConnectRule::Sync());
  RecordingDelegate d1, d2;
  auto r1 = env.Fetch(env.Params("http://a.test/a"), &d1);
  CHECK(d1.result == OK);
  CHECK(d1.data == "first");
  CHECK(d1.calls_inside_start == 0);
  CHECK(d1.completions == 1);
  CHECK(r1->redirect_chain().size() == 2);
  // The second request finds an idle socket and sync reads: it could complete inside the task
  // that starts it, but never inside Start().
  auto r2 = env.MakeRequest(env.Params("http://a.test/d"), &d2);
  d2.Start(r2.get());
  CHECK(d2.events.empty());
  env.scheduler.RunUntil([&] { return d2.completions > 0; });
  CHECK(d2.result == OK);
  CHECK(d2.data == "second");
  CHECK(r2->connection_info().reused());
  CHECK(env.factory->transport_sockets_created() == 1);
  CHECK(RequestLines(conn->script->written()).size() == 4);
}

TEST_CASE("HEAD: no body is read and the socket is reused", "[request][reuse]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  FakeConnection* conn = env.factory->AddSocket(
      {ScriptedRead::Data("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", IoMode::kAsync),
       ScriptedRead::Data(Response("200 OK", "got"), IoMode::kAsync)});
  RecordingDelegate d1, d2;
  auto r1 = env.Fetch(env.Params("http://a.test/h", "HEAD"), &d1);
  CHECK(d1.result == OK);
  CHECK(d1.data.empty());
  CHECK(d1.response_started == 1);
  auto r2 = env.Fetch(env.Params("http://a.test/g"), &d2);
  CHECK(d2.result == OK);
  CHECK(d2.data == "got");
  CHECK(r2->connection_info().reused());
  CHECK(RequestLines(conn->script->written()) ==
        std::vector<std::string>{"HEAD /h HTTP/1.1", "GET /g HTTP/1.1"});
}

TEST_CASE("a POST retried after the idle-close race sends its body again", "[request][retry]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "warm"), IoMode::kAsync),
                          ScriptedRead::Eof(IoMode::kAsync)});
  FakeConnection* fresh =
      env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "posted"), IoMode::kAsync)});
  RecordingDelegate warm, d;
  auto w = env.Fetch(env.Params("http://a.test/"), &warm);
  REQUIRE(warm.result == OK);
  auto r = env.Fetch(env.Params("http://a.test/form", "POST", "a=1&b=2"), &d);
  CHECK(d.result == OK);
  CHECK(d.data == "posted");
  const std::string& sent = fresh->script->written();
  CHECK(sent.rfind("POST /form HTTP/1.1\r\n", 0) == 0);
  CHECK(sent.find("\r\nContent-Length: 7\r\n") != std::string::npos);
  CHECK(sent.size() >= 7);
  CHECK(sent.substr(sent.size() - 7) == "a=1&b=2");
}

TEST_CASE("a redirect whose body fails while drained is still followed, on a new socket",
          "[request][redirect]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  env.factory->AddSocket(
      {ScriptedRead::Data("HTTP/1.1 301 Moved\r\nLocation: /b\r\nContent-Length: 50\r\n\r\nab",
                          IoMode::kAsync),
       ScriptedRead::Error(ERR_CONNECTION_RESET, IoMode::kAsync)});
  env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "b"), IoMode::kAsync)});
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/a"), &d);
  CHECK(d.result == OK);
  CHECK(d.data == "b");
  CHECK(r->redirect_chain() == std::vector<std::string>{"http://a.test/b"});
  CHECK(env.factory->transport_sockets_created() == 2);
  CHECK(env.factory->connection(0).destroyed);
  CHECK_FALSE(r->connection_info().reused());
}

TEST_CASE("a close-delimited redirect body is drained to the end, the socket is not kept",
          "[request][redirect]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  env.factory->AddSocket(
      {ScriptedRead::Data("HTTP/1.1 302 Found\r\nLocation: /b\r\n\r\nbye", IoMode::kAsync),
       ScriptedRead::Eof(IoMode::kAsync)});
  env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "b"), IoMode::kAsync)});
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/a"), &d);
  CHECK(d.result == OK);
  CHECK(d.data == "b");
  CHECK(env.factory->transport_sockets_created() == 2);
  CHECK(env.factory->connection(0).destroyed);
}

}  // namespace
}  // namespace netstack::test
