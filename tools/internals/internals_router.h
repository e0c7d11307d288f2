// InternalsRouter: every request to the internals page goes through here. It enforces the
// page's safety rules, serves the built-in assets, and answers the JSON endpoints
// (docs/internals.md) from the host's stack.
//
// Safety (in this order; each refusal is a JSON error and changes nothing):
//  1. The Host header must name this server (127.0.0.1, localhost or [::1], or the listen
//     address, with its port): a page elsewhere that rebinds its DNS name to 127.0.0.1 is
//     refused (403).
//  2. Paths: only the exact asset paths and /api/ routes exist. A target that is not
//     origin-form, or contains "..", a backslash, or an encoded '.', '/' or '\' in its path, is
//     refused (400 "path refused") before any lookup; nothing is ever read from disk.
//  3. State-changing endpoints are POST only (405 otherwise) and need the per-process token in
//     the X-Netstack-Token header (403 without it or with a wrong one; compared in constant
//     time). A POST body must be JSON (415 otherwise). The token is in index.html as served,
//     never in an API answer.
//  4. Answers are JSON (or the assets), with SecurityHeaders(); the page renders every string
//     as text. Strings from the network go into JSON unchanged (escaped by the serializer; bad
//     UTF-8 replaced).
#ifndef TOOLS_INTERNALS_INTERNALS_ROUTER_H_
#define TOOLS_INTERNALS_INTERNALS_ROUTER_H_

#include <string>

#include "net/base/net_log_ring.h"
#include "net/base/stack_histograms.h"
#include "net/server/http_server_message.h"
#include "net/server/uv_http_server.h"
#include "tools/internals/internals_host.h"

namespace netstack {

class InternalsRouter {
 public:
  struct Options {
    std::string token;           // the per-process token (hex)
    int port = 0;                // the bound port, for the Host check
    std::string listen_address;  // as given to Listen ("127.0.0.1" by default)
    std::string command_line;    // for /api/info and the NetLog export's constants
  };

  // `host`, `ring` and `histograms` must outlive the router.
  InternalsRouter(InternalsHost* host, NetLogRing* ring, StackHistograms* histograms,
                  Options options);
  InternalsRouter(const InternalsRouter&) = delete;
  InternalsRouter& operator=(const InternalsRouter&) = delete;

  // Sets the port once the server is listening (Listen with port 0 picks one).
  void set_port(int port) { options_.port = port; }

  // Answers `request` through `respond`: synchronously for most routes; later (from the loop)
  // for cache entry bodies on the disk backend. `respond` is called exactly once.
  void Handle(const HttpServerRequest& request, UvHttpServer::Respond respond);

 private:
  InternalsHost* const host_;
  NetLogRing* const ring_;
  StackHistograms* const histograms_;
  Options options_;
};

// A fresh random token: 32 hex digits from the system's CSPRNG (OpenSSL RAND_bytes).
std::string MakeInternalsToken();

}  // namespace netstack

#endif  // TOOLS_INTERNALS_INTERNALS_ROUTER_H_
