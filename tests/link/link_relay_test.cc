// LinkRelay (net/link/link_relay.h) on a real libuv loop, between two SOCK_SEQPACKET
// socketpairs standing for the client's and the server's TUN devices. Times are only checked
// from below (a delay is at least what was asked), never from above: the machine may be loaded.
#include "net/link/link_relay.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace netstack {
namespace {

int64_t MonotonicMicros() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000 + ts.tv_nsec / 1000;
}

// Two socketpairs: the applications' ends (client_app, server_app) and the devices' ends that
// the relay reads and writes (client_dev, server_dev), all non-blocking.
struct Devices {
  int client_app = -1, client_dev = -1, server_app = -1, server_dev = -1;

  Devices() {
    int a[2], b[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, a) == 0);
    REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, b) == 0);
    client_app = a[0];
    client_dev = a[1];
    server_app = b[0];
    server_dev = b[1];
  }
  ~Devices() {
    for (int fd : {client_app, client_dev, server_app, server_dev}) {
      if (fd >= 0) close(fd);
    }
  }
};

class RelayTest {
 public:
  explicit RelayTest(LinkParams params)
      : relay_(&loop_, devices_.client_dev, devices_.server_dev, std::move(params)) {}
  RelayTest() : RelayTest(LinkParams()) {}

  ~RelayTest() {
    if (!closed_) CloseRelay();
    uv_loop_close(&loop_);
  }

  Devices& devices() { return devices_; }
  LinkRelay& relay() { return relay_; }
  uv_loop_t* loop() { return &loop_; }

  // Runs the loop until `done` is true or 5 s have passed (a guard against a hang, not a
  // timing assertion). Returns `done()`.
  bool RunUntil(const std::function<bool()>& done) {
    uv_timer_t tick;
    uv_timer_init(&loop_, &tick);
    uv_timer_start(
        &tick, [](uv_timer_t*) {}, 1, 1);  // wakes the loop to check `done`
    const int64_t deadline = MonotonicMicros() + 5'000'000;
    bool finished = done();  // called once per turn: it may consume what it checks
    while (!finished && MonotonicMicros() < deadline) {
      uv_run(&loop_, UV_RUN_ONCE);
      finished = done();
    }
    uv_close(reinterpret_cast<uv_handle_t*>(&tick), nullptr);
    uv_run(&loop_, UV_RUN_NOWAIT);
    return finished;
  }

  void CloseRelay() {
    bool called = false;
    relay_.Close([&] { called = true; });
    CHECK(!called);  // never from inside Close
    CHECK(RunUntil([&] { return called; }));
    closed_ = true;
  }

 private:
  struct Loop {
    uv_loop_t loop;
    Loop() { uv_loop_init(&loop); }
  };
  Loop loop_holder_;
  uv_loop_t& loop_ = loop_holder_.loop;
  Devices devices_;
  LinkRelay relay_;
  bool closed_ = false;
};

void Send(int fd, const std::string& packet) {
  REQUIRE(send(fd, packet.data(), packet.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(packet.size()));
}

// One packet read from `fd` into `*packet`, if one is there.
bool Receive(int fd, std::string* packet) {
  char buffer[70000];
  ssize_t n = recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT);
  if (n < 0) return false;
  packet->assign(buffer, static_cast<size_t>(n));
  return true;
}

TEST_CASE("LinkRelay: packets cross both ways") {
  RelayTest test;
  REQUIRE(test.relay().Start() == 0);
  Devices& d = test.devices();
  Send(d.client_app, "hello from the client");
  Send(d.server_app, "hello from the server");
  std::string at_server, at_client;
  CHECK(test.RunUntil([&] { return !at_server.empty() || Receive(d.server_app, &at_server); }));
  CHECK(test.RunUntil([&] { return !at_client.empty() || Receive(d.client_app, &at_client); }));
  CHECK(at_server == "hello from the client");
  CHECK(at_client == "hello from the server");
  CHECK(test.relay().up_stats().packets_in == 1);
  CHECK(test.relay().up_stats().packets_out == 1);
  CHECK(test.relay().up_stats().bytes_out == 21);
  CHECK(test.relay().down_stats().packets_out == 1);
}

TEST_CASE("LinkRelay: a one-way delay of 20 ms is visible") {
  LinkParams params;
  params.up.delay = Milliseconds(20);
  params.down.delay = Milliseconds(30);
  RelayTest test(params);
  REQUIRE(test.relay().Start() == 0);
  Devices& d = test.devices();
  std::string packet;
  const int64_t sent = MonotonicMicros();
  Send(d.client_app, "ping");
  REQUIRE(test.RunUntil([&] { return Receive(d.server_app, &packet); }));
  const int64_t up = MonotonicMicros() - sent;
  Send(d.server_app, "pong");
  REQUIRE(test.RunUntil([&] { return Receive(d.client_app, &packet); }));
  const int64_t round_trip = MonotonicMicros() - sent;
  CHECK(packet == "pong");
  CHECK(up >= 20'000);
  CHECK(round_trip >= 50'000);
}

TEST_CASE("LinkRelay: many packets queued at once all cross, in order") {
  LinkParams params;
  params.up.rate_bps = 100'000'000;
  RelayTest test(params);
  REQUIRE(test.relay().Start() == 0);
  Devices& d = test.devices();
  // More than one readable event's worth of reads (64).
  for (int i = 0; i < 150; ++i) Send(d.client_app, "packet " + std::to_string(i));
  std::vector<std::string> received;
  CHECK(test.RunUntil([&] {
    std::string packet;
    while (Receive(d.server_app, &packet)) received.push_back(packet);
    return received.size() == 150;
  }));
  REQUIRE(received.size() == 150);
  for (int i = 0; i < 150; ++i) CHECK(received[i] == "packet " + std::to_string(i));
  CHECK(test.relay().up_stats().packets_in == 150);
}

TEST_CASE("LinkRelay: the queue bound and loss drop packets, counted") {
  LinkParams params;
  params.up.rate_bps = 800;  // 1000 B take 10 s
  params.up.queue_packets = 2;
  params.down.loss = 1;
  RelayTest test(params);
  REQUIRE(test.relay().Start() == 0);
  Devices& d = test.devices();
  for (int i = 0; i < 10; ++i) Send(d.client_app, std::string(1000, 'x'));
  for (int i = 0; i < 5; ++i) Send(d.server_app, "lost");
  CHECK(test.RunUntil([&] {
    return test.relay().up_stats().packets_in == 10 && test.relay().down_stats().packets_in == 5;
  }));
  // One on the wire and two waiting; the rest dropped.
  CHECK(test.relay().up_stats().queue_drops == 7);
  CHECK(test.relay().up_stats().max_queue_packets == 2);
  CHECK(test.relay().down_stats().loss_drops == 5);
  CHECK(test.relay().down_stats().packets_out == 0);
}

TEST_CASE("LinkRelay: a device that does not take packets drops them, never blocks") {
  RelayTest test;
  Devices& d = test.devices();
  int small = 4096;
  REQUIRE(setsockopt(d.server_dev, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)) == 0);
  REQUIRE(test.relay().Start() == 0);
  // The server application never reads: its socket fills and the relay's writes fail.
  int sent = 0;
  CHECK(test.RunUntil([&] {
    while (sent < 400 && send(d.client_app, std::string(1000, 'x').data(), 1000,
                              MSG_NOSIGNAL | MSG_DONTWAIT) == 1000) {
      ++sent;
    }
    const LinkDirectionStats& up = test.relay().up_stats();
    return sent == 400 && up.packets_out + up.write_drops == 400;
  }));
  CHECK(test.relay().up_stats().write_drops > 0);
  CHECK(test.relay().up_stats().packets_out > 0);
}

TEST_CASE("LinkRelay: a device at end of file stops being read, the other way still works") {
  RelayTest test;
  REQUIRE(test.relay().Start() == 0);
  Devices& d = test.devices();
  close(d.client_app);  // the client's device now reads end of file
  d.client_app = -1;
  Send(d.server_app, "still there");
  // Its writes to the closed client fail (EPIPE, not SIGPIPE) and are counted.
  CHECK(test.RunUntil([&] { return test.relay().down_stats().write_drops == 1; }));
  CHECK(test.relay().up_stats().packets_in == 0);
  // And the server side still reaches the relay.
  Send(d.server_app, "again");
  CHECK(test.RunUntil([&] { return test.relay().down_stats().write_drops == 2; }));
  CHECK(test.relay().down_stats().packets_in == 2);
}

TEST_CASE("LinkRelay: Close with packets in flight frees everything") {
  LinkParams params;
  params.up.delay = Seconds(10);
  params.down.rate_bps = 1000;
  RelayTest test(params);
  REQUIRE(test.relay().Start() == 0);
  Devices& d = test.devices();
  for (int i = 0; i < 20; ++i) Send(d.client_app, std::string(500, 'a'));
  for (int i = 0; i < 20; ++i) Send(d.server_app, std::string(500, 'b'));
  CHECK(test.RunUntil([&] { return test.relay().up_stats().packets_in == 20; }));
  test.CloseRelay();
  std::string packet;
  CHECK(!Receive(d.server_app, &packet));
  // The loop has nothing left open (uv_loop_close in the destructor would fail otherwise).
  CHECK(uv_loop_alive(test.loop()) == 0);
}

TEST_CASE("LinkRelay: Start refuses invalid parameters and bad descriptors, leaving nothing") {
  LinkParams params;
  params.up.queue_packets = 0;
  RelayTest invalid(params);
  CHECK(invalid.relay().Start() == UV_EINVAL);
  invalid.CloseRelay();  // Close without a successful Start still calls back

  uv_loop_t loop;
  uv_loop_init(&loop);
  {
    LinkRelay relay(&loop, -1, -1, LinkParams());
    CHECK(relay.Start() < 0);
    uv_run(&loop, UV_RUN_DEFAULT);  // the handles closed by the failed Start
  }
  Devices d;
  {
    LinkRelay relay(&loop, d.client_dev, -1, LinkParams());
    CHECK(relay.Start() < 0);
    uv_run(&loop, UV_RUN_DEFAULT);
  }
  CHECK(uv_loop_close(&loop) == 0);
}

}  // namespace
}  // namespace netstack
