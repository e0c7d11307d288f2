// The lab's link from the simulator's vocabulary (BuildLabLinkParams), the shell's addresses and
// nameservers, and the notes on keys the lab cannot emulate: pure functions, no namespace.
#include "tools/lab/lab_link_params.h"

#include <arpa/inet.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "net/link/delivery_trace.h"
#include "tests/support/temp_dir.h"
#include "tools/lab/shell_runner.h"

namespace netstack {
namespace {

uint32_t Address(const char* dotted) {
  in_addr a{};
  REQUIRE(inet_pton(AF_INET, dotted, &a) == 1);
  return ntohl(a.s_addr);
}

NetworkParams Network(std::vector<std::pair<std::string, std::string>> sets) {
  NetworkParams n;
  for (const auto& [key, value] : sets) {
    std::string error;
    REQUIRE(n.Set(key, value, &error));
  }
  return n.Resolved();
}

TEST_CASE("the link takes half the rtt each way and the access link's rates") {
  NetworkParams n = Network({{"rtt_ms", "40.001"}, {"down_kbps", "1600"}, {"up_kbps", "750"}});
  LinkParams link;
  std::string error;
  REQUIRE(BuildLabLinkParams(n, {}, {}, "", &link, &error));
  CHECK(link.up.delay + link.down.delay == TimeDelta(40001));
  CHECK(link.up.delay == TimeDelta(20000));
  CHECK(link.down.rate_bps == 1'600'000);
  CHECK(link.up.rate_bps == 750'000);
  CHECK(link.up.delay_by_address.empty());
  CHECK(link.up.loss == 0);
  CHECK(link.seed == 1);
}

TEST_CASE("a host's own rtt and the DNS server's dns time go by address") {
  NetworkParams n = Network({{"rtt_ms", "40"}, {"dns_ms", "100"}, {"b.lab:rtt_ms", "150"}});
  LinkParams link;
  std::string error;
  REQUIRE(BuildLabLinkParams(n, {}, {{"a.lab", "198.19.0.2"}, {"b.lab", "198.19.0.3"}},
                             "198.19.0.1", &link, &error));
  // a.lab has the default rtt: no entry of its own.
  CHECK(link.up.delay_by_address.count(Address("198.19.0.2")) == 0);
  CHECK(link.up.delay_by_address.at(Address("198.19.0.3")) +
            link.down.delay_by_address.at(Address("198.19.0.3")) ==
        Milliseconds(150));
  CHECK(link.up.delay_by_address.at(Address("198.19.0.1")) +
            link.down.delay_by_address.at(Address("198.19.0.1")) ==
        Milliseconds(100));
}

TEST_CASE("the lab-only flags reach both directions") {
  LabLinkFlags flags;
  flags.loss = 0.25;
  flags.queue_packets = 7;
  flags.queue_bytes = 9000;
  flags.seed = 42;
  LinkParams link;
  std::string error;
  REQUIRE(BuildLabLinkParams(Network({}), flags, {}, "", &link, &error));
  for (const LinkDirectionParams* d : {&link.up, &link.down}) {
    CHECK(d->loss == 0.25);
    CHECK(d->queue_packets == 7);
    CHECK(d->queue_bytes == 9000);
  }
  CHECK(link.seed == 42);
}

TEST_CASE("delivery traces are read, and a bad one is a one-line error naming the flag") {
  test::TempDir dir("lab-trace");
  std::string good = dir.Write("good.up", "1\n1\n2\n");
  std::string bad = dir.Write("bad.down", "1\nabc\n");
  LabLinkFlags flags;
  flags.uplink_trace = good;
  LinkParams link;
  std::string error;
  REQUIRE(BuildLabLinkParams(Network({}), flags, {}, "", &link, &error));
  REQUIRE(link.up.trace);
  CHECK(link.up.trace->opportunities_ms().size() == 3);
  CHECK_FALSE(link.down.trace);
  flags.downlink_trace = bad;
  CHECK_FALSE(BuildLabLinkParams(Network({}), flags, {}, "", &link, &error));
  CHECK(error.rfind("--downlink-trace: ", 0) == 0);
  CHECK(error.find("line 2") != std::string::npos);
  CHECK(error.find('\n') == std::string::npos);
  flags.downlink_trace = dir.Join("missing");
  CHECK_FALSE(BuildLabLinkParams(Network({}), flags, {}, "", &link, &error));
  CHECK(error.rfind("--downlink-trace: ", 0) == 0);
}

TEST_CASE("a host address that is not IPv4 is refused") {
  LinkParams link;
  std::string error;
  NetworkParams n = Network({{"x.lab:rtt_ms", "10"}});
  CHECK_FALSE(BuildLabLinkParams(n, {}, {{"x.lab", "::1"}}, "", &link, &error));
  CHECK(error == "host 'x.lab': '::1' is not an IPv4 address");
}

TEST_CASE("keys the lab cannot emulate are named once") {
  CHECK(LabIgnoredKeysNote(Network({{"rtt_ms", "10"}})) == "");
  NetworkParams lte;
  REQUIRE(lte.ApplyPreset("lte"));
  std::string note = LabIgnoredKeysNote(lte.Resolved());
  CHECK(note.find("radio") != std::string::npos);
  CHECK(LabIgnoredKeysNote(Network({{"init_cwnd", "4"}})) ==
        "the lab does not emulate init_cwnd (the radio model is the simulator's; TCP is the "
        "kernel's): ignored");
}

TEST_CASE("a shell's addresses are a /30 in 198.18.0.0/16 that is not the lab's client's") {
  for (int pid : {1, 2, 16383, 16384, 4194304}) {
    ShellAddresses a = ShellAddressesFor(pid);
    uint32_t client = Address(a.client.c_str()), peer = Address(a.peer.c_str());
    CHECK(peer == client + 1);
    CHECK((client & 3) == 1);
    CHECK((client >> 16) == ((198u << 8) | 18u));
    CHECK(a.client != "198.18.0.1");
    CHECK(a.subnet.size() > 3);
    CHECK(a.subnet.substr(a.subnet.size() - 3) == "/30");
  }
  CHECK(ShellAddressesFor(5).client != ShellAddressesFor(6).client);
}

TEST_CASE("the shell keeps the host's nameservers it can reach") {
  CHECK(ReachableNameservers("nameserver 127.0.0.53\noptions edns0\n").empty());
  CHECK(ReachableNameservers("# c\nnameserver 10.0.0.1\nnameserver ::1\nnameserver 9.9.9.9\n") ==
        std::vector<std::string>{"10.0.0.1", "9.9.9.9"});
  CHECK(ReachableNameservers("nameserver 1.1.1.1\nnameserver 1.0.0.1\nnameserver "
                             "8.8.8.8\nnameserver 8.8.4.4\n")
            .size() == 3);
  CHECK(ReachableNameservers("nameserver\nnameserver x\n").empty());
}

}  // namespace
}  // namespace netstack
