// The stack above HTTP/2 on virtual time: the network transaction and the session pool's rules
// (one session per origin, waiting requests moved onto it, known-h2 origins open one socket,
// coalescing, the server's stream limit, priority order, retries after GOAWAY and
// REFUSED_STREAM, the idle timeout), over H2SocketFactory's in-memory servers.
#include <catch2/catch.hpp>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "net/http2/http2_session_pool.h"
#include "predictor/context_speculation_target.h"
#include "tests/http2/h2_stack_env.h"

namespace netstack::test {
namespace {

TEST_CASE("HTTP/2 stack: parallel requests to an h2 origin all go onto one session",
          "[http2][stack]") {
  H2Env env;
  env.AddHost("a.test");
  for (int i = 0; i < 20; ++i) env.Start("https://a.test/r" + std::to_string(i));
  env.RunUntilDone();
  std::set<uint32_t> sessions, sockets;
  for (size_t i = 0; i < env.requests.size(); ++i) {
    INFO(i);
    REQUIRE(env.delegates[i]->result == OK);
    CHECK(env.delegates[i]->data == "/r" + std::to_string(i));
    const ConnectionInfo& c = env.requests[i]->connection_info();
    CHECK(c.protocol == "h2");
    CHECK(c.h2_stream_id > 0);
    sessions.insert(c.h2_session_id);
    sockets.insert(c.socket_id);
  }
  CHECK(sessions.size() == 1);
  CHECK(sockets.size() == 1);
  CHECK(env.ConnectionsUsed() == 1);
  // The first contact: every waiting request had started a connect (the group's limit, 6);
  // the first to connect became the session and the rest moved onto it.
  CHECK(env.factory->connections().size() == 6);
  CHECK(env.context->http2_session_pool()->session_count() == 1);
  CHECK(env.context->http2_session_pool()->IsKnownHttp2({"https", "a.test", 443}));
  // The first request made the session: its socket is new; every other joined it.
  CHECK(env.requests[0]->connection_info().socket_source == SocketSource::kNew);
  int joined = 0;
  for (const auto& r : env.requests) {
    joined += r->connection_info().socket_source == SocketSource::kHttp2Session;
  }
  CHECK(joined == 19);
  CHECK(env.recorder.Count(NetLogEventType::HTTP2_SESSION_POOL_IMPORTED_SESSION_FROM_SOCKET) == 1);
}

TEST_CASE("HTTP/2 stack: a group known to speak h2 opens one socket, a preconnect opens one",
          "[http2][stack]") {
  H2Env env;
  env.AddHost("a.test");
  env.Start("https://a.test/first");
  env.RunUntilDone();
  REQUIRE(env.delegates[0]->result == OK);
  const size_t before = env.factory->connections().size();
  // The session goes away (the server's GOAWAY); the origin stays known.
  H2ServerConnection& first = *env.factory->connections()[0];
  first.server.Goaway(1);
  first.flush();
  env.scheduler.RunUntilIdle();
  REQUIRE(env.context->http2_session_pool()->FindAvailableSession({"https", "a.test", 443}) ==
          nullptr);
  for (int i = 0; i < 10; ++i) env.Start("https://a.test/again" + std::to_string(i));
  env.RunUntilDone();
  for (const auto& d : env.delegates) CHECK(d->result == OK);
  // One more connection, not six: the others waited for its session.
  CHECK(env.factory->connections().size() - before <= 1 + 0);
  CHECK(env.recorder.Count(NetLogEventType::HTTP2_SESSION_POOL_FOUND_EXISTING_SESSION) >= 9);
}

TEST_CASE("HTTP/2 stack: two names on one address and certificate share a session (coalescing)",
          "[http2][stack]") {
  H2SocketFactory::Options options;
  options.certificate_names = {"a.test", "b.test"};
  H2Env env(options);
  env.AddHost("a.test", "192.0.2.7");
  env.AddHost("b.test", "192.0.2.7");
  env.Start("https://a.test/x");
  env.RunUntilDone();
  env.Start("https://b.test/y");
  env.RunUntilDone();
  REQUIRE(env.delegates[1]->result == OK);
  CHECK(env.delegates[1]->data == "/y");
  CHECK(env.requests[0]->connection_info().h2_session_id ==
        env.requests[1]->connection_info().h2_session_id);
  CHECK(env.requests[1]->connection_info().socket_source == SocketSource::kHttp2Session);
  CHECK(env.factory->connections().size() == 1);
  CHECK(env.recorder.Count(
            NetLogEventType::HTTP2_SESSION_POOL_FOUND_EXISTING_SESSION_FROM_IP_POOL) == 1);
  // The authority on the wire is the request's own host.
  CHECK(env.factory->connections()[0]->server.Header(3, ":authority") == "b.test");
}

TEST_CASE("HTTP/2 stack: no coalescing when the certificate does not cover the name",
          "[http2][stack]") {
  H2Env env;  // certificates cover only the name connected to
  env.AddHost("a.test", "192.0.2.7");
  env.AddHost("b.test", "192.0.2.7");
  env.Start("https://a.test/x");
  env.RunUntilDone();
  env.Start("https://b.test/y");
  env.RunUntilDone();
  REQUIRE(env.delegates[1]->result == OK);
  CHECK(env.requests[0]->connection_info().h2_session_id !=
        env.requests[1]->connection_info().h2_session_id);
  CHECK(env.factory->connections().size() == 2);
}

TEST_CASE("HTTP/2 stack: streams above the server's limit queue and run by priority",
          "[http2][stack]") {
  H2SocketFactory::Options options;
  options.settings = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 1}};
  H2Env env(options);
  env.AddHost("a.test");
  // Answer each stream only after a while, so the others queue.
  std::vector<std::string> order;
  env.factory->set_handler([&](H2ServerConnection& conn, int32_t id) {
    order.push_back(conn.server.Header(id, ":path"));
    env.scheduler.PostDelayedTask(Milliseconds(50), [&conn, id] {
      H2SocketFactory::AnswerWithPath(conn, id);
      conn.flush();
    });
  });
  env.Start("https://a.test/first", MEDIUM);
  // The session exists, knows the limit, and its one stream is still waiting for its answer.
  env.scheduler.AdvanceBy(Milliseconds(40));
  REQUIRE(env.context->http2_session_pool()->session_count() == 1);
  env.Start("https://a.test/low", LOWEST);
  env.Start("https://a.test/high", HIGHEST);
  env.Start("https://a.test/medium", MEDIUM);
  env.RunUntilDone();
  for (const auto& d : env.delegates) CHECK(d->result == OK);
  REQUIRE(order.size() == 4);
  CHECK(order[1] == "/high");
  CHECK(order[2] == "/medium");
  CHECK(order[3] == "/low");
  CHECK(env.ConnectionsUsed() == 1);
  CHECK(env.factory->connections()[0]->max_open == 1);
}

TEST_CASE("HTTP/2 stack: requests a GOAWAY left unprocessed are retried on a new connection",
          "[http2][stack]") {
  H2Env env;
  env.AddHost("a.test");
  // The first connection answers its first two streams, then goes away with last_stream_id 3:
  // the streams after it were not processed. Later connections answer everything.
  H2Env* e = &env;
  env.factory->set_handler([e](H2ServerConnection& conn, int32_t id) {
    const bool first_connection = &conn == e->factory->connections()[0].get();
    if (!first_connection || conn.requests <= 2) {
      H2SocketFactory::AnswerWithPath(conn, id);
    } else if (conn.requests == 3) {
      conn.server.Goaway(3);
    }
  });
  env.Start("https://a.test/first");
  env.RunUntilDone();
  REQUIRE(env.delegates[0]->result == OK);
  for (int i = 0; i < 6; ++i) env.Start("https://a.test/r" + std::to_string(i));
  env.RunUntilDone();
  std::set<uint32_t> sessions;
  for (size_t i = 1; i < env.delegates.size(); ++i) {
    INFO(i);
    CHECK(env.delegates[i]->result == OK);
    CHECK(env.delegates[i]->data == "/r" + std::to_string(i - 1));
    sessions.insert(env.requests[i]->connection_info().h2_session_id);
  }
  CHECK(sessions.size() == 2);  // the first session, then the new one
  CHECK(env.ConnectionsUsed() == 2);
  CHECK(env.recorder.Count(NetLogEventType::HTTP_TRANSACTION_RESTART_AFTER_ERROR) >= 4);
}

TEST_CASE("HTTP/2 stack: REFUSED_STREAM is retried, the --timeout holds on a silent stream",
          "[http2][stack]") {
  UrlRequestContext::Config config = RequestTestEnv::DefaultConfig();
  config.stream.idle_timeout = Seconds(2);
  H2Env env({}, config);
  env.AddHost("a.test");
  std::set<std::string> refused;
  env.factory->set_handler([&](H2ServerConnection& conn, int32_t id) {
    const std::string path = conn.server.Header(id, ":path");
    if (path == "/silent") return;  // never answered
    if (refused.insert(path).second) {
      conn.server.Reset(id, NGHTTP2_REFUSED_STREAM);
      return;
    }
    H2SocketFactory::AnswerWithPath(conn, id);
  });
  env.Start("https://a.test/refused-once");
  env.RunUntilDone();
  CHECK(env.delegates[0]->result == OK);
  CHECK(env.delegates[0]->data == "/refused-once");
  env.Start("https://a.test/silent");
  env.RunUntilDone();
  CHECK(env.delegates[1]->result == ERR_TIMED_OUT);
  // The session survives a stream's timeout: the next request uses it.
  env.Start("https://a.test/after");
  env.RunUntilDone();
  CHECK(env.delegates[2]->result == OK);
  CHECK(env.requests[2]->connection_info().socket_source == SocketSource::kHttp2Session);
}

TEST_CASE("HTTP/2 stack: differing Location or Content-Disposition fail the stream, as on HTTP/1.1",
          "[http2][stack]") {
  H2Env env;
  env.AddHost("a.test");
  env.factory->set_handler([&](H2ServerConnection& conn, int32_t id) {
    const std::string path = conn.server.Header(id, ":path");
    if (path == "/two-locations") {
      conn.server.Respond(id, 302, {{"location", "/a"}, {"location", "/b"}});
    } else if (path == "/two-dispositions") {
      conn.server.Respond(
          id, 200, {{"content-disposition", "inline"}, {"content-disposition", "attachment"}}, "x");
    } else {  // the same value twice is fine
      conn.server.Respond(id, 200, {{"location", "/a"}, {"location", "/a"}}, "ok");
    }
  });
  env.Start("https://a.test/two-locations");
  env.RunUntilDone();
  CHECK(env.delegates[0]->result == ERR_RESPONSE_HEADERS_MULTIPLE_LOCATION);
  env.Start("https://a.test/two-dispositions");
  env.RunUntilDone();
  CHECK(env.delegates[1]->result == ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_DISPOSITION);
  env.Start("https://a.test/same");
  env.RunUntilDone();
  CHECK(env.delegates[2]->result == OK);
  CHECK(env.delegates[2]->data == "ok");
}

TEST_CASE(
    "HTTP/2 stack: a preconnect to an h2 origin opens one socket, none while a session is open",
    "[http2][stack][predictor]") {
  H2Env env;
  env.AddHost("a.test");
  ContextSpeculationTarget target(env.context.get());
  const SchemeHostPort origin{"https", "a.test", 443};
  const NetLogWithSource log = NetLogWithSource::Make(&env.net_log, NetLogSourceType::PREDICTOR);
  // Not known yet: the pool's rule, as many as asked.
  env.Start("https://a.test/first");
  env.RunUntilDone();
  const size_t after_first = env.factory->connections().size();
  // A session is open: nothing to do.
  CHECK(target.Preconnect(origin, 4, log) == OK);
  env.scheduler.RunUntilIdle();
  CHECK(env.factory->connections().size() == after_first);
  // Known h2 but its session gone: one socket, not four.
  env.context->http2_session_pool()->MakeSessionsGoingAway();
  env.scheduler.RunUntilIdle();
  env.context->socket_pool()->CloseIdleSockets();
  CHECK(target.Preconnect(origin, 4, log) == OK);
  env.scheduler.RunUntilIdle();
  CHECK(env.factory->connections().size() == after_first + 1);
}

}  // namespace
}  // namespace netstack::test
