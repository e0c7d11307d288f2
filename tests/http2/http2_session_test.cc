// Http2Session over a ScriptedStreamSocket on virtual time, the server being H2TestServer: a
// request and its response through the socket (the preface first), writes the socket takes in
// small asynchronous pieces, the end of the transport (EOF, a write error) failing open streams
// and closing the session, GOAWAY with nothing open, and the idle timeout (GOAWAY, then the
// session closes; a stream keeps it open).
#include "net/http2/http2_session.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "net/base/net_error.h"
#include "net/base/virtual_scheduler.h"
#include "tests/http2/h2_test_server.h"
#include "tests/support/scripted_stream_socket.h"

namespace netstack {
namespace {

// A session on a scripted socket, and the server answering through it.
struct Env {
  VirtualScheduler scheduler;
  H2TestServer server;
  ScriptedStreamSocket* socket = nullptr;  // owned by the session
  std::unique_ptr<Http2Session> session;
  size_t taken = 0;  // bytes of socket->written() the server has read
  bool closed = false;
  int close_error = 1;

  explicit Env(std::vector<ScriptedWrite> writes = {}, Http2Session::Params params = {}) {
    auto s = std::make_unique<ScriptedStreamSocket>(scheduler, std::vector<ScriptedRead>{},
                                                    std::move(writes));
    socket = s.get();
    session = std::make_unique<Http2Session>(scheduler, std::move(s), params, [this](int error) {
      closed = true;
      close_error = error;
    });
  }

  // Moves bytes through the socket until neither side has more.
  void Exchange() {
    for (int round = 0; round < 100; ++round) {
      scheduler.RunUntilIdle();
      bool moved = false;
      if (socket->written().size() > taken) {
        server.Receive(std::string_view(socket->written()).substr(taken));
        taken = socket->written().size();
        moved = true;
      }
      std::string out = server.TakeOutput();
      if (!out.empty()) {
        socket->AddRead(ScriptedRead::Data(std::move(out), IoMode::kAsync));
        moved = true;
      }
      if (!moved) break;
    }
    scheduler.RunUntilIdle();
  }
};

TEST_CASE("http2 session: a request and its response through the socket", "[http2]") {
  Recorder r;
  Env env;
  CHECK(env.socket->written().rfind("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 0) == 0);
  REQUIRE(env.session->StartRequest(Get("/"), HIGHEST, &r) > 0);
  env.Exchange();
  REQUIRE(env.server.requests().count(1) == 1);
  env.server.Respond(1, 200, {}, "hello");
  env.Exchange();
  CHECK(r.error == OK);
  CHECK(r.status == 200);
  CHECK(r.body == "hello");
  CHECK(env.session->IsAvailable());
  CHECK_FALSE(env.closed);
}

TEST_CASE("http2 session: writes taken a few bytes at a time, asynchronously", "[http2]") {
  Recorder r;
  std::vector<ScriptedWrite> writes;
  for (int i = 0; i < 60; ++i) writes.push_back(ScriptedWrite::Accept(7, IoMode::kAsync));
  Env env(std::move(writes));
  Http2RequestHead head = Get("/upload");
  head.method = "POST";
  head.body = "0123456789";
  env.session->StartRequest(head, MEDIUM, &r);
  env.Exchange();
  CHECK(env.socket->write_calls() >= 10);  // the preface alone took several partial writes
  CHECK(env.server.requests()[1].body == "0123456789");
  env.server.Respond(1, 200, {}, "ok");
  env.Exchange();
  CHECK(r.error == OK);
  CHECK(r.body == "ok");
}

TEST_CASE("http2 session: EOF fails the open streams and closes the session", "[http2]") {
  Recorder r;
  Env env;
  env.session->StartRequest(Get("/"), MEDIUM, &r);
  env.Exchange();
  env.socket->AddRead(ScriptedRead::Eof(IoMode::kAsync));
  env.scheduler.RunUntilIdle();
  CHECK(r.closed);
  CHECK(r.error == ERR_CONNECTION_CLOSED);
  CHECK(env.session->IsClosed());
  CHECK(env.closed);
  CHECK(env.close_error == ERR_CONNECTION_CLOSED);
  CHECK(env.socket->disconnect_calls() == 1);
  Recorder late;
  CHECK(env.session->StartRequest(Get("/late"), MEDIUM, &late) == ERR_CONNECTION_CLOSED);
}

TEST_CASE("http2 session: a write error fails the streams with it", "[http2]") {
  Recorder r;
  Env env;
  env.Exchange();
  env.socket->set_write_script_end(ERR_CONNECTION_RESET);
  env.session->StartRequest(Get("/"), MEDIUM, &r);
  env.scheduler.RunUntilIdle();
  CHECK(r.error == ERR_CONNECTION_RESET);
  CHECK(env.closed);
  CHECK(env.close_error == ERR_CONNECTION_RESET);
}

TEST_CASE("http2 session: a GOAWAY with nothing open ends the session", "[http2]") {
  Env env;
  env.Exchange();
  env.server.Goaway(0);
  env.Exchange();
  CHECK(env.session->IsClosed());
  CHECK(env.closed);
  CHECK(env.close_error == OK);
}

TEST_CASE("http2 session: idle for the timeout, it sends GOAWAY and closes", "[http2]") {
  Recorder r;
  Http2Session::Params params;
  params.idle_timeout = Seconds(300);
  Env env({}, params);
  env.session->StartRequest(Get("/"), MEDIUM, &r);
  env.Exchange();
  env.scheduler.AdvanceBy(Seconds(400));  // a stream is open: no timeout
  CHECK_FALSE(env.closed);
  env.server.Respond(1, 200, {}, "x");
  env.Exchange();
  CHECK(r.error == OK);
  env.scheduler.AdvanceBy(Seconds(299));
  CHECK_FALSE(env.closed);
  env.scheduler.AdvanceBy(Seconds(1));
  env.Exchange();
  CHECK(env.server.goaway_received());
  CHECK(env.closed);
  CHECK(env.close_error == OK);
  CHECK(env.socket->disconnect_calls() == 1);
}

TEST_CASE("http2 session: destroying it aborts the open streams", "[http2]") {
  Recorder r;
  {
    Env env;
    env.session->StartRequest(Get("/"), MEDIUM, &r);
    env.Exchange();
  }
  CHECK(r.closed);
  CHECK(r.error == ERR_ABORTED);
}

}  // namespace
}  // namespace netstack
