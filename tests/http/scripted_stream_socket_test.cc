#include "tests/support/scripted_stream_socket.h"

#include <catch2/catch.hpp>
#include <string>

#include "net/base/net_error.h"
#include "net/base/virtual_scheduler.h"

using namespace netstack;
using namespace std::chrono_literals;

TEST_CASE("scripted socket: sync, async and split reads") {
  VirtualScheduler s;
  ScriptedStreamSocket socket(
      s, {ScriptedRead::Data("abcdef"), ScriptedRead::Data("xyz", IoMode::kAsync, 5ms),
          ScriptedRead::Eof()});
  CHECK(socket.IsConnectedAndIdle());
  char buf[4];
  int result = 1;
  CHECK(socket.Read(buf, 4, [](int) { FAIL("sync"); }) == 4);
  CHECK(std::string(buf, 4) == "abcd");
  CHECK_FALSE(socket.IsConnectedAndIdle());  // "ef" has arrived and is unread
  CHECK(socket.Read(buf, 4, [](int) { FAIL("sync"); }) == 2);
  CHECK(socket.Read(buf, 4, [&](int rv) { result = rv; }) == ERR_IO_PENDING);
  CHECK(socket.read_pending());
  s.AdvanceBy(4ms);
  CHECK(result == 1);
  s.AdvanceBy(1ms);
  CHECK(result == 3);
  CHECK(std::string(buf, 3) == "xyz");
  CHECK(socket.Read(buf, 4, nullptr) == 0);
  CHECK(socket.Read(buf, 4, nullptr) == 0);  // EOF stays
  CHECK(socket.AllReadsConsumed());
  CHECK(socket.read_data() == "abcdefxyz");
  CHECK(socket.WasEverUsed());
  CHECK_FALSE(socket.IsConnectedAndIdle());
}

TEST_CASE("scripted socket: an exhausted script waits for AddRead, Hang never completes") {
  VirtualScheduler s;
  ScriptedStreamSocket socket(s, {});
  char buf[8];
  int result = 1;
  REQUIRE(socket.Read(buf, 8, [&](int rv) { result = rv; }) == ERR_IO_PENDING);
  s.RunAll();
  CHECK(result == 1);
  socket.AddRead(ScriptedRead::Data("late", IoMode::kSync, 3ms));
  s.RunAll();
  CHECK(result == 4);
  CHECK(s.Now() == TimeTicks(3ms));

  socket.AddRead(ScriptedRead::Hang());
  socket.AddRead(ScriptedRead::Data("never"));
  result = 1;
  REQUIRE(socket.Read(buf, 8, [&](int rv) { result = rv; }) == ERR_IO_PENDING);
  s.RunAll();
  CHECK(result == 1);
  socket.Disconnect();
  CHECK_FALSE(socket.IsConnected());
  CHECK_FALSE(socket.read_pending());
  CHECK(socket.Read(buf, 8, nullptr) == ERR_SOCKET_NOT_CONNECTED);
}

TEST_CASE("scripted socket: errors end the read side") {
  VirtualScheduler s;
  ScriptedStreamSocket socket(s, {ScriptedRead::Error(ERR_CONNECTION_RESET, IoMode::kAsync)});
  char buf[8];
  int result = 1;
  REQUIRE(socket.Read(buf, 8, [&](int rv) { result = rv; }) == ERR_IO_PENDING);
  s.RunUntilIdle();
  CHECK(result == ERR_CONNECTION_RESET);
  CHECK_FALSE(socket.IsConnectedAndIdle());
}

TEST_CASE("scripted socket: partial, async, failing and hanging writes") {
  VirtualScheduler s;
  ScriptedStreamSocket socket(s, {},
                              {ScriptedWrite::Accept(2), ScriptedWrite::Accept(3, IoMode::kAsync),
                               ScriptedWrite::Error(ERR_CONNECTION_RESET), ScriptedWrite::Hang()});
  int result = 1;
  CHECK(socket.Write("hello", 5, nullptr) == 2);
  CHECK(socket.Write("llo", 3, [&](int rv) { result = rv; }) == ERR_IO_PENDING);
  CHECK(socket.write_pending());
  s.RunUntilIdle();
  CHECK(result == 3);
  CHECK(socket.written() == "hello");
  CHECK(socket.Write("x", 1, nullptr) == ERR_CONNECTION_RESET);
  result = 1;
  CHECK(socket.Write("y", 1, [&](int rv) { result = rv; }) == ERR_IO_PENDING);
  s.RunAll();
  CHECK(result == 1);
  CHECK(socket.AllWritesConsumed() == false);  // the Hang step stays
  CHECK(socket.write_calls() == 4);

  ScriptedStreamSocket open(s, {});
  CHECK(open.Write("abc", 3, nullptr) == 3);  // exhausted script: accept all
  open.set_write_script_end(ERR_CONNECTION_RESET);
  CHECK(open.Write("abc", 3, nullptr) == ERR_CONNECTION_RESET);
}

TEST_CASE("scripted socket: destruction cancels pending callbacks, connect results") {
  VirtualScheduler s;
  int calls = 0;
  {
    ScriptedStreamSocket socket(s, {ScriptedRead::Data("a", IoMode::kAsync)},
                                {ScriptedWrite::Accept(1, IoMode::kAsync)});
    char buf[1];
    REQUIRE(socket.Read(buf, 1, [&](int) { ++calls; }) == ERR_IO_PENDING);
    REQUIRE(socket.Write("b", 1, [&](int) { ++calls; }) == ERR_IO_PENDING);
  }
  s.RunAll();
  CHECK(calls == 0);

  ScriptedStreamSocket refused(s, {});
  refused.set_connected(false);
  refused.set_connect_result(ERR_CONNECTION_REFUSED, IoMode::kAsync);
  int result = 1;
  REQUIRE(refused.Connect([&](int rv) { result = rv; }) == ERR_IO_PENDING);
  s.RunUntilIdle();
  CHECK(result == ERR_CONNECTION_REFUSED);
  CHECK_FALSE(refused.IsConnected());
  IPEndPoint peer;
  CHECK(refused.GetPeerAddress(&peer) == ERR_SOCKET_NOT_CONNECTED);
}
