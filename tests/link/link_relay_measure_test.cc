// Measurements of LinkRelay's own accuracy on a real loop over socketpairs (no TUN, no kernel
// stack): how far the delay and the rate it gives are from what was asked. Hidden ("[.]"), so
// CTest does not run them (their figures depend on the machine); run them with
//   build/tests/link/link_tests "[.measure]"
// They print their figures, and check them only loosely. The measuring side blocks on its
// sockets while the relay runs its loop on a thread.
#include <fcntl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "net/link/link_relay.h"

namespace netstack {
namespace {

int64_t NowUs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000 + ts.tv_nsec / 1000;
}

// A relay between two SOCK_SEQPACKET socketpairs, its loop on a thread of its own, so that the
// measuring side can block on its sockets and adds no polling delay.
struct Bench {
  uv_loop_t loop;
  uv_async_t stop;
  int client_app, client_dev, server_app, server_dev;
  std::unique_ptr<LinkRelay> relay;
  std::thread thread;

  explicit Bench(const LinkParams& params) {
    uv_loop_init(&loop);
    int a[2], b[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, a) == 0);
    REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, b) == 0);
    client_app = a[0];
    client_dev = a[1];
    server_app = b[0];
    server_dev = b[1];
    for (int fd : {client_dev, server_dev}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    relay = std::make_unique<LinkRelay>(&loop, client_dev, server_dev, params);
    REQUIRE(relay->Start() == 0);
    stop.data = this;
    uv_async_init(&loop, &stop, [](uv_async_t* async) {
      Bench* bench = static_cast<Bench*>(async->data);
      bench->relay->Close(
          [bench] { uv_close(reinterpret_cast<uv_handle_t*>(&bench->stop), nullptr); });
    });
    thread = std::thread([this] { uv_run(&loop, UV_RUN_DEFAULT); });
  }
  ~Bench() {
    uv_async_send(&stop);
    thread.join();
    relay.reset();
    uv_loop_close(&loop);
    for (int fd : {client_app, client_dev, server_app, server_dev}) close(fd);
  }
};

double Percentile(std::vector<int64_t> v, double p) {
  std::sort(v.begin(), v.end());
  return static_cast<double>(v[static_cast<size_t>(p * (v.size() - 1))]);
}

TEST_CASE("LinkRelay measure: the RTT it adds, against 2 x 20 ms", "[.measure]") {
  LinkParams params;
  params.up.delay = params.down.delay = Milliseconds(20);
  Bench bench(params);
  std::vector<int64_t> errors_us;
  char buffer[2048];
  for (int i = 0; i < 200; ++i) {
    const int64_t sent = NowUs();
    REQUIRE(send(bench.client_app, "ping", 4, 0) == 4);
    REQUIRE(recv(bench.server_app, buffer, sizeof(buffer), 0) == 4);
    REQUIRE(send(bench.server_app, "pong", 4, 0) == 4);
    REQUIRE(recv(bench.client_app, buffer, sizeof(buffer), 0) == 4);
    errors_us.push_back(NowUs() - sent - 40'000);
  }
  std::printf(
      "RTT over the relay minus 40 ms, 200 pings: median %.0f us, p90 %.0f us, max %.0f us\n",
      Percentile(errors_us, 0.5), Percentile(errors_us, 0.9), Percentile(errors_us, 1));
  CHECK(Percentile(errors_us, 0) >= 0);  // never early
}

TEST_CASE("LinkRelay measure: the throughput it gives, against the rate", "[.measure]") {
  for (int64_t rate : {1'600'000, 10'000'000, 50'000'000}) {
    LinkParams params;
    params.up.rate_bps = rate;
    params.up.delay = Milliseconds(10);
    Bench bench(params);
    const std::string packet(1400, 'x');
    // Keep the queue full for 3 s (a blocking sender on its own thread); count what arrives
    // after the first 0.5 s.
    const int64_t start = NowUs();
    std::thread sender([&] {
      while (NowUs() - start < 3'000'000) send(bench.client_app, packet.data(), packet.size(), 0);
    });
    char buffer[2048];
    int64_t first = 0, last = 0, bytes = 0;
    timeval timeout{0, 200'000};
    setsockopt(bench.server_app, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    ssize_t n;
    while ((n = recv(bench.server_app, buffer, sizeof(buffer), 0)) > 0) {
      const int64_t at = NowUs();
      if (at - start < 500'000) continue;
      if (first == 0) {
        first = at;  // this packet's bytes were serialized before `first`
      } else {
        bytes += n;
        last = at;
      }
    }
    sender.join();
    const double measured = bytes * 8.0 / ((last - first) / 1e6);
    const LinkDirectionStats& stats = bench.relay->up_stats();
    std::printf(
        "rate %.1f Mbit/s: measured %.3f Mbit/s (%+.2f %%), queue drops %llu, max queue %zu "
        "packets\n",
        rate / 1e6, measured / 1e6, (measured / rate - 1) * 100,
        static_cast<unsigned long long>(stats.queue_drops), stats.max_queue_packets);
    CHECK(measured < rate * 1.05);
    CHECK(measured > rate * 0.9);
  }
}

}  // namespace
}  // namespace netstack
