// AresDnsTransport when things go wrong below DNS: no server listening, no memory to post the
// answer, a socket libuv cannot watch, and lookups abandoned mid-flight. Real c-ares on a real
// loop against loopback (a closed port or the in-process FaultDnsServer); failures of memory and
// of libuv are injected. Each test ends with a clean shutdown: uv_loop_close() == 0.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <new>
#include <optional>

#include "net/dns/ares_dns_transport.h"
#include "tests/dns/ares_test_util.h"
#include "tests/dns/fault_dns_server.h"
#include "tests/support/live_loop.h"

using namespace netstack;
using test::LiveLoop;
using namespace std::chrono_literals;

namespace {

// Forwards to a real scheduler, but the next `fail_next` posts throw std::bad_alloc, as an
// allocation inside PostDelayedTask would.
class FailingScheduler : public Scheduler {
 public:
  explicit FailingScheduler(Scheduler& base) : base_(base) {}
  TimeTicks Now() const override { return base_.Now(); }
  TaskId PostDelayedTask(TimeDelta delay, std::function<void()> task) override {
    if (fail_next > 0) {
      --fail_next;
      ++failed;
      throw std::bad_alloc();
    }
    return base_.PostDelayedTask(delay, std::move(task));
  }
  bool CancelTask(TaskId id) override { return base_.CancelTask(id); }

  int fail_next = 0;
  int failed = 0;

 private:
  Scheduler& base_;
};

std::unique_ptr<AresDnsTransport> MakeTransport(LiveLoop& live, Scheduler& scheduler, uint16_t port,
                                                TimeDelta timeout, int tries) {
  return test::MakeLoopbackAresTransport(live, scheduler, port, timeout, tries);
}

// A UDP port on 127.0.0.1 with nothing listening: bound by the kernel's choice, then closed.
uint16_t ClosedUdpPort() {
  int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0);
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0);
  ::close(fd);
  return ntohs(address.sin_port);
}

struct Lookup {
  std::unique_ptr<DnsTransaction> transaction;
  std::optional<DnsTransportResult> result;
  int callbacks = 0;
};

std::unique_ptr<Lookup> StartLookup(DnsTransport& transport, const std::string& name,
                                    AddressFamily family = AddressFamily::kUnspecified) {
  auto lookup = std::make_unique<Lookup>();
  Lookup* raw = lookup.get();
  lookup->transaction = transport.StartLookup(name, family, [raw](const DnsTransportResult& r) {
    raw->result = r;
    ++raw->callbacks;
  });
  return lookup;
}

}  // namespace

TEST_CASE("c-ares: no server listening is ERR_DNS_SERVER_UNREACHABLE, not a refused web server") {
  LiveLoop live;
  {
    const uint16_t port = ClosedUdpPort();
    auto transport = MakeTransport(live, live.scheduler(), port, Milliseconds(2000), 2);
    auto lookup = StartLookup(*transport, "a.test");
    // The kernel answers each query with ICMP port unreachable: no timeout is waited out.
    REQUIRE(live.RunUntil([&] { return lookup->result.has_value(); }, 1500ms));
    CHECK(lookup->result->error == ERR_DNS_SERVER_UNREACHABLE);
    CHECK(lookup->result->error != ERR_CONNECTION_REFUSED);
    CHECK(ErrorToMessage(lookup->result->error) == "DNS server unreachable");
    CHECK(lookup->result->detail ==
          "cannot reach 127.0.0.1:" + std::to_string(port) + " (port closed or no route)");
  }
  CHECK(live.Shutdown() == 0);
}

TEST_CASE("c-ares: out of memory posting the answer completes the lookup with ERR_OUT_OF_MEMORY") {
  // 1: the post inside the c-ares callback fails; 2: the retry right after it fails too, and the
  // transport's timer retries.
  for (int failures : {1, 2}) {
    INFO("failed posts: " << failures);
    LiveLoop live;
    {
      FaultDnsServer server(live.get());
      REQUIRE(server.Start(FaultDnsServer::Mode::kServfail) == 0);
      FailingScheduler scheduler(live.scheduler());
      auto transport = MakeTransport(live, scheduler, server.port(), Milliseconds(2000), 1);
      auto lookup = StartLookup(*transport, "a.test", AddressFamily::kIPv4);
      scheduler.fail_next = failures;  // The next post is the answer's delivery.
      REQUIRE(live.RunUntil([&] { return lookup->result.has_value(); }, 1500ms));
      CHECK(scheduler.failed == failures);
      CHECK(lookup->callbacks == 1);
      CHECK(lookup->result->error == ERR_OUT_OF_MEMORY);
      CHECK(lookup->result->addresses.empty());
      CHECK(lookup->result->detail == "out of memory delivering the answer");
      lookup.reset();
      CHECK(transport->active_transactions() == 0);
    }
    CHECK(live.Shutdown() == 0);
  }
}

TEST_CASE("c-ares: abandoning the last lookup stops c-ares's retries and closes its sockets") {
  LiveLoop live;
  {
    FaultDnsServer server(live.get());
    REQUIRE(server.Start(FaultDnsServer::Mode::kSilent) == 0);
    // Without cancelling, c-ares would wait 60 s for this silent server.
    auto transport = MakeTransport(live, live.scheduler(), server.port(), Milliseconds(60000), 1);
    auto lookup = StartLookup(*transport, "a.test");
    REQUIRE(live.RunUntil([&] { return server.queries() >= 2; }));
    CHECK(transport->open_sockets() >= 1);
    lookup->transaction.reset();
    CHECK(live.RunUntil([&] { return transport->open_sockets() == 0; }, 1000ms));
    CHECK(lookup->callbacks == 0);
    // The channel still works afterwards.
    server.set_mode(FaultDnsServer::Mode::kServfail);
    auto next = StartLookup(*transport, "b.test");
    REQUIRE(live.RunUntil([&] { return next->result.has_value(); }));
    CHECK(next->result->error == ERR_DNS_SERVER_FAILED);
  }
  CHECK(live.Shutdown() == 0);
}

namespace {
int RefuseInit(uv_loop_t*, uv_poll_t*, int) { return UV_EMFILE; }
int RefuseStart(uv_poll_t*, int, uv_poll_cb) { return UV_EINVAL; }
}  // namespace

TEST_CASE("c-ares: a socket libuv will not watch fails the lookup with the libuv error") {
  struct Case {
    const char* name;
    AresDnsTransport::PollFunctions functions;
    int error;
    std::string detail;
  };
  AresDnsTransport::PollFunctions init_fails;
  init_fails.init = &RefuseInit;
  AresDnsTransport::PollFunctions start_fails;
  start_fails.start = &RefuseStart;
  for (const Case& c :
       {Case{"uv_poll_init", init_fails, ERR_INSUFFICIENT_RESOURCES,
             "cannot watch the DNS socket: uv_poll_init failed: too many open files"},
        Case{"uv_poll_start", start_fails, ERR_INVALID_ARGUMENT,
             "cannot watch the DNS socket: uv_poll_start failed: invalid argument"}}) {
    INFO(c.name);
    LiveLoop live;
    {
      FaultDnsServer server(live.get());
      REQUIRE(server.Start(FaultDnsServer::Mode::kServfail) == 0);
      // Without the fix the lookup would wait out 60 s and say ERR_DNS_TIMED_OUT.
      auto transport = MakeTransport(live, live.scheduler(), server.port(), Milliseconds(60000), 1);
      transport->SetPollFunctionsForTesting(c.functions);
      auto first = StartLookup(*transport, "a.test");
      auto second = StartLookup(*transport, "b.test", AddressFamily::kIPv4);
      CHECK(first->callbacks == 0);  // Never inside StartLookup().
      REQUIRE(live.RunUntil([&] { return first->result.has_value() && second->result.has_value(); },
                            1000ms));
      CHECK(first->result->error == c.error);
      CHECK(first->result->detail == c.detail);
      CHECK(second->result->error == c.error);
      CHECK(transport->open_sockets() == 0);  // c-ares closed the unwatched socket.

      // Once libuv cooperates again, the channel works: c-ares opened a fresh socket.
      transport->SetPollFunctionsForTesting({});
      auto next = StartLookup(*transport, "c.test");
      REQUIRE(live.RunUntil([&] { return next->result.has_value(); }));
      CHECK(next->result->error == ERR_DNS_SERVER_FAILED);
      CHECK(next->result->detail == "SERVFAIL from 127.0.0.1:" + std::to_string(server.port()));
      CHECK(first->callbacks == 1);
    }
    CHECK(live.Shutdown() == 0);
  }
}

// ARES_FLAG_STAYOPEN: c-ares used to close its socket whenever its last query was answered, so a
// resolver that starts its next lookup from the answer's task opened a socket every few lookups.
// The socket now lives while any transaction does, and closes when the last one goes. The
// single c-ares timer is no longer re-posted after every call; a lookup to a silent server after
// answered ones must still time out.
TEST_CASE("c-ares: the socket stays open while transactions live, and timeouts still fire") {
  LiveLoop live;
  {
    FaultDnsServer server(live.get());
    REQUIRE(server.Start(FaultDnsServer::Mode::kServfail) == 0);
    auto transport = MakeTransport(live, live.scheduler(), server.port(), Milliseconds(200), 1);
    auto first = StartLookup(*transport, "a.test", AddressFamily::kIPv4);
    REQUIRE(live.RunUntil([&] { return first->result.has_value(); }));
    CHECK(first->result->error == ERR_DNS_SERVER_FAILED);
    // Answered, but `first` still holds its transaction: the socket is kept for the next one.
    CHECK(transport->open_sockets() == 1);
    auto second = StartLookup(*transport, "b.test", AddressFamily::kIPv4);
    REQUIRE(live.RunUntil([&] { return second->result.has_value(); }));
    CHECK(second->result->error == ERR_DNS_SERVER_FAILED);
    CHECK(transport->open_sockets() == 1);

    server.set_mode(FaultDnsServer::Mode::kSilent);
    auto silent = StartLookup(*transport, "c.test", AddressFamily::kIPv4);
    REQUIRE(live.RunUntil([&] { return silent->result.has_value(); }, 5000ms));
    CHECK(silent->result->error == ERR_DNS_TIMED_OUT);
    CHECK(silent->callbacks == 1);

    // The last transaction gone, the socket closes (and the loop has nothing to keep it alive).
    first.reset();
    second.reset();
    CHECK(transport->open_sockets() == 1);
    silent.reset();
    CHECK(transport->open_sockets() == 0);
    CHECK(transport->active_transactions() == 0);

    // And the recycled channel works.
    server.set_mode(FaultDnsServer::Mode::kServfail);
    auto next = StartLookup(*transport, "d.test", AddressFamily::kIPv4);
    REQUIRE(live.RunUntil([&] { return next->result.has_value(); }));
    CHECK(next->result->error == ERR_DNS_SERVER_FAILED);
  }
  CHECK(live.Shutdown() == 0);
}
