// LinkRelay between two real TUN devices, each in a network namespace of its own, with UDP
// sockets in the namespaces: the link's delay, rate, queue bound and loss as the kernel sees
// them. Needs root, /dev/net/tun, network namespaces and `ip`: skips with the reason where the
// machine lacks them (and fails under NETSTACK_REQUIRE_FIXTURES=1, as in CI). Times are checked
// only from below.
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "net/link/link_relay.h"
#include "tests/test_skip.h"

namespace netstack {
namespace {

constexpr uint16_t kPort = 7000;

int64_t NowUs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000 + ts.tv_nsec / 1000;
}

bool Run(const std::string& command) {
  return std::system((command + " >/dev/null 2>&1").c_str()) == 0;
}

// Why this machine cannot run the test, or "".
std::string Unavailable() {
  if (geteuid() != 0) return "needs root (network namespaces and TUN devices)";
  const int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  if (fd < 0) return std::string("cannot open /dev/net/tun: ") + std::strerror(errno);
  close(fd);
  if (!Run("ip -V")) return "no `ip` program (iproute2)";
  return "";
}

// Two namespaces joined by two TUN devices, 198.18.0.1 (client) and 198.18.0.2 (server), with
// the relay between the devices on a loop of its own thread. Everything is removed on
// destruction.
class TunLink {
 public:
  TunLink() {
    const std::string id = std::to_string(getpid());
    ns_[0] = "linktest-c-" + id;
    ns_[1] = "linktest-s-" + id;
    dev_[0] = "lkc" + id;
    dev_[1] = "lks" + id;
  }
  ~TunLink() {
    if (relay_) {
      uv_async_send(&stop_);
      thread_.join();
      relay_.reset();
      uv_loop_close(&loop_);
    }
    for (int fd : {fd_[0], fd_[1], client_, server_}) {
      if (fd >= 0) close(fd);
    }
    for (const std::string& ns : ns_) Run("ip netns del " + ns);
  }

  // Sets up the namespaces and devices and starts the relay; false with `error_` on failure.
  bool Start(const LinkParams& params) {
    const char* address[2] = {"198.18.0.1", "198.18.0.2"};
    for (int i = 0; i < 2; ++i) {
      if (!Run("ip netns add " + ns_[i])) return Fail("ip netns add " + ns_[i]);
      fd_[i] = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
      ifreq ifr{};
      ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
      std::strncpy(ifr.ifr_name, dev_[i].c_str(), IFNAMSIZ - 1);
      if (fd_[i] < 0 || ioctl(fd_[i], TUNSETIFF, &ifr) < 0) return Fail("TUNSETIFF " + dev_[i]);
      const std::string in = "ip -n " + ns_[i] + " ";
      // No IPv6 on the devices: only the test's packets cross the link.
      for (const std::string& command :
           {"ip netns exec " + ns_[i] + " sysctl -q -w net.ipv6.conf.all.disable_ipv6=1",
            "ip netns exec " + ns_[i] + " sysctl -q -w net.ipv6.conf.default.disable_ipv6=1",
            "ip link set " + dev_[i] + " netns " + ns_[i],
            in + "addr add " + address[i] + " peer " + address[1 - i] + " dev " + dev_[i],
            in + "link set " + dev_[i] + " up"}) {
        if (!Run(command)) return Fail(command);
      }
    }
    client_ = UdpSocketIn(ns_[0], "198.18.0.1");
    server_ = UdpSocketIn(ns_[1], "198.18.0.2");
    if (client_ < 0 || server_ < 0) return Fail("a UDP socket in the namespaces");
    uv_loop_init(&loop_);
    relay_ = std::make_unique<LinkRelay>(&loop_, fd_[0], fd_[1], params);
    if (relay_->Start() != 0) {
      relay_.reset();
      uv_run(&loop_, UV_RUN_DEFAULT);
      uv_loop_close(&loop_);
      relay_failed_ = true;
      return Fail("LinkRelay::Start");
    }
    stop_.data = this;
    uv_async_init(&loop_, &stop_, [](uv_async_t* async) {
      TunLink* link = static_cast<TunLink*>(async->data);
      link->relay_->Close(
          [link] { uv_close(reinterpret_cast<uv_handle_t*>(&link->stop_), nullptr); });
    });
    thread_ = std::thread([this] { uv_run(&loop_, UV_RUN_DEFAULT); });
    return true;
  }

  // Stops the relay (its stats may then be read) and keeps the namespaces.
  const LinkRelay& Stop() {
    uv_async_send(&stop_);
    thread_.join();
    uv_loop_close(&loop_);
    stopped_relay_ = std::move(relay_);
    return *stopped_relay_;
  }

  const std::string& error() const { return error_; }
  // Whether Start failed in the relay itself (a bug), rather than in the machine's setup.
  bool relay_failed() const { return relay_failed_; }
  int client() const { return client_; }  // bound to 198.18.0.1:7000 in the client namespace
  int server() const { return server_; }  // bound to 198.18.0.2:7000 in the server namespace

 private:
  bool Fail(const std::string& what) {
    error_ = "failed: " + what;
    return false;
  }

  // A UDP socket made in namespace `ns` (on a thread that joins it), bound to `address`:7000,
  // with a 3 s receive timeout.
  static int UdpSocketIn(const std::string& ns, const char* address) {
    int result = -1;
    std::thread([&] {
      const int ns_fd = open(("/var/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
      if (ns_fd < 0) return;
      if (setns(ns_fd, CLONE_NEWNET) == 0) {
        const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        sockaddr_in sin{};
        sin.sin_family = AF_INET;
        sin.sin_port = htons(kPort);
        inet_pton(AF_INET, address, &sin.sin_addr);
        timeval timeout{3, 0};
        if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&sin), sizeof(sin)) == 0 &&
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)) == 0) {
          result = fd;
        } else if (fd >= 0) {
          close(fd);
        }
      }
      close(ns_fd);
    }).join();
    return result;
  }

  std::string ns_[2], dev_[2];
  int fd_[2] = {-1, -1};
  int client_ = -1, server_ = -1;
  uv_loop_t loop_;
  uv_async_t stop_;
  std::unique_ptr<LinkRelay> relay_, stopped_relay_;
  std::thread thread_;
  std::string error_;
  bool relay_failed_ = false;
};

sockaddr_in Address(const char* ip) {
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(kPort);
  inet_pton(AF_INET, ip, &sin.sin_addr);
  return sin;
}

void SendTo(int fd, const char* ip, const std::string& payload) {
  const sockaddr_in to = Address(ip);
  REQUIRE(sendto(fd, payload.data(), payload.size(), 0, reinterpret_cast<const sockaddr*>(&to),
                 sizeof(to)) == static_cast<ssize_t>(payload.size()));
}

// One datagram, or "" after the 3 s receive timeout.
std::string Receive(int fd) {
  char buffer[2048];
  const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
  return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : std::string();
}

// Skips (fails under NETSTACK_REQUIRE_FIXTURES=1) where the machine cannot set the link up, e.g.
// root without the right to create namespaces in a container; fails if the relay does not start.
#define START_TUN_LINK(link, params)                                          \
  do {                                                                        \
    const std::string why = Unavailable();                                    \
    if (!why.empty()) SKIP_TEST("TUN link test: " << why);                    \
    if (!(link).Start(params)) {                                              \
      if ((link).relay_failed()) FAIL((link).error());                        \
      SKIP_TEST("TUN link test: cannot set the link up: " << (link).error()); \
    }                                                                         \
  } while (0)

TEST_CASE("LinkRelay over TUN: delays each way, per-address, as the kernel sees them") {
  LinkParams params;
  params.up.delay = Milliseconds(20);
  params.down.delay = Milliseconds(10);
  params.down.delay_by_address[0xC6120002] = Milliseconds(30);  // from 198.18.0.2
  TunLink link;
  START_TUN_LINK(link, params);
  for (int i = 0; i < 3; ++i) {
    const int64_t sent = NowUs();
    SendTo(link.client(), "198.18.0.2", "ping");
    REQUIRE(Receive(link.server()) == "ping");
    const int64_t up = NowUs() - sent;
    SendTo(link.server(), "198.18.0.1", "pong");
    REQUIRE(Receive(link.client()) == "pong");
    CHECK(up >= 20'000);
    CHECK(NowUs() - sent >= 50'000);  // 20 up, 30 down for the server's address
  }
  const LinkRelay& relay = link.Stop();
  CHECK(relay.up_stats().packets_out == 3);
  CHECK(relay.down_stats().packets_out == 3);
}

TEST_CASE("LinkRelay over TUN: the rate spaces the packets out") {
  LinkParams params;
  params.up.rate_bps = 1'000'000;
  TunLink link;
  START_TUN_LINK(link, params);
  // 50 datagrams of 1000 bytes: 1028-byte IP packets, 8.224 ms each at 1 Mbit/s.
  const int64_t sent = NowUs();
  for (int i = 0; i < 50; ++i) SendTo(link.client(), "198.18.0.2", std::string(1000, 'r'));
  for (int i = 0; i < 50; ++i) REQUIRE(Receive(link.server()).size() == 1000);
  CHECK(NowUs() - sent >= 50 * 8'224);
  const LinkRelay& relay = link.Stop();
  CHECK(relay.up_stats().bytes_out == 50 * 1028);
  CHECK(relay.up_stats().queue_drops == 0);
}

TEST_CASE("LinkRelay over TUN: the queue bound drops what exceeds it") {
  LinkParams params;
  params.up.rate_bps = 100'000;  // 82 ms per packet
  params.up.queue_packets = 5;
  TunLink link;
  START_TUN_LINK(link, params);
  for (int i = 0; i < 30; ++i) SendTo(link.client(), "198.18.0.2", std::string(1000, 'q'));
  int received = 0;
  while (!Receive(link.server()).empty()) ++received;  // until 3 s of silence
  const LinkRelay& relay = link.Stop();
  const LinkDirectionStats& up = relay.up_stats();
  CHECK(up.packets_in == 30);
  CHECK(up.packets_out == static_cast<uint64_t>(received));
  CHECK(up.queue_drops == 30 - up.packets_out);
  CHECK(up.queue_drops > 0);
  CHECK(up.max_queue_packets == 5);
}

// Sends 100 numbered datagrams over `link` and returns the numbers that arrived.
std::vector<int> Arrivals(TunLink* link) {
  for (int i = 0; i < 100; ++i) SendTo(link->client(), "198.18.0.2", std::to_string(i));
  std::vector<int> arrived;
  for (std::string got = Receive(link->server()); !got.empty(); got = Receive(link->server())) {
    arrived.push_back(std::stoi(got));  // until 3 s of silence
  }
  const LinkDirectionStats& up = link->Stop().up_stats();
  CHECK(up.packets_in == 100);
  CHECK(up.loss_drops + arrived.size() == 100);
  return arrived;
}

TEST_CASE("LinkRelay over TUN: random loss drops packets, the same ones for the same seed") {
  LinkParams params;
  params.up.loss = 0.3;
  params.seed = 3;
  std::vector<int> first, second;
  {
    TunLink link;
    START_TUN_LINK(link, params);
    first = Arrivals(&link);
  }
  {
    TunLink link;  // the same names again: the first is gone
    START_TUN_LINK(link, params);
    second = Arrivals(&link);
  }
  CHECK(first.size() > 50);  // 70 expected
  CHECK(first.size() < 90);
  CHECK(first == second);
}

}  // namespace
}  // namespace netstack
