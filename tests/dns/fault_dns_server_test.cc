// The fault DNS server itself: the replies it builds, and its stand-alone program.
#include "tests/dns/fault_dns_server.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "net/dns/ares_dns_transport.h"
#include "tests/support/live_loop.h"

using namespace netstack;
using test::LiveLoop;

namespace {

// A query for "a.test" type A, id 0x1234, RD set, with an EDNS OPT record the reply drops.
const std::vector<uint8_t> kQuery = {
    0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,  // Header.
    0x01, 'a',  0x04, 't',  'e',  's',  't',  0x00, 0x00, 0x01, 0x00, 0x01,  // Question.
    0x00, 0x00, 0x29, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};       // OPT.
constexpr size_t kQuestionEnd = 24;

}  // namespace

TEST_CASE("fault server replies: same id and question, QR set, the chosen RCODE") {
  auto servfail =
      FaultDnsServer::BuildReply(kQuery.data(), kQuery.size(), FaultDnsServer::Mode::kServfail);
  REQUIRE(servfail.size() == kQuestionEnd);
  CHECK(servfail[0] == 0x12);
  CHECK(servfail[1] == 0x34);
  CHECK(servfail[2] == 0x81);  // QR + RD.
  CHECK((servfail[3] & 0x0F) == 2);
  CHECK(servfail[11] == 0);  // The OPT record is not echoed.
  CHECK(std::equal(servfail.begin() + 12, servfail.end(), kQuery.begin() + 12));

  auto refused =
      FaultDnsServer::BuildReply(kQuery.data(), kQuery.size(), FaultDnsServer::Mode::kRefused);
  CHECK((refused[3] & 0x0F) == 5);

  auto garbage =
      FaultDnsServer::BuildReply(kQuery.data(), kQuery.size(), FaultDnsServer::Mode::kGarbage);
  CHECK((garbage[3] & 0x0F) == 0);
  CHECK(garbage[7] == 1);                     // Claims one answer...
  CHECK(garbage.size() == kQuestionEnd + 5);  // ...cut short after its name and type.

  CHECK(FaultDnsServer::BuildReply(kQuery.data(), kQuery.size(), FaultDnsServer::Mode::kSilent)
            .empty());
  CHECK(FaultDnsServer::BuildReply(kQuery.data(), 5, FaultDnsServer::Mode::kServfail).empty());
  std::vector<uint8_t> response = kQuery;
  response[2] |= 0x80;
  CHECK(
      FaultDnsServer::BuildReply(response.data(), response.size(), FaultDnsServer::Mode::kServfail)
          .empty());
  CHECK(FaultDnsServer::ParseMode("garbage") == FaultDnsServer::Mode::kGarbage);
  CHECK_FALSE(FaultDnsServer::ParseMode("nope"));
}

TEST_CASE("fault_dns_server_main: serves as its own process and exits on SIGTERM") {
  // Bad usage exits 2.
  std::string bad = std::string(FAULT_DNS_SERVER_MAIN) + " --mode nope --port 0 2>/dev/null";
  int status = std::system(bad.c_str());
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 2);

  int out[2];
  REQUIRE(pipe(out) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    execl(FAULT_DNS_SERVER_MAIN, FAULT_DNS_SERVER_MAIN, "--port", "0", "--mode", "servfail",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  FILE* child_stdout = fdopen(out[0], "r");
  char line[256] = {0};
  REQUIRE(fgets(line, sizeof(line), child_stdout));
  unsigned port = 0;
  char mode[32] = {0};
  REQUIRE(std::sscanf(line, "fault_dns_server listening on 127.0.0.1:%u mode %31s", &port, mode) ==
          2);
  CHECK(std::string(mode) == "servfail");

  LiveLoop live;
  {
    AresDnsTransport::Options options;
    options.servers = {IPEndPoint(IPAddress::IPv4(127, 0, 0, 1), static_cast<uint16_t>(port))};
    options.use_search_domains = false;
    options.timeout = Milliseconds(500);
    std::string error;
    auto transport = AresDnsTransport::Create(live.get(), live.scheduler(), options, &error);
    REQUIRE(transport);
    int result = 1;
    auto transaction = transport->StartLookup(
        "a.test", AddressFamily::kIPv4, [&](const DnsTransportResult& r) { result = r.error; });
    REQUIRE(live.RunUntil([&] { return result != 1; }));
    CHECK(result == ERR_DNS_SERVER_FAILED);
  }
  CHECK(live.Shutdown() == 0);

  kill(pid, SIGTERM);
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  fclose(child_stdout);
}
