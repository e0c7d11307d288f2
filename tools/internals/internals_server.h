// InternalsServer: the internals page, assembled. It owns the HTTP server (on the caller's
// libuv loop), the router, and what the page keeps of its own (the NetLog ring for the Events
// view and the histograms), and it observes the stack's NetLog. A command makes one, points it
// at its InternalsHost, and runs its loop as usual; requests are answered between the stack's
// callbacks on the same thread.
//
// The server's connection bound follows the process's file descriptor limit
// (UvHttpServer::MaxConnectionsForFdLimit), so local clients that hold connections open are
// evicted or answered 503 rather than starving the page or the stack of descriptors; its counts
// (evictions, 503s, timeouts) are /api/info's "server" object.
#ifndef TOOLS_INTERNALS_INTERNALS_SERVER_H_
#define TOOLS_INTERNALS_INTERNALS_SERVER_H_

#include <uv.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "net/base/net_log.h"
#include "net/base/net_log_ring.h"
#include "net/base/stack_histograms.h"
#include "net/server/uv_http_server.h"
#include "tools/internals/internals_host.h"
#include "tools/internals/internals_router.h"

namespace netstack {

class InternalsServer {
 public:
  struct Options {
    std::string listen_address = "127.0.0.1";
    int port = 0;  // 0: any free port
    std::string command_line;
    // The server's bounds. With `connections_from_fd_limit`, limits.max_connections is
    // replaced by MaxConnectionsForFdLimit(FdSoftLimit()) (tests set their own).
    UvHttpServer::Limits limits;
    bool connections_from_fd_limit = true;
  };

  // `loop` and `host` must outlive the server.
  InternalsServer(uv_loop_t* loop, InternalsHost* host, Options options);
  // Stops observing the NetLog and closes the server's handles (freed in their close
  // callbacks: the loop must run once more, as LiveStack's destructor does).
  ~InternalsServer();
  InternalsServer(const InternalsServer&) = delete;
  InternalsServer& operator=(const InternalsServer&) = delete;

  // Makes the token and listens. Returns false with a one-line `error` ("cannot listen on
  // 127.0.0.1:80: permission denied").
  bool Start(std::string* error);
  // "http://127.0.0.1:PORT/" (brackets for IPv6) once started.
  std::string url() const;
  int port() const { return server_.port(); }
  // The per-process token (hex), for tests that POST without a browser.
  const std::string& token() const { return token_; }

  // Observes `net_log` for the Events and Histograms views (null: stop). A replay calls it at
  // each pass's new stack; the views keep what they gathered before.
  void AttachNetLog(NetLog* net_log);

  // Closes the listener and connections now (the destructor does too).
  void Close() { server_.Close(); }

  NetLogRing& ring() { return ring_; }
  StackHistograms& histograms() { return histograms_; }
  // The HTTP server's counts and bounds.
  UvHttpServer::Stats server_stats() const { return server_.stats(); }
  const UvHttpServer::Limits& server_limits() const { return server_.limits(); }

 private:
  // The host as the router sees it: `host` with the server's counts added to GetInfo().
  class InfoHost;

  const Options options_;
  std::string token_;
  NetLogRing ring_;
  StackHistograms histograms_;
  std::unique_ptr<InfoHost> info_host_;
  InternalsRouter router_;
  UvHttpServer server_;
};

// /api/info's "server" object: the bounds and counts of the page's HTTP server.
nlohmann::json InternalsServerStatsJson(const UvHttpServer::Stats& stats,
                                        const UvHttpServer::Limits& limits);

// The line commands print on stderr when the page is up.
std::string InternalsReadyLine(const InternalsServer& server);

}  // namespace netstack

#endif  // TOOLS_INTERNALS_INTERNALS_SERVER_H_
