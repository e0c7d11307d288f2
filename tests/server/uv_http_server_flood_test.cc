// The internals page's HTTP server under local abuse, on real loopback sockets: hundreds of
// clients that trickle a request head and reconnect as soon as they are closed, and one client
// with real requests. The server's deadlines run on a VirtualScheduler that never moves, so what
// keeps the page usable here is the connection bound's eviction alone. Everything is counted
// (answers, closes, steps of the loop); nothing is timed. The clients are plain non-blocking
// POSIX sockets driven between non-blocking iterations of the server's loop, on one thread.
#include <catch2/catch.hpp>
#include <vector>

#include "net/base/virtual_scheduler.h"
#include "tests/server/flood_clients.h"
#include "tests/server/uv_http_server_test_util.h"

namespace netstack {
namespace {

using namespace server_test;
using namespace flood;

TEST_CASE("server flood: a client is served while 500 slow clients keep reconnecting",
          "[server][flood]") {
  const int kDrippers = 500;
  const size_t kMaxConnections = 100;  // well under the drippers
  const int kVisits = 30;
  REQUIRE(RaiseFdLimit(4096) >= 2 * kDrippers + 200);

  Loop loop;
  VirtualScheduler never_moves;
  UvHttpServer::Limits limits;
  limits.max_connections = kMaxConnections;
  auto server = StartServer(
      loop,
      [](const HttpServerRequest& request, UvHttpServer::Respond respond) {
        HttpServerResponse response;
        response.body = request.path == "/page" ? "{\"page\":true}" : "{}";
        respond(std::move(response));
      },
      limits, &never_moves);
  const int port = server->port();

  std::vector<Dripper> drippers(kDrippers);
  DripCounts drips;
  Visitor visitor;
  visitor.request = "GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  visitor.expect = "{\"page\":true}";
  size_t peak = 0;
  int step = 0;
  const int kMaxSteps = 200'000;  // a bound, so a starved visitor fails instead of hanging
  for (; step < kMaxSteps && visitor.done() < kVisits; ++step) {
    uv_run(loop.get(), UV_RUN_NOWAIT);
    for (Dripper& d : drippers) ServiceDripper(d, port, step % 3 == 0, &drips);
    // The visitor comes once the flood is on: every dripper connected and the bound reached.
    if (step > 20) ServiceVisitor(visitor, port);
    peak = std::max(peak, server->connection_count());
  }
  UvHttpServer::Stats stats = server->stats();
  // The figures, printed (not asserted): how hard the flood pushed.
  WARN("flood: " << visitor.ok << "/" << kVisits << " visits served in " << step << " loop steps; "
                 << drips.connections << " dripper connections, " << stats.evicted_waiting
                 << " evicted with 503, " << stats.rejected_full << " refused with 503, "
                 << drips.closed_without_answer << " closed without an answer");
  CHECK(visitor.ok == kVisits);
  CHECK(visitor.failures.empty());
  // The flood was real: the bound was reached and drippers were pushed out again and again...
  CHECK(peak == kMaxConnections);
  CHECK(stats.peak_open == kMaxConnections);
  CHECK(stats.evicted_waiting >= static_cast<uint64_t>(kDrippers));
  CHECK(drips.connections >= static_cast<uint64_t>(2 * kDrippers));
  // ...and every connection the server closed had an answer first (503 for room; no deadline
  // ran, since virtual time never moved).
  CHECK(drips.closed_without_answer == 0);
  CHECK(drips.closed_with_answer > 0);
  CHECK(drips.statuses.size() == 1);
  CHECK(drips.statuses[503] == drips.closed_with_answer);
  CHECK(stats.head_timeouts == 0);
  CHECK(stats.requests_served == static_cast<uint64_t>(kVisits));

  drippers.clear();
  server.reset();
}

}  // namespace
}  // namespace netstack
